#include "olla/io/pins_json.h"

#include <fmt/format.h>

#include "olla/io/file.h"
#include "olla/io/file_ids.h"
#include "olla/io/json_object.h"
#include "olla/io/json_text.h"

namespace olla {

StatusOr<std::vector<std::vector<OpId>>> ParsePins(std::string_view json_text,
                                                   const Graph& graph) {
  OLLA_ASSIGN_OR_RETURN(const JsonValue document, ParseJsonText(json_text));
  JsonObject top(document, "");
  top.FormatHeader("olla.pins", "pins", kPinsFormatVersion);
  const JsonValue* chains = top.Array("chains");
  OLLA_RETURN_IF_ERROR(top.Finish());
  std::unordered_map<int64_t, OpId> ops;
  for (int32_t i = 0; i < graph.num_ops(); ++i)
    ops.emplace(graph.op(OpId(i)).file_id, OpId(i));
  std::vector<std::vector<OpId>> result;
  for (size_t c = 0; c < chains->size(); ++c) {
    const JsonValue& chain = (*chains)[c];
    if (!chain.is_array())
      return InvalidInput(fmt::format("chains[{}]: expected an array of op ids", c));
    std::vector<OpId>& pinned = result.emplace_back();
    for (size_t i = 0; i < chain.size(); ++i) {
      const std::string path = fmt::format("chains[{}][{}]", c, i);
      Status status;
      const std::optional<int64_t> file_id = ReadIntElement(chain[i], path, status);
      if (!file_id) return status;
      auto it = ops.find(*file_id);
      if (it == ops.end())
        return InvalidInput(fmt::format("{}: the graph has no op {}", path, *file_id));
      pinned.push_back(it->second);
    }
  }
  return result;
}

StatusOr<std::vector<std::vector<OpId>>> LoadPins(const std::string& path,
                                                  const Graph& graph) {
  OLLA_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  StatusOr<std::vector<std::vector<OpId>>> pins = ParsePins(text, graph);
  if (!pins.ok()) return pins.status().WithContext(path);
  return pins;
}

}  // namespace olla
