#include "olla/graph/rounded.h"

#include <utility>
#include <vector>

#include "olla/core/bytes.h"

namespace olla {

std::optional<Graph> RoundSizes(const Graph& graph, int64_t alignment) {
  std::vector<Buffer> buffers = graph.buffers();
  for (Buffer& b : buffers) {
    const std::optional<int64_t> size = CheckedRoundUp(b.size, alignment);
    if (!size) return std::nullopt;
    b.size = *size;
  }
  std::vector<Op> ops = graph.ops();
  for (Op& op : ops) {
    const std::optional<int64_t> size = CheckedRoundUp(op.workspace, alignment);
    if (!size) return std::nullopt;
    op.workspace = *size;
  }
  StatusOr<Graph> rounded = Graph::Create(graph.name(), std::move(buffers),
                                          std::move(ops), graph.explicit_edges());
  if (!rounded.ok()) return std::nullopt;
  return std::move(rounded).value();
}

}  // namespace olla
