// The report of `olla optimize` (and of Python's olla.optimize_graph): what PyTorch
// would need, what olla's plan needs, what each stage saved, what is proven, and how
// long it took. Three forms of the same figures: text for a terminal (golden-tested),
// Markdown for a file (--report), JSON for programs (keys documented in README.md and
// never renamed; bytes are integers, savings fractions).
//
// Savings are measured against the caching allocator's reserved bytes of the eager
// order (persistent included), OLLA's headline measure: reordering alone is olla's order
// through the same allocator; the plan is persistent + arena.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "olla/graph/graph.h"
#include "olla/pipeline/optimize.h"

namespace olla {

std::string OptimizeReportText(const Graph& graph, const OptimizeResult& result);
std::string OptimizeReportMarkdown(const Graph& graph, const OptimizeResult& result);
nlohmann::ordered_json OptimizeReportJson(const Graph& graph,
                                          const OptimizeResult& result);

}  // namespace olla
