#include "olla/remat/repeated_blocks.h"

#include <string>

#include <gtest/gtest.h>

#include "olla/io/graph_json.h"

#include "training_chain.h"

namespace olla {
namespace {

// Names each forward op of the chain `path(i)/mul`, as olla.capture names an op of a
// module.
template <typename PathOf>
Graph NamedChain(testing::TrainingChain chain, PathOf path) {
  for (size_t i = 0; i < chain.forward.size(); ++i)
    chain.builder.ops()[chain.forward[i].index()].name = path(i) + "/mul";
  return chain.builder.Build();
}

TEST(RepeatedBlocksTest, TiesTheNumberedLayersOfAChain) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(8, 1000);
  const RepeatedBlocks found = FindRepeatedBlocks(
      NamedChain(chain, [](size_t i) { return "model.layers." + std::to_string(i); }));
  EXPECT_EQ(found.families, 1);
  EXPECT_EQ(found.members.size(), 8u);
  ASSERT_EQ(found.classes.size(), 1u);
  // Each layer's output, in layer order.
  EXPECT_EQ(found.classes[0], std::vector<BufferId>(chain.activations.begin() + 1,
                                                    chain.activations.end()));
}

// A layer whose output has another size is not the others' (nor is the next layer,
// which reads it); names alone tie nothing.
TEST(RepeatedBlocksTest, ALayerOfAnotherShapeIsNotTied) {
  testing::TrainingChain chain = testing::MakeTrainingChain(8, 1000);
  chain.builder.buffers()[chain.activations[3].index()].size = 2000;
  const RepeatedBlocks found = FindRepeatedBlocks(
      NamedChain(chain, [](size_t i) { return "h." + std::to_string(i); }));
  EXPECT_EQ(found.members.size(), 6u);
  EXPECT_EQ(found.class_of[chain.activations[3].index()], -1);
  EXPECT_EQ(found.class_of[chain.activations[4].index()], -1);
  EXPECT_GE(found.class_of[chain.activations[5].index()], 0);
}

TEST(RepeatedBlocksTest, WithoutNumberedModulesNothingIsTied) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(8, 1000);
  EXPECT_TRUE(FindRepeatedBlocks(chain.builder.Build()).classes.empty());
  const RepeatedBlocks found = FindRepeatedBlocks(
      NamedChain(chain, [](size_t i) { return "layer" + std::to_string(i); }));
  EXPECT_TRUE(found.classes.empty());
}

// Two stages of different depths are not repeated; the blocks inside each are
// ("features.1.0" as in Swin and ResNet).
TEST(RepeatedBlocksTest, BlocksInsideStagesThatDoNotRepeat) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(8, 1000);
  const RepeatedBlocks found = FindRepeatedBlocks(NamedChain(chain, [](size_t i) {
    return i < 3 ? "features.stage_0." + std::to_string(i)
                 : "features.stage_1." + std::to_string(i - 3);
  }));
  EXPECT_EQ(found.families, 2);
  EXPECT_EQ(found.members.size(), 8u);
  EXPECT_EQ(found.classes.size(), 2u);
}

// The twelve decoder blocks of the zoo's GPT-2 small (`blocks.N`) and the twelve encoder
// layers of ViT-B/16 (`encoder_layer_N`): buffers at one place are alike.
TEST(RepeatedBlocksTest, FindsTheTwelveLayersOfZooTransformers) {
  for (const char* name : {"gpt2_small", "vit_b_16"}) {
    SCOPED_TRACE(name);
    const Graph graph = *LoadGraph(std::string(OLLA_SOURCE_DIR) + "/models/" + name +
                                   ".train.b1.json.gz");
    const RepeatedBlocks found = FindRepeatedBlocks(graph);
    EXPECT_EQ(found.families, 1);
    EXPECT_EQ(found.members.size(), 12u);
    EXPECT_GT(found.classes.size(), 10u);
    for (const std::vector<BufferId>& members : found.classes) {
      ASSERT_EQ(members.size(), 12u);
      for (BufferId b : members) {
        EXPECT_EQ(graph.buffer(b).size, graph.buffer(members[0]).size);
        EXPECT_EQ(graph.op(graph.producer(b)).type,
                  graph.op(graph.producer(members[0])).type);
      }
    }
  }
}

}  // namespace
}  // namespace olla
