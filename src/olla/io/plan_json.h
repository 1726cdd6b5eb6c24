// The plan file format (docs/plan-format.md). A plan refers to ops and
// buffers by the ids of its graph file, so reading needs the graph. Reading checks
// syntax and ids only; validity is simulation/plan_checker.h's to decide.
#pragma once

#include <string>
#include <string_view>

#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/plan/plan.h"

namespace olla {

// Version 3 adds recomputations, 2 placed workspace; older plans are still read, and a
// plan without recomputations is written as version 2.
inline constexpr int kPlanFormatVersion = 3;
inline constexpr int kOldestPlanFormatVersion = 1;

// `graph` is the graph the plan is for; with recomputations, the order and offsets are
// read against ExpandGraph(graph, recompute), which must then be valid.
StatusOr<Plan> ParsePlan(std::string_view json_text, const Graph& graph);
StatusOr<Plan> LoadPlan(const std::string& path, const Graph& graph);

std::string PlanToJson(const Graph& graph, const Plan& plan);
Status SavePlan(const Graph& graph, const Plan& plan, const std::string& path);

}  // namespace olla
