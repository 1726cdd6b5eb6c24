#include "olla/io/placement_csv.h"

#include <array>
#include <charconv>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "olla/io/file.h"

namespace olla {
namespace {

enum Column { kId, kLower, kUpper, kSize, kAlignment, kOffset, kNumColumns };
constexpr std::array<const char*, kNumColumns> kColumnNames = {
    "id", "lower", "upper", "size", "alignment", "offset"};
constexpr int kRequiredColumns = 4;  // id, lower, upper, size.

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t begin = 0;
  while (true) {
    const size_t comma = line.find(',', begin);
    fields.push_back(Trim(line.substr(begin, comma - begin)));
    if (comma == std::string_view::npos) return fields;
    begin = comma + 1;
  }
}

}  // namespace

StatusOr<PlacementProblem> ParsePlacementCsv(std::string_view text,
                                             const PlacementCsvOptions& options) {
  size_t line_number = 0;
  size_t position = 0;
  auto next_line = [&]() -> std::optional<std::string_view> {
    while (position < text.size()) {
      const size_t newline = text.find('\n', position);
      std::string_view line = text.substr(position, newline - position);
      position = newline == std::string_view::npos ? text.size() : newline + 1;
      ++line_number;
      if (!Trim(line).empty()) return line;
    }
    return std::nullopt;
  };

  const std::optional<std::string_view> header = next_line();
  if (!header)
    return InvalidInput("empty CSV: expected a header such as id,lower,upper,size");
  std::array<int, kNumColumns> column_of;  // Column -> field index, -1 when absent.
  column_of.fill(-1);
  const std::vector<std::string_view> names = SplitFields(*header);
  for (size_t field = 0; field < names.size(); ++field) {
    int column = -1;
    for (int c = 0; c < kNumColumns; ++c) {
      if (names[field] == kColumnNames[static_cast<size_t>(c)]) column = c;
    }
    if (column < 0) {
      return InvalidInput(
          fmt::format("line {}: unknown column '{}' (expected id, lower, "
                      "upper, size and optionally alignment, offset)",
                      line_number, names[field]));
    }
    if (column_of[static_cast<size_t>(column)] >= 0) {
      return InvalidInput(
          fmt::format("line {}: column '{}' appears twice", line_number, names[field]));
    }
    column_of[static_cast<size_t>(column)] = static_cast<int>(field);
  }
  for (int c = 0; c < kRequiredColumns; ++c) {
    if (column_of[static_cast<size_t>(c)] < 0) {
      return InvalidInput(
          fmt::format("line {}: missing column '{}' (the header needs id, "
                      "lower, upper, size)",
                      line_number, kColumnNames[static_cast<size_t>(c)]));
    }
  }

  PlacementProblem problem;
  std::unordered_map<std::string, size_t> line_of_id;
  while (const std::optional<std::string_view> line = next_line()) {
    const std::vector<std::string_view> fields = SplitFields(*line);
    if (fields.size() != names.size()) {
      return InvalidInput(fmt::format("line {}: {} fields, the header has {}",
                                      line_number, fields.size(), names.size()));
    }
    std::array<std::optional<int64_t>, kNumColumns> values;
    for (int c = kId + 1; c < kNumColumns; ++c) {  // The id is any text.
      const int field = column_of[static_cast<size_t>(c)];
      if (field < 0) continue;
      const std::string_view raw = fields[static_cast<size_t>(field)];
      int64_t value = 0;
      const auto [end, error] =
          std::from_chars(raw.data(), raw.data() + raw.size(), value);
      if (error != std::errc() || end != raw.data() + raw.size() || raw.empty()) {
        return InvalidInput(
            fmt::format("line {}: column '{}': expected an integer, got '{}'",
                        line_number, kColumnNames[static_cast<size_t>(c)], raw));
      }
      values[static_cast<size_t>(c)] = value;
    }
    PlacementBuffer buffer;
    buffer.id = std::string(fields[static_cast<size_t>(column_of[kId])]);
    if (buffer.id.empty())
      return InvalidInput(fmt::format("line {}: empty id", line_number));
    buffer.start = *values[kLower];
    buffer.end = *values[kUpper];
    buffer.size = *values[kSize];
    if (values[kAlignment]) buffer.alignment = *values[kAlignment];
    if (values[kOffset] && !options.ignore_offsets) buffer.fixed_offset = values[kOffset];
    const auto [previous, inserted] = line_of_id.emplace(buffer.id, line_number);
    if (!inserted) {
      return InvalidInput(fmt::format("line {}: duplicate id {} (also on line {})",
                                      line_number, buffer.id, previous->second));
    }
    Status status = ValidatePlacementProblem(PlacementProblem{{buffer}});
    if (!status.ok()) return status.WithContext(fmt::format("line {}", line_number));
    problem.buffers.push_back(buffer);
  }
  OLLA_RETURN_IF_ERROR(ValidatePlacementProblem(problem));
  return problem;
}

StatusOr<PlacementProblem> LoadPlacementCsv(const std::string& path,
                                            const PlacementCsvOptions& options) {
  OLLA_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  StatusOr<PlacementProblem> problem = ParsePlacementCsv(text, options);
  if (!problem.ok()) return problem.status().WithContext(path);
  return problem;
}

std::string PlacementToCsv(const PlacementProblem& problem,
                           const std::vector<int64_t>& offsets) {
  bool aligned = false;
  for (const PlacementBuffer& b : problem.buffers) aligned = aligned || b.alignment != 1;
  std::string out =
      aligned ? "id,lower,upper,size,alignment,offset\n" : "id,lower,upper,size,offset\n";
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const PlacementBuffer& b = problem.buffers[i];
    out += fmt::format("{},{},{},{},", b.id, b.start, b.end, b.size);
    if (aligned) out += fmt::format("{},", b.alignment);
    out += fmt::format("{}\n", offsets[i]);
  }
  return out;
}

}  // namespace olla
