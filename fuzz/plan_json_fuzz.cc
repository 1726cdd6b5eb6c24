// libFuzzer target: the plan loader and the checker, against OLLA's Figure 3 graph
// (examples/figure3.json, compiled in). A plan that parses must be judged by the
// checker without crashing, valid or not.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "olla/io/plan_json.h"
#include "olla/simulation/plan_checker.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const olla::Graph graph = olla::fuzz::Figure3();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  olla::StatusOr<olla::Plan> plan = olla::ParsePlan(text, graph);
  if (!plan.ok()) {
    olla::fuzz::ExpectOneLine(plan.status());
    return 0;
  }
  const olla::PlanCheck check = olla::CheckPlan(graph, *plan);
  if (!check.valid) olla::fuzz::ExpectOneLine(check.error);
  return 0;
}
