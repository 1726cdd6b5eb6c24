// olla place INPUT.csv: offsets for a bare placement problem in MiniMalloc's CSV format.
#include <chrono>
#include <iostream>
#include <numeric>

#include <fmt/format.h>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/io/file.h"
#include "olla/io/placement_csv.h"
#include "olla/io/report.h"
#include "olla/placement/best_of.h"
#include "olla/placement/exact.h"
#include "olla/placement/greedy.h"
#include "olla/placement/ilp.h"
#include "olla/placement/sections.h"
#include "olla/simulation/placement_checker.h"

namespace olla::cli {
namespace {

struct PlaceOptions {
  std::string input_path;
  std::string output_path;
  std::string method = "auto";
  std::optional<int64_t> capacity;
  bool minimize = false;
  int64_t align = 1;
  bool ignore_offsets = false;
  double time_limit_seconds = 30.0;
  bool json = false;
};

// Both cores: the greedy variants are independent.
constexpr int kThreads = 2;

// The exact search keeps, per section, the buffers live in it: memory grows with the
// sum of the buffers' spans in sections (pangu_2.6B's 13 M take about 0.7 GB in all, two
// searches running). Above this `auto` stays with the greedy placers (S_1 has 49 M and
// Y_1 193 M; greedy is within 0.35 % of their bounds).
constexpr int64_t kMaxExactSectionSpans = 16'000'000;

ExactOptions ExactOptionsFrom(const PlaceOptions& options) {
  ExactOptions exact;
  exact.time_limit_seconds = options.time_limit_seconds;
  exact.threads = kThreads;
  return exact;
}

bool UseExact(const PlaceOptions& options, const PlacementProblem& problem) {
  if (HasFixedOffsets(problem)) return false;
  return options.method == "exact" ||
         (options.method == "auto" &&
          CountSectionSpans(problem) <= kMaxExactSectionSpans);
}

std::unique_ptr<Placer> MakeGreedyPlacer(const std::string& method,
                                         const PlacementProblem& problem) {
  std::vector<FitPolicy> fits = {FitPolicy::kBestFit, FitPolicy::kFirstFit};
  if (method == "best-fit") fits = {FitPolicy::kBestFit};
  if (method == "first-fit") fits = {FitPolicy::kFirstFit};
  return std::make_unique<BestOfPlacer>(method, GreedyPortfolio(problem, fits), kThreads);
}

// Fitting a capacity: the greedy placers first, then (where the method allows) the
// exact search, which either finds a placement or proves there is none.
Placement FitCapacity(const PlaceOptions& options, const PlacementProblem& problem,
                      Feasibility& feasibility) {
  const auto started = std::chrono::steady_clock::now();
  Placement placement = MakeGreedyPlacer(options.method, problem)->Place(problem);
  feasibility = placement.arena_bytes <= *options.capacity ? Feasibility::kFits
                                                           : Feasibility::kUnknown;
  if (feasibility == Feasibility::kFits || !UseExact(options, problem) ||
      placement.lower_bound_bytes > *options.capacity) {
    return placement;  // Fits already, no search allowed, or the bound refutes it.
  }
  // The time limit covers the greedy placers too.
  ExactOptions exact = ExactOptionsFrom(options);
  exact.time_limit_seconds -=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (exact.time_limit_seconds <= 0) return placement;
  const CapacitySearch search = FitUnderCapacity(problem, *options.capacity, exact);
  feasibility = search.feasibility;
  if (search.feasibility == Feasibility::kFits) {
    placement.offsets = search.offsets;
    placement.arena_bytes = ArenaOf(problem, placement.offsets);
    placement.method = "exact";
  }
  return placement;
}

Placement Minimize(const PlaceOptions& options, const PlacementProblem& problem) {
  if (options.method == "ilp") {
    IlpOptions ilp;
    ilp.time_limit_seconds = options.time_limit_seconds;
    ilp.threads = kThreads;
    return IlpPlacer(ilp).Place(problem);
  }
  if (UseExact(options, problem))
    return ExactPlacer(ExactOptionsFrom(options)).Place(problem);
  return MakeGreedyPlacer(options.method, problem)->Place(problem);
}

// The buffers with fixed offsets must not collide among themselves: that is the
// input's fault, not the placer's.
Status CheckFixedBuffers(const PlacementProblem& problem) {
  PlacementProblem fixed;
  std::vector<int64_t> offsets;
  for (const PlacementBuffer& b : problem.buffers) {
    if (!b.fixed_offset) continue;
    fixed.buffers.push_back(b);
    offsets.push_back(*b.fixed_offset);
  }
  const PlacementCheck check = CheckPlacement(fixed, offsets);
  if (!check.valid) return InvalidInput("fixed offsets collide: " + check.error);
  return OkStatus();
}

int RunPlace(const PlaceOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  StatusOr<PlacementProblem> problem =
      LoadPlacementCsv(options.input_path, {.ignore_offsets = options.ignore_offsets});
  if (!problem.ok()) return ReportError(problem.status());
  for (PlacementBuffer& b : problem->buffers)
    b.alignment = std::lcm(b.alignment, options.align);
  if (Status status = ValidatePlacementProblem(*problem); !status.ok()) {
    return ReportError(status.WithContext(options.input_path));
  }
  if (Status status = CheckFixedBuffers(*problem); !status.ok()) {
    return ReportError(status.WithContext(options.input_path));
  }

  Feasibility feasibility = Feasibility::kUnknown;
  Placement placement = options.capacity ? FitCapacity(options, *problem, feasibility)
                                         : Minimize(options, *problem);
  const PlacementCheck check = CheckPlacement(*problem, placement.offsets);
  if (!check.valid) {
    return ReportError(Internal(fmt::format("{} produced an invalid placement: {}",
                                            placement.method, check.error)));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (!options.output_path.empty()) {
    if (Status status =
            WriteFile(options.output_path, PlacementToCsv(*problem, placement.offsets));
        !status.ok()) {
      return ReportError(status);
    }
  }
  if (options.json) {
    nlohmann::ordered_json json = PlacementSummaryJson(*problem, placement, seconds);
    if (options.capacity) {
      json["capacity"] = *options.capacity;
      json["fits"] = placement.arena_bytes <= *options.capacity;
    }
    std::cout << json.dump(2) << "\n";
  } else {
    std::cout << PlacementSummaryText(*problem, placement, seconds);
  }
  if (options.capacity && placement.arena_bytes > *options.capacity) {
    if (placement.lower_bound_bytes > *options.capacity) {
      const LiveBytesBound bound = ComputeLiveBytesBound(*problem);
      std::cerr << fmt::format(
          "olla: nothing fits in {} bytes: {} bytes are live at time {} (proof: the "
          "live-bytes "
          "bound)\n",
          *options.capacity, bound.bytes, bound.time);
    } else {
      std::cerr << fmt::format(
          "olla: no placement within {} bytes found by {} (best {}, lower bound {})\n",
          *options.capacity, placement.method, placement.arena_bytes,
          placement.lower_bound_bytes);
    }
    return kExitNoPlan;
  }
  return kExitOk;
}

}  // namespace

void AddPlaceCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PlaceOptions>();
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
  command->add_option("--method", options->method, "Placement method")
      ->check(CLI::IsMember({"auto", "best-fit", "first-fit", "exact", "ilp"}))
      ->capture_default_str();
  auto* capacity = command->add_option(
      "--capacity", options->capacity,
      "Decide whether everything fits in this many bytes (exit 2 if not)");
  capacity->check(CLI::NonNegativeNumber);
  command->add_flag("--minimize", options->minimize, "Minimise the arena (the default)")
      ->excludes(capacity);
  command
      ->add_option("--align", options->align, "Align every offset to a multiple of this")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--time-limit", options->time_limit_seconds,
                   "Wall-clock seconds for the search (greedy start included)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_flag("--ignore-offsets", options->ignore_offsets,
                    "Treat an offset column as a placement to ignore, not fixed offsets");
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunPlace(*options); });
}

}  // namespace olla::cli
