// The renderers of a plan (roofline/sharding/planner.hpp) and of one
// evaluated layout: text for people, JSON (docs/planner.md and docs/json.md
// list every key) and CSV (one row per candidate). `roofline plan` prints
// exactly these.
//
//   absl::StatusOr<roofline::Plan> plan = roofline::plan_training(req);
//   std::fputs(roofline::plan_text(req, *plan, {.top = 10}).c_str(), stdout);
#pragma once

#include <cstddef>
#include <string>

#include "roofline/format/json.hpp"
#include "roofline/sharding/planner.hpp"

namespace roofline {

struct PlanTextOptions {
  std::size_t top = 20;            // ranked candidates shown
  std::size_t rejected_shown = 5;  // rejected shown, closest to fitting first
};

// The request, the counts, the ranked table (rank, mesh, layout, strategy,
// remat, expected step time, MFU at the lower bound / expected / with no
// overlap, bound, HBM per chip), the ranking rule, and the closest misses.
std::string plan_text(const PlanRequest& req, const Plan& plan, const PlanTextOptions& options = {});

// The whole plan: the request and its constraints, the counts, the first
// `top` ranked candidates and every rejected one with its reason.
Json plan_json(const PlanRequest& req, const Plan& plan, std::size_t top);

// One row per ranked candidate (the first `top`); the columns are JSON keys.
std::string plan_csv(const Plan& plan, std::size_t top);

// A candidate's figures (no rank); a rejection with its reason.
Json to_json(const PlanCandidate& c);
Json to_json(const RejectedCandidate& r);

// One evaluated layout (`roofline plan --layout`): whether it fits and why
// not, then its step, MFU and memory.
std::string evaluation_text(const PlanRequest& req, const LayoutEvaluation& ev);
Json evaluation_json(const PlanRequest& req, const LayoutEvaluation& ev);
std::string evaluation_csv(const LayoutEvaluation& ev);

// The ranking rule, in words, as the text output states it.
std::string plan_ranking_rule();

}  // namespace roofline
