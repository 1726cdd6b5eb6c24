#include "olla/io/plan_json.h"

#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "olla/core/check.h"
#include "olla/io/file.h"
#include "olla/io/file_ids.h"
#include "olla/io/json_object.h"
#include "olla/io/json_text.h"
#include "olla/plan/expand.h"

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

// The "recompute" array: {"op": id, "id": the run's op id, "copies": [buffer ids, one
// per output of op], "serves": [ids of graph ops or of other runs]}.
Status ReadRecompute(const JsonValue& array, const Graph& graph, Plan& plan) {
  const auto ops = IndexByFileId<OpId>(graph.ops());
  std::unordered_map<int64_t, int32_t> runs;
  std::vector<const JsonValue*> serves(array.size());
  plan.recompute.resize(array.size());
  for (size_t i = 0; i < array.size(); ++i) {
    JsonObject entry(array[i], fmt::format("recompute[{}]", i));
    Recomputation& r = plan.recompute[i];
    const int64_t op = entry.Int("op");
    r.file_id = entry.Int("id");
    const JsonValue* copies = entry.Array("copies");
    serves[i] = entry.Array("serves");
    OLLA_RETURN_IF_ERROR(entry.Finish());
    auto it = ops.find(op);
    if (it == ops.end())
      return InvalidInput(
          fmt::format("{}: the graph has no op {}", entry.PathOf("op"), op));
    r.op = it->second;
    if (!runs.emplace(r.file_id, static_cast<int32_t>(i)).second)
      return InvalidInput(
          fmt::format("{}: op id {} is taken", entry.PathOf("id"), r.file_id));
    Status status;
    for (size_t k = 0; k < copies->size(); ++k) {
      const auto id = ReadIntElement(
          (*copies)[k], fmt::format("{}[{}]", entry.PathOf("copies"), k), status);
      if (!id) return status;
      r.copy_ids.push_back(*id);
    }
  }
  for (size_t i = 0; i < array.size(); ++i) {
    Status status;
    for (size_t k = 0; k < serves[i]->size(); ++k) {
      const std::string path = fmt::format("recompute[{}].serves[{}]", i, k);
      const auto id = ReadIntElement((*serves[i])[k], path, status);
      if (!id) return status;
      if (auto run = runs.find(*id); run != runs.end()) {
        plan.recompute[i].feeds.push_back(run->second);
      } else if (auto op = ops.find(*id); op != ops.end()) {
        plan.recompute[i].serves.push_back(op->second);
      } else {
        return InvalidInput(
            fmt::format("{}: no op {} in the graph or the recomputations", path, *id));
      }
    }
  }
  return OkStatus();
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
  const JsonValue* recompute = nullptr;
  if (version >= 3) {
    recompute = top.OptionalArray("recompute");
  } else if (top.Has("recompute")) {
    top.Fail(top.PathOf("recompute"), "needs plan format version 3");
  }
  const JsonValue* provenance = top.OptionalObject("provenance");
  OLLA_RETURN_IF_ERROR(top.Finish());
  // With recomputations, ids name the expanded graph's ops and buffers.
  std::optional<ExpandedGraph> expanded;
  if (recompute != nullptr) {
    OLLA_RETURN_IF_ERROR(ReadRecompute(*recompute, graph, plan));
    StatusOr<ExpandedGraph> made = ExpandGraph(graph, plan.recompute);
    if (!made.ok()) return made.status();
    expanded = std::move(made).value();
  }
  const Graph& runs = expanded ? expanded->graph : graph;
  OLLA_RETURN_IF_ERROR(ReadOrder(*order, runs, plan.order));
  if (offsets != nullptr) OLLA_RETURN_IF_ERROR(ReadOffsets(*offsets, runs, plan));
  if (workspace != nullptr) OLLA_RETURN_IF_ERROR(ReadWorkspace(*workspace, runs, plan));
  OLLA_RETURN_IF_ERROR(ReadProvenance(provenance, plan.provenance));
  return plan;
}

StatusOr<Plan> LoadPlan(const std::string& path, const Graph& graph) {
  OLLA_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  StatusOr<Plan> plan = ParsePlan(text, graph);
  if (!plan.ok()) return plan.status().WithContext(path);
  return plan;
}

std::string PlanToJson(const Graph& original, const Plan& plan) {
  std::optional<ExpandedGraph> expanded;
  if (plan.recomputes()) {
    StatusOr<ExpandedGraph> made = ExpandGraph(original, plan.recompute);
    OLLA_CHECK(made.ok(), "a plan to write has invalid recomputations");
    expanded = std::move(made).value();
  }
  const Graph& graph = expanded ? expanded->graph : original;
  std::string out = fmt::format(
      "{{\n  \"format\": \"olla.plan\",\n  \"version\": {},\n  \"graph\": {},\n",
      plan.recomputes() ? 3 : 2, JsonQuote(graph.name()));
  if (plan.recomputes()) {
    out += "  \"recompute\": [";
    for (size_t i = 0; i < plan.recompute.size(); ++i) {
      const Recomputation& r = plan.recompute[i];
      out += fmt::format("{}\n    {{\"op\": {}, \"id\": {}, \"copies\": [", i ? "," : "",
                         original.op(r.op).file_id, r.file_id);
      for (size_t k = 0; k < r.copy_ids.size(); ++k)
        out += fmt::format("{}{}", k ? ", " : "", r.copy_ids[k]);
      out += "], \"serves\": [";
      bool first = true;
      for (OpId user : r.serves) {
        out += fmt::format("{}{}", first ? "" : ", ", original.op(user).file_id);
        first = false;
      }
      for (int32_t j : r.feeds) {
        out += fmt::format("{}{}", first ? "" : ", ",
                           plan.recompute[static_cast<size_t>(j)].file_id);
        first = false;
      }
      out += "]}";
    }
    out += "\n  ],\n";
  }
  out += "  \"order\": [";
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
