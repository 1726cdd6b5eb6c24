#include "olla/plan/expand.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/plan/recompute_rules.h"

#include "graph_builder.h"
#include "training_chain.h"

namespace olla {
namespace {

using ::testing::HasSubstr;

// One run of `op` again for `reader`, with its file ids.
Recomputation RunOf(const Graph& graph, OpId op, OpId reader) {
  std::vector<Recomputation> one(1);
  one[0].op = op;
  one[0].serves = {reader};
  AssignRecomputeIds(graph, one);
  return one.front();
}

// Recomputing forward op `layer` for the backward op that reads its output.
Recomputation RecomputeFor(const testing::TrainingChain& chain, const Graph& graph,
                           size_t layer) {
  return RunOf(graph, chain.forward[layer], chain.backward[layer + 1]);
}

TEST(ExpandGraphTest, ServedOpsReadCopiesMadeJustBeforeThem) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(3, 100);
  const Graph graph = chain.builder.Build();
  const Recomputation r = RecomputeFor(chain, graph, 1);
  const ExpandedGraph expanded = *ExpandGraph(graph, std::vector<Recomputation>{r});
  const Graph& g = expanded.graph;
  ASSERT_EQ(g.num_ops(), graph.num_ops() + 1);
  ASSERT_EQ(g.num_buffers(), graph.num_buffers() + 1);
  const BufferId copy(graph.num_buffers());
  EXPECT_EQ(g.buffer(copy).file_id, r.copy_ids[0]);
  EXPECT_EQ(g.buffer(copy).size, 100);
  EXPECT_EQ(expanded.source_buffer[copy.index()], chain.activations[2]);

  const OpId run = expanded.recompute_op[0];
  EXPECT_TRUE(expanded.is_recomputation(run));
  EXPECT_EQ(expanded.source_op[run.index()], chain.forward[1]);
  EXPECT_EQ(g.op(run).file_id, r.file_id);
  EXPECT_EQ(g.producer(copy), run);
  // The served backward op reads the copy; the forward reader keeps the original.
  const OpId served = expanded.expanded_op[chain.backward[2].index()];
  EXPECT_THAT(g.op(served).uses, ::testing::Contains(copy));
  EXPECT_THAT(g.op(served).uses,
              ::testing::Not(::testing::Contains(chain.activations[2])));
  const OpId forward_reader = expanded.expanded_op[chain.forward[2].index()];
  EXPECT_THAT(g.op(forward_reader).uses, ::testing::Contains(chain.activations[2]));
  // Eager order: the recomputation runs just before the op it serves.
  EXPECT_EQ(run.value() + 1, served.value());
  for (OpId original : expanded.expanded_op)
    EXPECT_FALSE(expanded.is_recomputation(original));
}

// Layer 2 recomputed from layer 1's copy, which serves layer 2's backward too.
std::vector<Recomputation> FeederAndFed(const testing::TrainingChain& chain,
                                        const Graph& graph) {
  std::vector<Recomputation> recompute(2);
  recompute[0].op = chain.forward[1];
  recompute[0].serves = {chain.backward[2]};
  recompute[0].feeds = {1};
  // forward[2] makes a3, which the loss gradient's op reads (it follows the forward).
  recompute[1].op = chain.forward[2];
  recompute[1].serves = {OpId(static_cast<int32_t>(chain.forward.size()))};
  AssignRecomputeIds(graph, recompute);
  return recompute;
}

TEST(ExpandGraphTest, AFeederRunsBeforeTheRecomputationItFeeds) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(3, 100);
  const Graph graph = chain.builder.Build();
  const ExpandedGraph expanded = *ExpandGraph(graph, FeederAndFed(chain, graph));
  const OpId feeder = expanded.recompute_op[0];
  const OpId fed = expanded.recompute_op[1];
  EXPECT_LT(feeder.value(), fed.value());
  const BufferId feeder_copy = expanded.graph.op(feeder).allocates[0];
  EXPECT_THAT(expanded.graph.op(fed).uses, ::testing::Contains(feeder_copy));
}

// forward[1] run twice: once for backward[2], once for forward[2]'s recomputation, so
// that neither copy waits for the other's reader.
TEST(ExpandGraphTest, AnOpRunsAgainOnceForEachGroupOfReaders) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(3, 100);
  const Graph graph = chain.builder.Build();
  std::vector<Recomputation> recompute = FeederAndFed(chain, graph);
  Recomputation second = recompute[0];
  recompute[0].feeds.clear();
  second.serves.clear();
  recompute.insert(recompute.begin() + 1, second);
  recompute[1].feeds = {2};
  AssignRecomputeIds(graph, recompute);
  const ExpandedGraph expanded = *ExpandGraph(graph, recompute);
  const Graph& g = expanded.graph;
  ASSERT_EQ(g.num_ops(), graph.num_ops() + 3);
  const OpId for_backward = expanded.recompute_op[0];
  const OpId for_run = expanded.recompute_op[1];
  const OpId fed = expanded.recompute_op[2];
  const BufferId first_copy = g.op(for_backward).allocates[0];
  const BufferId second_copy = g.op(for_run).allocates[0];
  EXPECT_NE(first_copy, second_copy);
  EXPECT_EQ(expanded.source_buffer[first_copy.index()], chain.activations[2]);
  EXPECT_EQ(expanded.source_buffer[second_copy.index()], chain.activations[2]);
  const OpId served = expanded.expanded_op[chain.backward[2].index()];
  EXPECT_THAT(g.op(served).uses, ::testing::Contains(first_copy));
  EXPECT_THAT(g.op(fed).uses, ::testing::Contains(second_copy));
  EXPECT_THAT(g.op(fed).uses, ::testing::Not(::testing::Contains(first_copy)));
  // Each run just before what reads it.
  EXPECT_EQ(for_run.value() + 1, fed.value());
  EXPECT_EQ(for_backward.value() + 1, served.value());
}

// The runtime's reading of a plan: each entry's op, the run it is, its copies, and
// whose copies it reads (a fed recomputation reads its feeder's).
TEST(PlanStepsTest, NameTheRunsTheirCopiesAndTheirReaders) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(3, 100);
  const Graph graph = chain.builder.Build();
  const std::vector<Recomputation> recompute = FeederAndFed(chain, graph);
  const ExpandedGraph expanded = *ExpandGraph(graph, recompute);
  const Order order = EagerOrder(expanded.graph);
  const std::vector<PlanStep> steps = PlanSteps(expanded, order);
  ASSERT_EQ(steps.size(), order.ops.size());
  int runs = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& step = steps[i];
    EXPECT_EQ(step.entry, order.ops[i]);
    EXPECT_EQ(step.op, expanded.source_op[order.ops[i].index()]);
    if (!step.recomputation) {
      EXPECT_TRUE(step.copies.empty());
      continue;
    }
    ++runs;
    EXPECT_EQ(step.op, recompute[*step.recomputation].op);
    ASSERT_EQ(step.copies.size(), 1u);
    EXPECT_EQ(step.copies[0].first, graph.op(step.op).allocates[0]);
    EXPECT_EQ(expanded.graph.buffer(step.copies[0].second).file_id,
              recompute[*step.recomputation].copy_ids[0]);
    EXPECT_EQ(step.reads_copies_of, *step.recomputation == 1 ? std::vector<int32_t>{0}
                                                             : std::vector<int32_t>{});
  }
  EXPECT_EQ(runs, 2);
  const auto served = std::find_if(steps.begin(), steps.end(), [&](const PlanStep& s) {
    return !s.recomputation && s.op == chain.backward[2];
  });
  ASSERT_NE(served, steps.end());
  EXPECT_EQ(served->reads_copies_of, std::vector<int32_t>{0});
}

TEST(ExpandGraphTest, RefusesWhatMustNotRunTwice) {
  testing::TrainingChain chain = testing::MakeTrainingChain(3, 100);
  auto refusal = [&](const std::string& type) {
    testing::TrainingChain copy = chain;
    copy.builder.ops()[chain.forward[1].index()].type = type;
    const Graph graph = copy.builder.Build();
    StatusOr<ExpandedGraph> expanded =
        ExpandGraph(graph, std::vector<Recomputation>{RecomputeFor(copy, graph, 1)});
    return expanded.ok() ? std::string() : expanded.status().message();
  };
  EXPECT_THAT(refusal("aten::native_dropout"), HasSubstr("draws random numbers"));
  EXPECT_THAT(refusal("aten::bernoulli_.float"), HasSubstr("draws random numbers"));
  EXPECT_THAT(refusal("aten::add_.Tensor"), HasSubstr("writes in place"));
  EXPECT_EQ(refusal("aten::mul.Tensor"), "");

  // Marked in the graph rather than by name.
  testing::TrainingChain marked = chain;
  marked.builder.ops()[chain.forward[1].index()].random = true;
  const Graph random_graph = marked.builder.Build();
  EXPECT_THAT(ExpandGraph(random_graph, std::vector<Recomputation>{RecomputeFor(
                                            marked, random_graph, 1)})
                  .status()
                  .message(),
              HasSubstr("draws random numbers"));

  // A victim: layer 1 overwrites layer 0's output in place.
  testing::TrainingChain victim = chain;
  Op& writer = victim.builder.ops()[chain.forward[1].index()];
  writer.writes = {chain.activations[1]};
  const Graph victim_graph = victim.builder.Build();
  const std::vector<Recomputation> one = {
      RunOf(victim_graph, chain.forward[0], chain.backward[1])};
  EXPECT_THAT(ExpandGraph(victim_graph, one).status().message(),
              HasSubstr("overwrites its output"));
}

TEST(ExpandGraphTest, RejectsMalformedRecomputations) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(3, 100);
  const Graph graph = chain.builder.Build();
  const Recomputation good = RecomputeFor(chain, graph, 1);
  auto error = [&](std::vector<Recomputation> recompute) {
    return ExpandGraph(graph, recompute).status().message();
  };
  Recomputation twice = good;  // A second run of the op for the same reader.
  twice.file_id += 1;
  twice.copy_ids = {good.copy_ids[0] + 1};
  EXPECT_THAT(error({good, twice}),
              HasSubstr("which recompute[0] of the same op serves too"));
  Recomputation stranger = good;
  stranger.serves = {chain.backward[0]};  // Reads a0 and a gradient, not a2.
  EXPECT_THAT(error({stranger}), HasSubstr("does not read its outputs"));
  Recomputation idle = good;
  idle.serves.clear();
  EXPECT_THAT(error({idle}), HasSubstr("serves no op"));
  Recomputation taken = good;
  taken.file_id = 0;
  EXPECT_THAT(error({taken}), HasSubstr("op id 0 is taken"));
  Recomputation copies = good;
  copies.copy_ids.push_back(999);
  EXPECT_THAT(error({copies}), HasSubstr("2 copies for the op's 1 outputs"));
}

TEST(ExpandGraphTest, ARecomputationReadsItsInputsBeforeALaterOverwrite) {
  // v0 makes x; v1 reads x and makes y; v2 overwrites x in place; v3 (backward) reads y.
  // Recomputing v1 for v3 must read x before v2 changes it.
  testing::GraphBuilder b;
  const BufferId x = b.Buffer(10);
  const BufferId y = b.Buffer(10);
  const BufferId z = b.Output(10);
  b.Op({x}, {});
  const OpId reader = b.Op({y}, {x});
  const OpId writer = b.Op({}, {x});
  b.ops().back().type = "aten::relu_";
  const OpId user = b.Op({z}, {y});
  b.ops().back().phase = Phase::kBackward;
  b.Edge(reader, writer);
  const Graph graph = b.Build();
  const ExpandedGraph expanded =
      *ExpandGraph(graph, std::vector<Recomputation>{RunOf(graph, reader, user)});
  const OpId run = expanded.recompute_op[0];
  EXPECT_THAT(expanded.graph.successors(run),
              ::testing::Contains(expanded.expanded_op[writer.index()]));
  EXPECT_LT(run.value(), expanded.expanded_op[writer.index()].value());
  // A writer before the original op is no hazard: the original read its result too.
  testing::GraphBuilder early;
  const BufferId a = early.Buffer(10);
  const BufferId c = early.Buffer(10);
  const BufferId d = early.Output(10);
  early.Op({a}, {});
  const OpId overwrite = early.Op({}, {a});
  early.ops().back().type = "aten::relu_";
  const OpId copy_reader = early.Op({c}, {a});
  const OpId backward = early.Op({d}, {c});
  early.ops().back().phase = Phase::kBackward;
  early.Edge(overwrite, copy_reader);
  const Graph early_graph = early.Build();
  const ExpandedGraph no_hazard = *ExpandGraph(
      early_graph, std::vector<Recomputation>{RunOf(early_graph, copy_reader, backward)});
  EXPECT_EQ(no_hazard.recompute_op[0].value() + 1,
            no_hazard.expanded_op[backward.index()].value());
}

// A residual block's add_ writes its first operand and only reads the block's input:
// as the graph lists it, a recomputation that reads the input need not run before it
// (judged by its name alone, it must).
TEST(ExpandGraphTest, AnInPlaceOpOverwritesWhatItsWritesListOnly) {
  auto successors_of_run = [](bool list_writes) {
    // v0 makes x; v1 reads x and makes y; v2 makes w; v3 adds x into w in place;
    // v4 (backward) reads y.
    testing::GraphBuilder b;
    const BufferId x = b.Buffer(10);
    const BufferId y = b.Buffer(10);
    const BufferId w = b.Buffer(10);
    const BufferId z = b.Output(10);
    b.Op({x}, {});
    const OpId reader = b.Op({y}, {x});
    b.Op({w}, {});
    const OpId add = b.Op({}, {w, x});
    b.ops().back().type = "aten::add_.Tensor";
    if (list_writes) b.ops().back().writes = {w};
    const OpId user = b.Op({z}, {y, w});
    b.ops().back().phase = Phase::kBackward;
    const Graph graph = b.Build();
    const ExpandedGraph expanded =
        *ExpandGraph(graph, std::vector<Recomputation>{RunOf(graph, reader, user)});
    const auto after = expanded.graph.successors(expanded.recompute_op[0]);
    return std::count(after.begin(), after.end(), expanded.expanded_op[add.index()]);
  };
  EXPECT_EQ(successors_of_run(/*list_writes=*/true), 0);
  EXPECT_EQ(successors_of_run(/*list_writes=*/false), 1);
}

// A weight's gradient, read by its optimizer's in-place update, is not made again.
TEST(ExpandGraphTest, RefusesAWeightsGradient) {
  testing::GraphBuilder b;
  const BufferId x = b.Buffer(10);
  const BufferId weight = b.Buffer(10);
  b.buffers().back().persistent = true;
  const BufferId gradient = b.Buffer(10);
  b.Op({x}, {});
  const OpId backward = b.Op({gradient}, {x});
  b.ops().back().phase = Phase::kBackward;
  b.Op({}, {weight, gradient});
  b.ops().back().type = "aten::add_.Tensor";
  b.ops().back().writes = {weight};
  b.ops().back().phase = Phase::kOptimizer;
  const Graph graph = b.Build();
  EXPECT_THAT(RecomputeRefusal(graph, backward),
              HasSubstr("an optimizer's in-place update, op 2 '"));
}

}  // namespace
}  // namespace olla
