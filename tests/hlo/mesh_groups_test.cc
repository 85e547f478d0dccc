// Replica groups over mesh axes, the form jaxlib 0.10 writes for every
// collective of a jit-sharded program: `replica_groups=mesh['axis_0'=4,
// 'axis_1'=2] {'axis_1'}` in text, HloInstructionProto field 93
// (mesh_axes_replica_group_list) in a proto. The group lists below follow
// XLA's MeshAxesReplicaGroupList (xla/hlo/ir/replica_group.cc and its tests).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/hlo/replica_groups.hpp"
#include "roofline/trace/read.hpp"
#include "tests/hlo/hlo_proto_writer.hpp"
#include "tests/hlo/hlo_test_support.hpp"
#include "tests/test_support.hpp"

using roofline::HloModule;
using Groups = std::vector<std::vector<std::int64_t>>;

namespace {

Groups groups_of(const std::string& text) {
  auto g = roofline::parse_replica_groups(text);
  INFO(text << ": " << g.status().message());
  REQUIRE(g.ok());
  CHECK_FALSE(g->all_devices);
  CHECK(g->num_groups == static_cast<std::int64_t>(g->groups.size()));
  for (const auto& one : g->groups) CHECK(static_cast<std::int64_t>(one.size()) == g->group_size);
  return g->groups;
}

std::string groups_error(const std::string& text) {
  auto g = roofline::parse_replica_groups(text);
  REQUIRE_FALSE(g.ok());
  return std::string(g.status().message());
}

roofline::HloCollective collective(const HloModule& m, const char* name) {
  const roofline::HloInstruction* i = m.instruction(name);
  REQUIRE(i != nullptr);
  const roofline::HloCost c = roofline::cost(*i);
  REQUIRE(c.collective);
  return *c.collective;
}

double t_ici(const HloModule& m, const char* name, const char* chip) {
  const roofline::HloInstruction* i = m.instruction(name);
  REQUIRE(i != nullptr);
  return roofline::predict(*i, roofline::chip(chip)).t_ici_s;
}

}  // namespace

TEST_CASE("mesh replica groups: the devices that differ only along the listed axes") {
  // XLA's MeshAxesReplicaGroupListTest.MaterializedReplicaGroups, mesh x=2,y=2.
  CHECK(groups_of("mesh['x'=2,'y'=2] {'x'}") == Groups{{0, 2}, {1, 3}});
  CHECK(groups_of("mesh['x'=2,'y'=2] {'y'}") == Groups{{0, 1}, {2, 3}});
  CHECK(groups_of("mesh['x'=2,'y'=2] {'x','y'}") == Groups{{0, 1, 2, 3}});
  // Names without quotes (XLA before late 2025 printed them so).
  CHECK(groups_of("mesh[x=2,y=2] {x}") == Groups{{0, 2}, {1, 3}});
  // jaxlib 0.10 on a 1-D mesh of 8: one group of every device.
  CHECK(groups_of("mesh['axis_0'=1,'axis_1'=8] {'axis_1'}") == Groups{{0, 1, 2, 3, 4, 5, 6, 7}});
  CHECK(groups_of("mesh['axis_0'=4,'axis_1'=2] {'axis_1'}") == Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(groups_of("mesh['axis_0'=4,'axis_1'=2] {'axis_0'}") == Groups{{0, 2, 4, 6}, {1, 3, 5, 7}});
}

TEST_CASE("mesh replica groups: sub-axes split one mesh dimension") {
  // XLA's comment on GetDimToReshapeAndAggregateAxes, mesh a=8:
  // {a:(1)2} reshapes [8] to [1,2,4] and groups part 1 (stride 4);
  CHECK(groups_of("mesh['a'=8] {'a':(1)2}") == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // {a:(1)2,a:(4)2} reshapes it to [2,2,2] and groups parts 0 and 2.
  CHECK(groups_of("mesh['a'=8] {'a':(1)2,'a':(4)2}") == Groups{{0, 1, 4, 5}, {2, 3, 6, 7}});
  CHECK(groups_of("mesh['a'=8] {'a':(2)2}") == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
}

TEST_CASE("mesh replica groups: device_ids give the mesh's devices when they are not in iota order") {
  // jax Mesh(devices.reshape(2,4).T): the mesh's devices are iota(8) as
  // [4,2] transposed, [[0,2,4,6],[1,3,5,7]]; along axis_0 pairs of rows.
  CHECK(groups_of("mesh['axis_0'=2,'axis_1'=4], device_ids=([4,2]T(1,0)) {'axis_0'}") ==
        Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(groups_of("mesh['axis_0'=2,'axis_1'=4], device_ids=([4,2]T(1,0)) {'axis_1'}") ==
        Groups{{0, 2, 4, 6}, {1, 3, 5, 7}});
  // Every id listed, row-major in mesh order.
  CHECK(groups_of("mesh['a'=2,'b'=2], device_ids=(3,1,2,0) {'b'}") == Groups{{3, 1}, {2, 0}});
}

TEST_CASE("mesh replica groups: what does not describe a mesh is refused with the reason") {
  CHECK(groups_error("mesh['a'=2] {'b'}") == "mesh replica groups: axis 'b' is not in the mesh");
  CHECK(groups_error("mesh['a'=2] {}") == "mesh replica groups: no axis is selected (a group of one device)");
  CHECK(groups_error("mesh['a'=2,'b'=2], device_ids=(0,1,2) {'a'}") ==
        "mesh replica groups: 3 device ids for a mesh of 4");
  CHECK(groups_error("mesh['a'=2,'b'=2], device_ids=(0,1,1,2) {'a'}") ==
        "mesh replica groups: device ids are not a permutation of 0..N-1");
  CHECK(groups_error("mesh['a'=8] {'a':(3)2}") ==
        "mesh replica groups: sub-axis 'a':(3)2 does not divide an axis of 8");
  CHECK(groups_error("mesh['a'=8] {'a','a':(1)2}") == "mesh replica groups: axis 'a' is listed whole and again");
  CHECK(groups_error("mesh['a'=2,'a'=2] {'a'}") == "mesh replica groups: axis 'a' is named twice");
  CHECK(groups_error("mesh['a'=2 {'a'}") == "offset 11: expected ',' or ']'");
}

// The jit-sharded fixtures of scripts/make_hlo_fixtures.py, each as text and
// as the proto of the same executable. Times on tpu-v5e (hardware/tpu-v5e.json:
// W = 4.5e10 B/s a link one way, T_min = 1 us a hop, rings wrap only at 16):
// a group of X on one ring without wraparound, collectives/network_dim.hpp:
//   all-gather  bytes/link V/X, X-1 hops
//   all-reduce  bytes/link 2 V/X, 2 hops
//   T = max(bytes/link / W, hops x T_min)
TEST_CASE("mesh replica groups: jax 0.10 fixtures give each collective its group, text and proto alike") {
  for (const char* ext : {".hlo.txt", ".hlo.pb"}) {
    INFO(ext);
    const HloModule matmul = roofline::testing::must_read(std::string("mesh_matmul") + ext);
    // mesh['axis_0'=1,'axis_1'=8] {'axis_1'}; V = f32[64,32] = 8192 B:
    // 14 x 8192/8 / 4.5e10 = 0.32 us < 14 hops x 1 us.
    CHECK(collective(matmul, "all-reduce").group_size == 8);
    CHECK(collective(matmul, "all-reduce").num_groups == 1);
    CHECK(t_ici(matmul, "all-reduce", "tpu-v5e") == Approx(14e-6));

    const HloModule grid = roofline::testing::must_read(std::string("mesh_4x2") + ext);
    // mesh['axis_0'=4,'axis_1'=2] {'axis_1'} for both. all-reduce of
    // f32[16] (64 B): 2 hops; all-gather to f32[16,128] (8192 B):
    // 8192/2 / 4.5e10 = 0.09 us < 1 hop.
    CHECK(collective(grid, "all-reduce").group_size == 2);
    CHECK(collective(grid, "all-reduce").num_groups == 4);
    CHECK(t_ici(grid, "all-reduce", "tpu-v5e") == Approx(2e-6));
    CHECK(collective(grid, "all-gather").group_size == 2);
    CHECK(t_ici(grid, "all-gather", "tpu-v5e") == Approx(1e-6));

    const HloModule turned = roofline::testing::must_read(std::string("mesh_device_ids") + ext);
    // all-reduce over mesh['axis_0'=4,'axis_1'=2] {'axis_0'}: groups of 4,
    // f32[64] (256 B): 6 hops. all-gather over mesh['axis_0'=2,'axis_1'=4],
    // device_ids=([4,2]T(1,0)) {'axis_0'}: pairs, f32[128] (512 B): 1 hop.
    CHECK(collective(turned, "all-reduce").group_size == 4);
    CHECK(collective(turned, "all-reduce").num_groups == 2);
    CHECK(t_ici(turned, "all-reduce", "tpu-v5e") == Approx(6e-6));
    CHECK(collective(turned, "all-gather").group_size == 2);
    CHECK(collective(turned, "all-gather").num_groups == 4);
    CHECK(t_ici(turned, "all-gather", "tpu-v5e") == Approx(1e-6));
    // The module's partitions: num_partitions=8 in text, the device
    // assignment's computation_count in the proto.
    CHECK(turned.config().num_partitions == 8);
  }
}

TEST_CASE("mesh replica groups: text and proto of the same module give the same replica_groups attribute") {
  for (const char* base : {"mesh_matmul", "mesh_4x2", "mesh_device_ids"}) {
    INFO(base);
    const HloModule text = roofline::testing::must_read(std::string(base) + ".hlo.txt");
    const HloModule proto = roofline::testing::must_read(std::string(base) + ".hlo.pb");
    int collectives = 0;
    for (const roofline::HloComputation& c : text.computations())
      for (const roofline::HloInstruction& i : c.instructions) {
        if (i.attribute("replica_groups").empty()) continue;
        INFO(i.name);
        const roofline::HloInstruction* p = proto.instruction(i.name);
        REQUIRE(p != nullptr);
        CHECK(p->attribute("replica_groups") == i.attribute("replica_groups"));
        ++collectives;
      }
    CHECK(collectives > 0);
  }
}

TEST_CASE("mesh replica groups: the proto fields jaxlib 0.10 writes, one by one") {
  using Msg = roofline::testing::PbMessage;
  namespace f = roofline::testing::hlo_field;
  // A module of one all-reduce over f32[1024] whose groups are given by
  // `groups` (called on the instruction), on a device assignment of 2 x 4.
  auto module = [](auto groups) {
    Msg m;
    m.s(f::kModuleName, "m").i(f::kEntryComputationId, 1);
    m.one(f::kDeviceAssignment).i(f::kReplicaCount, 2).i(f::kComputationCount, 4);
    Msg& add = m.add(f::kComputations);
    add.s(f::kComputationName, "add").i(f::kComputationId, 2).i(f::kRootId, 12);
    for (int k = 0; k < 2; ++k) {
      Msg& p = add.add(f::kInstructions);
      p.s(f::kName, k ? "b" : "a").s(f::kOpcode, "parameter").i(f::kId, 10 + k).i(f::kParameterNumber, k);
      p.one(f::kShape).i(f::kElementType, 11);
    }
    Msg& s = add.add(f::kInstructions);
    s.s(f::kName, "s").s(f::kOpcode, "add").i(f::kId, 12).packed(f::kOperandIds, {10, 11});
    s.one(f::kShape).i(f::kElementType, 11);
    Msg& e = m.add(f::kComputations);
    e.s(f::kComputationName, "main").i(f::kComputationId, 1).i(f::kRootId, 21);
    Msg& x = e.add(f::kInstructions);
    x.s(f::kName, "x").s(f::kOpcode, "parameter").i(f::kId, 20);
    x.one(f::kShape).i(f::kElementType, 11).packed(f::kShapeDimensions, {1024});
    Msg& ar = e.add(f::kInstructions);
    ar.s(f::kName, "ar").s(f::kOpcode, "all-reduce").i(f::kId, 21).packed(f::kOperandIds, {20});
    ar.packed(f::kCalledComputationIds, {2});
    ar.one(f::kShape).i(f::kElementType, 11).packed(f::kShapeDimensions, {1024});
    groups(ar);
    auto read = roofline::parse_hlo_proto(m.str(), "m.pb");
    INFO(read.status().message());
    REQUIRE(read.ok());
    return std::move(*read);
  };
  SECTION("mesh_axes_replica_group_list (93), with an iota transform and a sub-axis") {
    const HloModule m = module([](Msg& ar) {
      Msg& list = ar.one(f::kMeshAxesReplicaGroupList);
      Msg& mesh = list.one(f::kMesh);
      mesh.add(f::kMeshAxis).s(f::kAxisName, "axis_0").i(f::kAxisSize, 2);
      mesh.add(f::kMeshAxis).s(f::kAxisName, "axis_1").i(f::kAxisSize, 4);
      mesh.one(f::kMeshIotaTransform).packed(1, {4, 2}).packed(2, {1, 0});
      list.add(f::kMeshAxes);  // axis_0 (index 0 is the default, not written)
      list.add(f::kMeshAxes).i(f::kMeshAxisIndex, 1).one(f::kSubAxisInfo).i(f::kPreSize, 2).i(f::kSubAxisSize, 2);
      ar.i(f::kChannelId, 1).i(f::kUseGlobalDeviceIds, 1);
    });
    CHECK(m.instruction("ar")->attribute("replica_groups") ==
          "mesh['axis_0'=2,'axis_1'=4], device_ids=([4,2]T(1,0)) {'axis_0','axis_1':(2)2}");
    CHECK(collective(m, "ar").group_size == 4);
    CHECK(collective(m, "ar").num_groups == 2);
  }
  SECTION("iota_collective_device_list (92)") {
    const HloModule m = module([](Msg& ar) {
      ar.one(f::kIotaCollectiveDeviceList)
          .i(f::kNumReplicaGroups, 4)
          .i(f::kNumDevicesPerGroup, 2)
          .packed(f::kIotaReshapeDims, {2, 4})
          .packed(f::kIotaTransposePerm, {1, 0});
    });
    CHECK(m.instruction("ar")->attribute("replica_groups") == "[4,2]<=[2,4]T(1,0)");
    CHECK(collective(m, "ar").group_size == 2);
  }
  SECTION("no groups: all devices, counted from the device assignment") {
    // replica_groups={} without a channel id: the replicas (2); with one:
    // the partitions (4); with use_global_device_ids: both (8).
    CHECK(collective(module([](Msg&) {}), "ar").group_size == 2);
    CHECK(collective(module([](Msg& ar) { ar.i(f::kChannelId, 1); }), "ar").group_size == 4);
    CHECK(collective(module([](Msg& ar) { ar.i(f::kChannelId, 1).i(f::kUseGlobalDeviceIds, 1); }), "ar")
              .group_size == 8);
  }
  SECTION("a mesh axis index outside the mesh leaves the collective untimed, with its note") {
    const HloModule m = module([](Msg& ar) {
      Msg& list = ar.one(f::kMeshAxesReplicaGroupList);
      list.one(f::kMesh).add(f::kMeshAxis).s(f::kAxisName, "axis_0").i(f::kAxisSize, 8);
      list.add(f::kMeshAxes).i(f::kMeshAxisIndex, 3);
    });
    const roofline::HloCost c = roofline::cost(*m.instruction("ar"));
    CHECK(c.flags.collective_not_timed);
    CHECK(roofline::predict(*m.instruction("ar"), roofline::chip("tpu-v5e")).t_ici_s == 0);
  }
}

// The real v6e profile (SOURCES.md): libprotobuf's arena misbehaved on its
// jit_f module; the wire decoder reads every module embedded in the XSpace.
TEST_CASE("mesh replica groups: the v6e profile's embedded modules read, jit_f and the psum among them") {
  const auto path = roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  auto trace = roofline::read_trace(path.string());
  INFO(trace.status().message());
  REQUIRE(trace.ok());
  bool saw_f = false, saw_psum = false;
  for (const roofline::HloModuleBytes& b : trace->hlo_modules) {
    INFO(b.module);
    auto m = roofline::parse_hlo_proto(b.bytes, b.module);
    INFO(m.status().message());
    REQUIRE(m.ok());
    if (b.module == "jit_f") {
      saw_f = true;
      // derived/tpu_v6e_x4_inference_2.hlo_modules.txt lists 31 instructions.
      CHECK(m->instruction_count() == 31);
    }
    if (b.module == "jit__psum") {
      saw_psum = true;
      // replica_groups=[4,2]<=[2,4]T(1,0): pairs {i, i+4}. V = f32[5,1024,1024,256]
      // = 5,368,709,120 B; a pair without wraparound on v6e (W = 9e10 B/s):
      // all-reduce bytes/link 2 (2-1) V/2 = V, T = V / W = 59.65 ms.
      CHECK(collective(*m, "all-reduce").group_size == 2);
      CHECK(t_ici(*m, "all-reduce", "tpu-v6e") == Approx(5368709120.0 / 9e10));
    }
  }
  CHECK(saw_f);
  CHECK(saw_psum);
}
