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
  if (std::find(op.writes.begin(), op.writes.end(), buffer) != op.writes.end())
    return true;
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
      if (user != id && MayOverwrite(graph.op(user), output)) {
        return fmt::format("{} overwrites its output {}", graph.Describe(user),
                           graph.Describe(output));
      }
    }
  }
  return "";
}

}  // namespace olla
