// Shared words of the report renderers (roofline/report/labels.hpp).
#include "roofline/report/labels.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/units.hpp"

namespace roofline {

std::string op_bound_label(const OpReport& op) {
  if (!op.predicted) return "unknown";
  if (op.prediction.t_lower_s <= 0) return "-";
  return std::string(bound_name(op.prediction.bound));
}

double expected_ratio(const OpReport& op) {
  return op.predicted && op.expected_s > 0 ? op.measured_s / op.expected_s : 0;
}

std::string calibration_label(const std::string& origin) {
  // The origin is read from a calibration file: escaped for every renderer.
  return origin.empty() ? std::string("calibration not recorded") : "calibration: " + for_terminal(origin);
}

TargetTotals target_totals(const Report& r) {
  TargetTotals t;
  for (const OpReport& o : r.ops) {
    if (o.async) continue;  // as the summary's totals: exposed waits are apart
    t.predicted_s += o.target_predicted_s.value_or(0);
    t.expected_s += o.target_expected_s.value_or(0);
    if (o.target_expected_s) t.measured_s += o.measured_s;
    if (o.target_expected_s && o.target_method) {
      const auto k = static_cast<std::size_t>(*o.target_method);
      t.method_s[k] += *o.target_expected_s;
      ++t.method_ops[k];
    }
  }
  return t;
}

std::string target_methods_text(const TargetTotals& t) {
  static constexpr std::array<std::string_view, 3> kWords = {
      "modelled by the target's expected time", "scaled from their measured time (Habitat wave scaling)",
      "measured (same chip)"};
  std::string s;
  for (std::size_t k : {std::size_t{1}, std::size_t{0}, std::size_t{2}}) {
    if (t.method_ops[k] == 0) continue;
    if (!s.empty()) s += ", ";
    s += std::to_string(t.method_ops[k]) + " op(s) " + std::string(kWords[k]) + " " + format_seconds(t.method_s[k]);
  }
  return s;
}

std::string_view cost_source_tag(MatchSource m) {
  switch (m) {
    case MatchSource::kHloModule: return "hlo";
    case MatchSource::kHloGiven: return "file";
    case MatchSource::kOpHloText: return "text";
    case MatchSource::kInputDims: return "dims";
    case MatchSource::kCollectiveArgs: return "args";
    case MatchSource::kCopyBytes: return "bytes";
    case MatchSource::kXlaStats: return "xla";
    case MatchSource::kUnmatched: return "-";
  }
  return "-";
}

namespace {

// `s` without the outermost <...> groups: "a<b<c>>::d<e>" -> "a<...>::d<...>".
std::string without_template_args(std::string_view s) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '<') {
      if (depth++ == 0) out += "<...>";
    } else if (c == '>' && depth > 0) {
      --depth;
    } else if (depth == 0) {
      out += c;
    }
  }
  return out;
}

// The end of the name proper: the '(' that opens the parameter list, not
// one inside template arguments ("(anonymous namespace)").
std::size_t parameter_list_at(std::string_view s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    else if (s[i] == '>' && depth > 0) --depth;
    else if (s[i] == '(' && depth == 0 && i > 0 && s.substr(i, 20) != "(anonymous namespace") return i;
  }
  return std::string_view::npos;
}

}  // namespace

std::string short_op_name(std::string_view name, std::size_t max) {
  if (name.size() <= max) return std::string(name);
  std::string_view s = name;
  if (s.substr(0, 5) == "void ") s.remove_prefix(5);
  if (const std::size_t p = parameter_list_at(s); p != std::string_view::npos) s = s.substr(0, p);
  std::string out(s);
  if (out.size() > max) out = without_template_args(out);
  if (out.size() > max) out = out.substr(0, max > 3 ? max - 3 : 0) + "...";
  return out;
}

std::optional<std::string> nothing_predicted_headline(const Report& r) {
  if (r.ops.empty() || std::any_of(r.ops.begin(), r.ops.end(), [](const OpReport& o) { return o.predicted; }))
    return std::nullopt;
  // Reasons by the measured time of the ops that give them.
  std::map<std::string, double> by_reason;
  double total = 0;
  for (const OpReport& o : r.ops) {
    by_reason[o.reason.empty() ? std::string("no cost found") : o.reason] += o.measured_s;
    total += o.measured_s;
  }
  std::vector<std::pair<std::string, double>> ranked(by_reason.begin(), by_reason.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string reasons;
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i)
    reasons += detail::cat(i ? "; " : "", ranked[i].first, " (", format_seconds(ranked[i].second), ")");
  return detail::cat("nothing could be predicted: none of the ", r.ops.size(), " ops (", format_seconds(total),
                     " measured) has a cost source; main reasons: ", reasons);
}

namespace {

// ", tied with N other devices" when the device a headline names shares its
// count with others (the first listed is named), else nothing.
template <class Same>
std::string also_tied(const AcrossDevices& a, Same same) {
  const auto n = std::count_if(a.devices.begin(), a.devices.end(), same);
  return n > 1 ? detail::cat(", tied with ", n - 1, n == 2 ? " other device" : " other devices") : std::string();
}

}  // namespace

std::optional<std::string> across_devices_headline(const Report& r) {
  if (!r.across_devices) return std::nullopt;
  const AcrossDevices& a = *r.across_devices;
  std::vector<std::string> parts;
  // The device slowest in most steps (the first listed on a tie).
  const DeviceWait* slowest = nullptr;
  for (const DeviceWait& d : a.devices)
    if (d.slowest_steps > 0 && (!slowest || d.slowest_steps > slowest->slowest_steps)) slowest = &d;
  if (slowest) {
    double most_s = 0;
    for (const StepStraggler& st : a.steps)
      if (st.skew_s > 0 && st.slowest_device == slowest->device) most_s = std::max(most_s, st.skew_s);
    parts.push_back(detail::cat("slowest device per step: ", for_terminal(slowest->device), " in ",
                                slowest->slowest_steps, " of ", a.steps.size(), " steps (up to +",
                                format_seconds(most_s), ")",
                                also_tied(a, [&](const DeviceWait& d) { return d.slowest_steps == slowest->slowest_steps; })));
  }
  double wait_s = 0;
  for (const DeviceWait& d : a.devices) wait_s += d.collective_wait_s;
  if (wait_s > 0) {
    std::int64_t calls = 0;
    for (const CollectiveWait& c : a.collectives) calls += c.calls;
    const DeviceWait* waited_for = nullptr;
    for (const DeviceWait& d : a.devices)
      if (d.waited_for_count > 0 && (!waited_for || d.waited_for_count > waited_for->waited_for_count)) waited_for = &d;
    std::string part = detail::cat("collective waits: ", format_seconds(wait_s), " over ", a.devices.size(), " devices");
    if (waited_for)
      part += detail::cat(", most often waiting for ", for_terminal(waited_for->device), " (",
                          waited_for->waited_for_count, " of ", calls, " calls)",
                          also_tied(a, [&](const DeviceWait& d) { return d.waited_for_count == waited_for->waited_for_count; }));
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return std::nullopt;
  return parts.size() == 1 ? parts[0] : parts[0] + "; " + parts[1];
}

std::vector<const StepStraggler*> steps_by_skew(const AcrossDevices& a, std::size_t top) {
  std::vector<const StepStraggler*> out;
  for (const StepStraggler& st : a.steps) out.push_back(&st);
  std::stable_sort(out.begin(), out.end(),
                   [](const StepStraggler* x, const StepStraggler* y) { return x->skew_s > y->skew_s; });
  if (out.size() > top) out.resize(top);
  return out;
}

std::vector<const DeviceWait*> devices_shown(const AcrossDevices& a, std::size_t max) {
  std::vector<const DeviceWait*> out;
  for (const DeviceWait& d : a.devices) out.push_back(&d);
  if (out.size() <= max) return out;
  std::stable_sort(out.begin(), out.end(),
                   [](const DeviceWait* x, const DeviceWait* y) { return x->collective_wait_s > y->collective_wait_s; });
  out.resize(max);
  return out;
}

}  // namespace roofline
