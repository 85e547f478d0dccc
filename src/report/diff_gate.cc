// --fail-if: parsing a gate on a diff's headline figures and evaluating it
// (roofline/report/diff.hpp).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "roofline/report/diff.hpp"

namespace roofline {
namespace {

struct Metric {
  std::string_view name;
  bool is_time;  // seconds; else a fraction
  double DiffHeadline::*field;
};
constexpr Metric kMetrics[] = {
    {"step_time", true, &DiffHeadline::step_time_s}, {"busy", true, &DiffHeadline::busy_s},
    {"idle", true, &DiffHeadline::idle_s},           {"expected", true, &DiffHeadline::expected_s},
    {"mfu", false, &DiffHeadline::mfu},              {"duty_cycle", false, &DiffHeadline::duty_cycle},
};

const Metric* find_metric(std::string_view name) {
  for (const Metric& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string metric_list() {
  std::string s;
  for (const Metric& m : kMetrics) s += (s.empty() ? "" : ", ") + std::string(m.name);
  return s;
}

absl::Status bad(std::string_view expression, std::size_t at, std::string_view why) {
  return absl::InvalidArgumentError("--fail-if \"" + std::string(expression) + "\": at character " +
                                    std::to_string(at + 1) + ": " + std::string(why));
}

// A hand-written scanner: the grammar is three tokens per condition.
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  absl::StatusOr<Gate> gate() {
    Gate g;
    g.text = std::string(s_);
    g.any_of.emplace_back();
    for (;;) {
      absl::StatusOr<GateCondition> c = condition();
      if (!c.ok()) return c.status();
      g.any_of.back().push_back(*c);
      skip_space();
      if (at_ == s_.size()) break;
      const std::string word = identifier();
      if (word == "or") g.any_of.emplace_back();
      else if (word != "and") return bad(s_, at_, "expected 'or' or 'and' after a condition");
    }
    return g;
  }

 private:
  void skip_space() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
  }
  std::string identifier() {
    skip_space();
    std::string out;
    while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '_')) out += s_[at_++];
    return out;
  }

  absl::StatusOr<GateCondition> condition() {
    GateCondition c;
    const std::size_t start = (skip_space(), at_);
    c.metric = identifier();
    const Metric* m = find_metric(c.metric);
    if (!m) return bad(s_, start, "expected a figure (" + metric_list() + ")");
    skip_space();
    for (std::string_view op : {"<=", ">=", "<", ">"})
      if (s_.substr(at_).starts_with(op)) {
        c.op = std::string(op);
        at_ += op.size();
        break;
      }
    if (c.op.empty()) return bad(s_, at_, "expected <, >, <= or >= after " + c.metric);
    skip_space();
    const std::size_t number_at = at_;
    const std::string rest(s_.substr(at_));
    char* end = nullptr;
    const double v = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str() || !std::isfinite(v)) return bad(s_, number_at, "expected a number");
    at_ += static_cast<std::size_t>(end - rest.c_str());
    const std::size_t unit_at = at_;
    std::string unit;
    if (at_ < s_.size() && s_[at_] == '%') {
      unit = "%";
      ++at_;
    } else {
      unit = identifier();
    }
    if (unit == "%") {
      c.unit = "%";
      c.limit = v / 100;
    } else if (unit == "pp") {
      if (m->is_time) return bad(s_, unit_at, c.metric + " is a time: give % or a time unit (s, ms, us, ns)");
      c.unit = "pp";
      c.limit = v / 100;
    } else if (unit == "s" || unit == "ms" || unit == "us" || unit == "ns") {
      if (!m->is_time) return bad(s_, unit_at, c.metric + " is a fraction: give % (relative) or pp (points)");
      c.unit = "s";
      c.limit = v * (unit == "s" ? 1 : unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : 1e-9);
    } else {
      return bad(s_, unit_at, "expected a unit after the number: % (relative change), pp, s, ms, us or ns");
    }
    c.text = std::string(s_.substr(start, at_ - start));
    return c;
  }

  std::string_view s_;
  std::size_t at_ = 0;
};

std::string signed_figure(double v, const std::string& unit) {
  char buf[48];
  if (unit == "s") std::snprintf(buf, sizeof buf, "%+.4g ms", v * 1e3);
  else std::snprintf(buf, sizeof buf, "%+.3g%s", v * 100, unit == "%" ? "%" : " pp");
  return buf;
}

}  // namespace

absl::StatusOr<Gate> parse_gate(std::string_view expression) {
  if (expression.find_first_not_of(" \t") == std::string_view::npos)
    return absl::InvalidArgumentError("--fail-if: the expression is empty");
  if (expression.size() > 4096) return absl::InvalidArgumentError("--fail-if: the expression is over 4096 characters");
  return Parser(expression).gate();
}

GateResult evaluate(const Gate& gate, const ReportDiff& d) {
  GateResult out;
  for (const std::vector<GateCondition>& all : gate.any_of) {
    std::vector<std::string> why;
    bool holds = true;
    for (const GateCondition& c : all) {
      const Metric* m = find_metric(c.metric);
      const double before = d.before.*(m->field), after = d.after.*(m->field);
      const double change = c.unit == "%" ? (after - before) / before : after - before;
      if (!std::isfinite(change)) {
        why.push_back(c.text + ": " + c.metric + " is unknown on " +
                      (std::isfinite(before) ? "the after side" : "the before side") +
                      (std::isfinite(before) && std::isfinite(after) ? " (its before value is 0)" : "") +
                      ", so the gate cannot pass");
        continue;
      }
      const bool passes_limit = c.op == "<" ? change < c.limit : c.op == ">" ? change > c.limit
                                : c.op == "<=" ? change <= c.limit : change >= c.limit;
      if (!passes_limit) {
        holds = false;
        break;
      }
      why.push_back(c.text + ": " + c.metric + " changed " + signed_figure(change, c.unit));
    }
    if (holds) {
      out.failed = true;
      out.reasons.insert(out.reasons.end(), why.begin(), why.end());
    }
  }
  return out;
}

}  // namespace roofline
