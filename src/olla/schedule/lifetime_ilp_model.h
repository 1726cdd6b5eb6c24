// LifetimeIlpModel: the variables and constraints of OLLA's lifetime ILP for a graph
// (lifetime_ilp.h describes the model), built so that other formulations can extend it:
// the joint ILP (joint_ilp.h) adds addresses to it. Internal to the schedule layer.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "olla/analysis/reachability.h"
#include "olla/analysis/topology.h"
#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/schedule/lifetime_ilp.h"
#include "olla/solver/milp_model.h"

namespace olla {

struct Window {
  int32_t first = 0;
  int32_t last = -1;  // Inclusive; empty when last < first.
};

// The steps each op may take.
inline std::vector<Window> OpWindows(const Graph& graph,
                                     const LifetimeIlpOptions& options, int32_t& steps) {
  const int32_t n = graph.num_ops();
  std::vector<Window> windows(static_cast<size_t>(n));
  if (options.horizon == IlpHorizon::kPaper) {
    const Levels levels = ComputeLevels(graph);
    const int32_t length = levels.critical_path_length;
    steps = std::max(
        length,
        static_cast<int32_t>(std::ceil(options.paper_horizon_factor * length - 1e-9)));
    for (int32_t v = 0; v < n; ++v) {
      windows[static_cast<size_t>(v)] = {
          levels.asap[static_cast<size_t>(v)],
          levels.alap[static_cast<size_t>(v)] + steps - length};
    }
    return windows;
  }
  // One op per step: v has at least as many ops before it as ancestors, after it as
  // descendants.
  steps = n;
  const Reachability reach(graph);
  std::vector<int32_t> ancestors(static_cast<size_t>(n), 0);
  std::vector<int32_t> descendants(static_cast<size_t>(n), 0);
  for (int32_t a = 0; a < n; ++a) {
    for (int32_t b = a + 1; b < n; ++b) {
      if (reach.Reaches(OpId(a), OpId(b))) {
        ++descendants[static_cast<size_t>(a)];
        ++ancestors[static_cast<size_t>(b)];
      }
    }
  }
  for (int32_t v = 0; v < n; ++v) {
    windows[static_cast<size_t>(v)] = {ancestors[static_cast<size_t>(v)],
                                       n - 1 - descendants[static_cast<size_t>(v)]};
  }
  return windows;
}

class LifetimeIlpModel {
 public:
  LifetimeIlpModel(const Graph& graph, const LifetimeIlpOptions& options)
      : graph_(graph), options_(options) {
    windows_ = OpWindows(graph, options, steps_);
    // Every size in units of their greatest common divisor.
    for (const Buffer& b : graph.buffers()) {
      if (!b.persistent && b.size > 0) unit_ = std::gcd(unit_, b.size);
    }
    for (const Op& op : graph.ops()) {
      if (op.workspace > 0) unit_ = std::gcd(unit_, op.workspace);
    }
    if (unit_ == 0) unit_ = 1;
  }

  // The number of variables Build() creates: R and P in their windows, and z.
  int64_t CountVariables() const {
    int64_t count = 1;
    for (const Window& w : windows_) count += std::max(0, w.last - w.first + 1);
    for (int32_t i = 0; i < graph_.num_buffers(); ++i) {
      if (!Tracked(BufferId(i))) continue;
      const Window w = PreservableSteps(BufferId(i));
      count += std::max(0, w.last - w.first + 1);
    }
    return count;
  }

  // Builds the model; false when `budget`'s time ran out first (the model is then
  // incomplete and must not be solved). Seconds on a thousand ops: the clock is read
  // every 64 ops or buffers of each stage.
  bool Build(const Budget& budget = Budget()) {
    const int32_t n = graph_.num_ops();
    const auto out_of_time = [&](int32_t i) { return i % 64 == 0 && budget.OutOfTime(); };
    run_.resize(static_cast<size_t>(n));
    for (int32_t v = 0; v < n; ++v) {
      if (out_of_time(v)) return false;
      const Window w = windows_[static_cast<size_t>(v)];
      run_[static_cast<size_t>(v)] = model_.num_variables();
      for (int32_t t = w.first; t <= w.last; ++t)
        model_.AddBinary("R" + std::to_string(v) + "_" + std::to_string(t));
    }
    if (!BuildPreserved(out_of_time)) return false;
    z_ = model_.AddVariable("z",
                            std::ceil(static_cast<double>(options_.lower_bound_bytes) /
                                      static_cast<double>(unit_)),
                            kInfinity, 1.0, false);

    for (int32_t v = 0; v < n; ++v) {  // Each op runs once.
      if (out_of_time(v)) return false;
      std::vector<MilpTerm> terms;
      ForEachStep(v, [&](int32_t, int32_t var) { terms.push_back({var, 1.0}); });
      model_.AddConstraint("once" + std::to_string(v), terms, 1.0, 1.0);
    }
    if (options_.horizon == IlpHorizon::kOneOpPerStep) {
      std::vector<std::vector<MilpTerm>> per_step(static_cast<size_t>(steps_));
      for (int32_t v = 0; v < n; ++v) {
        ForEachStep(v, [&](int32_t t, int32_t var) {
          per_step[static_cast<size_t>(t)].push_back({var, 1.0});
        });
      }
      for (int32_t t = 0; t < steps_; ++t)
        model_.AddConstraint("step" + std::to_string(t), per_step[static_cast<size_t>(t)],
                             1, 1);
    }
    for (int32_t a = 0; a < n; ++a) {  // Predecessors run at earlier steps.
      if (out_of_time(a)) return false;
      for (OpId b : graph_.successors(OpId(a))) {
        std::vector<MilpTerm> terms;
        ForEachStep(b.value(), [&](int32_t t, int32_t var) {
          terms.push_back({var, 1.0 * t});
        });
        ForEachStep(a, [&](int32_t t, int32_t var) { terms.push_back({var, -1.0 * t}); });
        model_.AddConstraint("edge" + std::to_string(a) + "_" + std::to_string(b.value()),
                             terms, 1.0, kInfinity);
      }
    }
    if (!BuildLiveness(out_of_time)) return false;
    BuildMemory();
    return !budget.OutOfTime();
  }

  // The variable values of running op v at step_of[v] and keeping every buffer exactly
  // as long as needed: a MIP start. Empty when a step lies outside a window.
  std::vector<double> StartValues(const std::vector<int32_t>& step_of) const {
    std::vector<double> values(static_cast<size_t>(model_.num_variables()), 0.0);
    std::vector<double> memory(static_cast<size_t>(steps_), 0.0);
    const double unit = static_cast<double>(unit_);
    for (int32_t v = 0; v < graph_.num_ops(); ++v) {
      const int32_t t = step_of[static_cast<size_t>(v)];
      const int32_t var = RunVar(v, t);
      if (var < 0) return {};
      values[static_cast<size_t>(var)] = 1.0;
      int64_t bytes = graph_.op(OpId(v)).workspace;
      for (BufferId b : graph_.op(OpId(v)).allocates) {
        if (Tracked(b)) bytes += graph_.buffer(b).size;
      }
      memory[static_cast<size_t>(t)] += static_cast<double>(bytes) / unit;
    }
    for (int32_t i = 0; i < graph_.num_buffers(); ++i) {
      const BufferId b(i);
      if (!Tracked(b)) continue;
      const OpId producer = graph_.producer(b);
      const int32_t created = producer.valid() ? step_of[producer.index()] : -1;
      int32_t last = graph_.buffer(b).output ? steps_ - 1 : std::max(created, 0);
      for (OpId user : graph_.users(b)) {
        if (user != producer) last = std::max(last, step_of[user.index()]);
      }
      for (int32_t t = created + 1; t <= last; ++t) {
        const int32_t var = PreservedVar(i, t);
        if (var < 0) return {};
        values[static_cast<size_t>(var)] = 1.0;
        memory[static_cast<size_t>(t)] +=
            static_cast<double>(graph_.buffer(b).size) / unit;
      }
    }
    values[static_cast<size_t>(z_)] =
        std::max(model_.variables()[static_cast<size_t>(z_)].lower,
                 *std::max_element(memory.begin(), memory.end()));
    return values;
  }

  const MilpModel& model() const { return model_; }
  // For formulations that extend this one.
  MilpModel& mutable_model() { return model_; }

  // The order the R values of a solution describe: by step, ties in eager order.
  Order Decode(const std::vector<double>& values) const {
    std::vector<std::pair<int32_t, int32_t>> keyed;
    for (int32_t v = 0; v < graph_.num_ops(); ++v) {
      int32_t step = window(v).first;
      double most = -1.0;
      ForEachStep(v, [&](int32_t t, int32_t var) {
        if (values[static_cast<size_t>(var)] > most) {
          most = values[static_cast<size_t>(var)];
          step = t;
        }
      });
      keyed.push_back({step, v});
    }
    std::sort(keyed.begin(), keyed.end());
    Order order;
    for (const auto& [step, v] : keyed) order.ops.push_back(OpId(v));
    return order;
  }

  // The steps at which buffer b may be preserved: after its producer's earliest step
  // (from step 0 for graph inputs) up to its last user's latest (the end for outputs).
  Window PreservableSteps(BufferId b) const {
    const OpId producer = graph_.producer(b);
    Window w;
    w.first = producer.valid() ? window(producer.value()).first + 1 : 0;
    w.last = producer.valid() ? -1 : 0;  // Graph inputs are live at step 0.
    if (graph_.buffer(b).output) w.last = steps_ - 1;
    for (OpId user : graph_.users(b)) {
      if (user != producer) w.last = std::max(w.last, window(user.value()).last);
    }
    return w;
  }

  // Buffers the model keeps track of: non-persistent ones with bytes.
  bool Tracked(BufferId b) const {
    return !graph_.buffer(b).persistent && graph_.buffer(b).size > 0;
  }

  int32_t steps() const { return steps_; }
  int64_t unit() const { return unit_; }
  int32_t z() const { return z_; }

  // -1 when op v cannot run at step t.
  int32_t RunVar(int32_t v, int32_t t) const {
    const Window w = windows_[static_cast<size_t>(v)];
    return t < w.first || t > w.last ? -1 : run_[static_cast<size_t>(v)] + t - w.first;
  }
  int32_t PreservedVar(int32_t b, int32_t t) const {
    const Window w = preserved_window_[static_cast<size_t>(b)];
    return t < w.first || t > w.last ? -1
                                     : preserved_[static_cast<size_t>(b)] + t - w.first;
  }
  const Window& preserved_window(int32_t b) const {
    return preserved_window_[static_cast<size_t>(b)];
  }
  const Window& window(int32_t v) const { return windows_[static_cast<size_t>(v)]; }

 private:
  template <typename F>
  void ForEachStep(int32_t v, F f) const {
    const Window w = windows_[static_cast<size_t>(v)];
    for (int32_t t = w.first; t <= w.last; ++t)
      f(t, run_[static_cast<size_t>(v)] + t - w.first);
  }

  template <typename OutOfTime>
  bool BuildPreserved(const OutOfTime& out_of_time) {
    const int32_t buffers = graph_.num_buffers();
    preserved_.assign(static_cast<size_t>(buffers), -1);
    preserved_window_.assign(static_cast<size_t>(buffers), Window{});
    for (int32_t i = 0; i < buffers; ++i) {
      if (out_of_time(i)) return false;
      const BufferId b(i);
      if (!Tracked(b)) continue;
      const Window w = PreservableSteps(b);
      preserved_window_[static_cast<size_t>(i)] = w;
      preserved_[static_cast<size_t>(i)] = model_.num_variables();
      for (int32_t t = w.first; t <= w.last; ++t)
        model_.AddBinary("P" + std::to_string(i) + "_" + std::to_string(t));
    }
    return true;
  }

  template <typename OutOfTime>
  bool BuildLiveness(const OutOfTime& out_of_time) {
    for (int32_t i = 0; i < graph_.num_buffers(); ++i) {
      if (out_of_time(i)) return false;
      const BufferId b(i);
      if (!Tracked(b)) continue;
      const OpId producer = graph_.producer(b);
      const Window w = preserved_window(i);
      const bool output = graph_.buffer(b).output;
      const std::string name = std::to_string(i) + "_";
      for (int32_t t = w.first; t <= w.last; ++t) {
        const int32_t p = PreservedVar(i, t);
        const int32_t before = PreservedVar(i, t - 1);
        const int32_t created_before =
            producer.valid() ? RunVar(producer.value(), t - 1) : -1;
        // Preserved only after being created or preserved.
        std::vector<MilpTerm> continuity = {{p, 1.0}};
        if (before >= 0) continuity.push_back({before, -1.0});
        if (created_before >= 0) continuity.push_back({created_before, -1.0});
        if (producer.valid() || t > 0)
          model_.AddConstraint("keep" + name + std::to_string(t), continuity, -kInfinity,
                               0.0);
        if (!producer.valid() && t == 0)
          model_.AddConstraint("in" + name + "0", {{p, 1}}, 1, 1);
        // Created and preserved exclude each other.
        const int32_t created = producer.valid() ? RunVar(producer.value(), t) : -1;
        if (created >= 0)
          model_.AddConstraint("cp" + name + std::to_string(t), {{p, 1}, {created, 1}},
                               -kInfinity, 1);
        if (output) {  // Outputs stay once created.
          if (before >= 0)
            model_.AddConstraint("out" + name + std::to_string(t), {{p, 1}, {before, -1}},
                                 0, kInfinity);
          if (created_before >= 0)
            model_.AddConstraint("outc" + name + std::to_string(t),
                                 {{p, 1}, {created_before, -1}}, 0, kInfinity);
          if (!producer.valid() && t > 0)
            model_.AddConstraint("in" + name + std::to_string(t), {{p, 1}}, 1, 1);
        }
      }
      // Every user finds the buffer preserved when it runs.
      for (OpId user : graph_.users(b)) {
        if (user == producer) continue;
        ForEachStep(user.value(), [&](int32_t t, int32_t var) {
          std::vector<MilpTerm> terms = {{var, 1.0}};
          const int32_t p = PreservedVar(i, t);
          if (p >= 0) terms.push_back({p, -1.0});
          model_.AddConstraint(
              "use" + name + std::to_string(user.value()) + "_" + std::to_string(t),
              terms, -kInfinity, 0.0);
        });
      }
    }
    return true;
  }

  void BuildMemory() {
    std::vector<std::vector<MilpTerm>> per_step(static_cast<size_t>(steps_));
    const double unit = static_cast<double>(unit_);
    for (int32_t v = 0; v < graph_.num_ops(); ++v) {
      int64_t bytes = graph_.op(OpId(v)).workspace;
      for (BufferId b : graph_.op(OpId(v)).allocates) {
        if (Tracked(b)) bytes += graph_.buffer(b).size;
      }
      if (bytes == 0) continue;
      ForEachStep(v, [&](int32_t t, int32_t var) {
        per_step[static_cast<size_t>(t)].push_back(
            {var, static_cast<double>(bytes) / unit});
      });
    }
    for (int32_t i = 0; i < graph_.num_buffers(); ++i) {
      if (!Tracked(BufferId(i))) continue;
      const Window w = preserved_window(i);
      const double size = static_cast<double>(graph_.buffer(BufferId(i)).size) / unit;
      for (int32_t t = w.first; t <= w.last; ++t)
        per_step[static_cast<size_t>(t)].push_back({PreservedVar(i, t), size});
    }
    for (int32_t t = 0; t < steps_; ++t) {
      std::vector<MilpTerm>& terms = per_step[static_cast<size_t>(t)];
      terms.push_back({z_, -1.0});
      model_.AddConstraint("mem" + std::to_string(t), terms, -kInfinity, 0.0);
    }
  }

  const Graph& graph_;
  const LifetimeIlpOptions& options_;
  std::vector<Window> windows_;
  int32_t steps_ = 0;
  int64_t unit_ = 0;
  MilpModel model_;
  std::vector<int32_t> run_;
  std::vector<int32_t> preserved_;
  std::vector<Window> preserved_window_;
  int32_t z_ = -1;
};

}  // namespace olla
