// Device events put in order as a reader appends them (settle_last_event,
// src/trace/trace_builder.hpp), and the event arrays a thread keeps from one
// file's read for the next (src/trace/event_buffers.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "roofline/measure/measured.hpp"
#include "roofline/trace/read.hpp"
#include "src/trace/event_buffers.hpp"
#include "src/trace/trace_builder.hpp"
#include "tests/test_support.hpp"
#include "tests/trace/xspace_writer.hpp"

using namespace roofline;
using roofline::detail::event_order;
using roofline::detail::settle_last_event;
using roofline::testing::Pb;
using roofline::testing::xspace;
namespace rt = roofline::testing;

namespace {

Event event(std::uint32_t line, std::int64_t start_ps, std::int64_t duration_ps, std::uint32_t op) {
  Event e;
  e.line = line;
  e.start_ps = start_ps;
  e.duration_ps = duration_ps;
  e.op = op;
  return e;
}

using Key = std::tuple<std::uint32_t, std::int64_t, std::int64_t, std::uint32_t>;
std::vector<Key> keys(const std::vector<Event>& events) {
  std::vector<Key> out;
  for (const Event& e : events) out.emplace_back(e.line, e.start_ps, e.duration_ps, e.op);
  return out;
}

std::vector<Event> settled(const std::vector<Event>& input) {
  std::vector<Event> out;
  for (const Event& e : input) {
    out.push_back(e);
    settle_last_event(out);
  }
  return out;
}

std::vector<Event> stable_sorted(std::vector<Event> v) {
  std::stable_sort(v.begin(), v.end(), event_order);
  return v;
}

// Events of three lines, appended line by line in order of start, with ties
// (same start and duration: told apart by op, the order they came in) and
// equal starts of different lengths; then every `every`-th event moved
// `late` places later, as the device clock moves a TPU op.
std::vector<Event> nearly_sorted(std::size_t every, std::size_t late, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Event> v;
  std::uint32_t op = 0;
  for (std::uint32_t line = 0; line < 3; ++line) {
    std::int64_t t = 0;
    for (int i = 0; i < 700; ++i) {
      t += static_cast<std::int64_t>(rng() % 3);  // 0: the same start as the one before
      v.push_back(event(line, t, 1 + static_cast<std::int64_t>(rng() % 2), op++));
    }
  }
  for (std::size_t i = 0; i + late < v.size(); i += every) std::rotate(v.begin() + i, v.begin() + i + 1, v.begin() + i + late + 1);
  return v;
}

}  // namespace

TEST_CASE("settle_last_event: events a few places late are put where a stable sort puts them, as they come") {
  for (std::size_t late : {1u, 5u, 24u}) {
    CAPTURE(late);
    const std::vector<Event> input = nearly_sorted(64, late, 7 + static_cast<std::uint32_t>(late));
    REQUIRE_FALSE(std::is_sorted(input.begin(), input.end(), event_order));
    // No event comes after more than 32 that sort after it (a longer event
    // of a start it shares goes before those of that start too).
    std::ptrdiff_t most_behind = 0;
    for (std::size_t k = 0; k < input.size(); ++k)
      most_behind = std::max(most_behind, std::count_if(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(k),
                                                        [&](const Event& e) { return event_order(input[k], e); }));
    REQUIRE(most_behind <= 32);
    REQUIRE(most_behind >= static_cast<std::ptrdiff_t>(late));
    const std::vector<Event> out = settled(input);
    CHECK(std::is_sorted(out.begin(), out.end(), event_order));  // nothing left for finish to sort
    CHECK(keys(out) == keys(stable_sorted(input)));             // ties in the order they came
  }
}

TEST_CASE("settle_last_event: an event more than 32 places late is left for the sort, which then gives the same") {
  // 33 events in order, then one that sorts first: it stays last.
  std::vector<Event> input;
  for (std::uint32_t i = 0; i < 33; ++i) input.push_back(event(0, 10 + i, 1, i));
  input.push_back(event(0, 0, 1, 99));
  std::vector<Event> out = settled(input);
  CHECK(out.back().op == 99);
  CHECK(keys(stable_sorted(out)) == keys(stable_sorted(input)));
  // 32 places back it is moved.
  input.erase(input.begin());
  out = settled(input);
  CHECK(out.front().op == 99);
  CHECK(std::is_sorted(out.begin(), out.end(), event_order));

  // Reversed, ties and far events mixed: whatever is left out of place, the
  // stable sort of what settling leaves is the stable sort of the input.
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    std::vector<Event> v = nearly_sorted(9, 40, seed);
    std::reverse(v.begin() + 100, v.begin() + 400);
    CHECK(keys(stable_sorted(settled(v))) == keys(stable_sorted(v)));
  }
}

TEST_CASE("xplane: device events out of place come in event order, nested, ties in the order read") {
  // One TPU op line: a parent after its child (same start, longer first), two
  // ties, a neighbour swapped, and one event 40 places late.
  Pb ops;
  ops.sint(1, 3).bytes(2, "XLA Ops").sint(3, 1000);
  ops.msg(4, rt::event(1, 100, 10));   // child of the next
  ops.msg(4, rt::event(2, 100, 50));   // parent
  ops.msg(4, rt::event(3, 200, 5));    // tie ...
  ops.msg(4, rt::event(4, 200, 5));    // ... read second, stays second
  ops.msg(4, rt::event(1, 310, 5));    // swapped with the next
  ops.msg(4, rt::event(2, 300, 5));
  for (int i = 0; i < 40; ++i) ops.msg(4, rt::event(3, 1000 + 10 * i, 5));
  ops.msg(4, rt::event(4, 400, 5));  // 40 places late
  Pb p;
  p.sint(1, 2).bytes(2, "/device:TPU:0").msg(3, ops);
  for (int m = 1; m <= 4; ++m) p.msg(4, rt::event_metadata(m, "op" + std::to_string(m)));
  auto t = parse_xplane(xspace({p}), "order.xplane.pb");
  REQUIRE(t.ok());
  REQUIRE(t->devices.size() == 1);
  const std::vector<Event>& ev = t->devices[0].events;
  REQUIRE(ev.size() == 47);
  CHECK(std::is_sorted(ev.begin(), ev.end(), event_order));
  auto name = [&](std::size_t i) { return t->ops[ev[i].op].name; };
  CHECK(name(0) == "op2");  // the parent first
  CHECK(ev[0].duration_ps == 50);
  CHECK(ev[0].self_ps == 40);
  CHECK(ev[1].parent == 0);
  CHECK(name(2) == "op3");
  CHECK(name(3) == "op4");
  CHECK(ev[4].start_ps - ev[0].start_ps == 200);  // 300 before 310
  CHECK(name(6) == "op4");  // the late one, at 400
  CHECK(ev[6].start_ps - ev[0].start_ps == 300);
}

namespace {

// Timelines whose event arrays have room for `capacities` (built in place:
// a copied vector would not keep its capacity).
void set_timelines(std::vector<Device>& to, std::initializer_list<std::size_t> capacities) {
  to.clear();
  for (std::size_t c : capacities) to.emplace_back().events.reserve(c);
}

std::size_t bytes(std::size_t events) { return events * sizeof(Event); }

}  // namespace

TEST_CASE("event arrays: a thread takes back the smallest it kept that fits, and keeps one file's worth") {
  using detail::KeptTimelines;
  detail::free_kept_events();
  constexpr std::size_t kBig = 40'000;  // 1.9 MB: kept
  Trace t;
  set_timelines(t.devices, {kBig, 2 * kBig, 90});  // the last, 4.3 kB, is freed
  set_timelines(t.hosts, {kBig + 5});
  t.devices[0].events.push_back(Event{});
  const Event* a_data = t.devices[0].events.data();
  const Event* b_data = t.devices[1].events.data();
  detail::keep_for_next_file(t, KeptTimelines::kDevices);
  for (const Device& d : t.devices) CHECK(d.events.capacity() == 0);  // moved out, or freed
  CHECK(t.hosts[0].events.capacity() == kBig + 5);                    // not asked for
  CHECK(detail::kept_event_bytes() == bytes(3 * kBig));

  CHECK(detail::take_events(100).capacity() == 100);  // small: neither taken nor rounded
  CHECK(detail::kept_event_bytes() == bytes(3 * kBig));
  std::vector<Event> first = detail::take_events(30'000);  // 1.4 MB: over 1 MiB, so taken
  CHECK(first.data() == a_data);  // the smallest that fits
  CHECK(first.empty());           // emptied when kept
  CHECK(detail::take_events(30'000).data() == b_data);
  CHECK(detail::kept_event_bytes() == 0);
  CHECK(detail::take_events(kBig).capacity() == 65'536);   // new: whole 64 Ki events
  CHECK(detail::take_events(70'000).capacity() == 131'072);

  // The next file's arrays replace what the last file's read did not take.
  set_timelines(t.devices, {kBig});
  detail::keep_for_next_file(t, KeptTimelines::kDevicesAndHosts);
  CHECK(detail::kept_event_bytes() == bytes(2 * kBig + 5));
  set_timelines(t.devices, {3 * kBig});
  t.hosts.clear();
  detail::keep_for_next_file(t, KeptTimelines::kDevicesAndHosts);
  CHECK(detail::kept_event_bytes() == bytes(3 * kBig));
  detail::free_kept_events();
  CHECK(detail::kept_event_bytes() == 0);
}

TEST_CASE("event arrays: at most 16 arrays and 512 MiB are kept; one past the cap alone is not") {
  using detail::KeptTimelines;
  detail::free_kept_events();
  constexpr std::size_t kBig = 40'000;
  Trace t;
  for (std::size_t i = 0; i < 17; ++i) t.devices.emplace_back().events.reserve(kBig + i);
  detail::keep_for_next_file(t, KeptTimelines::kDevices);
  for (std::size_t i = 0; i < 16; ++i) CHECK(detail::take_events(kBig).capacity() == kBig + i);
  CHECK(detail::kept_event_bytes() == 0);  // the 17th was freed

  // Reserved, never written: no page of them is touched.
  constexpr std::size_t k200MiB = (std::size_t{200} << 20) / sizeof(Event);
  set_timelines(t.devices, {k200MiB, k200MiB + 1, k200MiB + 2});
  detail::keep_for_next_file(t, KeptTimelines::kDevices);
  CHECK(detail::kept_event_bytes() == bytes(2 * k200MiB + 1));  // the third would pass 512 MiB
  set_timelines(t.devices, {kBig, 3 * k200MiB, kBig + 1});
  detail::keep_for_next_file(t, KeptTimelines::kDevices);
  CHECK(detail::kept_event_bytes() == bytes(2 * kBig + 1));  // 600 MiB alone is not kept; the rest is
  detail::free_kept_events();
}

TEST_CASE("event arrays: a read of many files on the calling thread leaves nothing kept") {
  detail::free_kept_events();
  // Two hosts whose TPU holds 30,000 op events (1.4 MB of Events: kept
  // between the files).
  Pb ops;
  ops.sint(1, 3).bytes(2, "XLA Ops").sint(3, 1000);
  for (std::int64_t i = 0; i < 30'000; ++i) ops.msg(4, rt::event(1, 10 * i, 5));
  Pb p;
  p.sint(1, 2).bytes(2, "/device:TPU:0").msg(3, ops).msg(4, rt::event_metadata(1, "fusion.1"));
  const std::filesystem::path dir = rt::fresh_temp_dir("event_order_test", "two_hosts");
  for (const char* name : {"a.xplane.pb", "b.xplane.pb"}) {
    std::ofstream out(dir / name, std::ios::binary);
    out << xspace({p});
  }
  auto r = read_measured({dir.string()}, {.host_timelines = false, .jobs = 1}, std::nullopt);
  REQUIRE(r.ok());
  REQUIRE(r->measured.devices.size() == 2);
  CHECK(r->measured.devices[1].ops.at(0).count == 30'000);
  CHECK(detail::kept_event_bytes() == 0);  // freed with the read
}
