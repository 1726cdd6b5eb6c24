// GraphBuilder: terse construction of small graphs in tests, with file ids equal to
// indices. Build() aborts the test binary on an invalid graph; use Create() to test
// rejection.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "olla/graph/graph.h"

namespace olla::testing {

class GraphBuilder {
 public:
  BufferId Buffer(int64_t size, std::string name = "") {
    olla::Buffer buffer;
    buffer.file_id = static_cast<int64_t>(buffers_.size());
    buffer.name = name.empty() ? "b" + std::to_string(buffers_.size()) : std::move(name);
    buffer.size = size;
    buffers_.push_back(std::move(buffer));
    return BufferId(static_cast<int32_t>(buffers_.size() - 1));
  }
  BufferId Persistent(int64_t size) {
    const BufferId id = Buffer(size);
    buffers_.back().persistent = true;
    return id;
  }
  BufferId Output(int64_t size, std::string name = "") {
    const BufferId id = Buffer(size, std::move(name));
    buffers_.back().output = true;
    return id;
  }
  OpId Op(std::initializer_list<BufferId> allocates, std::initializer_list<BufferId> uses,
          int64_t workspace = 0) {
    olla::Op op;
    op.file_id = static_cast<int64_t>(ops_.size());
    op.name = "v" + std::to_string(ops_.size());
    op.allocates = allocates;
    op.uses = uses;
    op.workspace = workspace;
    ops_.push_back(std::move(op));
    return OpId(static_cast<int32_t>(ops_.size() - 1));
  }
  void Edge(OpId before, OpId after) { edges_.push_back({before, after}); }

  StatusOr<Graph> Create() const { return Graph::Create("test", buffers_, ops_, edges_); }
  Graph Build() const {
    StatusOr<Graph> graph = Create();
    OLLA_CHECK(graph.ok(), graph.status().message());
    return std::move(graph).value();
  }

  std::vector<olla::Buffer>& buffers() { return buffers_; }
  std::vector<olla::Op>& ops() { return ops_; }

 private:
  std::vector<olla::Buffer> buffers_;
  std::vector<olla::Op> ops_;
  std::vector<PrecedenceEdge> edges_;
};

// The Figure 3 graph of the OLLA paper, as examples/figure3.json: buffers e1..e6 (file
// ids 0..5), ops v1, v3, v2, v4 in eager order (file ids 1, 3, 2, 4).
Graph Figure3Graph();
inline constexpr int64_t kMiB = 1 << 20;

}  // namespace olla::testing
