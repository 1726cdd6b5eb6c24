#include "olla/remat/stage_bound.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "olla/remat/cost.h"
#include "olla/solver/milp_solver.h"

namespace olla {

namespace {

// What the bound is lowered by, over the dearest op's cost: CBC's tolerances
// (added_cost_bound.cc). On VGG19 at 80 % of its peak it called 2e-5 above the cheapest
// plan optimal.
constexpr double kSolverTolerance = 1e-4;
// The most entries a model may have, counted before it is built: Checkmate's vgg_unet
// (71 ops) has 146,446 and CBC proves its optimum at half the peak in a minute;
// MobileNet (185 ops) would have 2.3 million, whose root LP alone outlasts a budget
// mode run of 30 s, and ResNet50 (353 ops) 15 million, 1.5 s to build.
constexpr int64_t kMostEntries = 400'000;

class StageModel {
 public:
  StageModel(const Graph& graph, const Order& order, const Lifetimes& lifetimes,
             const RecomputableBuffers& buffers, int64_t target_bytes)
      : graph_(graph),
        lifetimes_(lifetimes),
        steps_(order.size()),
        target_(static_cast<double>(target_bytes)),
        order_ops_(order.ops),
        runs_from_(static_cast<size_t>(graph.num_ops()), 0),
        runs_to_(static_cast<size_t>(graph.num_ops()), -1),
        live_from_(static_cast<size_t>(graph.num_buffers()), 0),
        live_to_(static_cast<size_t>(graph.num_buffers()), -1) {
    Horizons(order, buffers);
  }

  int64_t dearest() const { return dearest_; }

  // About the entries Build makes, from the stages each op may run in and each buffer
  // may be live when they begin: every run's row holds those live when its stage begins.
  int64_t Entries() const {
    std::vector<int64_t> runs(static_cast<size_t>(steps_) + 2, 0);
    std::vector<int64_t> live(static_cast<size_t>(steps_) + 2, 0);
    auto count = [](std::vector<int64_t>& at, int32_t from, int32_t to) {
      if (from > to) return;
      at[static_cast<size_t>(from)] += 1;
      at[static_cast<size_t>(to) + 1] -= 1;
    };
    for (size_t o = 0; o < runs_from_.size(); ++o)
      count(runs, runs_from_[o], runs_to_[o]);
    for (size_t b = 0; b < live_from_.size(); ++b)
      count(live, live_from_[b], live_to_[b]);
    int64_t entries = 0, runs_at = 0, live_at = 0;
    for (size_t p = 0; p <= static_cast<size_t>(steps_); ++p) {
      runs_at += runs[p];
      live_at += live[p];
      entries += runs_at * (live_at + 4) + 3 * live_at;
    }
    return entries;
  }

  // Adds the variables and constraints to `model`; its entries (for FitsInTime).
  int64_t Build(MilpModel& model) {
    for (int32_t o = 0; o < graph_.num_ops(); ++o) {
      if (runs_from_[o] <= runs_to_[o])
        dearest_ = std::max(dearest_, OpCost(graph_, OpId(o)));
    }
    Variables(model);
    Reads(model);
    Steps(model);
    Runs(model);
    return entries_;
  }

 private:
  // The stages each op may run again in, and the stages each buffer may be live when
  // they begin: a buffer is read up to its last reader's step, or later by a run of a
  // reader that makes a buffer read later still (computed from the order's end).
  void Horizons(const Order& order, const RecomputableBuffers& buffers) {
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      const Buffer& buffer = graph_.buffer(BufferId(b));
      if (buffer.persistent) continue;
      const Lifetime& life = lifetimes_.of[static_cast<size_t>(b)];
      const OpId producer = graph_.producer(BufferId(b));
      // Made before the first stage begins (an input of the step) or at its step.
      live_from_[b] = producer.valid() ? life.start + 1 : 0;
      // An output of the step is live when the stage after the last begins.
      live_to_[b] = buffer.output ? steps_ : life.end - 1;
    }
    for (auto step = static_cast<int32_t>(order.size()) - 1; step >= 0; --step) {
      const OpId op = order.ops[static_cast<size_t>(step)];
      int32_t last = -1;
      for (BufferId b : graph_.op(op).allocates) {
        if (buffers.copyable[b.index()]) last = std::max(last, live_to_[b.index()]);
      }
      if (last <= step) continue;
      runs_from_[op.index()] = step + 1;
      runs_to_[op.index()] = std::min(last, steps_ - 1);
      for (BufferId b : graph_.op(op).uses) {
        if (!graph_.buffer(b).persistent)
          live_to_[b.index()] = std::max(live_to_[b.index()], runs_to_[op.index()]);
      }
    }
  }

  void Variables(MilpModel& model) {
    for (int32_t o = 0; o < graph_.num_ops(); ++o) {
      const double cost =
          static_cast<double>(OpCost(graph_, OpId(o))) / static_cast<double>(dearest_);
      for (int32_t p = runs_from_[o]; p <= runs_to_[o]; ++p)
        run_[{p, o}] =
            model.AddBinary("r" + std::to_string(o) + "_" + std::to_string(p), cost);
    }
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      for (int32_t p = live_from_[b]; p <= live_to_[b]; ++p) {
        // An input of the step is live when the first stage begins.
        const double lower = p == 0 ? 1.0 : 0.0;
        live_[{p, b}] = model.AddVariable(
            "s" + std::to_string(b) + "_" + std::to_string(p), lower, 1.0, 0.0, true);
      }
    }
    entries_ += model.num_variables();
  }

  // A buffer live when a stage begins was live when the one before began or was made
  // in it; a read finds its buffer live when its stage began or made in the stage.
  void Reads(MilpModel& model) {
    for (const auto& [key, variable] : live_) {
      const auto [p, b] = key;
      if (p == live_from_[b]) continue;
      std::vector<MilpTerm> terms = {{Live(p - 1, b), 1.0}, {variable, -1.0}};
      AddRun(terms, p - 1, graph_.producer(BufferId(b)), 1.0);
      Add(model, std::move(terms), 0.0);
    }
    for (int32_t p = 0; p < steps_; ++p) {
      const OpId op = OpAt(p);
      for (BufferId b : graph_.op(op).uses) {
        if (graph_.buffer(b).persistent) continue;
        std::vector<MilpTerm> terms = {{Live(p, b.value()), 1.0}};
        AddRun(terms, p, graph_.producer(b), 1.0);
        Add(model, std::move(terms), 1.0);
      }
    }
    for (const auto& [key, run] : run_) {
      const auto [p, o] = key;
      for (BufferId b : graph_.op(OpId(o)).uses) {
        if (graph_.buffer(b).persistent) continue;
        std::vector<MilpTerm> terms = {{Live(p, b.value()), 1.0}, {run, -1.0}};
        AddRun(terms, p, graph_.producer(b), 1.0);
        Add(model, std::move(terms), 0.0);
      }
    }
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      // A parameter the step updates is an output too, but never in the arena.
      const Buffer& buffer = graph_.buffer(BufferId(b));
      if (buffer.output && !buffer.persistent) Add(model, {{Live(steps_, b), 1.0}}, 1.0);
    }
  }

  // At each step: its op's inputs, outputs and workspace, and what is live when the
  // next stage begins.
  void Steps(MilpModel& model) {
    for (int32_t p = 0; p < steps_; ++p) {
      const OpId op = OpAt(p);
      const std::vector<BufferId> touched = Touched(op);
      std::vector<MilpTerm> terms;
      for (auto it = live_.lower_bound({p + 1, 0});
           it != live_.end() && it->first.first == p + 1; ++it) {
        if (!Contains(touched, BufferId(it->first.second)))
          terms.push_back({it->second, Share(BufferId(it->first.second))});
      }
      Add(model, std::move(terms), -kInfinity, 1.0 - Share(touched, op));
    }
  }

  // At each run: its op's inputs, outputs and workspace, and what the stage carries
  // through: a buffer live when it begins, not made again in it, and read at its step
  // or live when the next stage begins.
  void Runs(MilpModel& model) {
    std::map<std::pair<int32_t, int32_t>, int32_t> carried;  // (stage, buffer)
    auto carried_through = [&](int32_t p, int32_t b, bool read_at_step) {
      auto [it, added] = carried.try_emplace({p, b}, -1);
      if (added) {
        it->second = model.AddVariable("c" + std::to_string(b) + "_" + std::to_string(p),
                                       0.0, 1.0, 0.0, false);
        ++entries_;
        std::vector<MilpTerm> terms = {{it->second, 1.0}, {Live(p, b), -1.0}};
        if (!read_at_step) terms.push_back({Live(p + 1, b), -1.0});
        AddRun(terms, p, graph_.producer(BufferId(b)), 1.0);
        Add(model, std::move(terms), read_at_step ? 0.0 : -1.0);
      }
      return it->second;
    };
    for (const auto& [key, run] : run_) {
      const auto [p, o] = key;
      const std::vector<BufferId> touched = Touched(OpId(o));
      const std::vector<BufferId>& read_at_step = graph_.op(OpAt(p)).uses;
      std::vector<MilpTerm> terms = {{run, Share(touched, OpId(o))}};
      for (auto it = live_.lower_bound({p, 0}); it != live_.end() && it->first.first == p;
           ++it) {
        const BufferId b(it->first.second);
        const bool read = Contains(read_at_step, b);
        if (Contains(touched, b) || (!read && !live_.contains({p + 1, b.value()})))
          continue;
        terms.push_back({carried_through(p, b.value(), read), Share(b)});
      }
      Add(model, std::move(terms), -kInfinity, 1.0);
    }
  }

  OpId OpAt(int32_t step) const { return order_ops_[static_cast<size_t>(step)]; }

  int32_t Live(int32_t p, int32_t b) const { return live_.at({p, b}); }

  // Adds `coefficient` times the run of `producer` in stage `p` to `terms`, if it may.
  void AddRun(std::vector<MilpTerm>& terms, int32_t p, OpId producer,
              double coefficient) const {
    if (!producer.valid()) return;
    const auto it = run_.find({p, producer.value()});
    if (it != run_.end()) terms.push_back({it->second, coefficient});
  }

  void Add(MilpModel& model, std::vector<MilpTerm> terms, double lower,
           double upper = kInfinity) {
    entries_ += static_cast<int64_t>(terms.size());
    model.AddConstraint("k" + std::to_string(entries_), std::move(terms), lower, upper);
  }

  // The non-persistent buffers `op` reads and makes, once each.
  std::vector<BufferId> Touched(OpId op) const {
    std::vector<BufferId> touched;
    for (const auto* list : {&graph_.op(op).uses, &graph_.op(op).allocates}) {
      for (BufferId b : *list) {
        if (!graph_.buffer(b).persistent && !Contains(touched, b)) touched.push_back(b);
      }
    }
    return touched;
  }

  static bool Contains(const std::vector<BufferId>& list, BufferId b) {
    return std::find(list.begin(), list.end(), b) != list.end();
  }

  // Bytes as a share of the target: the memory rows' coefficients at most about 1, as
  // CBC's tolerances expect (in bytes, CBC called a plan of VGG19 at 80 % of its peak
  // 2.81 % of the step when a solution of 2.76 % existed).
  double Share(BufferId b) const {
    return static_cast<double>(graph_.buffer(b).size) / target_;
  }
  double Share(const std::vector<BufferId>& touched, OpId op) const {
    double bytes = static_cast<double>(graph_.op(op).workspace) / target_;
    for (BufferId b : touched) bytes += Share(b);
    return bytes;
  }

  const Graph& graph_;
  const Lifetimes& lifetimes_;
  int32_t steps_;
  double target_;
  std::vector<OpId> order_ops_;
  std::vector<int32_t> runs_from_, runs_to_;  // By op: the stages it may run again in.
  std::vector<int32_t> live_from_, live_to_;  // By buffer: live when those begin.
  std::map<std::pair<int32_t, int32_t>, int32_t> run_;   // (stage, op): variable.
  std::map<std::pair<int32_t, int32_t>, int32_t> live_;  // (stage, buffer): variable.
  int64_t dearest_ = 1;
  int64_t entries_ = 0;
};

}  // namespace

std::optional<StageBound> BoundAddedCostByStages(const Graph& graph, const Order& order,
                                                 const Lifetimes& lifetimes,
                                                 const RecomputableBuffers& buffers,
                                                 int64_t target_bytes,
                                                 const Budget& budget) {
  StageModel stages(graph, order, lifetimes, buffers, target_bytes);
  if (stages.Entries() > kMostEntries) return std::nullopt;
  MilpModel model;
  const int64_t entries = stages.Build(model);
  if (budget.Exhausted() || !FitsInTime(entries, budget)) return StageBound{};
  const std::optional<ProvenLowerBound> proven = ProveLowerBound(
      model, budget, stages.dearest(), kSolverTolerance, "the stage bound's ILP");
  if (!proven) return StageBound{};
  return StageBound{proven->value, proven->optimal};
}

}  // namespace olla
