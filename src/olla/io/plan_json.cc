#include "olla/io/plan_json.h"

#include <unordered_map>

#include <fmt/format.h>

#include "olla/io/file.h"
#include "olla/io/file_ids.h"
#include "olla/io/json_object.h"
#include "olla/io/json_text.h"

namespace olla {
namespace {

Status ReadOrder(const JsonValue& array, const Graph& graph, Order& order) {
  const auto ops = IndexByFileId<OpId>(graph.ops());
  order.ops.reserve(array.size());
  Status status;
  for (size_t i = 0; i < array.size(); ++i) {
    const std::string path = fmt::format("order[{}]", i);
    const std::optional<int64_t> file_id = ReadIntElement(array[i], path, status);
    if (!file_id) return status;
    auto it = ops.find(*file_id);
    if (it == ops.end())
      return InvalidInput(fmt::format("{}: the graph has no op {}", path, *file_id));
    order.ops.push_back(it->second);
  }
  return OkStatus();
}

// Reads `array`'s entries {"<key>": file id, "offset": bytes} into `offsets`, indexed
// like `items` (the graph's buffers or ops, a `kind`); `describe` names a slot given
// twice.
template <typename IdType, typename Items, typename Describe>
Status ReadOffsetEntries(const JsonValue& array, const std::string& array_name,
                         const char* key, const char* kind, const Items& items,
                         Describe describe,
                         std::vector<std::optional<int64_t>>& offsets) {
  const auto index = IndexByFileId<IdType>(items);
  offsets.assign(items.size(), std::nullopt);
  for (size_t i = 0; i < array.size(); ++i) {
    JsonObject entry(array[i], fmt::format("{}[{}]", array_name, i));
    const int64_t file_id = entry.Int(key);
    const int64_t offset = entry.Int("offset");
    OLLA_RETURN_IF_ERROR(entry.Finish());
    auto it = index.find(file_id);
    if (it == index.end()) {
      return InvalidInput(
          fmt::format("{}: the graph has no {} {}", entry.PathOf(key), kind, file_id));
    }
    std::optional<int64_t>& slot = offsets[it->second.index()];
    if (slot) {
      return InvalidInput(fmt::format("{}: {} is given two offsets", entry.PathOf(key),
                                      describe(it->second)));
    }
    slot = offset;
  }
  return OkStatus();
}

Status ReadOffsets(const JsonValue& array, const Graph& graph, Plan& plan) {
  return ReadOffsetEntries<BufferId>(
      array, "offsets", "buffer", "buffer", graph.buffers(),
      [&](BufferId id) { return graph.Describe(id); }, plan.offsets);
}

Status ReadWorkspace(const JsonValue& array, const Graph& graph, Plan& plan) {
  return ReadOffsetEntries<OpId>(
      array, "workspace", "op", "op", graph.ops(),
      [&](OpId id) { return "the workspace of " + graph.Describe(id); },
      plan.workspace_offsets);
}

Status ReadProvenance(const JsonValue* value, Provenance& provenance) {
  if (value == nullptr) return OkStatus();
  JsonObject object(*value, "provenance");
  provenance.olla_version = object.String("olla_version", "");
  provenance.method = object.String("method", "");
  if (object.Has("lower_bound_bytes"))
    provenance.lower_bound_bytes = object.Int("lower_bound_bytes");
  if (object.Has("peak_live_bytes"))
    provenance.peak_live_bytes = object.Int("peak_live_bytes");
  if (const JsonValue* options = object.OptionalObject("options")) {
    for (const auto& [key, option] : options->items()) {
      provenance.options.emplace_back(
          key, option.is_string() ? option.get<std::string>() : option.dump());
    }
  }
  return object.Finish();
}

}  // namespace

StatusOr<Plan> ParsePlan(std::string_view json_text, const Graph& graph) {
  OLLA_ASSIGN_OR_RETURN(const JsonValue document, ParseJsonText(json_text));
  JsonObject top(document, "");
  const int64_t version =
      top.FormatHeader("olla.plan", "plan", kOldestPlanFormatVersion, kPlanFormatVersion);
  top.Ignore("graph");
  const JsonValue* order = top.Array("order");
  const JsonValue* offsets = top.OptionalArray("offsets");
  // Version 2 places workspace beside the buffers; version 1 left it out of the arena.
  const JsonValue* workspace = nullptr;
  if (offsets != nullptr && version >= 2) {
    workspace = top.Array("workspace");
  } else if (top.Has("workspace")) {
    top.Fail(top.PathOf("workspace"),
             version >= 2 ? "needs an offsets array" : "needs plan format version 2");
  }
  Plan plan;
  if (offsets != nullptr) {
    plan.arena_bytes = top.Int("arena_bytes");
    plan.alignment = top.Int("alignment", 1);
  } else if (top.Has("arena_bytes") || top.Has("alignment")) {
    top.Fail("", "arena_bytes and alignment need an offsets array");
  }
  const JsonValue* provenance = top.OptionalObject("provenance");
  OLLA_RETURN_IF_ERROR(top.Finish());
  OLLA_RETURN_IF_ERROR(ReadOrder(*order, graph, plan.order));
  if (offsets != nullptr) OLLA_RETURN_IF_ERROR(ReadOffsets(*offsets, graph, plan));
  if (workspace != nullptr) OLLA_RETURN_IF_ERROR(ReadWorkspace(*workspace, graph, plan));
  OLLA_RETURN_IF_ERROR(ReadProvenance(provenance, plan.provenance));
  return plan;
}

StatusOr<Plan> LoadPlan(const std::string& path, const Graph& graph) {
  OLLA_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  StatusOr<Plan> plan = ParsePlan(text, graph);
  if (!plan.ok()) return plan.status().WithContext(path);
  return plan;
}

std::string PlanToJson(const Graph& graph, const Plan& plan) {
  std::string out = fmt::format(
      "{{\n  \"format\": \"olla.plan\",\n  \"version\": {},\n  \"graph\": {},\n  "
      "\"order\": [",
      kPlanFormatVersion, JsonQuote(graph.name()));
  for (int32_t s = 0; s < plan.order.size(); ++s) {
    out += s == 0 ? "" : ", ";
    out += std::to_string(graph.op(plan.order.ops[static_cast<size_t>(s)]).file_id);
  }
  out += "],\n";
  if (plan.has_placement()) {
    out += fmt::format("  \"alignment\": {},\n  \"arena_bytes\": {},\n  \"offsets\": [",
                       plan.alignment, plan.arena_bytes);
    bool first = true;
    for (int32_t b = 0; b < graph.num_buffers(); ++b) {
      const std::optional<int64_t>& offset = plan.offsets[static_cast<size_t>(b)];
      if (!offset) continue;
      out += first ? "\n    " : ",\n    ";
      first = false;
      out += fmt::format("{{\"buffer\": {}, \"offset\": {}}}",
                         graph.buffer(BufferId(b)).file_id, *offset);
    }
    out += first ? "],\n" : "\n  ],\n";
    out += "  \"workspace\": [";
    first = true;
    for (int32_t o = 0; plan.places_workspace() && o < graph.num_ops(); ++o) {
      const std::optional<int64_t>& offset =
          plan.workspace_offsets[static_cast<size_t>(o)];
      if (!offset) continue;
      out += first ? "\n    " : ",\n    ";
      first = false;
      out += fmt::format("{{\"op\": {}, \"offset\": {}}}", graph.op(OpId(o)).file_id,
                         *offset);
    }
    out += first ? "],\n" : "\n  ],\n";
  }
  const Provenance& p = plan.provenance;
  out += fmt::format("  \"provenance\": {{\"olla_version\": {}, \"method\": {}",
                     JsonQuote(p.olla_version), JsonQuote(p.method));
  if (p.lower_bound_bytes)
    out += fmt::format(", \"lower_bound_bytes\": {}", *p.lower_bound_bytes);
  if (p.peak_live_bytes)
    out += fmt::format(", \"peak_live_bytes\": {}", *p.peak_live_bytes);
  out += ", \"options\": {";
  for (size_t i = 0; i < p.options.size(); ++i) {
    out += fmt::format("{}{}: {}", i == 0 ? "" : ", ", JsonQuote(p.options[i].first),
                       JsonQuote(p.options[i].second));
  }
  out += "}}\n}\n";
  return out;
}

Status SavePlan(const Graph& graph, const Plan& plan, const std::string& path) {
  return WriteFile(path, PlanToJson(graph, plan));
}

}  // namespace olla
