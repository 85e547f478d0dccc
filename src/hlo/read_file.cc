// Reading an HLO file of either format.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/reader.hpp"
#include "src/hlo/cursor.hpp"
#include "src/wire/bounded_input.hpp"

namespace roofline {

HloFormat detect_hlo_format(std::string_view content) {
  detail::Cursor c(content);
  c.skip_space();
  return c.rest().substr(0, 9) == "HloModule" ? HloFormat::kText : HloFormat::kProto;
}

absl::StatusOr<HloModule> parse_hlo(std::string_view content, std::string_view origin) {
  return detect_hlo_format(content) == HloFormat::kText ? parse_hlo_text(content, origin)
                                                         : parse_hlo_proto(content, origin);
}

namespace {

// The largest HLO file read (docs/traces.md, Errors): a dump of a large
// model's step is tens of megabytes; 1 GiB of text or protobuf is no module
// this machine could hold parsed.
constexpr std::uint64_t kMaxHloFileBytes = std::uint64_t{1} << 30;

// The first byte of an HloModuleProto or HloProto is a field's tag: a field
// number of at least 1 and a wire type protobuf has (0, 1, 2 or 5). Zeros
// (/dev/zero) or a text that is not HloModule is neither format.
absl::Status hlo_head(std::string_view head, const std::string& path, std::string_view) {
  if (detect_hlo_format(head) == HloFormat::kText) return absl::OkStatus();
  const auto tag = static_cast<unsigned char>(head[0]);
  const unsigned wire_type = tag & 7u;
  if (tag >> 3 != 0 && (wire_type == 0 || wire_type == 1 || wire_type == 2 || wire_type == 5)) return absl::OkStatus();
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", tag);
  return absl::InvalidArgumentError(detail::cat(path, ": byte 0: neither HLO text (HloModule ...) nor an HLO protobuf",
                                                " (starts with byte ", hex, ", not a field tag)"));
}

}  // namespace

absl::StatusOr<HloModule> read_hlo_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return absl::InvalidArgumentError(detail::cat(
        path, ": is a directory; give one module's file (a dump folder holds one *.txt or *.pb per module)"));
  // Counted while it is read: /dev/urandom or an endless pipe stops at the
  // limit, not when memory runs out.
  absl::StatusOr<std::string> content = detail::read_bounded_file(path, kMaxHloFileBytes, "HLO module", hlo_head);
  if (!content.ok()) return content.status();
  if (content->empty()) return absl::InvalidArgumentError(detail::cat(path, ": the file is empty"));
  return parse_hlo(*content, path);
}

}  // namespace roofline
