// A streaming decoder of the XSpace protobuf wire format (field numbers from
// tsl/profiler/protobuf/xplane.proto), decoding in place from the file's
// bytes: no message objects, no copies of event data. It was measured against
// libprotobuf with a generated XSpace feeding the same assembler (bench/
// trace_bench.cc, docs/traces.md) and kept because it is faster; it also has
// no 2 GiB message limit and bounds every length by the bytes that remain.
//
// Field order in a serialized plane is id, name, lines, event_metadata,
// stat_metadata, stats: the metadata an event needs comes after the events.
// So pass 1 reads every plane's metadata and line headers, pass 2 the events.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/trace/read.hpp"
#include "src/trace/byte_stream.hpp"
#include "src/trace/xplane/xplane_assembler.hpp"
#include "src/trace/xplane/xplane_decode.hpp"
#include "src/trace/xplane/xplane_wire_decoder.hpp"
#include "src/wire/proto_wire.hpp"

namespace roofline::detail {
namespace {


// Whether pass 2 may find the pages pass 1 mapped still there, instead of
// faulting them in again (a tenth of the read's system time on a pod
// host's profile): when the file's bytes not yet decoded and the events
// decoded so far never hold more memory together than the read holds anyway,
// the whole file in pass 1 or all the events at the end, plus the 32 MiB
// that pass 2 keeps mapped behind itself either way (MappedFile::
// release_before). Events are counted as if decoded at the start of their
// line, so the estimate is an upper bound.
bool keep_pages_for_pass2(std::size_t file_bytes, const std::vector<std::vector<XSpaceDecoder::LineHeader>>& lines,
                          const XPlaneAssembler& a) {
  std::size_t events = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (a.keeps_events(i))
      for (const XSpaceDecoder::LineHeader& l : lines[i]) events += l.events;
  const double bound = std::max(static_cast<double>(file_bytes), static_cast<double>(events) * sizeof(Event)) +
                       static_cast<double>(std::size_t{32} << 20);
  double decoded = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!a.keeps_events(i)) continue;
    for (const XSpaceDecoder::LineHeader& l : lines[i]) {
      decoded += static_cast<double>(l.events) * sizeof(Event);
      if (decoded + static_cast<double>(file_bytes - l.span.begin) > bound) return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<Trace> decode_xplane(std::string_view bytes, std::string_view origin,
                                    const TraceReadOptions& options, MappedFile* release, XPlaneReadPlan* plan) {
  XSpaceDecoder dec(bytes, std::string(origin));
  if (plan != nullptr) plan->entered = true;
  if (bytes.empty()) return absl::DataLossError(cat(origin, ": empty file, not an XSpace"));

  std::vector<WireSpan> planes;
  std::vector<std::string_view> notes, hostnames;
  {
    std::size_t pos = 0;
    XSpaceDecoder::Field f;
    while (pos < bytes.size()) {
      ROOFLINE_RETURN_IF_ERROR(dec.next(pos, bytes.size(), f));
      if (f.number >= 1 && f.number <= 4) ROOFLINE_RETURN_IF_ERROR(dec.expect(f, kLen, "XSpace field"));
      if (f.number == 1) planes.push_back(f.payload);
      else if (f.number == 2 || f.number == 3) notes.push_back(dec.view(f.payload.begin, f.payload.end));
      else if (f.number == 4) hostnames.push_back(dec.view(f.payload.begin, f.payload.end));
    }
  }
  // The planes' names, read from the wire once, where a choice below needs
  // them before pass 1 (empty otherwise: pass 1 reads them itself).
  std::vector<std::string_view> names(planes.size());
  bool names_read = false;
  const auto read_names = [&] {
    if (names_read) return;
    for (std::size_t i = 0; i < planes.size(); ++i) names[i] = dec.plane_name(planes[i]);
    names_read = true;
  };
  // Host planes past host_timelines_up_to_bytes, beside a device plane: read
  // as without host timelines (their lines unread).
  TraceReadOptions read = options;
  bool past_host_limit = false;
  if (options.host_timelines && options.host_timelines_up_to_bytes) {
    read_names();
    std::uint64_t host_bytes = 0;
    bool device_plane = false;
    for (std::size_t i = 0; i < planes.size(); ++i) {
      const PlaneKind k = classify_plane(names[i]);  // /host:metadata is neither host nor device
      if (k.is_host) host_bytes += planes[i].end - planes[i].begin;
      device_plane = device_plane || k.is_device;
    }
    past_host_limit = device_plane && host_bytes > *options.host_timelines_up_to_bytes;
    if (past_host_limit) read.host_timelines = false;
  }
  XPlaneAssembler a(std::string(origin), read, plan);
  for (std::string_view h : hostnames) a.add_hostname(h);
  // Without host timelines, whether a device plane exists decides whether
  // host planes' events are read at all: known from the names before pass 1.
  // So does a plan's choice of planes.
  if (!read.host_timelines || (plan != nullptr && (plan->skip_host_lines || plan->skip_device_lines))) {
    read_names();
    for (std::string_view n : names) a.note_plane_name(n);
  }
  std::vector<std::vector<XSpaceDecoder::LineHeader>> lines(planes.size());
  for (std::size_t i = 0; i < planes.size(); ++i) {
    XPlaneView p;
    ROOFLINE_RETURN_IF_ERROR(dec.plane_pass1(planes[i], p, lines[i], a.reads_events(names[i])));
    a.add_plane(std::move(p));
  }
  // Pass 1 touched every page (line headers sit among the events); pass 2
  // drops them behind itself, line by line.
  if (release && !keep_pages_for_pass2(bytes.size(), lines, a)) release->release_all();
  std::vector<XStatView> stats;
  bool aggregated = false;
  for (std::size_t i = 0; i < planes.size(); ++i) {
    ROOFLINE_RETURN_IF_ERROR(a.begin_plane(i));
    // A plane whose events nothing reads (a TPU host's, two thirds of a pod
    // host's profile, in the report's read) has no lines here: pass 1 kept
    // none (XPlaneAssembler::reads_events).
    for (const XSpaceDecoder::LineHeader& l : lines[i]) {
      ROOFLINE_RETURN_IF_ERROR(dec.line_events(l, a, stats, aggregated));
      if (release) release->release_before(l.span.end);
    }
    a.end_plane();
  }
  auto trace = a.finish();
  if (!trace.ok()) return trace.status();
  for (std::string_view n : notes) trace->warnings.push_back(cat(origin, ": profiler says: ", n));
  if (aggregated)
    trace->warnings.push_back(cat(origin, ": aggregated events (num_occurrences) have no time; skipped"));
  if (past_host_limit) {
    if (plan != nullptr) plan->hosts_past_limit = true;
    trace->warnings.push_back(cat(origin, ": host timelines not read: its host planes are past ",
                                  *options.host_timelines_up_to_bytes,
                                  " bytes (--host-timelines-up-to, TraceReadOptions::host_timelines_up_to_bytes), so "
                                  "idle gaps show no host activity and host events go unchecked"));
  }
  if (planes.empty())
    return absl::DataLossError(cat(origin, ": no XPlane in the file; not an XSpace profile"));
  return trace;
}

}  // namespace roofline::detail
