#include "olla/plan/recompute_rules.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace olla {

std::string_view BaseOperatorName(std::string_view type) {
  const size_t colons = type.rfind("::");
  if (colons != std::string_view::npos) type.remove_prefix(colons + 2);
  const size_t dot = type.find('.');
  if (dot != std::string_view::npos) type = type.substr(0, dot);
  return type;
}

bool DrawsRandomNumbers(const Op& op) {
  if (op.random) return true;
  static constexpr std::array<std::string_view, 11> kRandomNames = {
      "dropout", "bernoulli", "rand",    "normal",      "uniform", "multinomial",
      "cauchy",  "geometric", "poisson", "exponential", "randperm"};
  const std::string_view name = BaseOperatorName(op.type);
  return std::any_of(kRandomNames.begin(), kRandomNames.end(), [&](std::string_view r) {
    return name.find(r) != std::string_view::npos;
  });
}

bool WritesInPlace(const Op& op) {
  const std::string_view name = BaseOperatorName(op.type);
  // Batch norm in training updates its running statistics in place, whatever its
  // name says; graphs captured before `writes` was recorded do not list them.
  return !op.writes.empty() || (!name.empty() && name.back() == '_') ||
         name.find("batch_norm") != std::string_view::npos;
}

bool IsView(const Op& op) { return op.allocates.empty() && !WritesInPlace(op); }

bool MayOverwrite(const Op& op, BufferId buffer) {
  // What the graph lists is all the op overwrites: aten::add_ in a residual block
  // writes its first operand only. Judged by its name, the block's input, its second,
  // was not made again after it, and the copies of a ResNet's convolutions that read
  // that input ran in the forward pass (resnet18 at batch 1 stopped at 23.6 MB; with
  // what the graph lists, it fits 19 MB against a floor of 18.8 MB).
  if (!op.writes.empty())
    return std::find(op.writes.begin(), op.writes.end(), buffer) != op.writes.end();
  const std::string_view name = BaseOperatorName(op.type);
  return !name.empty() && name.back() == '_' &&
         std::find(op.allocates.begin(), op.allocates.end(), buffer) ==
             op.allocates.end();
}

std::string RecomputeRefusal(const Graph& graph, OpId id) {
  const Op& op = graph.op(id);
  if (DrawsRandomNumbers(op)) return "it draws random numbers";
  if (WritesInPlace(op)) return "it writes in place";
  if (op.allocates.empty()) return "it allocates nothing";
  for (BufferId output : op.allocates) {
    for (OpId user : graph.users(output)) {
      if (user == id) continue;
      const Op& reader = graph.op(user);
      if (MayOverwrite(reader, output)) {
        return fmt::format("{} overwrites its output {}", graph.Describe(user),
                           graph.Describe(output));
      }
      // A weight's gradient, read by the update that writes the weight: kept out of
      // the plans. Where each update runs as soon as its gradient is made (budget
      // mode's orders), the gradient lives a few steps and dropping it frees nothing;
      // counted freeable, it lowered the floors of every plan below what any plan
      // found reaches (vit_b_16 at batch 32: 252 -> 232 MB).
      if (reader.phase == Phase::kOptimizer && WritesInPlace(reader)) {
        return fmt::format("an optimizer's in-place update, {}, reads its output {}",
                           graph.Describe(user), graph.Describe(output));
      }
    }
  }
  return "";
}

}  // namespace olla
