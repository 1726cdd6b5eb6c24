// The two helpers every synthetic graph is built with (synthetic.h, hard_graphs.h):
// a seeded random source that gives the same numbers on every platform, and a builder
// that numbers buffers and ops in the order they are added (the eager order).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "olla/graph/graph.h"

namespace olla::synthetic {

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  // Uniform in [lo, hi]; the modulo bias is irrelevant for test data.
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(engine_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(double p) { return static_cast<double>(engine_() >> 11) * 0x1.0p-53 < p; }
  // About `bytes`: up to a quarter either way, in multiples of 512 (as real tensors
  // mostly are).
  int64_t Around(int64_t bytes) {
    const int64_t units = std::max<int64_t>(1, bytes / 512);
    return Between(units - units / 4, units + units / 4) * 512;
  }
  // Between `low` and `high` bytes (powers of two, at least 1 KiB), spread evenly
  // over each power of two between them: small sizes as often as large ones.
  int64_t SpreadBytes(int64_t low, int64_t high) {
    int32_t low_log = 0;
    while ((int64_t{1} << (low_log + 1)) <= low) ++low_log;
    int32_t high_log = low_log;
    while ((int64_t{1} << (high_log + 1)) <= high) ++high_log;
    const int64_t base = int64_t{1} << Between(low_log, std::max(low_log, high_log - 1));
    return (base + Between(0, base - 1)) / 512 * 512;
  }

 private:
  std::mt19937_64 engine_;
};

// Accumulates buffers and ops with file ids equal to their indices.
struct Builder {
  std::vector<Buffer> buffers;
  std::vector<Op> ops;
  std::vector<PrecedenceEdge> edges;

  BufferId AddBuffer(std::string name, int64_t size, BufferKind kind,
                     bool persistent = false) {
    Buffer buffer;
    buffer.file_id = static_cast<int64_t>(buffers.size());
    buffer.name = std::move(name);
    buffer.size = size;
    buffer.kind = kind;
    buffer.persistent = persistent;
    buffers.push_back(std::move(buffer));
    return BufferId(static_cast<int32_t>(buffers.size() - 1));
  }
  OpId AddOp(std::string name, std::string type, Phase phase,
             std::vector<BufferId> allocates, std::vector<BufferId> uses,
             int64_t workspace = 0) {
    Op op;
    op.file_id = static_cast<int64_t>(ops.size());
    op.name = std::move(name);
    op.type = std::move(type);
    op.phase = phase;
    op.allocates = std::move(allocates);
    op.uses = std::move(uses);
    op.workspace = workspace;
    ops.push_back(std::move(op));
    return OpId(static_cast<int32_t>(ops.size() - 1));
  }
  Graph Build(std::string name) {
    StatusOr<Graph> graph = Graph::Create(std::move(name), std::move(buffers),
                                          std::move(ops), std::move(edges));
    OLLA_CHECK(graph.ok(), "synthetic graph is invalid: " + graph.status().message());
    return std::move(graph).value();
  }
};

}  // namespace olla::synthetic
