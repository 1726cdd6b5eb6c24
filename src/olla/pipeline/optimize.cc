#include "olla/pipeline/optimize.h"

#include <chrono>

#include <fmt/format.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/core/bytes.h"
#include "olla/core/version.h"
#include "olla/graph/rounded.h"
#include "olla/pipeline/arena.h"
#include "olla/pipeline/option_table.h"
#include "olla/placement/place.h"
#include "olla/remat/added_cost_bound.h"
#include "olla/remat/cost.h"
#include "olla/remat/order_floor.h"
#include "olla/remat/order_floor_proof.h"
#include "olla/remat/recompute_floor.h"
#include "olla/remat/recompute_floor_proof.h"
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

// What a recompute floor says of `plans` and its proof, as a no-plan line cites them
// (the caller closes the parenthesis): `name` is the floor's, and its kept buffers are
// those no `frees` frees.
std::string FloorClaim(const Graph& graph, const FloorAt& floor, std::string_view plans,
                       std::string_view name, std::string_view frees) {
  if (floor.waiting_bytes == 0) {
    return fmt::format(
        "{} bytes are live at {} in {} (proof: the {}, its inputs, outputs and "
        "workspace, {} bytes, and {} bytes live there that no {} frees",
        floor.bytes, graph.Describe(floor.op), plans, name, floor.footprint_bytes,
        floor.kept_bytes, frees);
  }
  std::string split;
  if (floor.later.valid()) {
    split = fmt::format(
        "; in the plans that run {} first, its first run holds as many, and in the "
        "others what it reads waits too",
        graph.Describe(floor.later));
  }
  return fmt::format(
      "{} peaks at {} bytes or more (proof: the {} raised by what a later reader needs: "
      "at the first run of {}, its inputs, outputs and workspace, {} bytes, {} bytes "
      "that no {} frees, and, below that peak, {} bytes that {} reads, held there or "
      "made from, as no run in between can make them{}",
      plans, floor.bytes, name, graph.Describe(floor.op), floor.footprint_bytes,
      floor.kept_bytes, frees, floor.waiting_bytes, graph.Describe(floor.reader), split);
}

// The conclusion, and unless planned, its reason in one line, citing the proof.
void Conclude(const Graph& graph, OptimizeResult& result) {
  if (result.fits()) {
    result.conclusion = Conclusion::kPlanned;
    return;
  }
  const int64_t budget = *result.memory_budget;
  if (!result.plan && result.recompute_floor) {
    const RecomputeFloor& floors = *result.recompute_floor;
    result.conclusion = Conclusion::kRefuted;
    if (budget < floors.every_plan.bytes) {
      result.reason =
          fmt::format("no plan fits in {} bytes, recomputing or not: {})", budget,
                      FloorClaim(graph, floors.every_plan, "every plan",
                                 "recompute floor", "recomputation"));
      return;
    }
    result.reason = fmt::format(
        "no plan budget mode can make fits in {} bytes: {}; no plan, recomputing or not, "
        "needs less than {} bytes)",
        budget,
        FloorClaim(graph, floors.searched,
                   "every plan that never makes the step's outputs again",
                   "searched floor", "recomputation budget mode makes"),
        floors.every_plan.bytes);
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
    const RecomputeFloor& floors = *result.recompute_floor;
    result.reason = fmt::format(
        "no plan within {} bytes found: the smallest arena found is {} bytes, "
        "recomputing {} ops (order and placement alone need at least {} bytes; no plan, "
        "recomputing or not, needs less than {} bytes{}{})",
        budget, result.arena_bytes(), result.recompute->recomputed_ops,
        result.lower_bound_bytes(), floors.every_plan.bytes,
        floors.searched_is_higher()
            ? fmt::format(", none budget mode can make less than {} bytes",
                          floors.searched.bytes)
            : "",
        result.recompute->order_floor_bytes <= budget
            ? ""
            : fmt::format("; on the order searched, none needs less than {} bytes, live "
                          "at {}",
                          result.recompute->order_floor_bytes,
                          graph.Describe(result.recompute->order_floor_op)));
    return;
  }
  result.reason = fmt::format(
      "no plan within {} bytes found: the smallest arena found is {} bytes, the proven "
      "lower bound {} bytes",
      budget, result.arena_bytes(),
      std::max(result.schedule.lower_bound_bytes, result.placement.lower_bound_bytes));
}

// Options built in C++ are checked against the option table, as parsed ones are.
Status ValidateOptions(const OptimizeOptions& options) {
  OptimizeRequest request;
  request.options = options;
  return CheckOptionValues(request);
}

// The graph's ops in the order `order` (of the expansion) runs them.
Order GraphOrder(const ExpandedGraph& expanded, const Order& order) {
  Order graph_order;
  for (OpId e : order.ops) {
    if (!expanded.is_recomputation(e))
      graph_order.ops.push_back(expanded.source_op[e.index()]);
  }
  return graph_order;
}

// The budget's shares, one table: the fraction of what is left when a stage starts that
// the stage may take (what a search leaves unspent goes to the stages after it).
namespace share {
constexpr double kLowerBounds = 0.25;          // The eager baselines and the bounds.
constexpr double kRecomputeFloor = 0.1;        // With a budget recomputation may meet.
constexpr double kSchedule = 0.5;              // The order; placement gets the rest...
constexpr double kPlaceBeforeRefine = 0.5;     // ...half, with the joint ILP to follow;
constexpr double kPlaceBeforeRecompute = 0.1;  // a tenth, when the order cannot fit.
constexpr double kRecomputeBound = 0.1;        // The bound on added compute,
constexpr double kRecomputeSearch = 0.9;       // The search for recomputations...
constexpr double kRecomputeLayOut = 0.05;      // ...the placement of each it returns...
constexpr double kRecomputePlace = 0.5;        // ...or of one short of the budget;
constexpr double kRecomputeFloorOfPlan = 0.5;  // the floor of the plan's own order,
constexpr double kRecomputeBoundOfPlan = 1.0;  // and its bound: all that is left.
}  // namespace share

// What checking the plan (and writing it) will take, kept out of the searches' time:
// about half a microsecond per op, buffer and use on the machine of
// bench/results/scale.md (1.4 s for the million-op graph).
double CheckReserveSeconds(const Graph& graph) {
  double items = graph.num_ops() + graph.num_buffers();
  for (const Op& op : graph.ops()) items += static_cast<double>(op.uses.size());
  return 0.5e-6 * items;
}

// One Optimize() call: the stages of its recipe, in order, each filling in the result.
class Recipe {
 public:
  Recipe(const Graph& graph, const OptimizeOptions& options, const Budget& whole)
      : graph_(graph),
        options_(options),
        // Every search stops early enough for the check to run within the limit.
        budget_(whole.Reserving(CheckReserveSeconds(graph))),
        clock_(result_.stages) {
    result_.alignment = options.alignment;
    result_.memory_budget = options.memory_budget;
    may_recompute_ =
        options.memory_budget && options.recompute && HasRecomputableBuffer(graph);
  }

  // The eager order, the lower bounds, and where recomputation may meet the budget, the
  // recompute floor.
  void Baselines() {
    Progress("baselines: the eager order and the lower bounds");
    result_.eager = SimulateEager(graph_, budget_.Split(share::kLowerBounds));
    if (may_recompute_) {
      const Budget floors = budget_.Split(share::kRecomputeFloor);
      result_.recompute_floor = ComputeRecomputeFloor(graph_, floors.Split(0.5));
      // The search aims at the floor of every plan's footprints: raised, the bytes
      // above it at the steps under the raised floor would no longer tell moves apart.
      aim_bytes_ = result_.recompute_floor->every_plan.bytes;
      // Raised by what later readers need: past the budget, the budget refuted;
      // otherwise as close to it as the proof goes, how far any plan is from it.
      const int64_t memory_budget = *options_.memory_budget;
      RecomputeFloor& floor = *result_.recompute_floor;
      if (floor.searched.bytes <= memory_budget)
        floor = RaiseRecomputeFloors(graph_, floor, memory_budget, floors);
    }
    clock_.Finish("baselines", "eager", false,
                  result_.eager.bounds.forced_live_complete() ? Budget::Limit::kNone
                                                              : Budget::Limit::kTime);
  }

  // A budget below the lower bound of every order cannot be met by reordering, nor one
  // below the floor of the plans budget mode searches by its recomputation: that is
  // the proof (the conclusion says which).
  bool BudgetRefuted() const {
    if (!options_.memory_budget) return false;
    const int64_t bound = may_recompute_ ? result_.recompute_floor->searched.bytes
                                         : result_.eager.bounds.best();
    return bound > *options_.memory_budget;
  }

  Status Order() {
    Progress(fmt::format("schedule: eager peak {}, lower bound {}",
                         FormatBinaryUnits(result_.eager.peak_live_bytes),
                         FormatBinaryUnits(result_.eager.bounds.best())));
    ScheduleOptions schedule = options_.schedule;
    schedule.threads = options_.threads;
    schedule.progress = options_.progress;
    if (joint()) schedule.method = "auto";
    schedule.forced_live = result_.eager.bounds.forced_live;  // Computed once.
    OLLA_ASSIGN_OR_RETURN(result_.schedule,
                          Schedule(graph_, schedule, budget_.Split(share::kSchedule)));
    clock_.Finish("schedule", result_.schedule.method, result_.schedule.optimal,
                  result_.schedule.stopped_by);
    return OkStatus();
  }

  // Offsets for the schedule's order. With a refinement to follow, placement leaves it
  // a share; when the order cannot fit the budget, this placement is only the fallback,
  // and recomputation gets the rest.
  StatusOr<Plan> Place() {
    const olla::Order& order = result_.schedule.order;
    OLLA_ASSIGN_OR_RETURN(const ArenaProblem arena,
                          MakeArenaProblem(graph_, order, options_.alignment));
    result_.rounded_peak_bytes = arena.least_bytes;
    Progress(fmt::format(
        "place {} buffers: order peak {} ({} above the bound), arena at least {}",
        arena.problem.size(), FormatBinaryUnits(result_.schedule.peak_bytes),
        FormatPercent(Gap(result_.schedule.peak_bytes, result_.lower_bound_bytes()), 1.0),
        FormatBinaryUnits(arena.least_bytes)));
    const bool cannot_fit = may_recompute_ && arena.least_bytes > *options_.memory_budget;
    OLLA_ASSIGN_OR_RETURN(
        PlacedArena placed,
        PlaceArena(graph_, order, arena, PlaceOptionsOf(options_.memory_budget),
                   cannot_fit ? budget_.Split(share::kPlaceBeforeRecompute)
                   : joint()  ? budget_.Split(share::kPlaceBeforeRefine)
                              : budget_));
    result_.placement = std::move(placed.placement);
    clock_.Finish("place", result_.placement.method,
                  result_.placement.arena_bytes <= result_.rounded_peak_bytes,
                  result_.placement.stopped_by);
    method_ = fmt::format("optimize: schedule/{}, place/{}", result_.schedule.method,
                          result_.placement.method);
    return std::move(placed.plan);
  }

  // Only a plan above the bound of every order can improve.
  bool MayRefine(const Plan& plan) const {
    return joint() && plan.arena_bytes > result_.lower_bound_bytes();
  }

  // OLLA's joint ILP of order and addresses from `plan`, with what is left of the
  // budget; its plan replaces `plan` when its arena is smaller.
  Status Refine(Plan& plan) {
    Progress(
        fmt::format("refine: the joint ILP of order and addresses from an arena of {}",
                    FormatBinaryUnits(plan.arena_bytes)));
    JointIlpOptions refine;
    refine.alignment = options_.alignment;
    refine.threads = options_.threads;
    refine.lower_bound_bytes = result_.lower_bound_bytes();
    refine.start = plan;
    JointIlpResult solved = SolveJointIlp(graph_, refine, budget_);
    result_.unrefined_arena_bytes = plan.arena_bytes;
    result_.joint_optimal = solved.optimal;
    if (solved.solved && solved.plan.arena_bytes < plan.arena_bytes) {
      plan = std::move(solved.plan);
      method_ += ", refined by the joint ILP";
      OLLA_ASSIGN_OR_RETURN(const ArenaProblem refined,
                            MakeArenaProblem(graph_, plan.order, options_.alignment));
      result_.rounded_peak_bytes = refined.least_bytes;
    }
    clock_.Finish(
        "refine", solved.too_large ? "joint ILP (too large: not built)" : "joint ILP",
        solved.optimal, solved.optimal ? Budget::Limit::kNone : budget_.Reached());
    return OkStatus();
  }

  bool MustRecompute(const Plan& plan) const {
    return may_recompute_ && plan.arena_bytes > *options_.memory_budget;
  }

  // Budget mode's last resort: recompute activations on the plan's order until the
  // placed arena fits. The search lays out each plan that would become its result
  // (a plan peaking at the budget can fail to be placed within it), and keeps the
  // placement of the one it returns; a plan short of the budget is placed afterwards,
  // for the report. Replaces `plan` (and the result's placement and bound) when it
  // finds a smaller arena.
  Status Recompute(Plan& plan) {
    const int64_t memory_budget = *options_.memory_budget;
    Progress(fmt::format("recompute: the arena {} does not fit the budget {}",
                         FormatBinaryUnits(plan.arena_bytes),
                         FormatBinaryUnits(memory_budget)));
    RecomputeReport report;
    report.step_cost = StepCost(graph_);
    report.arena_without = plan.arena_bytes;
    const olla::Order base = plan.order;
    // The search measures peaks over sizes rounded as the arena lays them out, so that
    // a peak at the target is an arena at it.
    const std::optional<Graph> rounded = RoundSizes(graph_, options_.alignment);
    const Graph& searched = rounded ? *rounded : graph_;
    const AddedCostBound bound = BoundAddedCost(searched, base, memory_budget,
                                                budget_.Split(share::kRecomputeBound));
    report.order_floor_bytes = bound.floor.bytes;
    report.order_floor_op = base.ops[static_cast<size_t>(bound.floor.step)];
    RematOptions remat;
    // Below the order's floor no plan on the order fits: the search aims at the floor,
    // the least the order allows, and once there lowers the compute it adds
    // (Checkmate's ResNet50 at 10.5 % of its peak, --work-limit 80000: the floor's
    // 4.11 GB either way, adding 27.4 % of the step aiming at it, 44.7 % aiming at the
    // budget).
    remat.target_bytes = std::max(memory_budget, bound.floor.bytes);
    // Aimed at the floor of every plan, below the searched one: the bytes above it
    // at steps under the searched floor still tell moves apart (aimed at the
    // searched floor, Checkmate's ResNet50 no longer fit 11 % of its peak in 30 s).
    if (result_.recompute_floor) remat.aim_bytes = aim_bytes_;
    if (bound.reachable) remat.cost_floor = bound.cost;
    // A plan's order placed with `capacity` (the budget; none: the least arena), with
    // its arena.
    struct LaidOut {
      olla::Order order;
      ArenaProblem arena;
      PlacedArena placed;
    };
    auto lay_out = [&](const Graph& expanded, const olla::Order& order,
                       std::optional<int64_t> capacity,
                       double share) -> StatusOr<LaidOut> {
      OLLA_ASSIGN_OR_RETURN(ArenaProblem arena,
                            MakeArenaProblem(expanded, order, options_.alignment));
      OLLA_ASSIGN_OR_RETURN(PlacedArena placed,
                            PlaceArena(expanded, order, arena, PlaceOptionsOf(capacity),
                                       budget_.Split(share)));
      return LaidOut{order, std::move(arena), std::move(placed)};
    };
    // The last plan the search's layout accepted. A plan whose arena cannot be built
    // is refused here; placed again below, its error is the command's.
    std::optional<LaidOut> laid_out;
    remat.lays_out = [&](const Graph& expanded, const olla::Order& order) {
      StatusOr<LaidOut> tried =
          lay_out(expanded, order, remat.target_bytes, share::kRecomputeLayOut);
      if (!tried.ok() || tried->placed.plan.arena_bytes > remat.target_bytes)
        return false;
      laid_out = std::move(tried).value();
      return true;
    };
    RematResult found =
        Rematerialize(searched, base, remat, budget_.Split(share::kRecomputeSearch));
    report.measurements = found.measurements;
    if (!found.recompute.empty()) {
      OLLA_ASSIGN_OR_RETURN(ExpandedGraph expanded, ExpandGraph(graph_, found.recompute));
      // Short of its target, the least arena of the plan found: what the no-plan line
      // reports (with the budget as capacity, Checkmate's ResNet50 at 10.5 % was placed
      // 20 % above the peak that its least arena reaches at 10.82 %).
      if (!found.reached || !laid_out || laid_out->order != found.order) {
        const std::optional<int64_t> capacity =
            found.reached ? std::optional<int64_t>(remat.target_bytes) : std::nullopt;
        OLLA_ASSIGN_OR_RETURN(laid_out, lay_out(expanded.graph, found.order, capacity,
                                                share::kRecomputePlace));
      }
      if (laid_out->placed.plan.arena_bytes < plan.arena_bytes) {
        plan = std::move(laid_out->placed.plan);
        plan.recompute = found.recompute;
        result_.placement = std::move(laid_out->placed.placement);
        result_.rounded_peak_bytes = laid_out->arena.least_bytes;
        report.runs = static_cast<int32_t>(found.recompute.size());
        std::vector<OpId> ops;
        for (const Recomputation& r : found.recompute) {
          report.added_cost += OpCost(graph_, r.op);
          ops.push_back(r.op);
        }
        std::sort(ops.begin(), ops.end());
        report.recomputed_ops =
            static_cast<int32_t>(std::unique(ops.begin(), ops.end()) - ops.begin());
        result_.expanded = std::move(expanded);
      }
    }
    report.reached = plan.arena_bytes <= memory_budget;
    if (report.reached && result_.expanded) {
      // The plan's own order of the graph's ops: the searched order, unless the search
      // deferred an op (a view or an update waiting for a copy).
      const olla::Order own = GraphOrder(*result_.expanded, plan.order);
      // How far the plan is from the least on that order: its floor raised up to the
      // plan's peak (first: seldom long, where the bound below takes all it is given).
      const OrderFloor floor = RaiseOrderFloor(
          searched, own, own == base ? bound.floor : ComputeOrderFloor(searched, own),
          result_.rounded_peak_bytes, budget_.Split(share::kRecomputeFloorOfPlan));
      report.order_floor_bytes = floor.bytes;
      report.order_floor_op = own.ops[static_cast<size_t>(floor.step)];
      // Its bound on added compute: on another order, that order's; on the searched
      // one, proved again with the time the search left where the first proof fell
      // short of the plan and more time could raise it (a search that converges early
      // leaves most of a long limit: on Checkmate's vgg_unet at 45 % of its peak,
      // --time-limit 600 ended after 94 s with the stage model cut short).
      AddedCostBound bound_of_plan = bound;
      if (own != base || (!bound.settled && bound.cost < report.added_cost)) {
        const AddedCostBound again = BoundAddedCost(
            searched, own, memory_budget, budget_.Split(share::kRecomputeBoundOfPlan));
        if (own != base || again.cost > bound.cost ||
            (again.cost == bound.cost && again.proven_optimal))
          bound_of_plan = again;
      }
      // A bound above the plan's own cost is the solver's error (CBC once called such
      // a bound optimal: remat/stage_bound.cc), never reported.
      if (bound_of_plan.reachable && bound_of_plan.cost <= report.added_cost) {
        report.added_cost_bound = bound_of_plan.cost;
        report.bound_optimal = bound_of_plan.proven_optimal;
      }
    }
    result_.recompute = report;
    if (result_.expanded) method_ += ", recompute/search";
    clock_.Finish("recompute", "greedy and large-neighbourhood search", false,
                  report.reached ? Budget::Limit::kNone : budget_.Reached());
    return OkStatus();
  }

  // The plan's figures, its provenance, and the independent checker's verdict: a plan
  // it rejects is an internal error, never a result.
  Status Check(Plan plan) {
    DescribeOrder(plan.order);
    Progress("check");
    plan.provenance.olla_version = Version();
    plan.provenance.method = method_;
    // The bound holds for reorderings only: a plan that recomputes may peak lower.
    if (!result_.expanded)
      plan.provenance.lower_bound_bytes = result_.schedule.lower_bound_bytes;
    plan.provenance.peak_live_bytes = result_.peak_live_bytes;
    result_.check = CheckPlan(graph_, plan);
    if (!result_.check.valid) {
      return Internal(fmt::format("optimize produced a plan the checker rejects: {}",
                                  result_.check.error));
    }
    clock_.Finish("check", "plan checker");
    result_.plan = std::move(plan);
    return OkStatus();
  }

  OptimizeResult Conclude() {
    result_.seconds = clock_.total();
    olla::Conclude(graph_, result_);
    return std::move(result_);
  }

 private:
  bool joint() const { return options_.schedule.method == kJointMethod; }

  PlaceOptions PlaceOptionsOf(std::optional<int64_t> capacity) const {
    PlaceOptions place;
    place.method = options_.placement_method;
    place.capacity = capacity;
    place.threads = options_.threads;
    return place;
  }

  void Progress(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }

  // The figures of the plan's order: its peak, where it peaks, and what the caching
  // allocator would reserve running it.
  void DescribeOrder(const olla::Order& order) {
    const Graph& planned = result_.planned_graph(graph_);
    const Lifetimes lifetimes = ComputeLifetimes(planned, order);
    result_.reordered = ReplayCachingAllocator(planned, order, lifetimes);
    const MemoryTimeline timeline = ComputeTimeline(planned, order, lifetimes);
    result_.peak_live_bytes = timeline.peak_bytes;
    result_.peak_step = timeline.peak_step;
    result_.peak_op = timeline.peak_op;
  }

  const Graph& graph_;
  const OptimizeOptions& options_;
  const Budget budget_;
  OptimizeResult result_;
  StageClock clock_;
  bool may_recompute_ = false;
  int64_t aim_bytes_ = 0;  // Where the search aims: the floor before the proof raised it.
  std::string method_;     // The plan's provenance: how each stage made it.
};

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
  OLLA_RETURN_IF_ERROR(ValidateOptions(options));
  Recipe recipe(graph, options, whole);
  recipe.Baselines();
  if (recipe.BudgetRefuted()) return recipe.Conclude();
  OLLA_RETURN_IF_ERROR(recipe.Order());
  OLLA_ASSIGN_OR_RETURN(Plan plan, recipe.Place());
  if (recipe.MayRefine(plan)) OLLA_RETURN_IF_ERROR(recipe.Refine(plan));
  if (recipe.MustRecompute(plan)) OLLA_RETURN_IF_ERROR(recipe.Recompute(plan));
  OLLA_RETURN_IF_ERROR(recipe.Check(std::move(plan)));
  return recipe.Conclude();
}

}  // namespace olla
