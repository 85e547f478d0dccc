// XPlaneAssembler's stat readers: the stat-kind table, typed reads of one
// stat (stat_str / stat_int / stat_num, with a warning once per stat name on
// a wrong type), and what plane stats and op metadata stats say.
#include <limits>
#include <utility>

#include "roofline/detail/cat.hpp"
#include "src/trace/byte_stream.hpp"
#include "src/trace/xplane/xplane_assembler_state.hpp"

namespace roofline::detail {

StatKind stat_kind_of(std::string_view n) {
  struct Entry {
    std::string_view name;
    StatKind kind;
  };
  static constexpr Entry kTable[] = {
      {"device_type_string", StatKind::kDeviceTypeString},
      {"peak_teraflops_per_second", StatKind::kPeakTflops},
      {"peak_hbm_bw_gigabytes_per_second", StatKind::kPeakHbmGbps},
      {"clock_rate", StatKind::kClockRate},
      {"core_count", StatKind::kCoreCount},
      {"memory_bandwidth", StatKind::kMemoryBandwidth},
      {"memory_size", StatKind::kMemorySize},
      {"compute_cap_major", StatKind::kCcMajor},
      {"compute_cap_minor", StatKind::kCcMinor},
      {"device_vendor", StatKind::kDeviceVendor},
      {"gpu_device_name", StatKind::kGpuDeviceName},
      {"profile_start_time", StatKind::kProfileStartTime},
      {"hlo_category", StatKind::kHloCategory},
      {"program_id", StatKind::kProgramId},
      {"flops", StatKind::kFlops},
      {"model_flops", StatKind::kModelFlops},
      {"bytes_accessed", StatKind::kBytesAccessed},
      {"shape_with_layout", StatKind::kShapeWithLayout},
      {"tf_op", StatKind::kTfOp},
      {"source", StatKind::kSource},
      {"hlo_op", StatKind::kHloOp},
      {"hlo_module", StatKind::kHloModule},
      {"correlation_id", StatKind::kCorrelationId},
      {"Hlo Proto", StatKind::kHloProto},
      {"step_name", StatKind::kStepName},
      {"step_num", StatKind::kStepNum},
      {"device_offset_ps", StatKind::kDeviceOffsetPs},
      {"device_duration_ps", StatKind::kDeviceDurationPs},
      {"device_ordinal", StatKind::kDeviceOrdinal},
  };
  for (const Entry& e : kTable)
    if (e.name == n) return e.kind;
  return StatKind::kIgnored;
}

std::string_view type_name(XStatType t) {
  switch (t) {
    case XStatType::kNone: return "empty";
    case XStatType::kDouble: return "double";
    case XStatType::kUint64: return "uint64";
    case XStatType::kInt64: return "int64";
    case XStatType::kStr: return "string";
    case XStatType::kBytes: return "bytes";
    case XStatType::kRef: return "ref";
    case XStatType::kCompressedStr: return "compressed string";
  }
  return "empty";
}

// Every string stat we read is a name: a device model, a category, a module,
// a shape, a source line. None is near 64 KiB; a longer one is a broken or
// hostile file, and kept it would be copied into every op, table and output
// that shows it (two 300 MiB gzip'd categories once took 4.96 GB).
constexpr std::size_t kMaxStatText = std::size_t{64} << 10;

std::optional<std::string_view> XPlaneAssembler::stat_str(const XStatView& s, std::string_view what) {
  std::optional<std::string_view> v = stat_text(s, what);
  if (!v || v->size() <= kMaxStatText) return v;
  warn_once(cat("long:", what), cat(origin_, ": plane '", planes_[cur_->index].name, "': stat '", what, "' is ",
                                     v->size(), " bytes long, more than any name (", kMaxStatText, "); ignored"));
  return std::nullopt;
}

std::optional<std::string_view> XPlaneAssembler::stat_text(const XStatView& s, std::string_view what) {
  const XPlaneView& p = planes_[cur_->index];
  switch (s.type) {
    case XStatType::kStr: return s.s;
    case XStatType::kRef: {
      auto it = cur_->stat_name.find(static_cast<std::int64_t>(s.u));
      if (it != cur_->stat_name.end()) return it->second;
      warn_once(cat("ref:", what), cat(origin_, ": plane '", p.name, "': stat '", what,
                                        "' refers to unknown stat metadata ", s.u, "; ignored"));
      return std::nullopt;
    }
    case XStatType::kCompressedStr: {
      // Every inflated string is kept: together they stay within
      // max_inflated_bytes, so a bomb costs a warning, not the memory.
      // One past the longest name kept, so a longer one is refused above
      // without inflating the rest of it.
      const std::uint64_t room = std::min<std::uint64_t>(
          kMaxStatText + 1,
          options_.max_inflated_bytes > inflated_bytes_ ? options_.max_inflated_bytes - inflated_bytes_ : 0);
      const bool name_bound = room == kMaxStatText + 1;
      auto text = gunzip(s.s, cat(origin_, ": plane '", p.name, "': stat '", what, "'"), room,
                         name_bound ? std::string_view() : kRaiseInflated);
      if (!text.ok()) {
        warn_once(cat("gz:", what), cat(std::string(text.status().message()),
                                        name_bound ? " (longer than any name); the stat is ignored"
                                                   : "; the stat is ignored"));
        return std::nullopt;
      }
      inflated_bytes_ += text->size();
      owned_.push_back(std::move(*text));
      return std::string_view(owned_.back());
    }
    default:
      warn_once(cat("type:", what), cat(origin_, ": plane '", p.name, "': stat '", what, "' is a ",
                                         type_name(s.type), "; expected a string; ignored"));
      return std::nullopt;
  }
}

// stat_int for a count: a negative one (a broken producer) would become a
// negative MFU; it is ignored with one warning.
std::optional<std::int64_t> XPlaneAssembler::stat_count(const XStatView& s, std::string_view what) {
  const std::optional<std::int64_t> v = stat_int(s, what);
  if (!v || *v >= 0) return v;
  warn_once(cat("negative:", what), cat(origin_, ": plane '", planes_[cur_->index].name, "': stat '", what,
                                        "' is a negative count (", *v, "); ignored"));
  return std::nullopt;
}

std::optional<std::int64_t> XPlaneAssembler::stat_int(const XStatView& s, std::string_view what) {
  if (s.type == XStatType::kInt64) return s.i;
  if (s.type == XStatType::kUint64 && s.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(s.u);
  warn_once(cat("int:", what), cat(origin_, ": plane '", planes_[cur_->index].name, "': stat '", what, "' is a ",
                                    type_name(s.type), "; expected an integer; ignored"));
  return std::nullopt;
}

std::optional<double> XPlaneAssembler::stat_num(const XStatView& s, std::string_view what) {
  if (s.type == XStatType::kDouble) return s.d;
  if (s.type == XStatType::kInt64) return static_cast<double>(s.i);
  if (s.type == XStatType::kUint64) return static_cast<double>(s.u);
  warn_once(cat("num:", what), cat(origin_, ": plane '", planes_[cur_->index].name, "': stat '", what, "' is a ",
                                    type_name(s.type), "; expected a number; ignored"));
  return std::nullopt;
}

// What the plane says about its device: the model as reported (XLA's GPU
// planes report none: identify_chip infers it from these capabilities).
void XPlaneAssembler::read_device_stats(const XPlaneView& p, Device& d) {
  std::string gpu_name;
  for (const XStatView& s : p.stats) {
    switch (cur_->kind_of(s.metadata_id)) {
      case StatKind::kDeviceTypeString:
        if (auto v = stat_str(s, "device_type_string")) d.model = std::string(*v);
        break;
      case StatKind::kGpuDeviceName:
        if (auto v = stat_str(s, "gpu_device_name")) gpu_name = std::string(*v);
        break;
      case StatKind::kDeviceVendor:
        if (auto v = stat_str(s, "device_vendor")) d.vendor = std::string(*v);
        break;
      case StatKind::kPeakTflops:
        if (auto v = stat_num(s, "peak_teraflops_per_second"); v && *v > 0) d.caps.peak_flops_per_s = *v * 1e12;
        break;
      case StatKind::kPeakHbmGbps:
        if (auto v = stat_num(s, "peak_hbm_bw_gigabytes_per_second"); v && *v > 0)
          d.caps.hbm_bytes_per_s = *v * 1e9;
        break;
      case StatKind::kMemoryBandwidth:
        if (auto v = stat_num(s, "memory_bandwidth"); v && *v > 0) d.caps.hbm_bytes_per_s = *v;
        break;
      case StatKind::kMemorySize:
        if (auto v = stat_num(s, "memory_size"); v && *v > 0) d.caps.memory_bytes = *v;
        break;
      case StatKind::kClockRate:
        if (auto v = stat_num(s, "clock_rate"); v && *v > 0) d.caps.clock_hz = *v * 1e3;  // kHz
        break;
      case StatKind::kCoreCount:
        if (auto v = stat_int(s, "core_count")) d.caps.core_count = static_cast<int>(*v);
        break;
      case StatKind::kCcMajor:
        if (auto v = stat_int(s, "compute_cap_major")) d.caps.compute_capability_major = static_cast<int>(*v);
        break;
      case StatKind::kCcMinor:
        if (auto v = stat_int(s, "compute_cap_minor")) d.caps.compute_capability_minor = static_cast<int>(*v);
        break;
      default: break;
    }
  }
  if (d.model.empty() && !gpu_name.empty()) d.model = gpu_name;
}

void XPlaneAssembler::read_op_stat(const XStatView& s, OpInfo& op) {
  switch (cur_->kind_of(s.metadata_id)) {
    case StatKind::kHloCategory:
      if (auto v = stat_str(s, "hlo_category")) op.category = std::string(*v);
      break;
    case StatKind::kProgramId:
      if (s.type == XStatType::kUint64) op.program_id = s.u;
      else if (auto v = stat_int(s, "program_id")) op.program_id = static_cast<std::uint64_t>(*v);
      break;
    case StatKind::kFlops:
      if (auto v = stat_count(s, "flops")) op.flops = *v;
      break;
    case StatKind::kModelFlops:
      if (auto v = stat_count(s, "model_flops")) op.model_flops = *v;
      break;
    case StatKind::kBytesAccessed:
      if (auto v = stat_count(s, "bytes_accessed")) op.bytes_accessed = *v;
      break;
    case StatKind::kShapeWithLayout:
      if (auto v = stat_str(s, "shape_with_layout")) op.shape_with_layout = std::string(*v);
      break;
    case StatKind::kTfOp:
      if (auto v = stat_str(s, "tf_op")) op.framework_op = std::string(*v);
      break;
    case StatKind::kSource:
      if (auto v = stat_str(s, "source")) op.source = std::string(*v);
      break;
    case StatKind::kHloModule:
      if (auto v = stat_str(s, "hlo_module")) op.module = std::string(*v);
      break;
    default: break;
  }
}

}  // namespace roofline::detail
