// Summaries: the text a person reads and the JSON a program reads, for each result type.
// Text is stable (golden-tested); JSON keys are documented in README.md and never
// renamed. Bytes are integers in JSON; text shows exact bytes and binary units.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "olla/graph/graph.h"
#include "olla/placement/placement.h"
#include "olla/plan/plan.h"
#include "olla/schedule/scheduler.h"
#include "olla/simulation/eager_report.h"
#include "olla/simulation/plan_checker.h"

namespace olla {

std::string EagerReportText(const Graph& graph, const EagerReport& report);
nlohmann::ordered_json EagerReportJson(const Graph& graph, const EagerReport& report);

std::string PlanCheckText(const Graph& graph, const Plan& plan, const PlanCheck& check);
// With recomputations, both give the compute they add (remat/cost.h).
nlohmann::ordered_json PlanCheckJson(const Graph& graph, const Plan& plan,
                                     const PlanCheck& check);

// A placement's one-line summary: arena, bound, gap, optimal or not, method, seconds.
std::string PlacementSummaryText(const PlacementProblem& problem,
                                 const Placement& placement, double seconds);
nlohmann::ordered_json PlacementSummaryJson(const PlacementProblem& problem,
                                            const Placement& placement, double seconds);

// A schedule's summary: peak, eager peak, bound, gap, optimal or not, method, seconds,
// and the pieces of the decomposition.
std::string ScheduleSummaryText(const ScheduleResult& result, double seconds);
nlohmann::ordered_json ScheduleSummaryJson(const Graph& graph,
                                           const ScheduleResult& result, double seconds);

}  // namespace olla
