#include "olla/remat/cost.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string_view>

#include "olla/plan/recompute_rules.h"

namespace olla {
namespace {

constexpr int64_t kMaxCost = std::numeric_limits<int64_t>::max() / 4;

// a * b, saturated at kMaxCost (both non-negative).
int64_t Times(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kMaxCost / b ? kMaxCost : a * b;
}

int64_t Elements(const Buffer& buffer) {
  if (buffer.shape.empty()) return 0;
  int64_t elements = 1;
  for (int64_t d : buffer.shape) elements = Times(elements, std::max<int64_t>(d, 0));
  return elements;
}

int64_t Flops(const Graph& graph, const Op& op) {
  if (op.allocates.empty() || op.uses.empty()) return 0;
  const std::string_view name = BaseOperatorName(op.type);
  const int64_t out = Elements(graph.buffer(op.allocates.front()));
  if (name.find("convolution") != std::string_view::npos && op.uses.size() >= 2 &&
      name.find("backward") == std::string_view::npos) {
    const Buffer& weight = graph.buffer(op.uses[1]);
    if (weight.shape.empty() || weight.shape.front() <= 0) return 0;
    return Times(Times(2, out), Elements(weight) / weight.shape.front());
  }
  static constexpr std::array<std::string_view, 6> kMatmuls = {
      "mm", "addmm", "bmm", "baddbmm", "matmul", "linear"};
  if (std::find(kMatmuls.begin(), kMatmuls.end(), name) != kMatmuls.end()) {
    // addmm and baddbmm take the added term first.
    const bool added = name == "addmm" || name == "baddbmm";
    const size_t first = added && op.uses.size() >= 3 ? 1 : 0;
    const Buffer& matrix = graph.buffer(op.uses[first]);
    if (matrix.shape.empty()) return 0;
    return Times(Times(2, out), std::max<int64_t>(matrix.shape.back(), 0));
  }
  return 0;
}

}  // namespace

int64_t OpCost(const Graph& graph, OpId id) {
  const Op& op = graph.op(id);
  if (op.cost)
    return std::min(kMaxCost, static_cast<int64_t>(std::llround(*op.cost * 1e9)));
  if (IsView(op)) return 0;
  int64_t bytes = 0;
  for (BufferId b : op.uses) bytes = std::min(kMaxCost, bytes + graph.buffer(b).size);
  for (BufferId b : op.allocates)
    bytes = std::min(kMaxCost, bytes + graph.buffer(b).size);
  return std::max(Flops(graph, op), Times(bytes, kUnitsPerByte));
}

int64_t StepCost(const Graph& graph) {
  int64_t total = 0;
  for (int32_t o = 0; o < graph.num_ops(); ++o)
    total = std::min(kMaxCost, total + OpCost(graph, OpId(o)));
  return total;
}

const char* CostSource(const Graph& graph) {
  return graph.has_measured_costs() ? "measured" : "estimated from shapes";
}

}  // namespace olla
