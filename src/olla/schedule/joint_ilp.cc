#include "olla/schedule/joint_ilp.h"

#include <algorithm>
#include <cmath>

#include "olla/analysis/topology.h"
#include "olla/core/bytes.h"
#include "olla/core/check.h"
#include "olla/graph/rounded.h"
#include "olla/schedule/lifetime_ilp_model.h"

namespace olla {
namespace {

// Something with an address: a buffer, or the workspace of an op.
struct Item {
  BufferId buffer;               // Invalid for a workspace.
  OpId op;                       // The workspace's op.
  int64_t size = 0;              // In units.
  int32_t first = 0, last = -1;  // The steps at which it may be live.
  int32_t address = -1;          // Its variable.
};

class JointModel {
 public:
  // Reads `base`'s windows; Build() needs `base` built.
  JointModel(const Graph& graph, const JointIlpOptions& options, LifetimeIlpModel& base)
      : graph_(graph), options_(options), base_(base), model_(base.mutable_model()) {
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      const BufferId id(b);
      if (!base_.Tracked(id)) continue;
      Item item{id, OpId(), graph_.buffer(id).size / base_.unit()};
      const OpId producer = graph_.producer(id);
      item.first = producer.valid() ? base_.window(producer.value()).first : 0;
      item.last = std::max(base_.PreservableSteps(id).last,
                           producer.valid() ? base_.window(producer.value()).last : 0);
      items_.push_back(item);
    }
    for (int32_t v = 0; v < graph_.num_ops(); ++v) {
      const int64_t workspace = graph_.op(OpId(v)).workspace;
      if (workspace == 0) continue;
      items_.push_back({BufferId(), OpId(v), workspace / base_.unit(),
                        base_.window(v).first, base_.window(v).last});
    }
  }

  // Adds the addresses and the pairs; the arena top is the lifetime model's z.
  void Build(int64_t upper_units) {
    upper_ = static_cast<double>(upper_units);
    const int32_t z = base_.z();
    model_.mutable_variable(z).upper = upper_;
    for (Item& item : items_) {
      const double size = static_cast<double>(item.size);
      item.address =
          model_.AddVariable("o" + Name(item), 0, std::max(0.0, upper_ - size), 0, true);
      model_.AddConstraint("top" + Name(item), {{z, 1}, {item.address, -1}}, size,
                           kInfinity);
    }
    for (size_t i = 0; i < items_.size(); ++i) {
      for (size_t j = i + 1; j < items_.size(); ++j) AddPair(i, j);
    }
  }

  // Constraint rows Build() would add, without adding them.
  int64_t CountRows() const {
    int64_t rows = 0;
    const std::vector<Item>& items = items_;
    for (size_t i = 0; i < items.size(); ++i) {
      for (size_t j = i + 1; j < items.size(); ++j) {
        const int32_t first = std::max(items[i].first, items[j].first);
        const int32_t last = std::min(items[i].last, items[j].last);
        if (first <= last) rows += 2 + (last - first + 1);
      }
    }
    return rows + static_cast<int64_t>(items.size());
  }

  // Fills the addresses, the pairs and z of a start from offsets in bytes.
  void StartValues(std::vector<double>& values) const {
    const double unit = static_cast<double>(base_.unit());
    double top = values[static_cast<size_t>(base_.z())];
    for (const Item& item : items_) {
      const std::optional<int64_t> offset = StartOffset(item);
      const double units = static_cast<double>(offset.value_or(0)) / unit;
      values[static_cast<size_t>(item.address)] = units;
      top = std::max(top, units + static_cast<double>(item.size));
    }
    values[static_cast<size_t>(base_.z())] = top;
    for (const Pair& pair : pairs_) {
      const Item& a = items_[pair.a];
      const Item& b = items_[pair.b];
      const double oa = values[static_cast<size_t>(a.address)];
      const double ob = values[static_cast<size_t>(b.address)];
      values[static_cast<size_t>(pair.a_below)] =
          oa + static_cast<double>(a.size) <= ob ? 1.0 : 0.0;
      values[static_cast<size_t>(pair.b_below)] =
          ob + static_cast<double>(b.size) <= oa &&
                  values[static_cast<size_t>(pair.a_below)] == 0
              ? 1.0
              : 0.0;
    }
  }

  // The addresses of a solution, in bytes.
  void Decode(const std::vector<double>& values, Plan& plan) const {
    plan.offsets.assign(static_cast<size_t>(graph_.num_buffers()), std::nullopt);
    plan.workspace_offsets.assign(static_cast<size_t>(graph_.num_ops()), std::nullopt);
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      if (!graph_.buffer(BufferId(b)).persistent)
        plan.offsets[static_cast<size_t>(b)] = 0;
    }
    for (const Item& item : items_) {
      const int64_t offset =
          std::llround(values[static_cast<size_t>(item.address)]) * base_.unit();
      if (item.buffer.valid()) {
        plan.offsets[item.buffer.index()] = offset;
      } else {
        plan.workspace_offsets[item.op.index()] = offset;
      }
    }
  }

 private:
  struct Pair {
    size_t a, b;
    int32_t a_below, b_below;
  };

  std::string Name(const Item& item) const {
    return item.buffer.valid() ? "b" + std::to_string(item.buffer.value())
                               : "w" + std::to_string(item.op.value());
  }

  std::optional<int64_t> StartOffset(const Item& item) const {
    const Plan& start = *options_.start;
    if (item.buffer.valid()) return start.offsets[item.buffer.index()];
    return start.places_workspace() ? start.workspace_offsets[item.op.index()]
                                    : std::nullopt;
  }

  // The terms of "item is live at step t" (created or preserved; running, for a
  // workspace).
  std::vector<MilpTerm> LiveTerms(const Item& item, int32_t t) const {
    std::vector<MilpTerm> terms;
    if (!item.buffer.valid()) {
      const int32_t run = base_.RunVar(item.op.value(), t);
      if (run >= 0) terms.push_back({run, 1.0});
      return terms;
    }
    const OpId producer = graph_.producer(item.buffer);
    if (producer.valid()) {
      const int32_t created = base_.RunVar(producer.value(), t);
      if (created >= 0) terms.push_back({created, 1.0});
    }
    const int32_t kept = base_.PreservedVar(item.buffer.value(), t);
    if (kept >= 0) terms.push_back({kept, 1.0});
    return terms;
  }

  void AddPair(size_t i, size_t j) {
    const Item& a = items_[i];
    const Item& b = items_[j];
    const int32_t first = std::max(a.first, b.first);
    const int32_t last = std::min(a.last, b.last);
    if (first > last) return;  // Never live together.
    const std::string name = Name(a) + "_" + Name(b);
    Pair pair{i, j, model_.AddBinary("y" + name),
              model_.AddBinary("y" + Name(b) + "_" + Name(a))};
    // a below b: o_a + s_a <= o_b, unless the binary is off (big-M = the upper bound).
    model_.AddConstraint("below" + name,
                         {{a.address, 1}, {b.address, -1}, {pair.a_below, upper_}},
                         -kInfinity, upper_ - static_cast<double>(a.size));
    model_.AddConstraint("above" + name,
                         {{b.address, 1}, {a.address, -1}, {pair.b_below, upper_}},
                         -kInfinity, upper_ - static_cast<double>(b.size));
    for (int32_t t = first; t <= last; ++t) {
      std::vector<MilpTerm> terms = LiveTerms(a, t);
      const std::vector<MilpTerm> more = LiveTerms(b, t);
      if (terms.empty() || more.empty()) continue;
      // Two outputs of one op (or an op's output and its workspace) share its run
      // variable: one term with the summed coefficient.
      for (const MilpTerm& term : more) {
        auto same = std::find_if(terms.begin(), terms.end(), [&](const MilpTerm& other) {
          return other.variable == term.variable;
        });
        if (same == terms.end()) {
          terms.push_back(term);
        } else {
          same->coefficient += term.coefficient;
        }
      }
      terms.push_back({pair.a_below, -1});
      terms.push_back({pair.b_below, -1});
      model_.AddConstraint("apart" + name + "_" + std::to_string(t), terms, -kInfinity,
                           1);
    }
    pairs_.push_back(pair);
  }

  const Graph& graph_;
  const JointIlpOptions& options_;
  LifetimeIlpModel& base_;
  MilpModel& model_;
  double upper_ = 0;
  std::vector<Item> items_;
  std::vector<Pair> pairs_;
};

}  // namespace

JointIlpResult SolveJointIlp(const Graph& input, const JointIlpOptions& options,
                             const Budget& budget) {
  OLLA_CHECK(options.alignment > 0, "the joint ILP needs a positive alignment");
  JointIlpResult result;
  const std::optional<Graph> rounded = RoundSizes(input, options.alignment);
  if (!rounded) {
    result.too_large = true;
    return result;
  }
  const Graph& graph = *rounded;
  LifetimeIlpOptions lifetime;
  lifetime.horizon = IlpHorizon::kOneOpPerStep;
  LifetimeIlpModel base(graph, lifetime);
  JointModel joint(graph, options, base);
  if (joint.CountRows() + base.CountVariables() > options.max_constraints) {
    result.too_large = true;
    return result;
  }
  if (!base.Build(budget) || budget.Exhausted()) return result;
  // The upper bound: the start's arena, else everything stacked.
  int64_t upper = 0;
  for (const Buffer& b : graph.buffers()) upper += b.persistent ? 0 : b.size;
  for (const Op& op : graph.ops()) upper += op.workspace;
  std::optional<std::vector<int32_t>> start_steps;
  if (options.start) {
    start_steps = StepsOf(graph, options.start->order);
    upper = std::min(upper, options.start->arena_bytes);
  }
  const int64_t unit = base.unit();
  joint.Build((upper + unit - 1) / unit);
  MilpModel& model = base.mutable_model();
  model.mutable_variable(base.z()).lower =
      std::max(model.variables()[static_cast<size_t>(base.z())].lower,
               std::ceil(static_cast<double>(options.lower_bound_bytes) /
                         static_cast<double>(unit)));
  result.variables = model.num_variables();
  result.constraints = static_cast<int64_t>(model.constraints().size());
  if (!FitsInTime(ModelEntries(model), budget)) {
    result.too_large = true;
    return result;
  }

  MilpOptions milp;
  LimitByBudget(budget, milp);
  milp.threads = options.threads;
  if (start_steps) {
    std::vector<double> start = base.StartValues(*start_steps);
    if (!start.empty()) {
      joint.StartValues(start);
      milp.start = std::move(start);
    }
  }
  StatusOr<MilpResult> solved = options.solver()->Solve(model, milp);
  OLLA_CHECK(solved.ok(), "the joint ILP is malformed: " + solved.status().message());
  budget.Spend(solved->nodes);
  result.solver_failure = solved->failure;
  if (solved->has_bound()) {
    result.bound_bytes =
        static_cast<int64_t>(std::ceil(solved->best_bound - 1e-6)) * unit;
  }
  if (!solved->has_solution()) return result;
  result.solved = true;
  result.optimal = solved->conclusion == MilpConclusion::kOptimal;
  result.plan.order = base.Decode(solved->values);
  joint.Decode(solved->values, result.plan);
  result.plan.arena_bytes = std::llround(solved->objective) * unit;
  result.plan.alignment = options.alignment;
  if (result.optimal) result.bound_bytes = result.plan.arena_bytes;
  return result;
}

}  // namespace olla
