// The picture of a plan: memory over one training step, for the eager order under the
// caching-allocator model (left) and for olla's plan (right), side by side on one
// scale. x is the step, y the address; each buffer is a rectangle over its lifetime at
// its address, coloured by the phase of the op that allocates it (forward, backward,
// optimizer; persistent buffers grey, workspace purple), with its name, size, lifetime
// and producing op in a tooltip. Each side has its live-bytes curve (persistent
// included), a line at its total (reserved bytes; persistent + arena), and the lower
// bound and the peak marked.
//
// Readable at any size: rectangles under a pixel in both directions are not drawn one
// by one; the bytes they hold show in the live-bytes curve, and the caption counts
// them. The output is standalone SVG 1.1 (valid XML: names are escaped). Cost: O(ops +
// buffers).
#pragma once

#include <string>

#include "olla/graph/graph.h"
#include "olla/pipeline/optimize.h"

namespace olla {

// `result` must hold a plan.
std::string OptimizeSvg(const Graph& graph, const OptimizeResult& result);

}  // namespace olla
