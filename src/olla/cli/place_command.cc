// olla place INPUT.csv: offsets for a bare placement problem in MiniMalloc's CSV format.
#include <chrono>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/cli/numbers.h"
#include "olla/cli/table_flags.h"
#include "olla/io/file.h"
#include "olla/io/placement_csv.h"
#include "olla/placement/place.h"
#include "olla/report/summaries.h"
#include "olla/simulation/placement_checker.h"

namespace olla::cli {
namespace {

struct PlaceCommandOptions {
  std::string input_path;
  std::string output_path;
  std::optional<int64_t> capacity;
  bool minimize = false;
  bool ignore_offsets = false;
  bool json = false;
  TableFlags table;
};

int RunPlace(const PlaceCommandOptions& options) {
  StatusOr<OptimizeRequest> request = RequestOf(options.table);
  if (!request.ok()) return ReportError(request.status());
  PlaceOptions place;
  place.method = request->options.placement_method;
  place.threads = request->options.threads;
  place.capacity = options.capacity;
  const Budget budget = request->MakeBudget();  // Loading is inside the limit too.
  const auto started = Budget::Clock::now();
  StatusOr<PlacementProblem> problem =
      LoadPlacementCsv(options.input_path, {.ignore_offsets = options.ignore_offsets});
  if (!problem.ok()) return ReportError(problem.status());
  if (Status status = AlignAll(*problem, request->options.alignment); !status.ok())
    return ReportError(status.WithContext(options.input_path));
  StatusOr<Placement> placement = Place(*problem, place, budget);
  if (!placement.ok())
    return ReportError(placement.status().WithContext(options.input_path));
  const std::optional<int64_t>& capacity = options.capacity;
  const PlacementCheck check = CheckPlacement(*problem, placement->offsets);
  if (!check.valid) {
    return ReportError(Internal(fmt::format("{} produced an invalid placement: {}",
                                            placement->method, check.error)));
  }
  const double seconds =
      std::chrono::duration<double>(Budget::Clock::now() - started).count();

  if (!options.output_path.empty()) {
    if (Status status =
            WriteFile(options.output_path, PlacementToCsv(*problem, placement->offsets));
        !status.ok()) {
      return ReportError(status);
    }
  }
  if (options.json) {
    nlohmann::ordered_json json = PlacementSummaryJson(*problem, *placement, seconds);
    if (capacity) {
      json["capacity"] = *capacity;
      json["fits"] = placement->arena_bytes <= *capacity;
    }
    std::cout << json.dump(2) << "\n";
  } else {
    std::cout << PlacementSummaryText(*problem, *placement, seconds);
  }
  if (capacity && placement->arena_bytes > *capacity) {
    const LiveBytesBound bound = ComputeLiveBytesBound(*problem);
    if (bound.bytes > *capacity) {
      std::cerr << fmt::format(
          "olla: nothing fits in {} bytes: {} bytes are live at time {} (proof: the "
          "live-bytes bound)\n",
          *capacity, bound.bytes, bound.time);
    } else if (placement->lower_bound_bytes > *capacity) {
      std::cerr << fmt::format(
          "olla: nothing fits in {} bytes (proof: the exact search tried every canonical "
          "placement)\n",
          *capacity);
    } else {
      // A greedy method that finished has nothing left to try; a search was stopped.
      const std::string why =
          placement->stopped_by == Budget::Limit::kNone
              ? "the method searches no further; --method exact does"
              : fmt::format("stopped by the {} limit", LimitName(placement->stopped_by));
      std::cerr << fmt::format(
          "olla: no placement within {} bytes found by {} (best {}, lower bound {}; "
          "{})\n",
          *capacity, placement->method, placement->arena_bytes,
          placement->lower_bound_bytes, why);
    }
    return kExitNoPlan;
  }
  return kExitOk;
}

}  // namespace

void AddPlaceCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PlaceCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "place",
      "Give every buffer of a placement problem (MiniMalloc CSV: id,lower,upper,size "
      "with "
      "half-open lifetimes; optional alignment and fixed offset columns) an offset, "
      "minimising the arena or fitting a capacity. Every placement is checked before it "
      "is "
      "written.");
  command->add_option("input", options->input_path, "Problem file (.csv, optionally .gz)")
      ->required();
  command->add_option("-o,--output", options->output_path,
                      "Write the buffers with their offsets as CSV");
  auto* capacity = command->add_option(
      "--capacity", options->capacity,
      "Decide whether everything fits in this many bytes (exit 2 if not)");
  capacity->check(IntegerIn(0, INT64_MAX));
  command->add_flag("--minimize", options->minimize, "Minimise the arena (the default)")
      ->excludes(capacity);
  // A problem's sizes are its own: no rounding unless asked.
  OptimizeRequest defaults;
  defaults.options.alignment = 1;
  AddTableFlags(*command, options->table,
                {{"time_limit", ""},
                 {"work_limit", ""},
                 {"placement_method", "--method"},
                 {"alignment", ""},
                 {"threads", ""}},
                defaults);
  command->add_flag("--ignore-offsets", options->ignore_offsets,
                    "Treat an offset column as a placement to ignore, not fixed offsets");
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunPlace(*options); });
}

}  // namespace olla::cli
