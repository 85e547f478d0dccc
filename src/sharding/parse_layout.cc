// Reading a parallel layout a user typed: "fsdp=data tp=model pp=stage"
// (roofline/sharding/parse.hpp). The inverse of layout_text
// (roofline/sharding/planner.hpp).
#include <cctype>

#include "roofline/detail/cat.hpp"
#include "roofline/sharding/parse.hpp"

namespace roofline {
namespace {

enum class Role : unsigned char { kDp, kFsdp, kTp, kPp };

constexpr std::string_view kRoleNames[] = {"dp", "fsdp", "tp", "pp"};

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

class LayoutParser {
 public:
  LayoutParser(std::string_view text, const Mesh& mesh) : s_(text), mesh_(mesh), role_of_(mesh.axes.size(), -1) {}

  absl::StatusOr<ParallelLayout> parse() {
    ParallelLayout lay;
    bool any = false;
    bool seen[4] = {};
    for (;;) {
      while (p_ < s_.size() && is_space(s_[p_])) ++p_;
      if (p_ >= s_.size()) break;
      any = true;
      const std::size_t role_at = p_;
      const std::string_view role_text = word();
      int role = -1;
      for (int r = 0; r < 4; ++r)
        if (kRoleNames[r] == role_text) role = r;
      if (role < 0)
        return error(role_at, role_text.empty() ? std::string("expected a role (dp, fsdp, tp or pp) before '='")
                                                : detail::cat("unknown role '", role_text,
                                                              "'; roles are dp, fsdp, tp and pp"));
      if (p_ >= s_.size() || s_[p_] != '=')
        return error(p_, detail::cat("expected '=' after role '", role_text, "'"));
      if (seen[role]) return error(role_at, detail::cat("role '", role_text, "' given twice"));
      seen[role] = true;
      ++p_;
      int axes_in_role = 0;
      for (;;) {
        const std::size_t axis_at = p_;
        const std::string_view name = word();
        if (name.empty()) return error(axis_at, detail::cat("expected a mesh axis after '", role_text, "='"));
        const std::optional<int> axis = mesh_.index(name);
        if (!axis) return error(axis_at, detail::cat("unknown mesh axis '", name, "'; the mesh has ", axis_list()));
        if (role_of_[*axis] >= 0)
          return error(axis_at, detail::cat("axis '", name, "' already has role ",
                                            kRoleNames[role_of_[*axis]]));
        role_of_[*axis] = role;
        ++axes_in_role;
        const AxisMask bit = AxisMask{1} << *axis;
        switch (static_cast<Role>(role)) {
          case Role::kDp: lay.data |= bit; break;
          case Role::kFsdp: lay.data |= bit, lay.fsdp |= bit; break;
          case Role::kTp: lay.model |= bit; break;
          case Role::kPp:
            if (axes_in_role > 1) return error(axis_at, "pp takes one mesh axis");
            lay.pipeline_axis = *axis;
            break;
        }
        if (p_ < s_.size() && s_[p_] == ',') {
          ++p_;
          continue;
        }
        break;
      }
      if (p_ < s_.size() && !is_space(s_[p_]))
        return error(p_, "expected ',' or a space after the axis");
    }
    if (!any) return error(0, "expected ROLE=AXIS[,AXIS...] (roles dp, fsdp, tp, pp)");
    return lay;
  }

 private:
  // The identifier (letters, digits, '_': what mesh axis names are) from here.
  std::string_view word() {
    const std::size_t start = p_;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) ++p_;
    return s_.substr(start, p_ - start);
  }
  std::string axis_list() const {
    std::string out;
    for (const MeshAxis& a : mesh_.axes) out += detail::cat(out.empty() ? "" : ", ", a.name);
    return out;
  }
  absl::Status error(std::size_t at, std::string_view what) const {
    return absl::InvalidArgumentError(detail::cat("layout '", s_, "': column ", at + 1, ": ", what));
  }

  std::string_view s_;
  const Mesh& mesh_;
  std::vector<int> role_of_;
  std::size_t p_ = 0;
};

}  // namespace

absl::StatusOr<ParallelLayout> parse_layout(std::string_view text, const Mesh& mesh) {
  if (mesh.axes.size() > static_cast<std::size_t>(kMaxMeshAxes))
    return absl::InvalidArgumentError(detail::cat("a mesh has at most ", kMaxMeshAxes, " axes"));
  return LayoutParser(text, mesh).parse();
}

}  // namespace roofline
