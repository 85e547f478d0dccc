#include "src/hlo/attributes.hpp"

#include <cctype>

#include "absl/container/inlined_vector.h"

#include "roofline/detail/cat.hpp"
#include "src/hlo/cursor.hpp"
#include "src/hlo/text_util.hpp"

namespace roofline::detail {

bool parse_int(std::string_view text, std::int64_t* out) {
  Cursor c(text);
  c.skip_space();
  if (!c.integer(out, "an integer")) return false;
  c.skip_space();
  return c.at_end();
}

namespace {

// Calls f(key, value) for each `key=value` of a blank-separated list (the
// inside of window={...}, a FileLocations entry) until f returns false; a
// value runs to the next blank outside brackets and quotes.
template <class F>
void for_each_sub_value(std::string_view text, F f) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '{' || text[i] == '\n' || text[i] == '\t')) ++i;
    std::size_t k = i;
    while (k < text.size() && text[k] != '=' && text[k] != ' ') ++k;
    const std::string_view found = text.substr(i, k - i);
    if (k >= text.size() || text[k] != '=') {
      i = k + 1;
      continue;
    }
    std::size_t v = k + 1, e = v;
    int depth = 0;
    while (e < text.size()) {
      const char c = text[e];
      if (c == '"') {
        ++e;
        while (e < text.size() && text[e] != '"') e += text[e] == '\\' ? 2 : 1;
      } else if (c == '{' || c == '[' || c == '(') {
        ++depth;
      } else if (c == '}' || c == ']' || c == ')') {
        if (depth == 0) break;
        --depth;
      } else if (depth == 0 && (c == ' ' || c == '\n' || c == '\t')) {
        break;
      }
      ++e;
    }
    if (e > text.size()) e = text.size();
    if (!f(found, text.substr(v, e - v))) return;
    i = e;
  }
}

}  // namespace

std::string_view sub_value(std::string_view text, std::string_view key) {
  std::string_view out;
  for_each_sub_value(text, [&](std::string_view k, std::string_view v) {
    if (k != key) return true;
    out = v;
    return false;
  });
  return out;
}

bool sub_int(std::string_view text, std::string_view key, std::int64_t* out) {
  const std::string_view v = sub_value(text, key);
  return !v.empty() && parse_int(v, out);
}

namespace {

void append_unescaped(std::string& out, std::string_view raw) {
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      out += c;
      continue;
    }
    const char e = raw[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'x': {
        int v = 0, n = 0;
        while (n < 2 && i + 1 < raw.size() && std::isxdigit(static_cast<unsigned char>(raw[i + 1]))) {
          const char h = raw[++i];
          v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
          ++n;
        }
        out += static_cast<char>(v);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0', n = 1;
          while (n < 3 && i + 1 < raw.size() && raw[i + 1] >= '0' && raw[i + 1] <= '7') {
            v = v * 8 + (raw[++i] - '0');
            ++n;
          }
          out += static_cast<char>(v & 0xff);
        } else {
          out += e;  // \" \\ \' and anything else stand for themselves
        }
    }
  }
}

}  // namespace

std::string unescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  append_unescaped(out, raw);
  return out;
}

std::string_view unescape(StringArena& arena, std::string_view raw) {
  if (raw.find('\\') == std::string_view::npos) return raw;
  return arena.store(unescape(raw));
}

bool parse_int_list(std::string_view text, IntList* out) {
  Cursor c(text);
  c.skip_space();
  if (!c.consume('{')) return false;
  c.skip_space();
  if (c.consume('}')) return true;
  for (;;) {
    c.skip_space();
    std::int64_t v;
    if (!c.integer(&v, "an integer")) return false;
    out->push_back(v);
    c.skip_space();
    if (c.consume('}')) break;
    if (!c.consume(',')) return false;
  }
  c.skip_space();
  return c.at_end();
}

std::string format_int_list(const IntList& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += detail::cat(i ? "," : "", v[i]);
  return s + "}";
}

bool dot_dims_from_attributes(const HloInstruction& dot, DotDims* out) {
  struct Field {
    std::string_view key;
    IntList* list;
  };
  for (const Field f : {Field{"lhs_batch_dims", &out->lhs_batch}, Field{"lhs_contracting_dims", &out->lhs_contracting},
                        Field{"rhs_batch_dims", &out->rhs_batch}, Field{"rhs_contracting_dims", &out->rhs_contracting}}) {
    const std::string_view v = dot.attribute(f.key);
    if (!v.empty() && !parse_int_list(v, f.list)) return false;
  }
  return true;
}

bool json_int(const nlohmann::json& j, std::int64_t* out) {
  if (j.is_number_integer()) {
    *out = j.get<std::int64_t>();
    return true;
  }
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) return false;
    *out = static_cast<std::int64_t>(u);
    return true;
  }
  if (j.is_string()) return parse_int(j.get_ref<const std::string&>(), out);
  return false;
}

bool dot_dims_from_json(const nlohmann::json& j, DotDims* out) {
  if (!j.is_object()) return false;
  struct Field {
    const char* key;
    IntList* list;
  };
  for (const Field f : {Field{"lhs_batch_dimensions", &out->lhs_batch},
                        Field{"lhs_contracting_dimensions", &out->lhs_contracting},
                        Field{"rhs_batch_dimensions", &out->rhs_batch},
                        Field{"rhs_contracting_dimensions", &out->rhs_contracting}}) {
    auto it = j.find(f.key);
    if (it == j.end()) continue;
    if (!it->is_array()) return false;
    for (const nlohmann::json& v : *it) {
      std::int64_t d;
      if (!json_int(v, &d)) return false;
      f.list->push_back(d);
    }
  }
  return true;
}

namespace {

using Parts = absl::InlinedVector<std::string_view, 8>;

// "3x3" -> {"3","3"}; "1_1x0_0" -> {"1_1","0_0"}.
void split_x(std::string_view v, Parts* parts) {
  parts->clear();
  std::size_t i = 0;
  while (i <= v.size()) {
    std::size_t j = v.find('x', i);
    if (j == std::string_view::npos) j = v.size();
    parts->push_back(v.substr(i, j - i));
    i = j + 1;
  }
}

}  // namespace

bool parse_window(std::string_view text, WindowList* out) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  const std::string_view inner = text.substr(1, text.size() - 2);
  // The first value of each key, in one pass (an empty value counts as absent).
  enum { kSize, kStride, kPad, kLhsDilate, kRhsDilate, kRhsReversal, kKeys };
  static constexpr std::string_view kKeyNames[kKeys] = {"size", "stride", "pad", "lhs_dilate", "rhs_dilate",
                                                        "rhs_reversal"};
  std::string_view values[kKeys];
  bool seen[kKeys] = {};
  for_each_sub_value(inner, [&](std::string_view k, std::string_view v) {
    for (int n = 0; n < kKeys; ++n)
      if (k == kKeyNames[n] && !seen[n]) {
        seen[n] = true;
        values[n] = v;
      }
    return true;
  });
  Parts parts;
  std::size_t rank = 0;
  if (!values[kSize].empty()) {
    split_x(values[kSize], &parts);
    rank = parts.size();
  }
  if (rank == 0) return inner.find_first_not_of(" ") == std::string_view::npos;  // "{}": no window
  if (rank > 64) return false;
  out->assign(rank, WindowDimension{});
  struct Field {
    int key;
    std::int64_t WindowDimension::*member;
  };
  for (const Field f : {Field{kSize, &WindowDimension::size}, Field{kStride, &WindowDimension::stride},
                        Field{kLhsDilate, &WindowDimension::base_dilation},
                        Field{kRhsDilate, &WindowDimension::window_dilation}}) {
    if (values[f.key].empty()) continue;
    split_x(values[f.key], &parts);
    if (parts.size() != rank) return false;
    for (std::size_t i = 0; i < rank; ++i)
      if (!parse_int(parts[i], &((*out)[i].*f.member))) return false;
  }
  if (!values[kPad].empty()) {
    split_x(values[kPad], &parts);
    if (parts.size() != rank) return false;
    for (std::size_t i = 0; i < rank; ++i) {
      // "lo_hi"; a negative pad prints as "-1_-1".
      const std::size_t u = parts[i].find('_', 1);
      if (u == std::string_view::npos) return false;
      if (!parse_int(parts[i].substr(0, u), &(*out)[i].pad_low) ||
          !parse_int(parts[i].substr(u + 1), &(*out)[i].pad_high))
        return false;
    }
  }
  if (!values[kRhsReversal].empty()) {
    split_x(values[kRhsReversal], &parts);
    if (parts.size() != rank) return false;
    for (std::size_t i = 0; i < rank; ++i) (*out)[i].reversal = parts[i] == "1";
  }
  for (const WindowDimension& d : *out)
    if (d.size < 0 || d.stride < 1 || d.window_dilation < 1 || d.base_dilation < 1) return false;
  return true;
}

std::string format_window(std::span<const WindowDimension> w) {
  auto join = [&](auto get) {
    std::string s;
    for (std::size_t i = 0; i < w.size(); ++i) s += (i ? "x" : "") + get(w[i]);
    return s;
  };
  auto any = [&](auto pred) {
    for (const WindowDimension& d : w)
      if (pred(d)) return true;
    return false;
  };
  std::string s = "{size=" + join([](const WindowDimension& d) { return detail::cat(d.size); });
  if (any([](const WindowDimension& d) { return d.stride != 1; }))
    s += " stride=" + join([](const WindowDimension& d) { return detail::cat(d.stride); });
  if (any([](const WindowDimension& d) { return d.pad_low != 0 || d.pad_high != 0; }))
    s += " pad=" + join([](const WindowDimension& d) { return detail::cat(d.pad_low, "_", d.pad_high); });
  if (any([](const WindowDimension& d) { return d.base_dilation != 1; }))
    s += " lhs_dilate=" + join([](const WindowDimension& d) { return detail::cat(d.base_dilation); });
  if (any([](const WindowDimension& d) { return d.window_dilation != 1; }))
    s += " rhs_dilate=" + join([](const WindowDimension& d) { return detail::cat(d.window_dilation); });
  if (any([](const WindowDimension& d) { return d.reversal; }))
    s += " rhs_reversal=" + join([](const WindowDimension& d) { return std::string(d.reversal ? "1" : "0"); });
  return s + "}";
}

bool parse_dim_labels(std::string_view text, ConvDims* out) {
  const std::size_t u = text.find('_');
  const std::size_t arrow = text.find("->");
  if (u == std::string_view::npos || arrow == std::string_view::npos || arrow < u) return false;
  const std::string_view in = text.substr(0, u), k = text.substr(u + 1, arrow - u - 1), o = text.substr(arrow + 2);
  // Each group: one letter per dimension; digits are spatial dimensions in order.
  auto group = [](std::string_view g, char a, char b, std::int64_t* pa, std::int64_t* pb, IntList* spatial) {
    bool seen_a = false, seen_b = false;
    IntList sp(g.size(), -1);
    std::size_t n_spatial = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      const char c = g[i];
      if (c == a && !seen_a) {
        *pa = static_cast<std::int64_t>(i);
        seen_a = true;
      } else if (c == b && !seen_b) {
        *pb = static_cast<std::int64_t>(i);
        seen_b = true;
      } else if (c >= '0' && c <= '9' && static_cast<std::size_t>(c - '0') < g.size() &&
                 sp[static_cast<std::size_t>(c - '0')] < 0) {
        sp[static_cast<std::size_t>(c - '0')] = static_cast<std::int64_t>(i);
        ++n_spatial;
      } else {
        return false;
      }
    }
    if (!seen_a || !seen_b) return false;
    spatial->assign(sp.begin(), sp.begin() + static_cast<std::ptrdiff_t>(n_spatial));
    for (std::int64_t s : *spatial)
      if (s < 0) return false;  // digits must be 0..n-1
    return true;
  };
  return group(in, 'b', 'f', &out->input_batch, &out->input_feature, &out->input_spatial) &&
         group(k, 'i', 'o', &out->kernel_input_feature, &out->kernel_output_feature, &out->kernel_spatial) &&
         group(o, 'b', 'f', &out->output_batch, &out->output_feature, &out->output_spatial) &&
         out->input_spatial.size() == out->kernel_spatial.size() &&
         out->input_spatial.size() == out->output_spatial.size();
}

std::string format_dim_labels(const ConvDims& d, int input_rank, int kernel_rank, int output_rank) {
  auto group = [](int rank, std::int64_t pa, char a, std::int64_t pb, char b, const IntList& spatial) {
    std::string g(static_cast<std::size_t>(rank > 0 ? rank : 0), '?');
    auto put = [&](std::int64_t pos, char c) {
      if (pos >= 0 && pos < rank) g[static_cast<std::size_t>(pos)] = c;
    };
    put(pa, a);
    put(pb, b);
    for (std::size_t i = 0; i < spatial.size() && i < 10; ++i) put(spatial[i], static_cast<char>('0' + i));
    return g;
  };
  return group(input_rank, d.input_batch, 'b', d.input_feature, 'f', d.input_spatial) + "_" +
         group(kernel_rank, d.kernel_input_feature, 'i', d.kernel_output_feature, 'o', d.kernel_spatial) + "->" +
         group(output_rank, d.output_batch, 'b', d.output_feature, 'f', d.output_spatial);
}

}  // namespace roofline::detail
