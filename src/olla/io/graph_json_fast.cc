#include "olla/io/graph_json_fast.h"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "olla/io/graph_json.h"

namespace olla {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Every helper returns false at the first doubt: the strict reader takes over.

bool ReadInt(element value, int64_t& out) {
  // simdjson types integers above INT64_MAX as UINT64; the strict reader refuses them.
  if (value.type() != element_type::INT64) return false;
  out = value.get_int64().value_unsafe();
  return true;
}

// A non-negative integer: ids, sizes, workspace.
bool ReadCount(element value, int64_t& out) { return ReadInt(value, out) && out >= 0; }

bool ReadString(element value, std::string& out) {
  if (value.type() != element_type::STRING) return false;
  out = std::string(value.get_string().value_unsafe());
  return true;
}

bool ReadBool(element value, bool& out) {
  if (value.type() != element_type::BOOL) return false;
  out = value.get_bool().value_unsafe();
  return true;
}

template <typename Enum, size_t N>
bool ReadEnum(element value, const std::array<const char*, N>& names, Enum& out) {
  if (value.type() != element_type::STRING) return false;
  const std::string_view name = value.get_string().value_unsafe();
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      out = static_cast<Enum>(i);
      return true;
    }
  }
  return false;
}

// Marks field `bit` of an object as seen; false when it was (a repeated field).
bool Once(uint32_t& seen, int bit) {
  if (seen & (1u << bit)) return false;
  seen |= 1u << bit;
  return true;
}

using IdIndex = std::unordered_map<int64_t, int32_t>;

// The array or object `value` is, held in a variable: iterating over the temporary
// that get_array() returns would read it after its end.
bool AsArray(element value, simdjson::dom::array& out) {
  return value.get_array().get(out) == simdjson::SUCCESS;
}
bool AsObject(element value, simdjson::dom::object& out) {
  return value.get_object().get(out) == simdjson::SUCCESS;
}

template <typename IdType>
bool ReadIds(element value, const IdIndex& index, std::vector<IdType>& out) {
  simdjson::dom::array items;
  if (!AsArray(value, items)) return false;
  for (element item : items) {
    int64_t file_id = 0;
    if (!ReadInt(item, file_id)) return false;
    const auto it = index.find(file_id);
    if (it == index.end()) return false;
    out.push_back(IdType(it->second));
  }
  return true;
}

bool ReadBuffer(element value, int32_t position, Buffer& buffer, IdIndex& ids) {
  simdjson::dom::object fields;
  if (!AsObject(value, fields)) return false;
  uint32_t seen = 0;
  for (auto [key, field] : fields) {
    bool ok = false;
    if (key == "id") {
      ok = Once(seen, 0) && ReadCount(field, buffer.file_id);
    } else if (key == "size") {
      ok = Once(seen, 1) && ReadCount(field, buffer.size);
    } else if (key == "name") {
      ok = Once(seen, 2) && ReadString(field, buffer.name);
    } else if (key == "kind") {
      ok = Once(seen, 3) && ReadEnum(field, kBufferKindNames, buffer.kind);
    } else if (key == "persistent") {
      ok = Once(seen, 4) && ReadBool(field, buffer.persistent);
    } else if (key == "output") {
      ok = Once(seen, 5) && ReadBool(field, buffer.output);
    } else if (key == "dtype") {
      ok = Once(seen, 6) && ReadString(field, buffer.dtype);
    } else if (key == "shape") {
      simdjson::dom::array dims;
      ok = Once(seen, 7) && AsArray(field, dims);
      if (ok) {
        for (element dim : dims) {
          int64_t d = 0;
          if (!ReadInt(dim, d)) return false;
          buffer.shape.push_back(d);
        }
      }
    } else if (key == "metadata") {
      ok = Once(seen, 8);
    }
    if (!ok) return false;
  }
  const uint32_t required = (1u << 0) | (1u << 1);
  return (seen & required) == required && ids.emplace(buffer.file_id, position).second;
}

bool ReadOp(element value, int32_t position, Op& op, const IdIndex& buffer_ids,
            IdIndex& op_ids) {
  simdjson::dom::object fields;
  if (!AsObject(value, fields)) return false;
  uint32_t seen = 0;
  for (auto [key, field] : fields) {
    bool ok = false;
    if (key == "id") {
      ok = Once(seen, 0) && ReadCount(field, op.file_id);
    } else if (key == "name") {
      ok = Once(seen, 1) && ReadString(field, op.name);
    } else if (key == "type") {
      ok = Once(seen, 2) && ReadString(field, op.type);
    } else if (key == "phase") {
      ok = Once(seen, 3) && ReadEnum(field, kPhaseNames, op.phase);
    } else if (key == "workspace") {
      ok = Once(seen, 4) && ReadCount(field, op.workspace);
    } else if (key == "allocates") {
      ok = Once(seen, 5) && ReadIds(field, buffer_ids, op.allocates);
    } else if (key == "uses") {
      ok = Once(seen, 6) && ReadIds(field, buffer_ids, op.uses);
    } else if (key == "writes") {
      ok = Once(seen, 7) && ReadIds(field, buffer_ids, op.writes);
    } else if (key == "random") {
      ok = Once(seen, 8) && ReadBool(field, op.random);
    } else if (key == "metadata") {
      ok = Once(seen, 9);
    }
    if (!ok) return false;
  }
  return (seen & 1u) != 0 && op_ids.emplace(op.file_id, position).second;
}

}  // namespace

std::optional<Graph> FastParseGraph(std::string_view json_text) {
  // The strict reader's first check, which simdjson would not make.
  if (json_text.find('\0') != std::string_view::npos) return std::nullopt;
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(json_text);
  element document;
  if (parser.parse(padded).get(document) != simdjson::SUCCESS) return std::nullopt;
  simdjson::dom::object top;
  if (!AsObject(document, top)) return std::nullopt;
  // The top level, in two passes: the buffers must be read before the ops refer to
  // them, in whatever order the file lists the fields.
  std::string name;
  simdjson::dom::array buffer_array, op_array, precedence_array;
  uint32_t seen = 0;
  for (auto [key, field] : top) {
    bool ok = false;
    if (key == "format") {
      ok = Once(seen, 0) && field.type() == element_type::STRING &&
           field.get_string().value_unsafe() == "olla.graph";
    } else if (key == "version") {
      int64_t version = 0;
      ok = Once(seen, 1) && ReadInt(field, version) && version == kGraphFormatVersion;
    } else if (key == "name") {
      ok = Once(seen, 2) && ReadString(field, name);
    } else if (key == "buffers") {
      ok = Once(seen, 3) && AsArray(field, buffer_array);
    } else if (key == "ops") {
      ok = Once(seen, 4) && AsArray(field, op_array);
    } else if (key == "precedence") {
      ok = Once(seen, 5) && AsArray(field, precedence_array);
    } else if (key == "metadata") {
      ok = Once(seen, 6);
    }
    if (!ok) return std::nullopt;
  }
  const uint32_t required = (1u << 1) | (1u << 3) | (1u << 4);
  if ((seen & required) != required) return std::nullopt;

  // size() saturates at 2^24 - 1: a hint for reserve, never a count.
  std::vector<Buffer> buffers;
  std::vector<Op> ops;
  buffers.reserve(buffer_array.size());
  ops.reserve(op_array.size());
  IdIndex buffer_ids, op_ids;
  buffer_ids.reserve(buffer_array.size());
  op_ids.reserve(op_array.size());
  for (element item : buffer_array) {
    const auto position = static_cast<int32_t>(buffers.size());
    if (!ReadBuffer(item, position, buffers.emplace_back(), buffer_ids))
      return std::nullopt;
  }
  for (element item : op_array) {
    const auto position = static_cast<int32_t>(ops.size());
    if (!ReadOp(item, position, ops.emplace_back(), buffer_ids, op_ids))
      return std::nullopt;
  }
  std::vector<PrecedenceEdge> edges;
  if (seen & (1u << 5)) {
    for (element pair : precedence_array) {
      std::vector<OpId> ends;
      if (!ReadIds(pair, op_ids, ends) || ends.size() != 2) return std::nullopt;
      edges.push_back({ends[0], ends[1]});
    }
  }
  StatusOr<Graph> graph = Graph::Create(std::move(name), std::move(buffers),
                                        std::move(ops), std::move(edges));
  if (!graph.ok()) return std::nullopt;
  return std::move(graph).value();
}

}  // namespace olla
