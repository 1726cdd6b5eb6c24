#include "olla/remat/added_cost_bound.h"

#include <algorithm>
#include <array>
#include <compare>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/remat/cost.h"
#include "olla/remat/order_floor.h"
#include "olla/remat/order_floor_proof.h"
#include "olla/remat/recomputable.h"
#include "olla/remat/stage_bound.h"
#include "olla/solver/milp_solver.h"

namespace olla {

namespace {

// What the covering ILP's bound is lowered by (see its use).
constexpr double kSolverTolerance = 2e-5;

// The covering problem of added_cost_bound.h. A variable for each run a plan must pay
// for (its op's cost): where an op makes one buffer, one for each of the buffer's late
// reads (absent after the read before it, the buffer is made again by a run between)
// and one after its death; an op that makes several, one for all its runs. For each
// droppable buffer, one for each stretch of the steps above the target where it may be
// absent (absent at one of them: a run of its producer after that stretch begins and
// before the next read); per row, the bytes absent buffers free less the bytes held
// for their runs. A run after a step reads each input there: one dead there in the
// order is held (itself or a copy) from its death through that step, or made again
// after it died (a run of its producer, which reads its own inputs so); one the plan
// drops before the run and again after it, before its own next read, is made twice
// in between (CopiesForRuns).
class CoveringModel {
 public:
  // Stretches at most this many steps long: a run is charged for holding its inputs
  // through a stretch's first step only.
  static constexpr int32_t kStretch = 64;
  // The `before` of a run after the death of the buffer it makes again.
  static constexpr int32_t kAfterDeath = std::numeric_limits<int32_t>::max();

  // `inputs`: whether runs pay for the inputs they read (else one variable for each
  // buffer's absence before each of its reads).
  CoveringModel(const Graph& graph, const Lifetimes& lifetimes,
                const MemoryTimeline& timeline, const RecomputableBuffers& buffers,
                int64_t target_bytes, bool inputs)
      : graph_(graph),
        lifetimes_(lifetimes),
        timeline_(timeline),
        copyable_(buffers.copyable),
        target_(target_bytes),
        inputs_(inputs),
        credits_(timeline.live_bytes.size()),
        span_of_(static_cast<size_t>(graph.num_buffers()), nullptr),
        absent_(static_cast<size_t>(graph.num_buffers())),
        starts_(static_cast<size_t>(graph.num_buffers())) {}

  int64_t dearest() const { return dearest_; }

  void Add(const std::vector<FreeSpan>& spans) {
    // A stretch of a buffer begins afresh at each late read of what its readers make,
    // so that CopiesForRuns finds stretches wholly after such a read.
    if (inputs_) {
      for (const FreeSpan& span : spans) {
        for (BufferId input : graph_.op(span.producer).uses)
          starts_[input.index()].insert(span.reads.begin(), span.reads.end());
      }
    }
    for (const FreeSpan& span : spans) AddSpan(span);
  }

  // Adds the variables and constraints to `model`; its entries (for FitsInTime).
  int64_t Build(MilpModel& model) {
    const std::vector<std::array<Key, 4>> copies = CopiesForRuns();
    // Costs over the dearest op paid for, so that the objective's coefficients are at
    // most 1 (over the dearest of all, a cheap op's cost fell below the solver's
    // tolerances, and its bounds rose above plans found).
    for (const auto& [key, variable] : variables_) {
      if (Paid(key.kind)) dearest_ = std::max(dearest_, OpCost(graph_, OpId(key.id)));
    }
    for (auto& [key, variable] : variables_) {
      const double cost = Paid(key.kind)
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
    for (const auto& [run, early, late, copy] : copies) {
      add({{var(run), -1.0}, {var(early), -1.0}, {var(late), -1.0}, {var(copy), 1.0}},
          -2.0);
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
  enum class Kind { kPaid, kAbsent, kRun, kHeld, kCopy };
  struct Key {
    Kind kind;
    int32_t id;  // An op's (paid, absent, run, copy) or a buffer's (held).
    int32_t step;
    auto operator<=>(const Key&) const = default;
  };

  void AddSpan(const FreeSpan& span) {
    const std::set<int32_t>& starts = starts_[span.buffer.index()];
    const std::vector<BufferId>& inputs = graph_.op(span.producer).uses;
    auto next_read = span.reads.begin();
    std::optional<Key> stretch;
    int32_t begun = 0;
    for (int32_t step = span.after + 1; step < span.end; ++step) {
      while (*next_read < step) ++next_read;  // The last read is at end - 1.
      if (!AboveTarget(step) || *next_read == step) {
        stretch.reset();
        continue;
      }
      // Without the inputs, one stretch for all the steps before a read.
      if (!stretch ||
          (inputs_ && (EndsStretch(inputs, begun, step) || starts.contains(step)))) {
        stretch = RunAfter(span.producer, inputs_ ? step : *next_read, *next_read,
                           Kind::kAbsent);
        begun = step;
        if (inputs_) {
          runs_.push_back({*stretch, span.producer, *next_read});
          absent_[span.buffer.index()].push_back({*stretch, step, step});
        }
      }
      credits_[static_cast<size_t>(step)].push_back({*stretch, span.size});
      if (inputs_) absent_[span.buffer.index()].back().last = step;
    }
    span_of_[span.buffer.index()] = &span;
  }

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
    static constexpr const char* kPrefix[] = {"x", "a", "r", "h", "e"};
    return kPrefix[static_cast<int>(key.kind)] + std::to_string(key.id) + "_" +
           std::to_string(key.step);
  }

  // Whether a variable of `kind` is a run paid for (its op's cost).
  static bool Paid(Kind kind) { return kind == Kind::kPaid || kind == Kind::kCopy; }

  // A run of an absent stretch, after the stretch begins and before the read it
  // serves, reads its inputs, each live then. Where one is a droppable buffer absent
  // somewhere after its read (or last early read) before that read and before the
  // stretch begins, and again from that read to its own next, its producer runs twice
  // in between: once more than its next read pays for (a copy). The quadruples (run,
  // absent before, absent after, copy).
  std::vector<std::array<Key, 4>> CopiesForRuns() {
    std::vector<std::array<Key, 4>> copies;
    for (const Run& run : runs_) {
      for (BufferId input : graph_.op(run.op).uses) {
        if (span_of_[input.index()] == nullptr) continue;
        const FreeSpan& made = *span_of_[input.index()];
        const auto next =
            std::lower_bound(made.reads.begin(), made.reads.end(), run.before);
        if (graph_.op(made.producer).allocates.size() != 1 || made.after >= run.before ||
            next == made.reads.end())
          continue;
        const int32_t previous = next == made.reads.begin()
                                     ? made.after
                                     : std::max(made.after, *std::prev(next));
        const Key copy{Kind::kCopy, made.producer.value(), *next};
        const std::vector<Stretch>& absent = absent_[input.index()];
        for (const Stretch& early : absent) {
          if (early.first <= previous || early.last > run.key.step) continue;
          for (const Stretch& late : absent) {
            if (late.first < run.before || late.first >= *next) continue;
            Variable(copy);
            copies.push_back({run.key, early.key, late.key, copy});
          }
        }
      }
    }
    return copies;
  }

  // Records `key`'s variable (made in Build).
  void Variable(const Key& key) { variables_.try_emplace(key, -1); }

  // A run of `op` after `step` and before `before` (kRun), or a buffer it makes absent
  // at some step of a stretch from `step` and made again before `before` (kAbsent): its
  // variable, made once with what it needs.
  Key RunAfter(OpId op, int32_t step, int32_t before, Kind kind = Kind::kRun) {
    const Key run{kind, op.value(), step};
    if (!variables_.contains(run)) {
      Variable(run);
      NeedsInputsAfter(op, step, before, run);
    }
    return run;
  }

  // What pays for a run of `op` before `before` (and after its buffer's read before
  // that): where `op` makes one buffer, runs before different reads of it, or after
  // its death, are different runs, each paid for; an op that makes several pays once.
  Key Paid(OpId op, int32_t before) const {
    return {Kind::kPaid, op.value(), graph_.op(op).allocates.size() == 1 ? before : -1};
  }

  // `needed` (an absent stretch or a run of `op` after `step`) implies its run paid for,
  // and each of its inputs dead at `step` held through it or made again after it died.
  void NeedsInputsAfter(OpId op, int32_t step, int32_t before, const Key& needed) {
    implications_.push_back({needed, {Paid(op, before)}});
    Variable(Paid(op, before));
    if (!inputs_) return;
    for (BufferId input : graph_.op(op).uses) {
      const int32_t dies = lifetimes_[input].end;
      if (graph_.buffer(input).persistent || dies > step) continue;
      const Key held{Kind::kHeld, input.value(), step};
      Variable(held);
      std::vector<Key> options = {held};
      const OpId producer = graph_.producer(input);
      if (producer.valid() && copyable_[input.index()])
        options.push_back(RunAfter(producer, dies - 1, kAfterDeath));
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
  // Of the runs' inputs (with inputs_ only): the absent stretches, by their runs' ops.
  struct Run {
    Key key;  // Its absent stretch's.
    OpId op;
    int32_t before;  // The read it serves.
  };
  std::vector<Run> runs_;
  std::vector<const FreeSpan*> span_of_;  // By buffer: its span, if droppable.
  struct Stretch {
    Key key;
    int32_t first;  // Its steps.
    int32_t last;
  };
  std::vector<std::vector<Stretch>> absent_;  // By buffer.
  std::vector<std::set<int32_t>> starts_;     // By buffer (Add).
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
    bound.proven_optimal = bound.settled = true;
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
    bound.settled = true;
    return bound;
  }
  // Without the runs' inputs first, a small model that solves in little time (the
  // bound of a plan's own order comes after the search has spent its time), then with
  // them where time is left; the higher of the two bounds.
  bool covering_settled = false;  // The model with the inputs solved to its optimum.
  for (const bool inputs : {false, true}) {
    const Budget part = inputs ? budget : budget.Split(0.5);
    CoveringModel covering(graph, lifetimes, timeline, buffers, target_bytes, inputs);
    covering.Add(spans);
    MilpModel model;
    const int64_t entries = covering.Build(model);
    if (part.Exhausted() || !FitsInTime(entries, part)) break;
    // Down by the solver's tolerances, a bound never above the true optimum: CBC
    // looks only for solutions better than the incumbent by its cutoff increment
    // (1e-5 of the scaled objective), so a proven optimum may lie that much above the
    // best plan (on Checkmate's fcn_8_vgg at 90 %, 388 units above the search's).
    const std::optional<ProvenLowerBound> proven = ProveLowerBound(
        model, part, covering.dearest(), kSolverTolerance, "the added-cost bound's ILP");
    if (inputs) covering_settled = proven && proven->optimal;
    if (!proven || proven->value < bound.cost) continue;
    bound.cost = proven->value;
    bound.proven_optimal = proven->optimal;
  }
  // On graphs small enough, the stages of the runs too (stage_bound.h), in the time
  // left: on Checkmate's vgg_unet at half its peak, they prove the plan budget mode
  // finds optimal, 0.6 points of the step above the covering's bound.
  const std::optional<StageBound> stages =
      BoundAddedCostByStages(graph, order, lifetimes, buffers, target_bytes, budget);
  if (stages && (stages->cost > bound.cost ||
                 (stages->cost == bound.cost && stages->proven_optimal))) {
    bound.cost = stages->cost;
    bound.proven_optimal = stages->proven_optimal;
  }
  bound.settled = covering_settled && (!stages || stages->proven_optimal);
  return bound;
}

}  // namespace olla
