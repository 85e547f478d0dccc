#include "src/trace/chrome/kineto_scopes.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>

#include "roofline/detail/cat.hpp"

namespace roofline::detail {
namespace {

// A range's name as a path component: nn.Module ranges without their
// "nn.Module: " prefix, cut to kMaxScopeNameBytes (not inside a UTF-8
// sequence).
std::string_view component(std::string_view name, std::uint64_t& cut) {
  if (name.starts_with("nn.Module: ")) name.remove_prefix(11);
  if (name.size() <= kMaxScopeNameBytes) return name;
  ++cut;
  std::size_t n = kMaxScopeNameBytes;
  while (n > 0 && (static_cast<unsigned char>(name[n]) & 0xC0) == 0x80) --n;
  return name.substr(0, n);
}

// Sorts by start, longest first (ties by name, so that file order never
// decides), and links each span to the innermost one enclosing it: a span
// that overlaps an earlier one without nesting goes inside the earlier one
// only when it ends within it, else beside it.
// Returns how many spans nest deeper than kMaxScopeDepth.
template <class Span>
std::uint64_t index_spans(std::vector<Span>& v, const Trace& t) {
  std::uint64_t deep = 0;
  std::sort(v.begin(), v.end(), [&](const Span& a, const Span& b) {
    if (a.start_ps != b.start_ps) return a.start_ps < b.start_ps;
    if (a.end_ps != b.end_ps) return a.end_ps > b.end_ps;
    return std::tie(t.ops[a.op].name, a.kind) < std::tie(t.ops[b.op].name, b.kind);
  });
  std::vector<std::int32_t> stack;
  for (std::size_t k = 0; k < v.size(); ++k) {
    while (!stack.empty() && v[static_cast<std::size_t>(stack.back())].end_ps < v[k].end_ps) stack.pop_back();
    Span& s = v[k];
    s.parent = stack.empty() ? -1 : stack.back();
    s.depth = s.parent < 0 ? 0 : v[static_cast<std::size_t>(s.parent)].depth + 1;
    // Past the cap, the ancestor at the cap: one hop from any span.
    if (s.depth < kMaxScopeDepth) s.capped = static_cast<std::int32_t>(k);
    else if (s.depth == kMaxScopeDepth) s.capped = s.parent;
    else s.capped = v[static_cast<std::size_t>(s.parent)].capped;
    if (s.depth >= kMaxScopeDepth) ++deep;
    stack.push_back(static_cast<std::int32_t>(k));
  }
  return deep;
}

}  // namespace

ScopeFinder::ScopeFinder(std::vector<StagedLine>& lines, TraceBuilder& builder)
    : builder_(builder), lines_(lines) {
  const Trace& t = builder.trace();
  host_.resize(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    StagedLine& l = lines[i];
    if (l.key.lane == 1) {
      // GPU annotations of the device (pid), but not its steps.
      auto [it, fresh] = gpu_slot_.try_emplace(l.key.pid, static_cast<std::uint32_t>(gpu_.size()));
      if (fresh) gpu_.emplace_back();
      for (const StagedEvent& e : l.events) {
        if (t.ops[e.op].name.starts_with("ProfilerStep#")) continue;
        gpu_[it->second].push_back({.start_ps = e.start_ps,
                                    .end_ps = e.start_ps + e.duration_ps,
                                    .op = e.op,
                                    .kind = kScopeKindGpuAnnotation});
      }
    }
    for (const ScopeSpan& s : l.scopes)
      host_[i].push_back({.start_ps = s.start_ps, .end_ps = s.end_ps, .op = s.op, .kind = s.kind});
    l.scopes.release();
    deep_ += index_spans(host_[i], t);
  }
  for (std::vector<Span>& v : gpu_) deep_ += index_spans(v, t);
}

// The innermost span holding [start_ps, end_ps], or -1: the last to start
// at or before it, then out through its capped ancestor while one does not
// hold it (at most kMaxScopeDepth steps).
std::int32_t ScopeFinder::innermost(const std::vector<Span>& v, std::int64_t start_ps, std::int64_t end_ps) const {
  auto after = std::upper_bound(v.begin(), v.end(), start_ps,
                                [](std::int64_t t, const Span& s) { return t < s.start_ps; });
  if (after == v.begin()) return -1;
  std::int32_t i = v[static_cast<std::size_t>(after - v.begin() - 1)].capped;
  while (i >= 0 && v[static_cast<std::size_t>(i)].end_ps < end_ps) i = v[static_cast<std::size_t>(i)].parent;
  return i;
}

bool ScopeFinder::spend(std::size_t bytes) {
  if (path_bytes_ + bytes > kMaxScopePathBytes) {
    ++over_budget_;
    return false;
  }
  path_bytes_ += bytes;
  return true;
}

bool ScopeFinder::chain(const std::vector<Span>& spans, std::int32_t i, std::uint8_t& kinds) {
  std::vector<std::string_view> names;
  for (; i >= 0; i = spans[static_cast<std::size_t>(i)].parent) {
    const Span& s = spans[static_cast<std::size_t>(i)];
    const std::string_view c = component(builder_.trace().ops[s.op].name, cut_names_);
    if (c.empty()) continue;
    names.push_back(c);
    kinds |= s.kind;
  }
  path_.clear();
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    if (!path_.empty()) path_ += '/';
    path_.append(*it);
  }
  return spend(path_.size());
}

FoundScope ScopeFinder::scope_of(std::uint32_t work_line, const StagedEvent& work, std::uint32_t launch_line,
                                 const StagedEvent* launch) {
  FoundScope host;
  if (launch != nullptr && !host_[launch_line].empty()) {
    const std::int32_t i = innermost(host_[launch_line], launch->start_ps, launch->start_ps + launch->duration_ps);
    if (i >= 0) {
      const std::uint64_t key = (std::uint64_t{launch_line} << 32) | static_cast<std::uint32_t>(i);
      auto it = host_memo_.find(key);
      if (it == host_memo_.end()) {
        FoundScope f;
        if (chain(host_[launch_line], i, f.kinds) && !path_.empty()) f.scope = builder_.intern_scope(path_);
        if (f.scope == kNoScopePath) f.kinds = 0;
        it = host_memo_.emplace(key, f).first;
      }
      host = it->second;
    }
  }
  std::uint32_t gpu = kNoScopePath;
  if (auto slot = gpu_slot_.find(lines_[work_line].key.pid); slot != gpu_slot_.end()) {
    const std::vector<Span>& v = gpu_[slot->second];
    const std::int32_t i = innermost(v, work.start_ps, work.start_ps);
    if (i >= 0) {
      const std::uint64_t key = (std::uint64_t{slot->second} << 32) | static_cast<std::uint32_t>(i);
      auto it = gpu_memo_.find(key);
      if (it == gpu_memo_.end()) {
        std::uint8_t kinds = 0;
        std::uint32_t id = kNoScopePath;
        if (chain(v, i, kinds) && !path_.empty()) {
          id = static_cast<std::uint32_t>(gpu_paths_.size());
          gpu_paths_.push_back(path_);
        }
        it = gpu_memo_.emplace(key, id).first;
      }
      gpu = it->second;
    }
  }
  if (gpu == kNoScopePath) return host;
  const std::uint64_t key = (std::uint64_t{host.scope} << 32) | gpu;
  if (auto it = joined_.find(key); it != joined_.end()) return it->second;
  // The host ranges, then the GPU annotations none of them names (a
  // record_function shows on both sides under one name).
  const std::string_view host_path =
      host.scope == kNoScopePath ? std::string_view() : std::string_view(builder_.trace().scopes[host.scope]);
  path_.assign(host_path);
  std::uint8_t kinds = host.kinds;
  std::string_view rest = gpu_paths_[gpu];
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    const std::string_view c = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    bool named = false;
    for (std::string_view h = host_path; !h.empty() && !named;) {
      const std::size_t s = h.find('/');
      named = h.substr(0, s) == c;
      h = s == std::string_view::npos ? std::string_view() : h.substr(s + 1);
    }
    if (named) continue;
    if (!path_.empty()) path_ += '/';
    path_.append(c);
    kinds |= kScopeKindGpuAnnotation;
  }
  FoundScope f = host;
  if (kinds != host.kinds && spend(path_.size())) f = {.scope = builder_.intern_scope(path_), .kinds = kinds};
  joined_.emplace(key, f);
  return f;
}

void ScopeFinder::warn() const {
  Trace& t = builder_.trace();
  if (deep_ > 0)
    t.warnings.push_back(cat(t.source, ": ", deep_, " scope ranges nest deeper than ", kMaxScopeDepth,
                             " ranges; their work is put in their ancestor at that depth"));
  if (cut_names_ > 0)
    t.warnings.push_back(cat(t.source, ": scope range names longer than ", kMaxScopeNameBytes,
                             " bytes were cut to that length (", cut_names_, " times)"));
  if (over_budget_ > 0)
    t.warnings.push_back(cat(t.source, ": the scope paths passed ", kMaxScopePathBytes >> 20, " MiB; ",
                             over_budget_, " later scopes were left out"));
}

}  // namespace roofline::detail
