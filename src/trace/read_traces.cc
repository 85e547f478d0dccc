// Many files as the hosts of one job: listing directories and glob
// patterns, reading on threads in file order, merging the traces part by
// part (roofline/trace/read_parts.hpp, which roofline/measure shares).
#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/trace/read.hpp"
#include "roofline/trace/read_parts.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline {
namespace {

namespace fs = std::filesystem;
using detail::cat;

}  // namespace

namespace {

using detail::InputFile;
using detail::read_file;

bool is_profile_file(const std::string& name) {
  auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".xplane.pb") || ends(".xplane.pb.gz") || ends(".json") || ends(".json.gz");
}

// The profile files of a directory, in the order they are merged, and what
// the listing has to say (a capture folder chosen among several).
absl::Status list_directory(const std::string& dir, std::vector<std::string>& files,
                            std::vector<std::string>& warnings) {
  std::map<std::string, std::vector<std::string>> by_folder;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return absl::NotFoundError(cat(dir, ": cannot list: ", ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec) return absl::DataLossError(cat(dir, ": cannot list: ", ec.message()));
    if (!it->is_regular_file(ec)) continue;
    const std::string name = it->path().filename().string();
    if (is_profile_file(name)) by_folder[it->path().parent_path().string()].push_back(it->path().string());
  }
  if (by_folder.empty())
    return absl::NotFoundError(cat(dir, ": no profile files (*.xplane.pb, *.xplane.pb.gz, *.json, *.json.gz) under it"));
  // jax writes each capture to plugins/profile/<run>/, <run> a timestamp.
  // Sibling run folders are separate captures: read the newest.
  if (by_folder.size() > 1) {
    const fs::path parent = fs::path(by_folder.begin()->first).parent_path();
    bool siblings = parent.filename() == "profile";
    for (const auto& [folder, list] : by_folder)
      if (fs::path(folder).parent_path() != parent) siblings = false;
    if (siblings) {
      auto last = std::prev(by_folder.end());
      warnings.push_back(cat(dir, ": ", by_folder.size(), " capture folders; read the newest, ",
                             last->first, " (pass a folder to choose)"));
      by_folder = {*last};
    }
  }
  for (auto& [folder, list] : by_folder) {
    std::sort(list.begin(), list.end());
    std::vector<std::string> xplanes, json;
    for (const std::string& f : list) (f.size() > 10 && f.ends_with(".xplane.pb") ? xplanes : json).push_back(f);
    if (!xplanes.empty()) {
      // The JSON beside an XSpace is an export of it.
      files.insert(files.end(), xplanes.begin(), xplanes.end());
      continue;
    }
    const bool has_host_json = std::any_of(json.begin(), json.end(), [](const std::string& f) {
      return f.ends_with(".trace.json.gz") && !f.ends_with("perfetto_trace.json.gz");
    });
    for (const std::string& f : json)
      if (!(has_host_json && fs::path(f).filename().string().rfind("perfetto_trace.json", 0) == 0))
        files.push_back(f);
  }
  return absl::OkStatus();
}

// Reads `files` as the hosts of one job: each part merged in file order,
// named by its stem when there are several; `warnings` (from the listing)
// come first.
absl::StatusOr<Trace> read_files(const std::string& source, const std::vector<InputFile>& files,
                                 std::vector<std::string> warnings, const TraceReadOptions& options) {
  detail::TraceMerge b(source);
  const std::size_t listing_warnings = warnings.size();
  std::size_t read = 0;
  absl::Status error;
  auto keep = [](std::size_t, absl::StatusOr<Trace> part) { return part; };
  detail::read_in_order(files, options, keep, [&](std::size_t i, absl::StatusOr<Trace> part) {
    if (auto go_on = detail::unread(files[i], part.status(), warnings, error)) return *go_on;
    detail::merge_part(b, std::move(*part), detail::host_of_part(files, i));
    ++read;
    return true;
  });
  if (!error.ok()) return error;
  if (read == 0) return detail::no_trace_among(source, files.size(), warnings);
  detail::finish_merge(b.trace(), std::move(warnings), listing_warnings);
  return std::move(b.trace());
}

std::uint64_t size_on_disk(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::is_regular_file(path, ec) ? fs::file_size(path, ec) : 0;
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

// Appends a directory's profile files (found) and its listing's warnings.
absl::Status add_directory(const std::string& dir, std::vector<InputFile>& files, std::vector<std::string>& warnings) {
  std::vector<std::string> listed;
  ROOFLINE_RETURN_IF_ERROR(list_directory(dir, listed, warnings));
  for (std::string& f : listed) {
    const std::uint64_t size = size_on_disk(f);
    files.push_back({.path = std::move(f), .found = true, .size_bytes = size});
  }
  return absl::OkStatus();
}

bool has_glob_chars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// The paths a glob(3) pattern matches, sorted; none is an error naming it.
absl::StatusOr<std::vector<std::string>> expand_glob(const std::string& pattern) {
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), GLOB_ERR, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  if (rc == GLOB_NOMATCH) return absl::NotFoundError(cat(pattern, ": no file matches the pattern"));
  if (rc == GLOB_NOSPACE) return absl::ResourceExhaustedError(cat(pattern, ": out of memory expanding the pattern"));
  if (rc != 0) return absl::NotFoundError(cat(pattern, ": cannot expand the pattern (a folder could not be read)"));
  return out;
}

}  // namespace

std::optional<bool> detail::unread(const InputFile& file, const absl::Status& read, std::vector<std::string>& skipped,
                                   absl::Status& error) {
  if (read.ok()) return std::nullopt;
  if (file.found && read.code() == absl::StatusCode::kNotFound &&
      (file.path.ends_with(".json") || file.path.ends_with(".json.gz"))) {
    skipped.push_back(cat("skipped ", std::string(read.message())));
    return true;
  }
  error = read;
  return false;
}

absl::Status detail::no_trace_among(const std::string& source, std::size_t files,
                                    const std::vector<std::string>& warnings) {
  return absl::NotFoundError(cat(source, ": no trace among its ", files, " candidate files (",
                                 warnings.empty() ? std::string() : warnings.back(), ")"));
}

// "vm.trace.json.gz" -> "vm", "rank0.pt.trace.json" -> "rank0".
std::string detail::file_stem(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (std::string_view suffix : {".gz", ".json", ".trace", ".pt", ".pb", ".xplane"})
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      name.resize(name.size() - suffix.size());
  return name;
}

std::string detail::host_of_part(const std::vector<InputFile>& files, std::size_t i) {
  return files.size() > 1 ? file_stem(files[i].path) : std::string();
}

detail::TraceMerge::TraceMerge(std::string source) : builder_(std::make_unique<TraceBuilder>(std::move(source))) {}
detail::TraceMerge::~TraceMerge() = default;
Trace& detail::TraceMerge::trace() { return builder_->trace(); }

detail::PartRemap detail::merge_part(TraceMerge& into, Trace part, const std::string& host_fallback) {
  TraceBuilder& b = into.builder();
  Trace& t = b.trace();
  PartRemap remap{.ops = std::vector<std::uint32_t>(part.ops.size()),
                  .calls = std::vector<std::uint32_t>(part.calls.size())};
  for (std::size_t i = 0; i < part.ops.size(); ++i) remap.ops[i] = b.intern_op(std::move(part.ops[i]));
  for (std::size_t i = 0; i < part.calls.size(); ++i) remap.calls[i] = b.intern_call(b.rebased_call(std::move(part.calls[i]), part));
  auto renumber = [&](Device& d) {
    for (Event& e : d.events) {
      e.op = remap.ops[e.op];
      if (e.call != kNoCall) e.call = remap.calls[e.call];
    }
    if (d.host.empty()) d.host = host_fallback;
  };
  for (Device& d : part.devices) {
    renumber(d);
    t.devices.push_back(std::move(d));
  }
  for (Device& d : part.hosts) {
    renumber(d);
    t.hosts.push_back(std::move(d));
  }
  for (Step& s : part.host_steps) {
    if (s.host.empty()) s.host = host_fallback;
    t.host_steps.push_back(std::move(s));
  }
  for (HloModuleBytes& h : part.hlo_modules) t.hlo_modules.push_back(std::move(h));
  for (std::string& w : part.warnings) t.warnings.push_back(std::move(w));
  t.files.insert(t.files.end(), part.files.begin(), part.files.end());
  t.formats.insert(t.formats.end(), part.formats.begin(), part.formats.end());
  if (!t.time_origin_ns) t.time_origin_ns = part.time_origin_ns;
  return remap;
}

bool detail::join_host_timelines(Trace& t, Trace& hosts) {
  const std::size_t device_ops = t.ops.size();
  {
    Trace ops_only;
    ops_only.ops = t.ops;
    TraceBuilder probe(std::move(ops_only));
    for (const OpInfo& op : hosts.ops)
      if (probe.intern_op(op) < device_ops) return false;
  }
  TraceBuilder b(std::move(t));
  std::vector<std::uint32_t> ops(hosts.ops.size()), calls(hosts.calls.size());
  for (std::size_t i = 0; i < hosts.ops.size(); ++i) ops[i] = b.intern_op(std::move(hosts.ops[i]));
  for (std::size_t i = 0; i < hosts.calls.size(); ++i) calls[i] = b.intern_call(b.rebased_call(std::move(hosts.calls[i]), hosts));
  for (Device& h : hosts.hosts) {
    for (Event& e : h.events) {
      e.op = ops[e.op];
      if (e.call != kNoCall) e.call = calls[e.call];
    }
    b.trace().hosts.push_back(std::move(h));
  }
  t = std::move(b.trace());
  return true;
}

std::vector<std::size_t> detail::listing_order(const std::vector<Device>& devices) {
  std::vector<std::size_t> order(devices.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    const Device& a = devices[i];
    const Device& b = devices[j];
    if (a.host != b.host) return a.host < b.host;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.id < b.id;
  });
  return order;
}

std::vector<std::size_t> detail::finish_merge(Trace& t, std::vector<std::string> warnings,
                                              std::size_t listing_warnings) {
  t.skipped_warnings = warnings.size() - listing_warnings;
  t.listing_warnings = listing_warnings;
  t.warnings.insert(t.warnings.begin(), warnings.begin(), warnings.end());
  const std::vector<std::size_t> order = listing_order(t.devices);
  std::vector<Device> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) sorted.push_back(std::move(t.devices[i]));
  t.devices = std::move(sorted);
  return order;
}

absl::StatusOr<detail::InputListing> detail::list_inputs(const std::vector<std::string>& paths_or_globs) {
  if (paths_or_globs.empty()) return absl::InvalidArgumentError("no trace given");
  InputListing out;
  for (const std::string& entry : paths_or_globs) out.source += cat(out.source.empty() ? "" : " ", entry);
  // Each entry as the paths it names: itself, or a pattern's matches.
  struct Named {
    std::string path;
    bool found = false;
  };
  std::vector<Named> named;
  for (const std::string& entry : paths_or_globs) {
    std::error_code ec;
    if (!has_glob_chars(entry) || fs::exists(entry, ec)) {
      named.push_back({.path = entry, .found = false});
      continue;
    }
    ROOFLINE_ASSIGN_OR_RETURN(std::vector<std::string> matches, expand_glob(entry));
    for (std::string& m : matches) named.push_back({.path = std::move(m), .found = true});
  }
  for (const Named& n : named) {
    std::error_code ec;
    if (fs::is_directory(n.path, ec)) {
      ROOFLINE_RETURN_IF_ERROR(add_directory(n.path, out.files, out.warnings));
    } else {
      out.files.push_back({.path = n.path, .found = n.found, .size_bytes = size_on_disk(n.path)});
    }
  }
  out.single = named.size() == 1 && !named.front().found && out.files.size() == 1 && out.files.front().path == named.front().path;
  // A file met twice (a directory and a pattern inside it) is read once.
  std::set<std::string> seen;
  std::erase_if(out.files, [&](const InputFile& f) { return !seen.insert(f.path).second; });
  return out;
}

absl::StatusOr<Trace> read_trace(const std::string& path, const TraceReadOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return read_file(path, options);
  std::vector<InputFile> files;
  std::vector<std::string> warnings;
  ROOFLINE_RETURN_IF_ERROR(add_directory(path, files, warnings));
  return read_files(path, files, std::move(warnings), options);
}

absl::StatusOr<Trace> read_traces(const std::vector<std::string>& paths_or_globs, const TraceReadOptions& options) {
  ROOFLINE_ASSIGN_OR_RETURN(detail::InputListing in, detail::list_inputs(paths_or_globs));
  if (in.single) return read_file(in.files.front().path, options);
  return read_files(in.source, in.files, std::move(in.warnings), options);
}

}  // namespace roofline
