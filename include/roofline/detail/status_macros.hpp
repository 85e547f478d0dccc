// Debian's abseil (20220623) has no RETURN_IF_ERROR / ASSIGN_OR_RETURN.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define ROOFLINE_RETURN_IF_ERROR(expr)               \
  do {                                               \
    if (::absl::Status _st = (expr); !_st.ok()) {    \
      return _st;                                    \
    }                                                \
  } while (0)

#define ROOFLINE_CONCAT_INNER_(a, b) a##b
#define ROOFLINE_CONCAT_(a, b) ROOFLINE_CONCAT_INNER_(a, b)

#define ROOFLINE_ASSIGN_OR_RETURN(lhs, expr) \
  ROOFLINE_ASSIGN_OR_RETURN_IMPL_(ROOFLINE_CONCAT_(_statusor_, __LINE__), lhs, expr)

#define ROOFLINE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return std::move(tmp).status();        \
  lhs = std::move(tmp).value()
