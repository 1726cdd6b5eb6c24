#include "olla/io/graph_json.h"

#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "olla/core/limits.h"
#include "olla/io/file.h"
#include "olla/io/graph_json_fast.h"
#include "olla/io/json_object.h"
#include "olla/io/json_text.h"

namespace olla {
namespace {

// Reads the string field `key` as one of `names` (an enum's names, indexed by its
// value); records an error listing the allowed names when it is none of them.
template <typename Enum, size_t N>
Enum ReadEnum(JsonObject& object, std::string_view key,
              const std::array<const char*, N>& names, Enum fallback) {
  const std::string name = object.String(key, names[static_cast<size_t>(fallback)]);
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  object.Fail(object.PathOf(key), fmt::format("unknown value '{}' (expected one of: {})",
                                              name, fmt::join(names, ", ")));
  return fallback;
}

// Maps the ids written in the file to dense indices, rejecting duplicates.
class IdMap {
 public:
  IdMap(const char* what, const char* array) : what_(what), array_(array) {}

  Status Add(int64_t file_id, int32_t index, const std::string& path) {
    if (file_id < 0)
      return InvalidInput(fmt::format("{}: negative {} id {}", path, what_, file_id));
    auto [it, inserted] = index_.emplace(file_id, index);
    if (!inserted) {
      return InvalidInput(fmt::format("{}: duplicate {} id {} (also at {}[{}])", path,
                                      what_, file_id, array_, it->second));
    }
    return OkStatus();
  }

  // The index of `file_id`, or an error naming `path` when there is none.
  StatusOr<int32_t> Find(int64_t file_id, const std::string& path) const {
    auto it = index_.find(file_id);
    if (it == index_.end())
      return InvalidInput(fmt::format("{}: no {} with id {}", path, what_, file_id));
    return it->second;
  }

  void Reserve(size_t n) { index_.reserve(n); }

 private:
  const char* what_;
  const char* array_;
  std::unordered_map<int64_t, int32_t> index_;
};

// Reads an array of ids at `path` and maps each through `ids`.
template <typename IdType>
Status ReadIdList(const JsonValue* array, const std::string& path, const IdMap& ids,
                  std::vector<IdType>& out) {
  if (array == nullptr) return OkStatus();
  out.reserve(array->size());
  Status status;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string element_path = fmt::format("{}[{}]", path, i);
    const std::optional<int64_t> file_id =
        ReadIntElement((*array)[i], element_path, status);
    if (!file_id) return status;
    OLLA_ASSIGN_OR_RETURN(const int32_t index, ids.Find(*file_id, element_path));
    out.push_back(IdType(index));
  }
  return OkStatus();
}

StatusOr<Buffer> ReadBuffer(const JsonValue& element, size_t i, IdMap& ids) {
  JsonObject object(element, fmt::format("buffers[{}]", i));
  Buffer buffer;
  buffer.file_id = object.Int("id");
  buffer.name = object.String("name", "");
  buffer.size = object.Int("size");
  buffer.kind = ReadEnum(object, "kind", kBufferKindNames, BufferKind::kActivation);
  buffer.persistent = object.Bool("persistent", false);
  buffer.output = object.Bool("output", false);
  buffer.dtype = object.String("dtype", "");
  if (const JsonValue* shape = object.OptionalArray("shape")) {
    Status status;
    for (size_t d = 0; d < shape->size() && status.ok(); ++d) {
      const auto dim = ReadIntElement(
          (*shape)[d], fmt::format("{}.shape[{}]", object.path(), d), status);
      if (dim) buffer.shape.push_back(*dim);
    }
    OLLA_RETURN_IF_ERROR(status);
  }
  object.Ignore("metadata");
  OLLA_RETURN_IF_ERROR(object.Finish());
  if (buffer.size < 0) {
    return InvalidInput(
        fmt::format("{}.size: negative size {}", object.path(), buffer.size));
  }
  OLLA_RETURN_IF_ERROR(
      ids.Add(buffer.file_id, static_cast<int32_t>(i), object.PathOf("id")));
  return buffer;
}

StatusOr<Op> ReadOp(const JsonValue& element, size_t i, const IdMap& buffer_ids,
                    IdMap& op_ids) {
  JsonObject object(element, fmt::format("ops[{}]", i));
  Op op;
  op.file_id = object.Int("id");
  op.name = object.String("name", "");
  op.type = object.String("type", "");
  op.phase = ReadEnum(object, "phase", kPhaseNames, Phase::kForward);
  op.workspace = object.Int("workspace", 0);
  op.cost = object.OptionalNumber("cost");
  const JsonValue* allocates = object.OptionalArray("allocates");
  const JsonValue* uses = object.OptionalArray("uses");
  const JsonValue* writes = object.OptionalArray("writes");
  op.random = object.Bool("random", false);
  object.Ignore("metadata");
  OLLA_RETURN_IF_ERROR(object.Finish());
  if (op.workspace < 0) {
    return InvalidInput(
        fmt::format("{}.workspace: negative workspace {}", object.path(), op.workspace));
  }
  if (op.cost && !(*op.cost >= 0 && *op.cost <= kMaxOpSeconds)) {
    return InvalidInput(fmt::format("{}.cost: {} is not a number of seconds in [0, {}]",
                                    object.path(), *op.cost, kMaxOpSeconds));
  }
  OLLA_RETURN_IF_ERROR(
      op_ids.Add(op.file_id, static_cast<int32_t>(i), object.PathOf("id")));
  OLLA_RETURN_IF_ERROR(
      ReadIdList(allocates, object.PathOf("allocates"), buffer_ids, op.allocates));
  OLLA_RETURN_IF_ERROR(ReadIdList(uses, object.PathOf("uses"), buffer_ids, op.uses));
  OLLA_RETURN_IF_ERROR(
      ReadIdList(writes, object.PathOf("writes"), buffer_ids, op.writes));
  return op;
}

// The buffers and ops of a graph file as the parser streams them (ParseJsonStreaming),
// read one element at a time, with the errors a whole document would give, in the same
// order: the first error of the buffers, else of the ops. Ops that come before the
// buffers (a file that lists "ops" first) wait as documents until the end.
class GraphElements {
 public:
  void StartArray(std::string_view key) {
    bool& started = key == "buffers" ? buffers_started_ : ops_started_;
    if (started && repeated_.empty()) repeated_ = key;
    started = true;
  }

  void Add(std::string_view key, size_t index, JsonValue&& element) {
    if (key == "buffers") {
      if (!buffers_status_.ok()) return;
      StatusOr<Buffer> buffer = ReadBuffer(element, index, buffer_ids_);
      if (buffer.ok()) {
        buffers_.push_back(std::move(buffer).value());
      } else {
        buffers_status_ = buffer.status();
      }
    } else if (buffers_started_) {
      AddOp(index, element);
    } else {
      waiting_ops_.push_back(std::move(element));
    }
  }

  // After the whole text parsed: the ops that waited, then the first error.
  Status Finish() {
    if (!repeated_.empty())
      return InvalidInput(fmt::format("{}: appears twice in the file", repeated_));
    for (size_t i = 0; i < waiting_ops_.size(); ++i) AddOp(i, waiting_ops_[i]);
    waiting_ops_.clear();
    OLLA_RETURN_IF_ERROR(buffers_status_);
    return ops_status_;
  }

  std::vector<Buffer>& buffers() { return buffers_; }
  std::vector<Op>& ops() { return ops_; }
  const IdMap& op_ids() const { return op_ids_; }

 private:
  void AddOp(size_t index, const JsonValue& element) {
    if (!ops_status_.ok()) return;
    StatusOr<Op> op = ReadOp(element, index, buffer_ids_, op_ids_);
    if (op.ok()) {
      ops_.push_back(std::move(op).value());
    } else {
      ops_status_ = op.status();
    }
  }

  std::vector<Buffer> buffers_;
  std::vector<Op> ops_;
  std::vector<JsonValue> waiting_ops_;
  IdMap buffer_ids_{"buffer", "buffers"};
  IdMap op_ids_{"op", "ops"};
  Status buffers_status_;
  Status ops_status_;
  bool buffers_started_ = false;
  bool ops_started_ = false;
  std::string repeated_;  // A streamed key that appeared twice.
};

StatusOr<std::vector<PrecedenceEdge>> ReadPrecedence(const JsonValue* array,
                                                     const IdMap& op_ids) {
  std::vector<PrecedenceEdge> edges;
  if (array == nullptr) return edges;
  edges.reserve(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string path = fmt::format("precedence[{}]", i);
    const JsonValue& pair = (*array)[i];
    if (!pair.is_array() || pair.size() != 2) {
      return InvalidInput(path + ": expected a pair [before, after] of op ids, got " +
                          (pair.is_array() ? fmt::format("{} elements", pair.size())
                                           : JsonTypeName(pair)));
    }
    std::vector<OpId> ends;
    OLLA_RETURN_IF_ERROR(ReadIdList(&pair, path, op_ids, ends));
    edges.push_back({ends[0], ends[1]});
  }
  return edges;
}

// The fast path first, the strict reader at its first doubt. `capacity`: as for
// FastParseGraph.
StatusOr<Graph> ReadGraph(std::string_view json_text, size_t capacity) {
  if (std::optional<Graph> graph = FastParseGraph(json_text, capacity))
    return std::move(*graph);
  return ParseGraphStrict(json_text);
}

}  // namespace

StatusOr<Graph> ParseGraph(std::string_view json_text) {
  return ReadGraph(json_text, json_text.size());
}

StatusOr<Graph> ParseGraphStrict(std::string_view json_text) {
  GraphElements elements;
  OLLA_ASSIGN_OR_RETURN(const JsonValue document,
                        ParseJsonStreaming(
                            json_text, {"buffers", "ops"},
                            [&](std::string_view key) { elements.StartArray(key); },
                            [&](std::string_view key, size_t index, JsonValue&& element) {
                              elements.Add(key, index, std::move(element));
                            }));
  JsonObject top(document, "");
  top.FormatHeader("olla.graph", "graph", kGraphFormatVersion);
  std::string name = top.String("name", "");
  top.Array("buffers");
  top.Array("ops");
  const JsonValue* precedence_json = top.OptionalArray("precedence");
  top.Ignore("metadata");
  OLLA_RETURN_IF_ERROR(top.Finish());
  OLLA_RETURN_IF_ERROR(elements.Finish());
  OLLA_ASSIGN_OR_RETURN(std::vector<PrecedenceEdge> edges,
                        ReadPrecedence(precedence_json, elements.op_ids()));
  return Graph::Create(std::move(name), std::move(elements.buffers()),
                       std::move(elements.ops()), std::move(edges));
}

StatusOr<Graph> LoadGraph(const std::string& path) {
  OLLA_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  StatusOr<Graph> graph = ReadGraph(text, text.capacity());
  if (!graph.ok()) return graph.status().WithContext(path);
  return graph;
}

std::string GraphToJson(const Graph& graph) {
  std::string out;
  out.reserve(static_cast<size_t>(graph.num_ops() + graph.num_buffers()) * 96);
  auto append_ids = [&](const auto& ids, auto file_id_of) {
    out += '[';
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i > 0) out += ", ";
      out += std::to_string(file_id_of(ids[i]));
    }
    out += ']';
  };
  out += fmt::format(
      "{{\n  \"format\": \"olla.graph\",\n  \"version\": {},\n  \"name\": {},\n",
      kGraphFormatVersion, JsonQuote(graph.name()));
  out += "  \"buffers\": [";
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const Buffer& buffer = graph.buffer(BufferId(b));
    out += b == 0 ? "\n    " : ",\n    ";
    out += fmt::format("{{\"id\": {}, \"name\": {}, \"size\": {}, \"kind\": \"{}\"",
                       buffer.file_id, JsonQuote(buffer.name), buffer.size,
                       BufferKindName(buffer.kind));
    if (buffer.persistent) out += ", \"persistent\": true";
    if (buffer.output) out += ", \"output\": true";
    if (!buffer.shape.empty()) {
      out += ", \"shape\": ";
      append_ids(buffer.shape, [](int64_t d) { return d; });
    }
    if (!buffer.dtype.empty()) out += ", \"dtype\": " + JsonQuote(buffer.dtype);
    out += '}';
  }
  out += "\n  ],\n  \"ops\": [";
  auto buffer_file_id = [&](BufferId id) { return graph.buffer(id).file_id; };
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    const Op& op = graph.op(OpId(o));
    out += o == 0 ? "\n    " : ",\n    ";
    out += fmt::format("{{\"id\": {}, \"name\": {}, \"type\": {}, \"phase\": \"{}\"",
                       op.file_id, JsonQuote(op.name), JsonQuote(op.type),
                       PhaseName(op.phase));
    out += ", \"allocates\": ";
    append_ids(op.allocates, buffer_file_id);
    out += ", \"uses\": ";
    append_ids(op.uses, buffer_file_id);
    if (!op.writes.empty()) {
      out += ", \"writes\": ";
      append_ids(op.writes, buffer_file_id);
    }
    if (op.random) out += ", \"random\": true";
    if (op.workspace != 0) out += fmt::format(", \"workspace\": {}", op.workspace);
    if (op.cost) out += fmt::format(", \"cost\": {}", *op.cost);
    out += '}';
  }
  out += "\n  ],\n  \"precedence\": [";
  const auto& edges = graph.explicit_edges();
  for (size_t i = 0; i < edges.size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    out += fmt::format("[{}, {}]", graph.op(edges[i].before).file_id,
                       graph.op(edges[i].after).file_id);
  }
  out += edges.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

Status SaveGraph(const Graph& graph, const std::string& path) {
  return WriteFile(path, GraphToJson(graph));
}

}  // namespace olla
