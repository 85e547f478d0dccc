// Small readers for attribute text shared by the HLO text parser, the proto
// reader and the cost model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "src/hlo/module_data.hpp"

namespace roofline::detail {

// A whole decimal integer (optional '-', blanks around allowed).
bool parse_int(std::string_view text, std::int64_t* out);

// The integer after "key=" in "a=1 key=2 c=3" (space-separated key=value
// pairs, as in window={...} or a FileLocations entry). False when absent.
bool sub_int(std::string_view text, std::string_view key, std::int64_t* out);

// The raw value after "key=" in such a list, up to the next blank at depth 0.
std::string_view sub_value(std::string_view text, std::string_view key);

// The text of a quoted string with C escapes (\" \\ \n \t \xNN \NNN) resolved;
// returned as is when there are none, else stored in `arena`.
std::string_view unescape(StringArena& arena, std::string_view raw);
std::string unescape(std::string_view raw);

}  // namespace roofline::detail
