// Parser for "x[B_X, D] @ w[D, F_Y] -> out[B_X, F_Y]".
#include "roofline/sharding/matmul_expression.hpp"

#include <cctype>
#include <cstdlib>

#include "roofline/detail/cat.hpp"

namespace roofline {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  absl::StatusOr<MatmulExpression> parse() {
    MatmulExpression e;
    e.text = std::string(s_);
    absl::StatusOr<ShardedOperand> lhs = operand("the left operand");
    if (!lhs.ok()) return lhs.status();
    e.lhs = *std::move(lhs);
    ws();
    if (!eat('@')) return error(detail::cat("expected '@' after ", to_string(e.lhs)));
    absl::StatusOr<ShardedOperand> rhs = operand("the right operand");
    if (!rhs.ok()) return rhs.status();
    e.rhs = *std::move(rhs);
    ws();
    if (p_ < s_.size()) {
      if (!(eat('-') && eat('>'))) return error("expected '->' or the end of the expression");
      absl::StatusOr<ShardedOperand> out = operand("the result after '->'");
      if (!out.ok()) return out.status();
      e.out = *std::move(out);
      ws();
      if (p_ < s_.size()) return error("expected the end of the expression");
    }
    return e;
  }

 private:
  absl::Status error(std::string_view what) const {
    return absl::InvalidArgumentError(detail::cat("expression:1:", p_ + 1, ": ", what));
  }
  void ws() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool eat(char c) {
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  // Letters and digits; '_' ends a dim name (it starts the subscript).
  std::string word(bool allow_underscore) {
    const std::size_t start = p_;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) ||
                              (allow_underscore && s_[p_] == '_')))
      ++p_;
    return std::string(s_.substr(start, p_ - start));
  }

  absl::StatusOr<ShardedOperand> operand(std::string_view role) {
    ws();
    ShardedOperand op;
    op.column = static_cast<int>(p_) + 1;
    if (p_ >= s_.size() || !std::isalpha(static_cast<unsigned char>(s_[p_])))
      return error(detail::cat("expected ", role, ", an array name like x[B_X, D]"));
    op.name = word(true);
    ws();
    if (!eat('[')) return error(detail::cat("expected '[' after array name '", op.name, "'"));
    while (true) {
      ws();
      ShardedDim d;
      d.column = static_cast<int>(p_) + 1;
      if (p_ >= s_.size() || !std::isalpha(static_cast<unsigned char>(s_[p_])))
        return error(detail::cat("expected a dim name in ", op.name, "[...]"));
      d.name = word(false);
      if (eat('_')) {
        if (eat('{')) {
          const std::size_t start = p_;
          while (p_ < s_.size() && s_[p_] != '}') ++p_;
          if (p_ >= s_.size()) return error(detail::cat("expected '}' closing the subscript of '", d.name, "'"));
          d.subscript = std::string(s_.substr(start, p_ - start));
          ++p_;
        } else {
          d.subscript = word(true);
        }
        if (d.subscript.find_first_not_of(" \t,") == std::string::npos)
          return error(detail::cat("expected mesh axes after '", d.name, "_'"));
      }
      for (const ShardedDim& prev : op.dims)
        if (prev.name == d.name)
          return absl::InvalidArgumentError(detail::cat("expression:1:", d.column, ": dim '", d.name,
                                                        "' appears twice in ", op.name));
      op.dims.push_back(std::move(d));
      ws();
      if (eat(']')) break;
      if (!eat(',')) return error(detail::cat("expected ',' or ']' after dim '", op.dims.back().name, "'"));
    }
    return op;
  }

  std::string_view s_;
  std::size_t p_ = 0;
};

}  // namespace

absl::StatusOr<MatmulExpression> parse_matmul_expression(std::string_view text) {
  return Parser(text).parse();
}

absl::StatusOr<std::map<std::string, std::int64_t>> parse_dim_sizes(std::string_view text) {
  std::map<std::string, std::int64_t> out;
  std::size_t s = 0;
  if (text.find_first_not_of(" \t") == std::string_view::npos)
    return absl::InvalidArgumentError("dims: expected sizes like B=1024,D=8192");
  while (s <= text.size()) {
    std::size_t e = text.find(',', s);
    if (e == std::string_view::npos) e = text.size();
    std::string item(text.substr(s, e - s));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return absl::InvalidArgumentError(detail::cat("dims: column ", s + 1, ": expected NAME=SIZE, got '", item, "'"));
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
    value.erase(0, value.find_first_not_of(" \t"));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(v >= 1) || v > 9.0e18 || v != static_cast<double>(static_cast<std::int64_t>(v)))
      return absl::InvalidArgumentError(
          detail::cat("dims: column ", s + 1, ": size of '", name, "' must be a positive integer, got '", value, "'"));
    if (out.count(name)) return absl::InvalidArgumentError(detail::cat("dims: '", name, "' given twice"));
    out[name] = static_cast<std::int64_t>(v);
    s = e + 1;
  }
  return out;
}

std::string to_string(const ShardedOperand& op) {
  std::string s = op.name + "[";
  for (std::size_t i = 0; i < op.dims.size(); ++i) {
    const ShardedDim& d = op.dims[i];
    s += detail::cat(i ? ", " : "", d.name);
    if (d.subscript.empty()) continue;
    const bool plain = d.subscript.find_first_of(", ") == std::string::npos;
    s += plain ? detail::cat("_", d.subscript) : detail::cat("_{", d.subscript, "}");
  }
  return s + "]";
}

}  // namespace roofline
