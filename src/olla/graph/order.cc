#include "olla/graph/order.h"

#include "olla/graph/graph.h"

namespace olla {

Order EagerOrder(const Graph& graph) {
  Order order;
  order.ops.reserve(static_cast<size_t>(graph.num_ops()));
  for (int32_t o = 0; o < graph.num_ops(); ++o) order.ops.push_back(OpId(o));
  return order;
}

}  // namespace olla
