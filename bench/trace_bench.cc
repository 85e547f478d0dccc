// Read throughput of the trace readers, next to the limits of the same bytes:
// reading them (cat) and inflating them (zcat). Inputs: the largest real
// traces in ../shared/data/real (when present) and traces generated here, a
// Kineto-style JSON (plain and .gz) and an XSpace of ROOFLINE_TRACE_BENCH_MB
// megabytes each (default 16; docs/traces.md used 500).
//
// Also measured, on the same inputs, the alternatives the readers were chosen
// over: libprotobuf (a generated XSpace class feeding the same assembler the
// wire decoder feeds), nlohmann's SAX parser and simdjson's On-Demand API.
// Peak memory: each case is run once more in a fresh process (this binary,
// re-executed) and its ru_maxrss reported as peak_rss_MB.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "roofline/trace/read.hpp"
#include "src/trace/xplane/xplane_assembler.hpp"
#include "tests/trace/xspace_writer.hpp"
#include "xplane_bench.pb.h"
#ifdef ROOFLINE_BENCH_SIMDJSON
#include <simdjson.h>
#endif

namespace fs = std::filesystem;
using roofline::testing::Pb;
namespace rt = roofline::testing;

namespace {

// ---------------------------------------------------------------- inputs

std::uint64_t file_size(const std::string& p) { return static_cast<std::uint64_t>(fs::file_size(p)); }

// Bytes of a file after gunzip.
std::uint64_t inflated_size(const std::string& p) {
  gzFile f = gzopen(p.c_str(), "rb");
  std::vector<char> buf(1 << 20);
  std::uint64_t n = 0;
  int k;
  while ((k = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0) n += static_cast<std::uint64_t>(k);
  gzclose(f);
  return n;
}

// A Kineto-like trace: per "step" a cpu_op with Input Dims, its runtime
// launch, the kernel on one of two streams, and a python_function frame.
void write_kineto_json(const std::string& path, std::uint64_t target_bytes) {
  std::ofstream out(path, std::ios::binary);
  std::string buf;
  buf += R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],)";
  buf += "\n\"baseTimeNanoseconds\": 1751410836000000000,\n\"traceEvents\": [\n";
  static const char* kKernels[] = {
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
      "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
      "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, false, true, false, false>(pytorch_flash::Flash_fwd_params)",
      "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"};
  static const char* kOps[] = {"aten::mm", "aten::copy_", "aten::_flash_attention_forward", "record_param_comms"};
  std::mt19937_64 rng(42);
  std::uint64_t written = 0, ext = 1;
  double ts = 1428625731896.179;
  bool first = true;
  while (written + buf.size() < target_bytes) {
    const int k = static_cast<int>(rng() % 4);
    const int m = 64 << (rng() % 8), n = 128 << (rng() % 6);
    char ev[4096];
    const double dur = 5.0 + static_cast<double>(rng() % 100000) / 1000.0;
    int len = std::snprintf(
        ev, sizeof ev,
        "%s{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/nn/modules/module.py(1750): _call_impl\", \"pid\": 25286, \"tid\": 25286, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"Python parent id\": %llu, \"Python id\": %llu, \"Ev Idx\": %llu}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 25286, \"tid\": 25286, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %llu, \"Record function id\": 0, \"Input Dims\": [[%d, %d], [%d, %d]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], \"Ev Idx\": %llu}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 25286, \"tid\": 25286, \"ts\": %.3f, \"dur\": 4.211, \"args\": {\"External id\": %llu, \"cbid\": 211, \"correlation\": %llu}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %llu, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": %d, \"correlation\": %llu, \"registers per thread\": 168, \"shared memory\": 49152, \"blocks per SM\": 0.969697, \"warps per SM\": 7.757576, \"grid\": [128, 1, 1], \"block\": [256, 1, 1], \"est. achieved occupancy %%\": 12}}",
        first ? "" : ",\n", ts, dur + 20, static_cast<unsigned long long>(ext), static_cast<unsigned long long>(ext + 1),
        static_cast<unsigned long long>(ext), kOps[k], ts + 1, dur + 10, static_cast<unsigned long long>(ext), m, n, n,
        m, static_cast<unsigned long long>(ext), ts + 2, static_cast<unsigned long long>(ext),
        static_cast<unsigned long long>(ext + 1000000), kKernels[k], k == 3 ? 20 : 7, ts + 15, dur,
        static_cast<unsigned long long>(ext), k == 3 ? 20 : 7, static_cast<unsigned long long>(ext + 1000000));
    first = false;
    buf.append(ev, static_cast<std::size_t>(len));
    ts += dur + 25;
    ++ext;
    if (buf.size() > (4u << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      written += buf.size();
      buf.clear();
    }
  }
  buf += "\n],\n\"traceName\": \"generated\"}\n";
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void gzip_file(const std::string& in, const std::string& out) {
  std::ifstream f(in, std::ios::binary);
  gzFile g = gzopen(out.c_str(), "wb6");
  std::vector<char> buf(1 << 20);
  while (f) {
    f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (f.gcount() > 0) gzwrite(g, buf.data(), static_cast<unsigned>(f.gcount()));
  }
  gzclose(g);
}

// An XSpace with a TPU plane (XLA Ops events, per-op metadata with HLO text and
// cost stats) and a GPU plane (kernels with hlo_op/hlo_module/correlation
// stats), each about half of `target_bytes`.
void write_xspace(const std::string& path, std::uint64_t target_bytes) {
  std::mt19937_64 rng(7);
  auto plane = [&](bool gpu) {
    Pb p;
    p.sint(1, gpu ? 0 : 2).bytes(2, gpu ? "/device:GPU:0" : "/device:TPU:0");
    const int n_ops = 400;
    std::uint64_t bytes = 0;
    std::int64_t t = 0;
    int line_id = 0;
    while (bytes < target_bytes / 2) {
      Pb line;
      line.sint(1, ++line_id).bytes(2, gpu ? "Stream #7(Kernel)" : "XLA Ops").sint(3, 0);
      for (int i = 0; i < 100000; ++i) {
        const std::int64_t md = 100 + static_cast<std::int64_t>(rng() % n_ops);
        const std::int64_t dur = 1000000 + static_cast<std::int64_t>(rng() % 100000000);
        Pb stats;
        if (gpu)
          stats.msg(4, rt::stat_ref(1, 1000 + static_cast<std::uint64_t>(md % 50)))
              .msg(4, rt::stat_ref(2, 2000 + static_cast<std::uint64_t>(md)))
              .msg(4, rt::stat_int(3, md % 50))
              .msg(4, rt::stat_uint(4, static_cast<std::uint64_t>(t / 1000)));
        line.msg(4, rt::event(md, t, dur, stats));
        t += dur + 500000;
      }
      bytes += line.str().size();
      p.msg(3, line);
    }
    for (int i = 0; i < n_ops; ++i) {
      const std::string name = "fusion." + std::to_string(i);
      if (gpu) {
        p.msg(4, rt::event_metadata(100 + i, "loop_fusion_" + std::to_string(i) + "_kernel"));
      } else {
        const std::string hlo = "%" + name + " = bf16[8192,8192]{1,0:T(8,128)(2,1)} fusion(bf16[8192,8192]{1,0:T(8,128)(2,1)} %p0, bf16[8192,8192]{1,0:T(8,128)(2,1)} %p1), kind=kLoop, calls=%fused_computation." + std::to_string(i);
        p.msg(4, rt::event_metadata(100 + i, hlo, name,
                                    Pb().msg(5, rt::stat_str(5, "loop fusion"))
                                        .msg(5, rt::stat_uint(3, 12190760917235803885ull))
                                        .msg(5, rt::stat_int(6, 1 << 28))
                                        .msg(5, rt::stat_int(7, 1 << 27))));
      }
    }
    for (auto [id, name] : std::initializer_list<std::pair<int, const char*>>{
             {1, "hlo_module"}, {2, "hlo_op"}, {3, "program_id"}, {4, "correlation_id"},
             {5, "hlo_category"}, {6, "flops"}, {7, "bytes_accessed"}})
      p.msg(5, rt::stat_metadata(id, name));
    if (gpu) {
      for (int i = 0; i < 50; ++i) p.msg(5, rt::stat_metadata(1000 + i, "jit_step_" + std::to_string(i)));
      for (int i = 0; i < n_ops; ++i) p.msg(5, rt::stat_metadata(2100 + i, "fusion." + std::to_string(i)));
    }
    return p;
  };
  Pb space;
  space.msg(1, plane(false)).msg(1, plane(true)).bytes(4, "bench-host");
  std::ofstream(path, std::ios::binary).write(space.str().data(), static_cast<std::streamsize>(space.str().size()));
}

struct Input {
  std::string label;
  std::string path;
  std::uint64_t bytes = 0;       // on disk
  std::uint64_t plain_bytes = 0;  // after gunzip (== bytes when not gzip'd)
};

struct Inputs {
  fs::path dir;
  std::vector<Input> json_gz, json_plain, xplane;
  ~Inputs() {
    if (!dir.empty()) fs::remove_all(dir);
  }
};

Inputs& inputs() {
  static Inputs in = [] {
    Inputs r;
    const char* env = std::getenv("ROOFLINE_TRACE_BENCH_MB");
    const std::uint64_t mb = env ? std::strtoull(env, nullptr, 10) : 16;
    char tmpl[] = "/tmp/roofline_trace_bench_XXXXXX";
    r.dir = ::mkdtemp(tmpl);
    const std::string json = (r.dir / "generated.pt.trace.json").string();
    write_kineto_json(json, mb << 20);
    gzip_file(json, json + ".gz");
    const std::string xspace = (r.dir / "generated.xplane.pb").string();
    write_xspace(xspace, mb << 20);
    const std::string tag = std::to_string(mb) + "MB";
    r.json_plain.push_back({"generated_" + tag, json, file_size(json), file_size(json)});
    r.json_gz.push_back({"generated_" + tag, json + ".gz", file_size(json + ".gz"), file_size(json)});
    r.xplane.push_back({"generated_" + tag, xspace, file_size(xspace), file_size(xspace)});
#ifdef ROOFLINE_SHARED_DIR
    const fs::path real = fs::path(ROOFLINE_SHARED_DIR) / "data/real";
    const std::string big_json = (real / "hta/a100-80gb_16rank_rank0.json.gz").string();
    const std::string big_xplane = (real / "xprof/tpu_v6e_x4_inference_2.xplane.pb").string();
    if (fs::exists(big_json)) {
      const std::uint64_t plain = inflated_size(big_json);
      r.json_gz.push_back({"real_a100_16rank", big_json, file_size(big_json), plain});
      const std::string copy = (r.dir / "real_a100_16rank.json").string();
      gzFile g = gzopen(big_json.c_str(), "rb");
      std::ofstream o(copy, std::ios::binary);
      std::vector<char> buf(1 << 20);
      int k;
      while ((k = gzread(g, buf.data(), static_cast<unsigned>(buf.size()))) > 0) o.write(buf.data(), k);
      gzclose(g);
      r.json_plain.push_back({"real_a100_16rank", copy, plain, plain});
    }
    if (fs::exists(big_xplane))
      r.xplane.push_back({"real_tpu_v6e", big_xplane, file_size(big_xplane), file_size(big_xplane)});
#endif
    return r;
  }();
  return in;
}

// ---------------------------------------------------------------- readers

std::uint64_t cat_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  std::vector<char> buf(1 << 20);
  std::uint64_t n = 0;
  ssize_t k;
  while ((k = ::read(fd, buf.data(), buf.size())) > 0) n += static_cast<std::uint64_t>(k);
  ::close(fd);
  return n;
}

std::uint64_t zcat_file(const std::string& path) { return inflated_size(path); }

std::size_t roofline_read(const std::string& path, bool background) {
  roofline::TraceReadOptions o;
  o.background_inflate = background;
  auto t = roofline::read_trace(path, o);
  if (!t.ok()) {
    std::fprintf(stderr, "%s\n", std::string(t.status().message()).c_str());
    std::abort();
  }
  std::size_t events = 0;
  for (const auto& d : t->devices) events += d.events.size();
  for (const auto& d : t->hosts) events += d.events.size();
  return events;
}

roofline::detail::XStatView view_of(const roofline::bench::xplane::XStat& s) {
  using roofline::detail::XStatType;
  using S = roofline::bench::xplane::XStat;
  roofline::detail::XStatView v;
  v.metadata_id = s.metadata_id();
  switch (s.value_case()) {
    case S::kDoubleValue: v.type = XStatType::kDouble; v.d = s.double_value(); break;
    case S::kUint64Value: v.type = XStatType::kUint64; v.u = s.uint64_value(); break;
    case S::kInt64Value: v.type = XStatType::kInt64; v.i = s.int64_value(); break;
    case S::kStrValue: v.type = XStatType::kStr; v.s = s.str_value(); break;
    case S::kBytesValue: v.type = XStatType::kBytes; v.s = s.bytes_value(); break;
    case S::kRefValue: v.type = XStatType::kRef; v.u = s.ref_value(); break;
    case S::kCompressedStrValue: v.type = XStatType::kCompressedStr; v.s = s.compressed_str_value(); break;
    case S::VALUE_NOT_SET: break;
  }
  return v;
}

// The same assembler the wire decoder feeds, fed from libprotobuf messages.
std::size_t libprotobuf_read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  roofline::bench::xplane::XSpace space;
  if (!space.ParseFromString(bytes)) std::abort();
  roofline::detail::XPlaneAssembler a(path, roofline::TraceReadOptions{});
  for (const auto& h : space.hostnames()) a.add_hostname(h);
  for (const auto& p : space.planes()) {
    roofline::detail::XPlaneView v;
    v.id = p.id();
    v.name = p.name();
    for (const auto& [id, m] : p.stat_metadata()) v.stat_metadata.emplace_back(id, m.name());
    for (const auto& [id, m] : p.event_metadata()) {
      roofline::detail::XEventMetadataView e;
      e.id = id;
      e.name = m.name();
      e.display_name = m.display_name();
      for (const auto& s : m.stats()) e.stats.push_back(view_of(s));
      v.event_metadata.push_back(std::move(e));
    }
    for (const auto& s : p.stats()) v.stats.push_back(view_of(s));
    for (const auto& l : p.lines()) v.line_timestamps_ns.push_back(l.timestamp_ns());
    a.add_plane(std::move(v));
  }
  std::vector<roofline::detail::XStatView> stats;
  std::size_t events = 0;
  for (int i = 0; i < space.planes_size(); ++i) {
    const auto& p = space.planes(i);
    if (!a.begin_plane(static_cast<std::size_t>(i)).ok()) std::abort();
    for (const auto& l : p.lines()) {
      a.begin_line(l.id(), l.display_id(), l.name(), l.display_name(), l.timestamp_ns());
      for (const auto& e : l.events()) {
        stats.clear();
        for (const auto& s : e.stats()) stats.push_back(view_of(s));
        if (!a.add_event(e.metadata_id(), e.offset_ps(), e.duration_ps(), stats, 0).ok()) std::abort();
        ++events;
      }
    }
    a.end_plane();
  }
  if (!a.finish().ok()) std::abort();
  return events;
}

// nlohmann's SAX parser over the file, counting trace events (depth-2 objects).
struct CountingSax : nlohmann::json_sax<nlohmann::json> {
  std::size_t depth = 0, events = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (++depth == 2) ++events;
    return true;
  }
  bool key(string_t&) override { return true; }
  bool end_object() override {
    --depth;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth;
    return true;
  }
  bool end_array() override {
    --depth;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

std::size_t nlohmann_sax(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  CountingSax sax;
  nlohmann::json::sax_parse(f, &sax);
  std::fclose(f);
  return sax.events;
}

#ifdef ROOFLINE_BENCH_SIMDJSON
// simdjson On-Demand: the whole document in memory, each event's ph/ts/dur/name read.
std::size_t simdjson_ondemand(const std::string& path) {
  simdjson::padded_string json = simdjson::padded_string::load(path);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc = parser.iterate(json);
  std::size_t events = 0;
  double sum = 0;
  for (auto ev : doc["traceEvents"].get_array()) {
    simdjson::ondemand::object o = ev.get_object();
    for (auto field : o) {
      std::string_view k = field.unescaped_key().value();
      if (k == "ts" || k == "dur") sum += field.value().get_double().value();
      else if (k == "name" || k == "ph" || k == "cat") (void)field.value().get_string().value();
    }
    ++events;
  }
  benchmark::DoNotOptimize(sum);
  return events;
}
#endif

// ---------------------------------------------------------------- runner

using Reader = std::function<std::uint64_t(const std::string&)>;

std::map<std::string, Reader>& readers() {
  static std::map<std::string, Reader> r = {
      {"cat", [](const std::string& p) { return cat_file(p); }},
      {"zcat", [](const std::string& p) { return zcat_file(p); }},
      {"roofline", [](const std::string& p) { return roofline_read(p, true); }},
      {"roofline_1thread", [](const std::string& p) { return roofline_read(p, false); }},
      {"libprotobuf", [](const std::string& p) { return libprotobuf_read(p); }},
      {"nlohmann_sax", [](const std::string& p) { return nlohmann_sax(p); }},
#ifdef ROOFLINE_BENCH_SIMDJSON
      {"simdjson_ondemand", [](const std::string& p) { return simdjson_ondemand(p); }},
#endif
  };
  return r;
}

// Peak resident set (VmHWM) of one run of `reader` on `path`, in a fresh
// process: this binary re-executed. (ru_maxrss would not do: Linux carries
// it over from the forked parent across exec.)
double peak_rss_mb(const std::string& reader, const std::string& path) {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 0;
  self[n] = '\0';
  const std::string cmd = std::string("'") + self + "' --rss-child " + reader + " '" + path + "'";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return 0;
  double kb = 0;
  if (std::fscanf(p, "%lf", &kb) != 1) kb = 0;
  ::pclose(p);
  return kb / 1024.0;
}

double vm_hwm_kb() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  double kb = 0;
  while (f && std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
  if (f) std::fclose(f);
  return kb;
}

void run(benchmark::State& state, const std::string& reader, const Input& in) {
  const Reader& fn = readers().at(reader);
  std::uint64_t result = 0;
  for (auto _ : state) {
    result = fn(in.path);
    benchmark::DoNotOptimize(result);
  }
  if (reader != "cat" && reader != "zcat") state.counters["events"] = static_cast<double>(result);
  // MB/s counts the (decompressed) bytes the reader had to make sense of.
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.plain_bytes));
  state.counters["file_MB"] = static_cast<double>(in.bytes) / 1e6;
  state.counters["peak_rss_MB"] = peak_rss_mb(reader, in.path);
}

void register_all() {
  Inputs& in = inputs();
  for (const Input& i : in.json_plain)
    for (const char* r : {"cat", "roofline", "nlohmann_sax"
#ifdef ROOFLINE_BENCH_SIMDJSON
                          ,
                          "simdjson_ondemand"
#endif
         })
      benchmark::RegisterBenchmark(("json/" + i.label + "/" + r).c_str(),
                                   [r, i](benchmark::State& s) { run(s, r, i); })
          ->Unit(benchmark::kMillisecond);
  for (const Input& i : in.json_gz)
    for (const char* r : {"zcat", "roofline", "roofline_1thread"})
      benchmark::RegisterBenchmark(("json_gz/" + i.label + "/" + r).c_str(),
                                   [r, i](benchmark::State& s) { run(s, r, i); })
          ->Unit(benchmark::kMillisecond);
  for (const Input& i : in.xplane)
    for (const char* r : {"cat", "roofline", "libprotobuf"})
      benchmark::RegisterBenchmark(("xplane/" + i.label + "/" + r).c_str(),
                                   [r, i](benchmark::State& s) { run(s, r, i); })
          ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--rss-child") {
    benchmark::DoNotOptimize(readers().at(argv[2])(argv[3]));
    std::printf("%.0f\n", vm_hwm_kb());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
