#include "olla/io/graph_json_fast.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "olla/core/limits.h"
#include "olla/io/file.h"
#include "olla/io/graph_json.h"

namespace olla {
namespace {

namespace od = simdjson::ondemand;

static_assert(kReadPadding >= simdjson::SIMDJSON_PADDING,
              "ReadFile's spare capacity lets simdjson parse a file in place");

// simdjson's On-Demand API reads values as they are asked for, with no document tree
// (simulating a 1M-op graph peaked at 1.1 GB instead of the DOM's 2.0 GB). It checks
// only what is read, so every value is read, metadata included (Walk). Every helper
// returns false at the first doubt: the strict reader takes over.

bool ReadInt(od::value value, int64_t& out) {
  // Floats, and integers beyond int64 (the strict reader refuses them), are errors.
  return value.get_int64().get(out) == simdjson::SUCCESS;
}

// A non-negative integer: ids, sizes, workspace.
bool ReadCount(od::value value, int64_t& out) { return ReadInt(value, out) && out >= 0; }

// A number of seconds in [0, kMaxOpSeconds].
bool ReadSeconds(od::value value, std::optional<double>& out) {
  double seconds = 0;
  if (value.get_double().get(seconds) != simdjson::SUCCESS ||
      !(seconds >= 0 && seconds <= kMaxOpSeconds))
    return false;
  out = seconds;
  return true;
}

bool ReadString(od::value value, std::string& out) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) return false;
  out = std::string(text);
  return true;
}

bool ReadBool(od::value value, bool& out) {
  return value.get_bool().get(out) == simdjson::SUCCESS;
}

template <typename Enum, size_t N>
bool ReadEnum(od::value value, const std::array<const char*, N>& names, Enum& out) {
  std::string_view name;
  if (value.get_string().get(name) != simdjson::SUCCESS) return false;
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      out = static_cast<Enum>(i);
      return true;
    }
  }
  return false;
}

// A field's key as written, compared with olla's names without unescaping it: the
// names need no escapes, so a key written with one matches none, and the strict reader
// reads the file.
struct Key {
  od::raw_json_string raw;
  bool operator==(const char* name) const { return raw.unsafe_is_equal(name); }
};

// Calls read(key, value) for each field of the object `value` is; false when it is not
// an object, a field does not parse, or read returns false.
template <typename Read>
bool ForEachField(od::value value, Read read) {
  od::object fields;
  if (value.get_object().get(fields) != simdjson::SUCCESS) return false;
  for (auto&& result : fields) {
    od::field field;
    if (std::move(result).get(field) != simdjson::SUCCESS ||
        !read(Key{field.key()}, field.value()))
      return false;
  }
  return true;
}

// Calls read(element) for each element of the array `value` is.
template <typename Read>
bool ForEachElement(od::value value, Read read) {
  od::array items;
  if (value.get_array().get(items) != simdjson::SUCCESS) return false;
  for (auto item : items) {
    od::value element;
    if (item.get(element) != simdjson::SUCCESS || !read(element)) return false;
  }
  return true;
}

// Reads a value of any type whole, so that On-Demand checks its syntax (metadata, which
// olla keeps no part of). Deeper than kMaxDepth: left to the strict reader.
bool Walk(od::value value, int depth = 0) {
  constexpr int kMaxDepth = 256;
  od::json_type type;
  if (depth > kMaxDepth || value.type().get(type) != simdjson::SUCCESS) return false;
  switch (type) {
    case od::json_type::array:
      return ForEachElement(value,
                            [&](od::value element) { return Walk(element, depth + 1); });
    case od::json_type::object: {
      // Not ForEachField, which compares keys as written: these are unescaped, to check.
      od::object fields;
      if (value.get_object().get(fields) != simdjson::SUCCESS) return false;
      for (auto field : fields) {
        std::string_view key;
        od::value element;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS ||
            field.value().get(element) != simdjson::SUCCESS || !Walk(element, depth + 1))
          return false;
      }
      return true;
    }
    case od::json_type::number: {
      od::number number;
      return value.get_number().get(number) == simdjson::SUCCESS;
    }
    case od::json_type::string: {
      std::string_view text;
      return value.get_string().get(text) == simdjson::SUCCESS;
    }
    case od::json_type::boolean: {
      bool flag = false;
      return value.get_bool().get(flag) == simdjson::SUCCESS;
    }
    case od::json_type::null: {
      bool null = false;
      return value.is_null().get(null) == simdjson::SUCCESS && null;
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

// File ids to positions. Files number their buffers and ops 0, 1, 2, ... (olla's
// writers and the capture do), so small ids live in a flat table (a hash lookup per
// reference was a third of reading a large file), the rest in a map. The table's
// limit, a quarter of the file's bytes, bounds its memory by the file's size.
class IdIndex {
 public:
  static constexpr int32_t kAbsent = -1;

  explicit IdIndex(size_t file_bytes) : flat_limit_(file_bytes / 4 + 1024) {}

  // False when `id` is already there.
  bool Insert(int64_t id, int32_t position) {
    if (static_cast<uint64_t>(id) < flat_limit_) {
      const auto slot = static_cast<size_t>(id);
      if (slot >= flat_.size())
        flat_.resize(std::max(slot + 1, std::min(2 * flat_.size(), flat_limit_)),
                     kAbsent);
      if (flat_[slot] != kAbsent) return false;
      flat_[slot] = position;
      return true;
    }
    return map_.emplace(id, position).second;
  }

  int32_t Find(int64_t id) const {
    if (static_cast<uint64_t>(id) < flat_limit_) {
      const auto slot = static_cast<size_t>(id);
      return slot < flat_.size() ? flat_[slot] : kAbsent;
    }
    const auto it = map_.find(id);
    return it == map_.end() ? kAbsent : it->second;
  }

 private:
  size_t flat_limit_;
  std::vector<int32_t> flat_;
  std::unordered_map<int64_t, int32_t> map_;
};

template <typename IdType>
bool ReadIds(od::value value, const IdIndex& index, std::vector<IdType>& out) {
  return ForEachElement(value, [&](od::value item) {
    int64_t file_id = 0;
    if (!ReadInt(item, file_id)) return false;
    const int32_t position = index.Find(file_id);
    if (position == IdIndex::kAbsent) return false;
    out.push_back(IdType(position));
    return true;
  });
}

bool ReadBuffer(od::value value, int32_t position, Buffer& buffer, IdIndex& ids) {
  uint32_t seen = 0;
  const bool read = ForEachField(value, [&](Key key, od::value field) {
    if (key == "id") return Once(seen, 0) && ReadCount(field, buffer.file_id);
    if (key == "size") return Once(seen, 1) && ReadCount(field, buffer.size);
    if (key == "name") return Once(seen, 2) && ReadString(field, buffer.name);
    if (key == "kind")
      return Once(seen, 3) && ReadEnum(field, kBufferKindNames, buffer.kind);
    if (key == "persistent") return Once(seen, 4) && ReadBool(field, buffer.persistent);
    if (key == "output") return Once(seen, 5) && ReadBool(field, buffer.output);
    if (key == "dtype") return Once(seen, 6) && ReadString(field, buffer.dtype);
    if (key == "shape") {
      return Once(seen, 7) && ForEachElement(field, [&](od::value dim) {
               int64_t d = 0;
               if (!ReadInt(dim, d)) return false;
               buffer.shape.push_back(d);
               return true;
             });
    }
    if (key == "metadata") return Once(seen, 8) && Walk(field);
    return false;
  });
  const uint32_t required = (1u << 0) | (1u << 1);
  return read && (seen & required) == required && ids.Insert(buffer.file_id, position);
}

bool ReadOp(od::value value, int32_t position, Op& op, const IdIndex& buffer_ids,
            IdIndex& op_ids) {
  uint32_t seen = 0;
  const bool read = ForEachField(value, [&](Key key, od::value field) {
    if (key == "id") return Once(seen, 0) && ReadCount(field, op.file_id);
    if (key == "name") return Once(seen, 1) && ReadString(field, op.name);
    if (key == "type") return Once(seen, 2) && ReadString(field, op.type);
    if (key == "phase") return Once(seen, 3) && ReadEnum(field, kPhaseNames, op.phase);
    if (key == "workspace") return Once(seen, 4) && ReadCount(field, op.workspace);
    if (key == "allocates")
      return Once(seen, 5) && ReadIds(field, buffer_ids, op.allocates);
    if (key == "uses") return Once(seen, 6) && ReadIds(field, buffer_ids, op.uses);
    if (key == "writes") return Once(seen, 7) && ReadIds(field, buffer_ids, op.writes);
    if (key == "random") return Once(seen, 8) && ReadBool(field, op.random);
    if (key == "metadata") return Once(seen, 9) && Walk(field);
    if (key == "cost") return Once(seen, 10) && ReadSeconds(field, op.cost);
    return false;
  });
  return read && (seen & 1u) != 0 && op_ids.Insert(op.file_id, position);
}

// The top level's fields, read in passes: the ops name buffers and the precedence names
// ops, so a field whose names are not known yet waits for a pass after them (a file in
// olla's own order takes one pass).
class GraphReader {
 public:
  explicit GraphReader(size_t file_bytes)
      : buffer_ids_(file_bytes), op_ids_(file_bytes) {}

  bool ReadPass(od::object top, bool first) {
    for (auto&& result : top) {
      od::field field;
      if (std::move(result).get(field) != simdjson::SUCCESS) return false;
      const Key key{field.key()};
      if (!(first ? ReadFirst(key, field.value()) : ReadLater(key, field.value())))
        return false;
    }
    return true;
  }

  bool done() const { return ops_read_ && (!(seen_ & kPrecedence) || precedence_read_); }
  bool complete() const { return (seen_ & kRequired) == kRequired; }

  StatusOr<Graph> Build() {
    return Graph::Create(std::move(name_), std::move(buffers_), std::move(ops_),
                         std::move(edges_));
  }

 private:
  static constexpr uint32_t kVersion = 1u << 1, kBuffers = 1u << 3, kOps = 1u << 4,
                            kPrecedence = 1u << 5;
  static constexpr uint32_t kRequired = kVersion | kBuffers | kOps;

  // The first pass checks every field once and reads what it can.
  bool ReadFirst(Key key, od::value value) {
    if (key == "format") {
      std::string_view format;
      return Once(seen_, 0) && value.get_string().get(format) == simdjson::SUCCESS &&
             format == "olla.graph";
    }
    if (key == "version") {
      int64_t version = 0;
      return Once(seen_, 1) && ReadInt(value, version) && version == kGraphFormatVersion;
    }
    if (key == "name") return Once(seen_, 2) && ReadString(value, name_);
    if (key == "buffers") return Once(seen_, 3) && ReadBuffers(value);
    if (key == "ops") return Once(seen_, 4) && ReadLater(key, value);
    if (key == "precedence") return Once(seen_, 5) && ReadLater(key, value);
    if (key == "metadata") return Once(seen_, 6) && Walk(value);
    return false;
  }

  // Reads ops once the buffers are known, the precedence once the ops are; leaves the
  // rest for the next pass.
  bool ReadLater(Key key, od::value value) {
    if (key == "ops" && buffers_read_ && !ops_read_) return ReadOps(value);
    if (key == "precedence" && ops_read_ && !precedence_read_)
      return ReadPrecedence(value);
    return true;
  }

  bool ReadBuffers(od::value value) {
    buffers_read_ = true;
    return ReadArray(value, buffers_,
                     [&](od::value item, int32_t position, Buffer& buffer) {
                       return ReadBuffer(item, position, buffer, buffer_ids_);
                     });
  }

  bool ReadOps(od::value value) {
    ops_read_ = true;
    return ReadArray(value, ops_, [&](od::value item, int32_t position, Op& op) {
      return ReadOp(item, position, op, buffer_ids_, op_ids_);
    });
  }

  // Reads each element with read(element, position, out.emplace_back()), after counting
  // them (one more scan, so that the vector is allocated once).
  template <typename T, typename Read>
  static bool ReadArray(od::value value, std::vector<T>& out, Read read) {
    od::array items;
    size_t count = 0;
    if (value.get_array().get(items) != simdjson::SUCCESS ||
        items.count_elements().get(count) != simdjson::SUCCESS)
      return false;
    out.reserve(count);
    for (auto item : items) {
      od::value element;
      if (item.get(element) != simdjson::SUCCESS) return false;
      const auto position = static_cast<int32_t>(out.size());
      if (!read(element, position, out.emplace_back())) return false;
    }
    return true;
  }

  bool ReadPrecedence(od::value value) {
    precedence_read_ = true;
    return ForEachElement(value, [&](od::value pair) {
      std::vector<OpId> ends;
      if (!ReadIds(pair, op_ids_, ends) || ends.size() != 2) return false;
      edges_.push_back({ends[0], ends[1]});
      return true;
    });
  }

  uint32_t seen_ = 0;
  bool buffers_read_ = false, ops_read_ = false, precedence_read_ = false;
  std::string name_;
  std::vector<Buffer> buffers_;
  std::vector<Op> ops_;
  std::vector<PrecedenceEdge> edges_;
  IdIndex buffer_ids_, op_ids_;
};

// Whether the document ends after its top-level value (simdjson has no such check).
bool AtEnd(od::document& document) {
  const char* location = nullptr;
  return document.current_location().get(location) == simdjson::OUT_OF_BOUNDS;
}

}  // namespace

std::optional<Graph> FastParseGraph(std::string_view json_text, size_t capacity) {
  // The strict reader's first check, which simdjson would not make.
  if (json_text.find('\0') != std::string_view::npos) return std::nullopt;
  simdjson::padded_string copy;
  simdjson::padded_string_view text;
  if (capacity >= json_text.size() + simdjson::SIMDJSON_PADDING) {
    text = simdjson::padded_string_view(json_text, capacity);
  } else {
    copy = simdjson::padded_string(json_text);
    text = copy;
  }
  od::parser parser;
  od::document document;
  if (parser.iterate(text).get(document) != simdjson::SUCCESS) return std::nullopt;
  GraphReader reader(json_text.size());
  // Three passes at most: buffers, then ops, then precedence.
  for (int pass = 0; pass < 3; ++pass) {
    if (pass > 0) document.rewind();
    od::object top;
    if (document.get_object().get(top) != simdjson::SUCCESS ||
        !reader.ReadPass(top, pass == 0) || !AtEnd(document))
      return std::nullopt;
    if (!reader.complete()) return std::nullopt;
    if (reader.done()) break;
  }
  if (!reader.done()) return std::nullopt;
  StatusOr<Graph> graph = reader.Build();
  if (!graph.ok()) return std::nullopt;
  return std::move(graph).value();
}

}  // namespace olla
