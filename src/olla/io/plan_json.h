// The plan file format, version 1 (docs/plan-format.md). A plan refers to ops and
// buffers by the ids of its graph file, so reading needs the graph. Reading checks
// syntax and ids only; validity is simulation/plan_checker.h's to decide.
#pragma once

#include <string>
#include <string_view>

#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/plan/plan.h"

namespace olla {

// Version 2 places workspace; version 1 plans (without it) are still read.
inline constexpr int kPlanFormatVersion = 2;
inline constexpr int kOldestPlanFormatVersion = 1;

StatusOr<Plan> ParsePlan(std::string_view json_text, const Graph& graph);
StatusOr<Plan> LoadPlan(const std::string& path, const Graph& graph);

std::string PlanToJson(const Graph& graph, const Plan& plan);
Status SavePlan(const Graph& graph, const Plan& plan, const std::string& path);

}  // namespace olla
