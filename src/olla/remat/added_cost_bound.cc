#include "olla/remat/added_cost_bound.h"

#include <algorithm>
#include <cmath>
#include <compare>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/remat/cost.h"
#include "olla/remat/order_floor.h"
#include "olla/remat/order_floor_proof.h"
#include "olla/remat/recomputable.h"
#include "olla/solver/milp_solver.h"

namespace olla {

namespace {

// What the covering ILP's bound is lowered by (see its use).
constexpr double kSolverTolerance = 2e-5;

// The covering problem of added_cost_bound.h. A variable for each op a plan may run
// again (its cost); for each droppable buffer, one for each stretch of the steps above
// the target where it may be absent (absent at one of them: a run of its producer
// after that stretch begins); per row, the bytes absent buffers free less the bytes
// held for their runs. A run after a step reads each input there: one dead there in
// the order is held (itself or a copy) from its death through that step, or made
// again after it died (a run of its producer, which reads its own inputs so).
class CoveringModel {
 public:
  // Stretches at most this many steps long: a run is charged for holding its inputs
  // through a stretch's first step only.
  static constexpr int32_t kStretch = 64;

  // `inputs`: whether runs pay for the inputs they read (else one variable per
  // producer, absent wherever it may be).
  CoveringModel(const Graph& graph, const Lifetimes& lifetimes,
                const MemoryTimeline& timeline, const RecomputableBuffers& buffers,
                int64_t target_bytes, bool inputs)
      : graph_(graph),
        lifetimes_(lifetimes),
        timeline_(timeline),
        copyable_(buffers.copyable),
        target_(target_bytes),
        inputs_(inputs),
        credits_(timeline.live_bytes.size()) {}

  int64_t dearest() const { return dearest_; }

  void Add(const FreeSpan& span) {
    const std::vector<BufferId>& inputs = graph_.op(span.producer).uses;
    std::optional<Key> stretch;
    int32_t begun = 0;
    for (int32_t step = span.after + 1; step < span.end; ++step) {
      if (!AboveTarget(step) ||
          std::binary_search(span.reads.begin(), span.reads.end(), step)) {
        stretch.reset();
        continue;
      }
      // Without the inputs, one stretch for all the steps (one variable per producer).
      if (!stretch || (inputs_ && EndsStretch(inputs, begun, step))) {
        stretch = RunAfter(span.producer, inputs_ ? step : -1, Kind::kAbsent);
        begun = step;
      }
      credits_[static_cast<size_t>(step)].push_back({*stretch, span.size});
    }
  }

  // Adds the variables and constraints to `model`; its entries (for FitsInTime).
  int64_t Build(MilpModel& model) {
    // Costs over the dearest op paid for, so that the objective's coefficients are at
    // most 1 (over the dearest of all, a cheap op's cost fell below the solver's
    // tolerances, and its bounds rose above plans found).
    for (const auto& [key, variable] : variables_) {
      if (key.kind == Kind::kPaid)
        dearest_ = std::max(dearest_, OpCost(graph_, OpId(key.id)));
    }
    for (auto& [key, variable] : variables_) {
      const double cost = key.kind == Kind::kPaid
                              ? static_cast<double>(OpCost(graph_, OpId(key.id))) /
                                    static_cast<double>(dearest_)
                              : 0.0;
      variable = model.AddBinary(Name(key), cost);
    }
    auto var = [&](const Key& key) { return variables_.at(key); };
    int64_t entries = model.num_variables();
    auto add = [&](std::vector<MilpTerm> terms, double lower) {
      entries += static_cast<int64_t>(terms.size());
      model.AddConstraint("c" + std::to_string(entries), std::move(terms), lower,
                          kInfinity);
    };
    for (const auto& [needed, options] : implications_) {
      std::vector<MilpTerm> terms = {{var(needed), -1.0}};
      for (const Key& option : options) terms.push_back({var(option), 1.0});
      add(std::move(terms), 0.0);
    }
    // A buffer held through a later step is held through an earlier one; at each step
    // above the target from its death, its bytes count against the row.
    std::vector<std::vector<std::pair<int32_t, int64_t>>> held(credits_.size());
    std::map<int32_t, std::vector<int32_t>> held_through;  // Buffer: steps, ascending.
    for (const auto& [key, variable] : variables_) {
      if (key.kind == Kind::kHeld) held_through[key.id].push_back(key.step);
    }
    for (const auto& [buffer, through] : held_through) {
      int32_t from = lifetimes_[BufferId(buffer)].end;
      for (size_t i = 0; i < through.size(); ++i) {
        const int32_t variable = var({Kind::kHeld, buffer, through[i]});
        if (i > 0)
          add({{var({Kind::kHeld, buffer, through[i - 1]}), 1.0}, {variable, -1.0}}, 0.0);
        for (int32_t step = from; step <= through[i]; ++step) {
          if (AboveTarget(step))
            held[static_cast<size_t>(step)].push_back(
                {variable, graph_.buffer(BufferId(buffer)).size});
        }
        from = through[i] + 1;
      }
    }
    for (size_t step = 0; step < credits_.size(); ++step) {
      if (!AboveTarget(static_cast<int32_t>(step))) continue;
      const int64_t excess = timeline_.live_bytes[step] - target_;
      // Each credit capped at the most the row can ask, which keeps the integer
      // optimum and tightens the relaxation.
      int64_t most = excess;
      for (const auto& [variable, bytes] : held[step]) most += bytes;
      std::map<int32_t, int64_t> credit;  // Spans of one op, one variable.
      for (const auto& [key, bytes] : credits_[step]) credit[var(key)] += bytes;
      std::vector<MilpTerm> terms;
      for (const auto& [variable, bytes] : credit) {
        terms.push_back({variable, static_cast<double>(std::min(bytes, most)) /
                                       static_cast<double>(excess)});
      }
      for (const auto& [variable, bytes] : held[step])
        terms.push_back(
            {variable, -static_cast<double>(bytes) / static_cast<double>(excess)});
      add(std::move(terms), 1.0);
    }
    return entries;
  }

 private:
  enum class Kind { kPaid, kAbsent, kRun, kHeld };
  struct Key {
    Kind kind;
    int32_t id;  // An op's (paid, absent, run) or a buffer's (held).
    int32_t step;
    auto operator<=>(const Key&) const = default;
  };

  // Whether a stretch begun at `begun` ends before `step`: it is long enough, or one of
  // the producer's `inputs` dies there (from then on, held or made again).
  bool EndsStretch(const std::vector<BufferId>& inputs, int32_t begun,
                   int32_t step) const {
    return step - begun >= kStretch ||
           std::any_of(inputs.begin(), inputs.end(),
                       [&](BufferId input) { return lifetimes_[input].end == step; });
  }

  bool AboveTarget(int32_t step) const {
    return timeline_.live_bytes[static_cast<size_t>(step)] > target_;
  }

  static std::string Name(const Key& key) {
    static constexpr const char* kPrefix[] = {"x", "a", "r", "h"};
    return kPrefix[static_cast<int>(key.kind)] + std::to_string(key.id) + "_" +
           std::to_string(key.step);
  }

  // Records `key`'s variable (made in Build).
  void Variable(const Key& key) { variables_.try_emplace(key, -1); }

  // A run of `op` after `step` (kRun), or a buffer it makes absent at some step of a
  // stretch from `step` (kAbsent, made again after it): its variable, made once with
  // what it needs.
  Key RunAfter(OpId op, int32_t step, Kind kind = Kind::kRun) {
    const Key run{kind, op.value(), step};
    if (!variables_.contains(run)) {
      Variable(run);
      NeedsInputsAfter(op, step, run);
    }
    return run;
  }

  // `needed` (an absent stretch or a run of `op` after `step`) implies `op` paid for,
  // and each of its inputs dead at `step` held through it or made again after it died.
  void NeedsInputsAfter(OpId op, int32_t step, const Key& needed) {
    implications_.push_back({needed, {{Kind::kPaid, op.value(), 0}}});
    Variable({Kind::kPaid, op.value(), 0});
    if (!inputs_) return;
    for (BufferId input : graph_.op(op).uses) {
      const int32_t dies = lifetimes_[input].end;
      if (graph_.buffer(input).persistent || dies > step) continue;
      const Key held{Kind::kHeld, input.value(), step};
      Variable(held);
      std::vector<Key> options = {held};
      const OpId producer = graph_.producer(input);
      if (producer.valid() && copyable_[input.index()])
        options.push_back(RunAfter(producer, dies - 1));
      implications_.push_back({needed, std::move(options)});
    }
  }

  const Graph& graph_;
  const Lifetimes& lifetimes_;
  const MemoryTimeline& timeline_;
  const std::vector<char>& copyable_;
  int64_t target_;
  bool inputs_;
  int64_t dearest_ = 1;
  std::map<Key, int32_t> variables_;
  std::vector<std::pair<Key, std::vector<Key>>> implications_;  // Key <= any of them.
  std::vector<std::vector<std::pair<Key, int64_t>>> credits_;   // Per step.
};

}  // namespace

AddedCostBound BoundAddedCost(const Graph& graph, const Order& order,
                              int64_t target_bytes, const Budget& budget) {
  AddedCostBound bound;
  const Lifetimes lifetimes = ComputeLifetimes(graph, order);
  const MemoryTimeline timeline = ComputeTimeline(graph, order, lifetimes);
  const RecomputableBuffers buffers = FindRecomputableBuffers(graph);
  const std::vector<FreeSpan> spans = FreeSpans(graph, order, lifetimes, buffers);
  bound.floor = FloorOf(KeptBytes(timeline, spans));
  if (timeline.peak_bytes <= target_bytes) {
    bound.proven_optimal = true;
    return bound;
  }
  // The floor raised by what later steps read (order_floor_proof.h), with half the
  // budget: whether it passes the target, and then how far (the search aims there).
  const Budget raise = budget.Split(0.5);
  const OrderFloor shown = ProveOrderFloor(graph, order, target_bytes + 1, raise);
  if (shown.bytes > bound.floor.bytes)
    bound.floor = {std::min(shown.bytes, target_bytes + 1), shown.step};
  if (bound.floor.bytes > target_bytes) {
    bound.floor = RaiseOrderFloor(graph, order, bound.floor, timeline.peak_bytes, raise);
    bound.reachable = false;
    return bound;
  }
  // Without the runs' inputs first, a small model that solves in little time (the
  // bound of a plan's own order comes after the search has spent its time), then with
  // them where time is left; the higher of the two bounds.
  for (const bool inputs : {false, true}) {
    const Budget part = inputs ? budget : budget.Split(0.5);
    CoveringModel covering(graph, lifetimes, timeline, buffers, target_bytes, inputs);
    for (const FreeSpan& span : spans) covering.Add(span);
    MilpModel model;
    const int64_t entries = covering.Build(model);
    if (part.Exhausted() || !FitsInTime(entries, part)) break;
    MilpOptions options;
    LimitByBudget(part, options);
    StatusOr<MilpResult> solved = MakeDefaultMilpSolver()->Solve(model, options);
    OLLA_CHECK(solved.ok(),
               "the added-cost bound's ILP is malformed: " + solved.status().message());
    part.Spend(solved->nodes);
    if (!solved->has_bound()) continue;
    // Down by the solver's tolerances, a bound never above the true optimum: CBC
    // looks only for solutions better than the incumbent by its cutoff increment
    // (1e-5 of the scaled objective), so a proven optimum may lie that much above the
    // best plan (on Checkmate's fcn_8_vgg at 90 %, 388 units above the search's).
    const double units = std::max(0.0, solved->best_bound - kSolverTolerance) *
                         static_cast<double>(covering.dearest());
    const auto cost = static_cast<int64_t>(std::floor(units * (1.0 - 1e-9)));
    if (cost < bound.cost) continue;
    bound.cost = cost;
    bound.proven_optimal = solved->conclusion == MilpConclusion::kOptimal;
  }
  return bound;
}

}  // namespace olla
