// Reading an HLO file of either format.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/reader.hpp"
#include "src/hlo/cursor.hpp"

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

absl::StatusOr<HloModule> read_hlo_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return absl::InvalidArgumentError(detail::cat(
        path, ": is a directory; give one module's file (a dump folder holds one *.txt or *.pb per module)"));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return absl::NotFoundError(detail::cat(path, ": ", std::strerror(errno)));
  std::string content;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) content.append(buf, n);
  const int err = std::ferror(f) != 0 ? errno : 0;
  std::fclose(f);
  if (err != 0) return absl::DataLossError(detail::cat(path, ": byte ", content.size(), ": read failed: ", std::strerror(err)));
  if (content.empty()) return absl::InvalidArgumentError(detail::cat(path, ": the file is empty"));
  return parse_hlo(content, path);
}

}  // namespace roofline
