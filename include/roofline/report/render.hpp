// Renders a Report for a terminal (text), a README or PR (Markdown),
// programs (JSON, CSV: one row per op) and people (a self-contained HTML
// page with a roofline plot, no network access needed). docs/report.md
// documents every JSON key.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "roofline/match/report.hpp"

namespace roofline {

enum class ReportFormat : unsigned char { kText, kMarkdown, kJson, kCsv, kHtml };

std::optional<ReportFormat> parse_report_format(std::string_view name);  // text|md|json|csv|html

// The one ranking of ops that text and Markdown show (--rank): most time
// lost against the expected time (what is worth fixing, the default),
// against the roofline, furthest below the roofline (measured / roofline),
// or by measured time.
enum class ReportRank : unsigned char { kLost, kRoofline, kRatio, kTime };
std::optional<ReportRank> parse_report_rank(std::string_view name);  // lost|roofline|ratio|time

struct RenderOptions {
  int top = 15;  // rows in the ranked lists of text, Markdown and HTML (JSON/CSV list every op)
  ReportRank rank = ReportRank::kLost;  // text and Markdown: the ranking they show
};

std::string render_report(const Report& report, ReportFormat format, RenderOptions options = {});
std::string render_text(const Report& report, RenderOptions options = {});
std::string render_markdown(const Report& report, RenderOptions options = {});
std::string render_json(const Report& report);
std::string render_csv(const Report& report);
std::string render_html(const Report& report, RenderOptions options = {});

}  // namespace roofline
