// MiniMalloc's CSV format for placement problems: a header naming the columns, then
// one buffer per line. Required columns: id (any text without commas), lower, upper
// (half-open lifetime [lower, upper)), size. Optional: alignment, offset (a fixed
// offset). Columns may come in any order; unknown columns are errors. Errors name the
// file's line and column.
//
// Writing adds (or fills) the offset column: id,lower,upper,size[,alignment],offset.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "olla/core/status.h"
#include "olla/placement/problem.h"

namespace olla {

struct PlacementCsvOptions {
  // Drops the offset column: its values are a placement to compare with (IREE's files
  // record IREE's own), not constraints.
  bool ignore_offsets = false;
};

StatusOr<PlacementProblem> ParsePlacementCsv(std::string_view text,
                                             const PlacementCsvOptions& options = {});
StatusOr<PlacementProblem> LoadPlacementCsv(const std::string& path,
                                            const PlacementCsvOptions& options = {});

std::string PlacementToCsv(const PlacementProblem& problem,
                           const std::vector<int64_t>& offsets);

}  // namespace olla
