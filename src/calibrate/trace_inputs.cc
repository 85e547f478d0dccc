#include "roofline/calibrate/trace_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/match/identify.hpp"
#include "roofline/match/match.hpp"

namespace roofline {
namespace {

bool trace_file_name(const std::string& name) {
  for (std::string_view tail : {".json", ".json.gz", ".xplane.pb", ".xplane.pb.gz"})
    if (name.ends_with(tail)) return true;
  return false;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> trace_paths(const std::vector<std::string>& given) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& path : given) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      out.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec) && trace_file_name(it->path().filename().string())) found.push_back(it->path().string());
    if (ec) return absl::NotFoundError(detail::cat(path, ": cannot list the directory: ", ec.message()));
    if (found.empty()) return absl::NotFoundError(detail::cat(path, ": no .json, .json.gz, .xplane.pb or .xplane.pb.gz in it"));
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

absl::StatusOr<FidelityTrace> read_fidelity_trace(const std::string& path, const Chip* chip,
                                                  const TraceReadOptions& options) {
  auto trace = read_trace(path, options);
  if (!trace.ok()) return trace.status();
  ReportOptions o;
  o.chip = chip;
  auto report = make_report(*trace, o);
  if (!report.ok()) return absl::Status(report.status().code(), detail::cat(path, ": ", std::string(report.status().message())));
  FidelityTrace out{.trace = path, .report = *std::move(report)};
  if (chip != nullptr) {
    out.chip = *chip;
  } else {
    auto found = find_chip(out.report.chip);
    if (!found.ok())
      return absl::NotFoundError(detail::cat(path, ": chip ", out.report.chip, " is not embedded: ", kSetChipAdvice));
    out.chip = **found;
  }
  return out;
}

}  // namespace roofline
