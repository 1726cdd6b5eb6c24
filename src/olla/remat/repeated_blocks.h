// Repeated blocks: the layers of a transformer (or the blocks of a ResNet stage) that
// compute the same thing on the same shapes, found so that budget mode's search can
// decide for all of them at once (docs/budget.md, "Repeated blocks").
//
// A block is the forward ops of one numbered module: the part of an op's module path
// (its name before the '/', as olla.capture writes it) up to a component that is a
// number ("blocks.3") or ends in one after an underscore ("encoder_layer_3"). Blocks
// whose paths differ only in that number form a family candidate; two of them are
// isomorphic when their forward ops, in id order, have the same types, the same output
// sizes, read the same block-internal outputs (by position) and outside buffers of the
// same sizes, and their outputs are read in the backward pass by as many ops. The
// outermost numbered component is tried first; the ops of a block that matches no
// other try the next one inside it (a Swin stage is not repeated, its blocks are).
//
// Buffers at the same place in isomorphic blocks form a class. Names decide only which
// ops are compared; the structure decides what is tied, so a graph whose names lie
// ties nothing wrong, only less. Graphs without module paths have no classes.
//
// Cost: O(ops + uses) plus sorting the blocks' signatures.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/core/ids.h"
#include "olla/graph/graph.h"

namespace olla {

struct RepeatedBlocks {
  // The buffers at one place in every block of a family, in block order; each class
  // has at least two.
  std::vector<std::vector<BufferId>> classes;
  // Per buffer of the graph: the index of its class, or -1.
  std::vector<int32_t> class_of;
  int32_t families = 0;  // Families of isomorphic blocks.
  // The forward ops of each block in them (id order), family by family, in block
  // order.
  std::vector<std::vector<OpId>> members;
};

RepeatedBlocks FindRepeatedBlocks(const Graph& graph);

}  // namespace olla
