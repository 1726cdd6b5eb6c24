// libFuzzer target: the placement CSV reader; a small problem that parses is placed
// (the greedy portfolio and a short exact search) and the placement checked.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "olla/io/placement_csv.h"
#include "olla/placement/place.h"
#include "olla/simulation/placement_checker.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  olla::StatusOr<olla::PlacementProblem> problem = olla::ParsePlacementCsv(text);
  if (!problem.ok()) {
    olla::fuzz::ExpectOneLine(problem.status());
    return 0;
  }
  if (problem->size() > olla::fuzz::kMaxOpsToRun) return 0;
  olla::PlaceOptions options;
  options.threads = 1;
  auto placement = olla::Place(*problem, options, olla::Budget::OfWork(20000));
  if (!placement.ok()) {
    olla::fuzz::ExpectOneLine(placement.status());
    return 0;
  }
  if (!olla::CheckPlacement(*problem, placement->offsets).valid) std::abort();
  return 0;
}
