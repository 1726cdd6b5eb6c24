// libFuzzer target: the pins loader against Figure 3's graph; pins that parse are
// handed to the scheduler, which must either honour them or name the cycle.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "olla/io/pins_json.h"
#include "olla/schedule/scheduler.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const olla::Graph graph = olla::fuzz::Figure3();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto pins = olla::ParsePins(text, graph);
  if (!pins.ok()) {
    olla::fuzz::ExpectOneLine(pins.status());
    return 0;
  }
  olla::ScheduleOptions options;
  options.pins = *pins;
  auto result = olla::Schedule(graph, options, olla::Budget::OfWork(10000));
  if (!result.ok()) olla::fuzz::ExpectOneLine(result.status());
  return 0;
}
