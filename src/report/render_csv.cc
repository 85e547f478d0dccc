// CSV: one row per op, RFC 4180 quoting, empty cells where a figure is
// unknown (never 0, which would read as a measurement).
#include <cstdio>
#include <string>

#include "roofline/report/render.hpp"

namespace roofline {
namespace {

std::string quote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string opt(const std::optional<double>& v) { return v ? num(*v) : ""; }

}  // namespace

std::string render_csv(const Report& r) {
  std::string out =
      "name,module,category,hlo_category,count,measured_s,predicted_s,t_math_s,t_hbm_s,t_ici_s,"
      "bound,ratio,flop_util,bw_util,lost_s,flops,hbm_bytes,xla_flops,xla_bytes,match,reason,"
      "target_predicted_s,shapes\n";
  for (const OpReport& op : r.ops) {
    const bool p = op.predicted;
    out += quote(op.name) + "," + quote(op.module) + "," + quote(op.category) + "," +
           quote(op.hlo_category) + "," + std::to_string(op.count) + "," + num(op.measured_s) + "," +
           (p ? num(op.predicted_s) : "") + "," + (p ? num(op.t_math_s) : "") + "," +
           (p ? num(op.t_hbm_s) : "") + "," + (p ? num(op.t_ici_s) : "") + "," +
           (p ? std::string(bound_name(op.bound)) : "") + "," + (p ? num(op.ratio) : "") + "," +
           (p ? num(op.flop_util) : "") + "," + (p ? num(op.bw_util) : "") + "," +
           (p ? num(op.lost_s) : "") + "," + (p ? num(op.flops) : "") + "," +
           (p ? num(op.hbm_bytes) : "") + "," + opt(op.xla_flops) + "," + opt(op.xla_bytes) + "," +
           std::string(match_source_name(op.match)) + "," + quote(op.reason) + "," +
           opt(op.target_predicted_s) + "," + quote(op.shapes) + "\n";
  }
  return out;
}

}  // namespace roofline
