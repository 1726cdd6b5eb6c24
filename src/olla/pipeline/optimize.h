// Optimize(): olla's main job, as one recipe. From a graph to a checked plan (order and
// offsets) and everything a report says about it:
//
//   validate → baselines → order → place → refine → recompute → check → conclude
//
// Each stage is a step of optimize.cc's Recipe, and Optimize() is that list.
// - baselines: the eager order with an ideal allocator and through the caching-
//   allocator model (simulation/eager_report.h), and the lower bounds: of every order,
//   and with a budget that recomputation may meet, the recompute floors of every plan
//   and of the plans budget mode searches (remat/recompute_floor.h). A budget below
//   the bound that applies is refuted here, before any search;
// - order: the order with the smallest peak (schedule/scheduler.h);
// - place: the order's arena problem with sizes rounded to the alignment
//   (pipeline/arena.h), whose live-bytes bound is the least arena for that order, and
//   offsets for every buffer and workspace (placement/place.h), minimising the arena or
//   fitting a memory budget;
// - refine: with the schedule method "joint", OLLA's joint ILP of order and addresses
//   (schedule/joint_ilp.h) from the plan so far, on graphs small enough for it, with
//   what is left of the budget; its plan replaces the first when its arena is smaller;
// - recompute: with a memory budget that the order and placement above cannot meet,
//   rematerialization (remat/remat_search.h) drops activations after the forward pass
//   and recomputes them before their backward uses, on the schedule's order, until the
//   placed arena fits (unless options.recompute is off); the plan then runs the
//   expanded graph (plan/expand.h) and says so (plan format version 3);
// - check: the independent plan checker (simulation/plan_checker.h). A plan that fails
//   it is an internal error, never a result;
// - conclude: planned, refuted (by which bound, at which op), or no plan found within
//   the limits, with the one line every front end prints (OptimizeResult::reason).
//
// Anytime: each search gets a share of the budget and returns its best so far, so a
// valid plan comes back whatever the limit; the result says which parts are proven
// optimal and which limit stopped each stage. The lower bounds may take a quarter of
// the budget (they need far less below a few hundred thousand ops; past it they stop
// with a weaker bound); the schedule gets half of what is left, placement the rest
// (all of it when the schedule finishes early; a tenth when the order cannot fit a
// memory budget, so that recomputation gets the rest): one table of shares,
// optimize.cc's `share`. The check's time, estimated
// from the graph's size, is kept out of every search's deadline (Budget::Reserving).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "olla/core/budget.h"
#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/placement/placement.h"
#include "olla/plan/expand.h"
#include "olla/plan/plan.h"
#include "olla/remat/recompute_floor.h"
#include "olla/schedule/scheduler.h"
#include "olla/simulation/allocator_replay.h"
#include "olla/simulation/eager_report.h"
#include "olla/simulation/plan_checker.h"

namespace olla {

// The schedule method that adds the joint refinement to "auto" (the others are
// kScheduleMethods).
inline constexpr const char* kJointMethod = "joint";

struct OptimizeOptions {
  ScheduleOptions schedule;               // Method (or kJointMethod), rules, pins.
  std::string placement_method = "auto";  // One of kPlacementMethods.
  // Every offset is a multiple of it, and sizes are rounded up to it: PyTorch's caching
  // allocator rounds every block to 512 bytes.
  int64_t alignment = 512;
  // Bytes the activation arena must fit in; none: the smallest arena.
  std::optional<int64_t> memory_budget;
  // With a memory budget that order and placement alone cannot meet: recompute
  // activations to meet it (at a cost in compute).
  bool recompute = true;
  int threads = 2;
  // Called with a one-line status at each stage and during long solves (may be empty).
  std::function<void(const std::string&)> progress;
};

// What one stage did.
struct StageReport {
  std::string name;    // "baselines", "schedule", "place", "refine", "check".
  std::string method;  // The method that produced the stage's result.
  double seconds = 0;
  bool optimal = false;  // Proven (schedule: the order's peak; place: the arena).
  Budget::Limit stopped_by = Budget::Limit::kNone;
};

// What recomputation did (budget mode), in remat/cost.h's units.
struct RecomputeReport {
  int32_t recomputed_ops = 0;
  int32_t runs = 0;           // Of those ops: one, or one for each group of readers.
  int64_t added_cost = 0;     // The runs' cost.
  int64_t step_cost = 0;      // The whole step's, without recomputation.
  int64_t arena_without = 0;  // The arena before recomputing.
  int32_t measurements = 0;   // Choices the search measured.
  bool reached = false;       // The arena fits the budget.
  // No plan that runs the graph's ops in the plan's order adds less
  // (remat/added_cost_bound.h); absent when the plan does not fit.
  std::optional<int64_t> added_cost_bound;
  bool bound_optimal = false;  // The bound is its model's optimum.
  // No plan on the searched order peaks lower (remat/added_cost_bound.h, the order's
  // floor); above the budget, none on it reaches the budget.
  int64_t order_floor_bytes = 0;
  OpId order_floor_op;  // Where it is live.

  double added_fraction() const { return FractionOfStep(added_cost); }
  double FractionOfStep(int64_t cost) const {
    return step_cost > 0 ? static_cast<double>(cost) / static_cast<double>(step_cost)
                         : 0.0;
  }
};

// What Optimize concludes, with a memory budget (without one: always kPlanned).
enum class Conclusion {
  kPlanned,      // The checked plan fits the budget.
  kRefuted,      // No plan can fit: a proven bound is above the budget.
  kNoPlanFound,  // None found within the limits; the best one found is the plan.
};

// "planned", "refuted", "no plan found".
const char* ConclusionName(Conclusion conclusion);

struct OptimizeResult {
  Conclusion conclusion = Conclusion::kPlanned;
  // Unless kPlanned: why, in one line that every front end prints as it is.
  std::string reason;
  EagerReport eager;        // The eager order (ideal and caching allocator), the bounds.
  ScheduleResult schedule;  // olla's order, its peak and proven bound.
  // olla's order through the caching-allocator model: what reordering alone gives a
  // user who cannot place tensors.
  AllocatorReplay reordered;
  // The plan's order: its peak live bytes and where it peaks (the first step at it).
  // The schedule's order unless refinement changed it.
  int64_t peak_live_bytes = 0;
  int32_t peak_step = 0;
  OpId peak_op;
  int64_t alignment = 1;
  // olla's order with sizes rounded up to the alignment: no arena for it is smaller.
  int64_t rounded_peak_bytes = 0;
  Placement placement;  // Of the arena problem; empty when no placement was tried.
  // Refinement: the arena before it, and whether it proved the plan optimal over all
  // orders and placements together (set when it ran).
  std::optional<int64_t> unrefined_arena_bytes;
  bool joint_optimal = false;
  // The checked plan. Absent only when a memory budget is refuted by the lower bound
  // before anything is placed.
  std::optional<Plan> plan;
  // Set when the plan recomputes: the graph it runs (its order, offsets, peak and
  // placement are of this graph), and what recomputing cost.
  std::optional<ExpandedGraph> expanded;
  std::optional<RecomputeReport> recompute;
  // With a memory budget that recomputation may meet: the least arena of every plan,
  // recomputing or not, and of the plans budget mode searches (remat/recompute_floor.h).
  std::optional<RecomputeFloor> recompute_floor;
  PlanCheck check;
  std::optional<int64_t> memory_budget;
  // The options asked for, by name, when the call came through the option table.
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<StageReport> stages;
  double seconds = 0;

  // The plan's arena fits the memory budget (true without one; false without a plan).
  bool fits() const {
    return plan && (!memory_budget || plan->arena_bytes <= *memory_budget);
  }
  int64_t persistent_bytes() const { return eager.persistent_bytes; }
  // The graph the plan's ids index: `graph` itself, or its expansion.
  const Graph& planned_graph(const Graph& graph) const {
    return expanded ? expanded->graph : graph;
  }
  // Proven: no order peaks lower (the eager report's bounds, or the schedule's when it
  // proved more). Without recomputation: a plan that recomputes may peak lower.
  int64_t lower_bound_bytes() const {
    return std::max(eager.bounds.best(), schedule.lower_bound_bytes);
  }
  int64_t arena_bytes() const { return plan ? plan->arena_bytes : 0; }
  // The OLLA headline measure: persistent + arena against the caching allocator's
  // reserved bytes of the eager order, as a fraction.
  double saving_vs_reserved() const;
  // The plan's order is proven to have the smallest peak; its arena equals that peak
  // (over rounded sizes); both.
  bool optimal_order() const {
    return plan && !expanded && peak_live_bytes <= lower_bound_bytes();
  }
  bool optimal_placement() const {
    return plan && plan->arena_bytes <= rounded_peak_bytes;
  }
};

// An error for bad options (unknown method, non-positive alignment, negative budget) or
// sizes that overflow when rounded; otherwise the result, whatever the budget allows.
StatusOr<OptimizeResult> Optimize(const Graph& graph, const OptimizeOptions& options,
                                  const Budget& budget);

}  // namespace olla
