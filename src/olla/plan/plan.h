// Plan: what olla hands to a framework. The order to run the ops in and, when the plan
// places memory, a fixed offset for every non-persistent buffer inside one arena.
//
// A Plan is only a claim: simulation/plan_checker.h decides whether it is valid.
// An order-only plan (no offsets) is what a scheduler alone produces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olla/graph/order.h"

namespace olla {

// Where a plan came from, written into the plan file for the record.
struct Provenance {
  std::string olla_version;
  std::string method;
  std::vector<std::pair<std::string, std::string>> options;  // In a stable order.
  std::optional<int64_t> lower_bound_bytes;  // Proven lower bound on peak live bytes.
  std::optional<int64_t> peak_live_bytes;    // The peak the producer measured.
};

// One op of the graph run a second time, later, so that some of its outputs need not
// stay live in between: its users listed in `serves` (and the recomputations listed in
// `feeds`) read this run's copies instead. plan/expand.h turns a graph and a plan's
// recomputations into the graph the plan runs; that graph names the run and its copies
// with the ids below.
struct Recomputation {
  OpId op;                        // The graph's op that runs again.
  std::vector<OpId> serves;       // Graph ops that read the copies instead.
  std::vector<int32_t> feeds;     // Other recomputations (indices) that read them.
  int64_t file_id = 0;            // The run's op id in the plan file.
  std::vector<int64_t> copy_ids;  // Its copies' buffer ids, one per op's allocates.
};

struct Plan {
  // Recomputations (plan format version 3): with any, `order`, `offsets` and
  // `workspace_offsets` index ExpandGraph(graph, recompute) (plan/expand.h), not the
  // graph itself.
  std::vector<Recomputation> recompute;
  Order order;
  // offsets[buffer]: the byte offset in the arena; nullopt for persistent buffers.
  // Empty when the plan is an order only.
  std::vector<std::optional<int64_t>> offsets;
  // workspace_offsets[op]: where the op's workspace (scratch live only while it runs)
  // lies in the arena, for every op with workspace; nullopt for the others. Empty when
  // the plan does not place workspace (an order only, or a version 1 plan).
  std::vector<std::optional<int64_t>> workspace_offsets;
  int64_t arena_bytes = 0;
  int64_t alignment = 1;  // Every offset is a multiple of it.
  Provenance provenance;

  bool has_placement() const { return !offsets.empty(); }
  bool places_workspace() const { return !workspace_offsets.empty(); }
  bool recomputes() const { return !recompute.empty(); }
};

}  // namespace olla
