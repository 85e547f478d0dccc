// The CLI's tables are the library's (src/report/text_table.hpp).
#pragma once

#include "src/report/text_table.hpp"

namespace roofline::cli {
using TextTable = detail::TextTable;
}  // namespace roofline::cli
