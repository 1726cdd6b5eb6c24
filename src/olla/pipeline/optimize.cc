#include "olla/pipeline/optimize.h"

#include <chrono>

#include <fmt/format.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/core/bytes.h"
#include "olla/core/limits.h"
#include "olla/core/version.h"
#include "olla/graph/rounded.h"
#include "olla/pipeline/arena.h"
#include "olla/placement/place.h"
#include "olla/remat/cost.h"
#include "olla/remat/recompute_floor.h"
#include "olla/remat/remat_search.h"
#include "olla/schedule/joint_ilp.h"

namespace olla {
namespace {

using Clock = std::chrono::steady_clock;

// Times the stages of one run, in order.
class StageClock {
 public:
  explicit StageClock(std::vector<StageReport>& stages) : stages_(stages) {}

  void Finish(std::string name, std::string method, bool optimal = false,
              Budget::Limit stopped_by = Budget::Limit::kNone) {
    const Clock::time_point now = Clock::now();
    stages_.push_back({std::move(name), std::move(method),
                       std::chrono::duration<double>(now - last_).count(), optimal,
                       stopped_by});
    last_ = now;
  }
  double total() const { return std::chrono::duration<double>(last_ - first_).count(); }

 private:
  std::vector<StageReport>& stages_;
  const Clock::time_point first_ = Clock::now();
  Clock::time_point last_ = first_;
};

// The conclusion, and unless planned, its reason in one line, citing the proof.
void Conclude(const Graph& graph, OptimizeResult& result) {
  if (result.fits()) {
    result.conclusion = Conclusion::kPlanned;
    return;
  }
  const int64_t budget = *result.memory_budget;
  if (!result.plan && result.recompute_floor) {
    const RecomputeFloor& floor = *result.recompute_floor;
    result.conclusion = Conclusion::kRefuted;
    result.reason = fmt::format(
        "no plan fits in {} bytes, recomputing or not: {} bytes are live at {} in every "
        "plan (proof: the recompute floor, its inputs, outputs and workspace, {} bytes, "
        "and {} bytes live there that no recomputation frees)",
        budget, floor.bytes, graph.Describe(floor.op), floor.footprint_bytes,
        floor.kept_bytes);
    return;
  }
  if (!result.plan) {
    const LowerBounds& bounds = result.eager.bounds;
    const bool forced = bounds.forced_live_bytes >= bounds.single_op_bytes;
    result.conclusion = Conclusion::kRefuted;
    result.reason = fmt::format(
        "no plan fits in {} bytes: {} bytes are live at {} in every order (proof: the {} "
        "bound)",
        budget, bounds.best(),
        graph.Describe(forced ? bounds.forced_live_op : bounds.single_op),
        forced ? "forced-live" : "single-op");
    return;
  }
  result.conclusion = Conclusion::kNoPlanFound;
  if (result.recompute) {
    result.reason = fmt::format(
        "no plan within {} bytes found: the smallest arena found is {} bytes, "
        "recomputing {} ops (order and placement alone need at least {} bytes; no plan, "
        "recomputing or not, needs less than {} bytes)",
        budget, result.arena_bytes(), result.recompute->recomputed_ops,
        result.lower_bound_bytes(), result.recompute_floor->bytes);
    return;
  }
  result.reason = fmt::format(
      "no plan within {} bytes found: the smallest arena found is {} bytes, the proven "
      "lower bound {} bytes",
      budget, result.arena_bytes(),
      std::max(result.schedule.lower_bound_bytes, result.placement.lower_bound_bytes));
}

Status ValidateOptions(const OptimizeOptions& options) {
  if (options.alignment <= 0 || options.alignment > kMaxAlignment) {
    return InvalidInput(
        fmt::format("alignment {} is not in [1, 2^30]", options.alignment));
  }
  if (options.memory_budget && *options.memory_budget < 0) {
    return InvalidInput(
        fmt::format("memory budget {} is negative", *options.memory_budget));
  }
  if (options.threads < 1)
    return InvalidInput(fmt::format("threads {} is not positive", options.threads));
  if (!IsScheduleMethod(options.schedule.method) &&
      options.schedule.method != kJointMethod)
    return InvalidInput("unknown schedule method '" + options.schedule.method + "'");
  if (!IsPlacementMethod(options.placement_method))
    return InvalidInput("unknown placement method '" + options.placement_method + "'");
  return OkStatus();
}

// The figures of the plan's order: its peak, where it peaks, and what the caching
// allocator would reserve running it.
void DescribeOrder(const Graph& graph, const Order& order, OptimizeResult& result) {
  const Lifetimes lifetimes = ComputeLifetimes(graph, order);
  result.reordered = ReplayCachingAllocator(graph, order, lifetimes);
  const MemoryTimeline timeline = ComputeTimeline(graph, order, lifetimes);
  result.peak_live_bytes = timeline.peak_bytes;
  result.peak_step = timeline.peak_step;
  result.peak_op = timeline.peak_op;
}

// Budget mode's last resort: recompute activations on the plan's order until the
// placed arena fits. Each round aims the search at the budget less what placement
// added above the order's peak last time. Replaces `plan` (and the result's placement
// and bound) when it finds a smaller arena.
Status FitByRecomputing(const Graph& graph, const OptimizeOptions& options,
                        const Budget& budget, Plan& plan, OptimizeResult& result) {
  const int64_t memory_budget = *options.memory_budget;
  RecomputeReport report;
  report.step_cost = StepCost(graph);
  report.arena_without = plan.arena_bytes;
  const Order base = plan.order;
  // The search measures peaks over sizes rounded as the arena lays them out, so that
  // a peak at the target is an arena at it.
  const std::optional<Graph> rounded = RoundSizes(graph, options.alignment);
  const Graph& searched = rounded ? *rounded : graph;
  int64_t target = memory_budget;
  for (int round = 0; round < 4 && !budget.Exhausted(); ++round) {
    RematOptions remat;
    remat.target_bytes = target;
    RematResult found = Rematerialize(searched, base, remat, budget.Split(0.7));
    report.measurements += found.measurements;
    if (found.recompute.empty()) break;
    OLLA_ASSIGN_OR_RETURN(ExpandedGraph expanded_graph,
                          ExpandGraph(graph, found.recompute));
    const Graph& expanded = expanded_graph.graph;
    OLLA_ASSIGN_OR_RETURN(const ArenaProblem arena,
                          MakeArenaProblem(expanded, found.order, options.alignment));
    PlaceOptions place;
    place.method = options.placement_method;
    place.capacity = memory_budget;
    place.threads = options.threads;
    StatusOr<Placement> placed = Place(arena.problem, place, budget.Split(0.5));
    if (!placed.ok())
      return Internal("the arena problem was rejected: " + placed.status().message());
    Plan candidate = MakePlan(expanded, found.order, arena, *placed);
    candidate.recompute = found.recompute;
    if (candidate.arena_bytes < plan.arena_bytes) {
      plan = std::move(candidate);
      result.placement = std::move(placed).value();
      result.rounded_peak_bytes = ComputeLiveBytesBound(arena.problem).bytes;
      report.recomputed_ops = static_cast<int32_t>(found.recompute.size());
      report.added_cost = 0;
      for (const Recomputation& r : found.recompute)
        report.added_cost += OpCost(graph, r.op);
      result.expanded = std::move(expanded_graph);
    }
    if (plan.arena_bytes <= memory_budget || !found.reached) break;
    target -= plan.arena_bytes - memory_budget;
  }
  report.reached = plan.arena_bytes <= memory_budget;
  result.recompute = report;
  return OkStatus();
}

// What checking the plan (and writing it) will take, kept out of the searches' time:
// about half a microsecond per op, buffer and use on the machine of
// bench/results/scale.md (1.4 s for the million-op graph).
double CheckReserveSeconds(const Graph& graph) {
  double items = graph.num_ops() + graph.num_buffers();
  for (const Op& op : graph.ops()) items += static_cast<double>(op.uses.size());
  return 0.5e-6 * items;
}

}  // namespace

double OptimizeResult::saving_vs_reserved() const {
  if (!plan) return 0.0;
  return Saving(persistent_bytes() + plan->arena_bytes,
                eager.allocator.reserved_peak_bytes);
}

const char* ConclusionName(Conclusion conclusion) {
  switch (conclusion) {
    case Conclusion::kPlanned:
      return "planned";
    case Conclusion::kRefuted:
      return "refuted";
    case Conclusion::kNoPlanFound:
      return "no plan found";
  }
  return "";
}

StatusOr<OptimizeResult> Optimize(const Graph& graph, const OptimizeOptions& options,
                                  const Budget& whole) {
  // Every search stops early enough for the check to run within the limit.
  const Budget budget = whole.Reserving(CheckReserveSeconds(graph));
  OLLA_RETURN_IF_ERROR(ValidateOptions(options));
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  OptimizeResult result;
  result.alignment = options.alignment;
  result.memory_budget = options.memory_budget;
  StageClock clock(result.stages);

  progress("baselines: the eager order and the lower bounds");
  result.eager = SimulateEager(graph, budget.Split(0.25));
  const bool may_recompute =
      options.memory_budget && options.recompute && HasRecomputableActivation(graph);
  if (may_recompute)
    result.recompute_floor = ComputeRecomputeFloor(graph, budget.Split(0.1));
  clock.Finish("baselines", "eager", false,
               result.eager.bounds.forced_live_complete() ? Budget::Limit::kNone
                                                          : Budget::Limit::kTime);
  // A budget below the lower bound of every order cannot be met by reordering, nor one
  // below the floor of every plan by recomputing: that is the proof.
  if (options.memory_budget &&
      (may_recompute ? result.recompute_floor->bytes : result.eager.bounds.best()) >
          *options.memory_budget) {
    result.seconds = clock.total();
    Conclude(graph, result);
    return result;
  }

  progress(fmt::format("schedule: eager peak {}, lower bound {}",
                       FormatBinaryUnits(result.eager.peak_live_bytes),
                       FormatBinaryUnits(result.eager.bounds.best())));
  ScheduleOptions schedule = options.schedule;
  schedule.threads = options.threads;
  schedule.progress = options.progress;
  if (schedule.method == kJointMethod) schedule.method = "auto";
  schedule.forced_live = result.eager.bounds.forced_live;  // Computed once.
  OLLA_ASSIGN_OR_RETURN(result.schedule, Schedule(graph, schedule, budget.Split(0.5)));
  clock.Finish("schedule", result.schedule.method, result.schedule.optimal,
               result.schedule.stopped_by);
  const Order& order = result.schedule.order;

  OLLA_ASSIGN_OR_RETURN(const ArenaProblem arena,
                        MakeArenaProblem(graph, order, options.alignment));
  result.rounded_peak_bytes = ComputeLiveBytesBound(arena.problem).bytes;
  progress(fmt::format(
      "place {} buffers: order peak {} ({} above the bound), arena at "
      "least {}",
      arena.problem.size(), FormatBinaryUnits(result.schedule.peak_bytes),
      FormatPercent(Gap(result.schedule.peak_bytes, result.lower_bound_bytes()), 1.0),
      FormatBinaryUnits(result.rounded_peak_bytes)));
  PlaceOptions place;
  place.method = options.placement_method;
  place.capacity = options.memory_budget;
  place.threads = options.threads;
  // With a refinement to follow, placement leaves it a share; when the order cannot fit
  // the budget, this placement is only the fallback, and recomputation gets the rest.
  const bool joint = options.schedule.method == kJointMethod;
  const bool cannot_fit =
      may_recompute && result.rounded_peak_bytes > *options.memory_budget;
  StatusOr<Placement> placement = Place(arena.problem, place,
                                        cannot_fit ? budget.Split(0.1)
                                        : joint    ? budget.Split(0.5)
                                                   : budget);
  if (!placement.ok()) {  // The arena problem and the options were valid.
    return Internal("the arena problem was rejected: " + placement.status().message());
  }
  result.placement = std::move(placement).value();
  clock.Finish("place", result.placement.method,
               result.placement.arena_bytes <= result.rounded_peak_bytes,
               result.placement.stopped_by);
  Plan plan = MakePlan(graph, order, arena, result.placement);
  std::string method = fmt::format("optimize: schedule/{}, place/{}",
                                   result.schedule.method, result.placement.method);

  // Only a plan above the bound of every order can improve.
  const int64_t bound = result.lower_bound_bytes();
  if (joint && plan.arena_bytes > bound) {
    progress(
        fmt::format("refine: the joint ILP of order and addresses from an arena of {}",
                    FormatBinaryUnits(plan.arena_bytes)));
    JointIlpOptions refine;
    refine.alignment = options.alignment;
    refine.threads = options.threads;
    refine.lower_bound_bytes = bound;
    refine.start = plan;
    JointIlpResult solved = SolveJointIlp(graph, refine, budget);
    result.unrefined_arena_bytes = plan.arena_bytes;
    result.joint_optimal = solved.optimal;
    if (solved.solved && solved.plan.arena_bytes < plan.arena_bytes) {
      plan = std::move(solved.plan);
      method += ", refined by the joint ILP";
      OLLA_ASSIGN_OR_RETURN(const ArenaProblem refined,
                            MakeArenaProblem(graph, plan.order, options.alignment));
      result.rounded_peak_bytes = ComputeLiveBytesBound(refined.problem).bytes;
    }
    clock.Finish(
        "refine", solved.too_large ? "joint ILP (too large: not built)" : "joint ILP",
        solved.optimal, solved.optimal ? Budget::Limit::kNone : budget.Reached());
  }
  if (may_recompute && plan.arena_bytes > *options.memory_budget) {
    progress(fmt::format("recompute: the arena {} does not fit the budget {}",
                         FormatBinaryUnits(plan.arena_bytes),
                         FormatBinaryUnits(*options.memory_budget)));
    OLLA_RETURN_IF_ERROR(FitByRecomputing(graph, options, budget, plan, result));
    if (result.expanded) method += ", recompute/greedy";
    clock.Finish("recompute", "greedy", false,
                 result.recompute->reached ? Budget::Limit::kNone : budget.Reached());
  }
  DescribeOrder(result.planned_graph(graph), plan.order, result);

  progress("check");
  plan.provenance.olla_version = Version();
  plan.provenance.method = method;
  // The bound holds for reorderings only: a plan that recomputes may peak lower.
  if (!result.expanded)
    plan.provenance.lower_bound_bytes = result.schedule.lower_bound_bytes;
  plan.provenance.peak_live_bytes = result.peak_live_bytes;
  result.check = CheckPlan(graph, plan);
  if (!result.check.valid) {
    return Internal(fmt::format("optimize produced a plan the checker rejects: {}",
                                result.check.error));
  }
  clock.Finish("check", "plan checker");
  result.plan = std::move(plan);
  result.seconds = clock.total();
  Conclude(graph, result);
  return result;
}

}  // namespace olla
