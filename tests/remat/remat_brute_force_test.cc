// The search and the bound on its added compute against brute force: on small training
// steps with skip connections (an activation read again by two distant backward ops),
// one with a gradient read again at a join, ones whose backward ops leave some
// activations unread (they die in the forward pass), and ones whose backward ops read
// their forward ops' outputs too, with measured costs, every plan of the search's action
// space (each op kept, run again once for all its late readers, once for each, or twice,
// parted at a cut) is built, ordered as ExpandGraph orders it, checked and measured;
// wherever one of them reaches a target, the search reaches it too, adding no more
// compute than the cheapest, and the bound is never above either.
#include <algorithm>
#include <iostream>
#include <map>
#include <queue>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/plan/expand.h"
#include "olla/plan/recompute_rules.h"
#include "olla/remat/added_cost_bound.h"
#include "olla/remat/cost.h"
#include "olla/remat/order_floor.h"
#include "olla/remat/order_floor_proof.h"
#include "olla/remat/recomputable.h"
#include "olla/remat/recompute_floor.h"
#include "olla/remat/recompute_floor_proof.h"
#include "olla/remat/remat_search.h"
#include "olla/remat/stage_bound.h"
#include "olla/simulation/plan_checker.h"

#include "graph_builder.h"
#include "two_readers_at_once.h"

namespace olla {
namespace {

// `layers` forward ops, layer i reading activation i and, at random, activation i - 2
// too (a skip); a loss; backward ops in reverse, layer i's reading the gradient after it
// and every activation its forward op read. Sizes at random. With `residual_gradient`,
// the loss's gradient (as large as the largest activation) is read again by a last
// backward op, with the input's gradient (a residual join in the backward pass). With
// `dead_inputs`, a backward op reads each activation its forward op read only at
// random: the others die in the forward pass, and a run that reads one after that
// needs it held or made again (a chain). With `reads_outputs`, a backward op reads its
// forward op's output too (as a convolution's does in Checkmate's graphs): an
// activation is read by two backward ops in a row, and a run that makes one again for
// the first reads the activation the second reads.
Graph SkipChain(int layers, uint64_t seed, bool residual_gradient = false,
                bool dead_inputs = false, bool reads_outputs = false) {
  std::mt19937_64 rng(seed);
  testing::GraphBuilder b;
  std::vector<BufferId> activations = {b.Buffer(10, "input")};
  std::vector<std::vector<BufferId>> read(static_cast<size_t>(layers));
  for (int i = 0; i < layers; ++i) {
    std::vector<BufferId>& inputs = read[static_cast<size_t>(i)];
    inputs.push_back(activations.back());
    if (i >= 2 && rng() % 2) inputs.push_back(activations[activations.size() - 3]);
    const BufferId out =
        b.Buffer(10 * static_cast<int64_t>(1 + rng() % 10), "a" + std::to_string(i + 1));
    b.Op({out}, {});
    b.ops().back().uses = inputs;
    b.ops().back().type = "aten::mul.Tensor";
    activations.push_back(out);
  }
  const BufferId loss_grad = b.Buffer(residual_gradient ? 100 : 10, "loss_grad");
  BufferId grad = loss_grad;
  b.Op({grad}, {activations.back()});
  b.ops().back().phase = Phase::kBackward;
  for (int i = layers - 1; i >= 0; --i) {
    const BufferId next = i == 0 && !residual_gradient
                              ? b.Output(10, "input_grad")
                              : b.Buffer(10 * static_cast<int64_t>(1 + rng() % 10));
    b.Op({next}, {});
    for (BufferId input : read[static_cast<size_t>(i)]) {
      if (!dead_inputs || rng() % 2) b.ops().back().uses.push_back(input);
    }
    if (reads_outputs)
      b.ops().back().uses.push_back(activations[static_cast<size_t>(i + 1)]);
    b.ops().back().uses.push_back(grad);
    b.ops().back().phase = Phase::kBackward;
    b.ops().back().type = "aten::mul.Tensor";
    grad = next;
  }
  if (residual_gradient) {
    b.Op({b.Output(10, "joined_grad")}, {loss_grad, grad});
    b.ops().back().phase = Phase::kBackward;
    b.ops().back().type = "aten::add.Tensor";
  }
  if (reads_outputs) {
    for (auto& op : b.ops()) op.cost = 1e-6 * static_cast<double>(1 + rng() % 100);
  }
  return b.Build();
}

// The readers a run of `op` serves, from the definition (recomputable.h): a forward
// op's outputs' backward readers; another op's outputs' readers past the widest gap
// between two of them.
std::vector<OpId> LateReaders(const Graph& graph, OpId op) {
  std::vector<OpId> late;
  for (BufferId out : graph.op(op).allocates) {
    const auto users = graph.users(out);
    size_t from = 0;
    if (graph.op(op).phase == Phase::kForward) {
      while (from < users.size() && graph.op(users[from]).phase != Phase::kBackward)
        ++from;
    } else {
      int32_t gap = 0;
      from = users.size();
      for (size_t u = 1; u < users.size(); ++u) {
        if (users[u].value() - users[u - 1].value() > gap) {
          gap = users[u].value() - users[u - 1].value();
          from = u;
        }
      }
    }
    late.insert(late.end(), users.begin() + static_cast<std::ptrdiff_t>(from),
                users.end());
  }
  return late;
}

// The runs that recompute the ops marked 1 (one run for every late reader), 2 (a
// run for each) and 3 + c (one run for the readers needed up to the c-th
// backward op, another for the later ones: a cut), built here from the definition rather
// than by the search's code. Op ids are the eager order's positions.
std::vector<Recomputation> Runs(const Graph& graph, const std::vector<int>& choice) {
  std::vector<OpId> backward;
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    if (graph.op(OpId(o)).phase == Phase::kBackward) backward.push_back(OpId(o));
  }
  std::vector<Recomputation> runs;  // Last op first.
  std::vector<int32_t> needed_at;   // Per run: the first op that reads its copies.
  std::map<int32_t, std::vector<int32_t>> runs_of;
  for (int32_t o = graph.num_ops() - 1; o >= 0; --o) {
    const int mode =
        o < static_cast<int32_t>(choice.size()) ? choice[static_cast<size_t>(o)] : 0;
    if (mode == 0) continue;
    std::vector<OpId> serves = LateReaders(graph, OpId(o));
    std::vector<int32_t> feeds;
    for (BufferId out : graph.op(OpId(o)).allocates) {
      for (OpId user : graph.users(out)) {
        for (int32_t run : runs_of[user.value()]) feeds.push_back(run);
      }
    }
    std::sort(serves.begin(), serves.end());
    std::sort(feeds.begin(), feeds.end());
    auto add = [&](std::vector<OpId> s, std::vector<int32_t> f) {
      if (s.empty() && f.empty()) return;
      int32_t first = graph.num_ops();
      for (OpId user : s) first = std::min(first, user.value());
      for (int32_t run : f) first = std::min(first, needed_at[static_cast<size_t>(run)]);
      runs_of[o].push_back(static_cast<int32_t>(runs.size()));
      runs.push_back({OpId(o), std::move(s), std::move(f), 0, {}});
      needed_at.push_back(first);
    };
    if (mode == 1) {
      add(serves, feeds);
    } else if (mode == 2) {
      for (OpId user : serves) add({user}, {});
      for (int32_t run : feeds) add({}, {run});
    } else {
      const int32_t cut = backward[static_cast<size_t>(mode - 3)].value();
      std::vector<OpId> early_serves, late_serves;
      std::vector<int32_t> early_feeds, late_feeds;
      for (OpId user : serves)
        (user.value() <= cut ? early_serves : late_serves).push_back(user);
      for (int32_t run : feeds)
        (needed_at[static_cast<size_t>(run)] <= cut ? early_feeds : late_feeds)
            .push_back(run);
      add(std::move(late_serves), std::move(late_feeds));
      add(std::move(early_serves), std::move(early_feeds));
    }
  }
  std::reverse(runs.begin(), runs.end());
  const auto last = static_cast<int32_t>(runs.size()) - 1;
  for (Recomputation& r : runs) {
    for (int32_t& j : r.feeds) j = last - j;
    std::sort(r.feeds.begin(), r.feeds.end());
  }
  AssignRecomputeIds(graph, runs);
  return runs;
}

struct Found {
  int64_t peak = 0;
  int64_t cost = 0;
};

// Every plan of the action space over the first `ops` ops, with `cuts` of the cut modes
// (3 + c, c < cuts): its checked peak and its cost.
std::vector<Found> EveryPlan(const Graph& graph, int ops, int cuts = 0) {
  std::vector<Found> found;
  std::vector<int> choice(static_cast<size_t>(ops), 0);
  for (;;) {
    Plan plan;
    plan.recompute = Runs(graph, choice);
    const ExpandedGraph expanded = *ExpandGraph(graph, plan.recompute);
    plan.order = EagerOrder(expanded.graph);
    const PlanCheck check = CheckPlan(graph, plan);
    EXPECT_TRUE(check.valid) << check.error;
    int64_t cost = 0;
    for (const Recomputation& r : plan.recompute) cost += OpCost(graph, r.op);
    found.push_back({check.peak_live_bytes, cost});
    size_t digit = 0;
    while (digit < choice.size() && ++choice[digit] == 3 + cuts) choice[digit++] = 0;
    if (digit == choice.size()) return found;
  }
}

// Each peak some plan reaches, with the least compute of the plans reaching it.
std::map<int64_t, int64_t> CheapestByPeak(const std::vector<Found>& plans) {
  std::map<int64_t, int64_t> cheapest;
  for (const Found& f : plans) {
    for (const Found& g : plans) {
      if (g.peak > f.peak) continue;
      auto [at, fresh] = cheapest.try_emplace(f.peak, g.cost);
      if (!fresh) at->second = std::min(at->second, g.cost);
    }
  }
  return cheapest;
}

constexpr int kLayers = 6;
constexpr uint64_t kGraphs = 16;

RematResult Search(const Graph& graph, int64_t target) {
  RematOptions options;
  options.target_bytes = target;
  options.stall_rounds = 100;
  return Rematerialize(graph, EagerOrder(graph), options, Budget::OfWork(100'000));
}

// On `layers`-layer chains, every target some plan of the space with `cuts` cut modes
// reaches: the search reaches it, no dearer than the cheapest, with a plan the checker
// accepts at the peak the search measured. With `residual_gradient`, the loss's
// gradient's backward op is in the space too.
void ExpectEveryReachableTargetReached(int layers, int cuts,
                                       bool residual_gradient = false) {
  int targets_tried = 0;
  for (uint64_t seed = 1; seed <= kGraphs; ++seed) {
    const Graph graph = SkipChain(layers, seed, residual_gradient);
    const int ops = residual_gradient ? layers + 1 : layers;
    for (const auto& [target, cost] : CheapestByPeak(EveryPlan(graph, ops, cuts))) {
      const RematResult result = Search(graph, target);
      ++targets_tried;
      EXPECT_TRUE(result.reached) << "seed " << seed << ": target " << target
                                  << ", the search stops at " << result.peak_bytes;
      EXPECT_LE(result.added_cost, cost)
          << "seed " << seed << ": target " << target << " costs " << cost;
      Plan plan;
      plan.recompute = result.recompute;
      plan.order = result.order;
      const PlanCheck check = CheckPlan(graph, plan);
      ASSERT_TRUE(check.valid) << check.error;
      EXPECT_EQ(check.peak_live_bytes, result.peak_bytes);
    }
  }
  EXPECT_GT(targets_tried, 30);
}

TEST(RematerializeBruteForceTest,
     ReachesEveryReachableTargetNoDearerThanTheCheapestPlan) {
  ExpectEveryReachableTargetReached(kLayers, /*cuts=*/0);
}

// With cuts (a run for the readers up to a backward op, another for the later ones) in
// the brute force's space too, on shorter chains (each op has seven choices).
TEST(RematerializeBruteForceTest, WithCutsReachesEveryReachableTargetNoDearer) {
  constexpr int kShort = 4;
  ExpectEveryReachableTargetReached(kShort, /*cuts=*/kShort);
}

// A backward op run again: the loss's gradient, read by the last layer's backward op
// and again at the join, made again for the join (with the activation it reads kept,
// or made again too).
TEST(RematerializeBruteForceTest, OverTheWholeStepReachesEveryReachableTargetNoDearer) {
  ExpectEveryReachableTargetReached(kLayers, /*cuts=*/0, /*residual_gradient=*/true);
}

// The bound on added compute (added_cost_bound.h) is never above a plan that keeps the
// order, the brute force's or the search's, and calls no target unreachable that one
// of them reaches.
TEST(AddedCostBoundTest, NeverAboveAPlanAndNeverRefutesAReachableTarget) {
  int proven = 0;
  for (uint64_t run = 1; run <= 2 * kGraphs; ++run) {
    // The second half: activations that die in the forward pass (chains).
    const uint64_t seed = (run - 1) % kGraphs + 1;
    const Graph graph = SkipChain(kLayers, seed, false, /*dead_inputs=*/run > kGraphs);
    std::map<int64_t, int64_t> cheapest = CheapestByPeak(EveryPlan(graph, kLayers));
    // Below every plan's peak too: no plan there, or only the search's.
    cheapest.emplace(cheapest.begin()->first - 10, INT64_MAX);
    for (const auto& [target, cost] : cheapest) {
      const AddedCostBound bound =
          BoundAddedCost(graph, EagerOrder(graph), target, Budget::OfWork(100'000));
      const RematResult found = Search(graph, target);
      if (!bound.reachable) {
        EXPECT_EQ(cost, INT64_MAX) << "seed " << seed << ": target " << target;
        EXPECT_FALSE(found.reached) << "seed " << seed << ": target " << target;
        continue;
      }
      EXPECT_LE(bound.cost, cost) << "seed " << seed << ": target " << target;
      if (found.reached) {
        EXPECT_LE(bound.cost, found.added_cost)
            << "seed " << seed << ": target " << target;
      }
      proven += bound.proven_optimal;
    }
  }
  EXPECT_GT(proven, 30);
}

// With cuts and a run for each reader in the space (an op run twice or more) and
// measured costs, on shorter chains whose backward ops read their forward ops' outputs
// too (a run that makes an activation again reads one a backward op reads next): the
// bound is never above the cheapest plan, and meets it more often than when an op paid
// once for all its runs.
TEST(AddedCostBoundTest, NeverAboveAPlanThatRunsAnOpTwice) {
  constexpr int kShort = 4;
  int at_the_cheapest = 0, targets = 0;
  for (uint64_t run = 1; run <= 2 * kGraphs; ++run) {
    const uint64_t seed = (run - 1) % kGraphs + 1;
    const Graph graph = SkipChain(kShort, seed, /*residual_gradient=*/false,
                                  /*dead_inputs=*/run > kGraphs, /*reads_outputs=*/true);
    for (const auto& [target, cost] :
         CheapestByPeak(EveryPlan(graph, kShort, /*cuts=*/kShort))) {
      const AddedCostBound bound =
          BoundAddedCost(graph, EagerOrder(graph), target, Budget::OfWork(100'000));
      ASSERT_TRUE(bound.reachable) << "seed " << seed << ": target " << target;
      EXPECT_LE(bound.cost, cost) << "seed " << seed << ": target " << target;
      // Within the solver's tolerances (added_cost_bound.cc).
      at_the_cheapest += cost - bound.cost <= cost / 10'000;
      ++targets;
    }
  }
  EXPECT_EQ(targets, 178);
  // 145 of 178 (to the covering's tolerance; the stage model's is wider): 142 without
  // the stage model (stage_bound.h), 136 where an op paid once, however many runs a
  // plan needs of it.
  EXPECT_GT(at_the_cheapest, 142);
}

// The stage model alone (stage_bound.h) on the same graphs: never above the cheapest
// plan, and at it on 158 of 178 targets (the covering bound on 142).
TEST(StageBoundTest, NeverAboveAPlanAndOftenAtTheCheapest) {
  constexpr int kShort = 4;
  int at_the_cheapest = 0;
  for (uint64_t run = 1; run <= 2 * kGraphs; ++run) {
    const uint64_t seed = (run - 1) % kGraphs + 1;
    const Graph graph = SkipChain(kShort, seed, /*residual_gradient=*/false,
                                  /*dead_inputs=*/run > kGraphs, /*reads_outputs=*/true);
    const Order order = EagerOrder(graph);
    const Lifetimes lifetimes = ComputeLifetimes(graph, order);
    const RecomputableBuffers buffers = FindRecomputableBuffers(graph);
    int64_t dearest = 0;
    for (int32_t o = 0; o < graph.num_ops(); ++o)
      dearest = std::max(dearest, OpCost(graph, OpId(o)));
    for (const auto& [target, cost] :
         CheapestByPeak(EveryPlan(graph, kShort, /*cuts=*/kShort))) {
      const std::optional<StageBound> bound = BoundAddedCostByStages(
          graph, order, lifetimes, buffers, target, Budget::OfWork(100'000));
      ASSERT_TRUE(bound.has_value()) << "seed " << seed << ": target " << target;
      EXPECT_LE(bound->cost, cost) << "seed " << seed << ": target " << target;
      // Within the solver's tolerance (stage_bound.cc: 1e-4 of the dearest op's cost).
      at_the_cheapest += cost - bound->cost <= dearest / 10'000 + 1;
    }
  }
  EXPECT_GE(at_the_cheapest, 158);
}

// The order's floor (added_cost_bound.h) is never above a plan that keeps the order.
// Where the brute force covers every buffer the floor may free (the chains without a
// residual gradient, whose gradients are read once), the least peak of its plans lies
// at the floor on most graphs (11 of 16): the bound counts what the order keeps live.
TEST(OrderFloorTest, NeverAboveAPlanOnTheOrderAndMostlyAtOne) {
  int at_a_plan = 0;
  for (bool residual_gradient : {false, true}) {
    for (uint64_t seed = 1; seed <= kGraphs; ++seed) {
      const Graph graph = SkipChain(kLayers, seed, residual_gradient);
      const int ops = residual_gradient ? kLayers + 1 : kLayers;
      const int64_t least = CheapestByPeak(EveryPlan(graph, ops)).begin()->first;
      const OrderFloor floor = ComputeOrderFloor(graph, EagerOrder(graph));
      EXPECT_LE(floor.bytes, least) << "seed " << seed;
      if (!residual_gradient) at_a_plan += floor.bytes == least;
    }
  }
  EXPECT_GT(at_a_plan, static_cast<int>(kGraphs) / 2);
}

// The order's floor raised by what later steps read (order_floor_proof.h) is never
// above a plan on the order either, also where activations die in the forward pass (a
// run that reads one needs it made again in turn); and it lies at the least peak of the
// plans on more graphs than the order's floor.
TEST(OrderFloorProofTest, NeverAboveAPlanOnTheOrderAndAtOneMoreOften) {
  int floor_at_a_plan = 0;
  int raised_at_a_plan = 0;
  for (bool dead_inputs : {false, true}) {
    for (bool residual_gradient : {false, true}) {
      for (uint64_t seed = 1; seed <= kGraphs; ++seed) {
        const Graph graph = SkipChain(kLayers, seed, residual_gradient, dead_inputs);
        const int ops = residual_gradient ? kLayers + 1 : kLayers;
        const int64_t least = CheapestByPeak(EveryPlan(graph, ops)).begin()->first;
        const Order order = EagerOrder(graph);
        const OrderFloor floor = ComputeOrderFloor(graph, order);
        const Lifetimes lifetimes = ComputeLifetimes(graph, order);
        const int64_t peak = ComputeTimeline(graph, order, lifetimes).peak_bytes;
        const OrderFloor raised = RaiseOrderFloor(graph, order, floor, peak, Budget());
        EXPECT_LE(ProveOrderFloor(graph, order, least + 1, Budget()).bytes, least)
            << "seed " << seed;
        EXPECT_LE(raised.bytes, least) << "seed " << seed;
        EXPECT_GE(raised.bytes, floor.bytes) << "seed " << seed;
        floor_at_a_plan += floor.bytes == least;
        raised_at_a_plan += raised.bytes == least;
      }
    }
  }
  EXPECT_GT(raised_at_a_plan, floor_at_a_plan);  // 34 of 64 against 27.
}

// The least peak of every plan of `graph`, in any order, running each op that
// recompute_rules.h lets run again as often as it likes: a search over the live sets
// (with which of the ops that may not run again have run), a run holding its inputs,
// outputs and workspace, any buffer freed at any time, until the graph's outputs are
// live (every op is an ancestor of one: so every op has run).
int64_t LeastPeakOfAnyPlan(const Graph& graph) {
  const int32_t buffers = graph.num_buffers();
  std::vector<int32_t> once;  // The ops that may not run again, by bit.
  for (int32_t o = 0; o < graph.num_ops(); ++o)
    if (!RecomputeRefusal(graph, OpId(o)).empty()) once.push_back(o);
  EXPECT_LE(buffers + static_cast<int32_t>(once.size()), 40);
  auto bytes = [&](uint64_t live) {
    int64_t sum = 0;
    for (int32_t b = 0; b < buffers; ++b)
      if (live >> b & 1) sum += graph.buffer(BufferId(b)).size;
    return sum;
  };
  auto mask = [&](const std::vector<BufferId>& list) {
    uint64_t m = 0;
    for (BufferId b : list)
      if (!graph.buffer(b).persistent) m |= uint64_t{1} << b.index();
    return m;
  };
  uint64_t start = 0, outputs = 0;
  for (int32_t b = 0; b < buffers; ++b) {
    const Buffer& buffer = graph.buffer(BufferId(b));
    if (buffer.persistent) continue;
    if (!graph.producer(BufferId(b)).valid()) start |= uint64_t{1} << b;
    if (buffer.output) outputs |= uint64_t{1} << b;
  }
  const uint64_t all_once = ((uint64_t{1} << once.size()) - 1) << buffers;
  const uint64_t live_bits = (uint64_t{1} << buffers) - 1;
  std::unordered_map<uint64_t, int64_t> best;
  using Entry = std::pair<int64_t, uint64_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  queue.push({bytes(start), start});
  while (!queue.empty()) {
    const auto [peak, state] = queue.top();
    queue.pop();
    if (auto it = best.find(state); it != best.end() && it->second <= peak) continue;
    best[state] = peak;
    const uint64_t live = state & live_bits;
    if ((live & outputs) == outputs && (state & all_once) == all_once) return peak;
    for (int32_t b = 0; b < buffers; ++b)
      if (live >> b & 1) queue.push({peak, state & ~(uint64_t{1} << b)});
    for (int32_t o = 0; o < graph.num_ops(); ++o) {
      const Op& op = graph.op(OpId(o));
      if ((mask(op.uses) & live) != mask(op.uses)) continue;
      uint64_t next = live | mask(op.allocates) | (state & ~live_bits);
      const auto bit = std::find(once.begin(), once.end(), o);
      if (bit != once.end()) {
        const uint64_t ran = uint64_t{1} << (buffers + (bit - once.begin()));
        if (state & ran) continue;
        next |= ran;
      }
      const int64_t run = bytes(live | mask(op.allocates)) + op.workspace;
      queue.push({std::max(peak, run), next});
    }
  }
  ADD_FAILURE() << "no plan";
  return 0;
}

// The recompute floor raised by what later readers need (recompute_floor_proof.h)
// against the least peak of every plan in any order: never above it, also with
// activations that die in the forward pass, a residual join in the backward pass, and
// backward ops that read their forward ops' outputs; above the floor on some graphs,
// and at the least peak on more than the floor.
TEST(RecomputeFloorProofTest, NeverAboveAPlanOfAnyOrderAndAtOneMoreOften) {
  int floor_at_a_plan = 0;
  int raised_at_a_plan = 0;
  int raised = 0;
  for (bool dead_inputs : {false, true}) {
    for (bool residual_gradient : {false, true}) {
      for (bool reads_outputs : {false, true}) {
        for (uint64_t seed = 1; seed <= kGraphs; ++seed) {
          const Graph graph =
              SkipChain(kLayers, seed, residual_gradient, dead_inputs, reads_outputs);
          const int64_t least = LeastPeakOfAnyPlan(graph);
          const RecomputeFloor floors = ComputeRecomputeFloor(graph);
          const int64_t floor = floors.every_plan.bytes;
          // Tried at the least peak + 1 first: never shown.
          const int64_t raised_to =
              RaiseRecomputeFloors(graph, floors, least, Budget()).every_plan.bytes;
          EXPECT_LE(raised_to, least) << "seed " << seed;
          EXPECT_LE(
              RaiseRecomputeFloors(graph, floors, 2 * least, Budget()).every_plan.bytes,
              least)
              << "seed " << seed;
          EXPECT_GE(raised_to, floor) << "seed " << seed;
          floor_at_a_plan += floor == least;
          raised_at_a_plan += raised_to == least;
          raised += raised_to > floor;
        }
      }
    }
  }
  EXPECT_GT(raised, 0);                          // 35 of 128.
  EXPECT_GT(raised_at_a_plan, floor_at_a_plan);  // 122 of 128 against 92.
}

// The proof's split on which of two readers runs first (recompute_floor_proof.h)
// against the least peak of every plan in any order: never above it, and raising the
// floor on some of these graphs (to the least peak on some).
TEST(RecomputeFloorProofTest, SplitOnWhichReaderRunsFirstNeverAboveAPlan) {
  int split = 0;
  int split_at_a_plan = 0;
  for (uint64_t seed = 1; seed <= 160; ++seed) {
    std::mt19937_64 rng(seed);
    const Graph graph = testing::TwoReadersAtOnce(
        [&] { return 10 * static_cast<int64_t>(1 + rng() % 8); });
    const int64_t least = LeastPeakOfAnyPlan(graph);
    const RecomputeFloor floors = ComputeRecomputeFloor(graph);
    const FloorAt raised =
        RaiseRecomputeFloors(graph, floors, least, Budget()).every_plan;
    EXPECT_LE(raised.bytes, least) << "seed " << seed;
    EXPECT_LE(RaiseRecomputeFloors(graph, floors, 2 * least, Budget()).every_plan.bytes,
              least)
        << "seed " << seed;
    split += raised.later.valid();
    split_at_a_plan += raised.later.valid() && raised.bytes == least;
  }
  EXPECT_GT(split, 0);
  EXPECT_GT(split_at_a_plan, 0);
}

}  // namespace
}  // namespace olla
