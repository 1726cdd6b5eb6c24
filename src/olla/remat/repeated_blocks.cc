#include "olla/remat/repeated_blocks.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace olla {
namespace {

// How deep the search for numbered modules goes: blocks of stages of models.
constexpr size_t kMaxLevels = 4;

// Where the numbered components of a module path end ("blocks.3.mlp.0": after "3" and
// after "0"), outermost first, with where each number begins.
struct Numbered {
  size_t number_begin = 0;
  size_t end = 0;
};

std::vector<Numbered> NumberedComponents(std::string_view path) {
  std::vector<Numbered> found;
  for (size_t begin = 0; begin < path.size();) {
    size_t end = path.find('.', begin);
    if (end == std::string_view::npos) end = path.size();
    size_t digits = end;
    while (digits > begin && std::isdigit(static_cast<unsigned char>(path[digits - 1])))
      --digits;
    if (digits < end && (digits == begin || path[digits - 1] == '_'))
      found.push_back({digits, end});
    begin = end + 1;
  }
  return found;
}

std::string_view ModulePath(const Op& op) {
  const size_t slash = op.name.rfind('/');
  return slash == std::string::npos ? std::string_view()
                                    : std::string_view(op.name).substr(0, slash);
}

int64_t BackwardReaders(const Graph& graph, BufferId b) {
  const auto users = graph.users(b);
  return std::count_if(users.begin(), users.end(), [&](OpId user) {
    return graph.op(user).phase == Phase::kBackward;
  });
}

// The block's structure, equal for isomorphic blocks (see the header). `position` maps
// every op of the graph to its place in the block, -1 outside it; left as found.
std::vector<int64_t> Signature(const Graph& graph, const std::vector<OpId>& block,
                               std::vector<int32_t>& position) {
  for (size_t p = 0; p < block.size(); ++p)
    position[block[p].index()] = static_cast<int32_t>(p);
  std::vector<int64_t> signature;
  for (OpId id : block) {
    const Op& op = graph.op(id);
    signature.push_back(static_cast<int64_t>(std::hash<std::string>()(op.type)));
    signature.push_back(op.random);
    signature.push_back(static_cast<int64_t>(op.writes.size()));
    signature.push_back(op.workspace);
    signature.push_back(static_cast<int64_t>(op.allocates.size()));
    for (BufferId b : op.allocates) {
      signature.push_back(graph.buffer(b).size);
      signature.push_back(BackwardReaders(graph, b));
    }
    signature.push_back(static_cast<int64_t>(op.uses.size()));
    for (BufferId b : op.uses) {
      const OpId producer = graph.producer(b);
      if (producer.valid() && position[producer.index()] >= 0) {
        const std::vector<BufferId>& outputs = graph.op(producer).allocates;
        signature.push_back(position[producer.index()]);
        signature.push_back(std::find(outputs.begin(), outputs.end(), b) -
                            outputs.begin());
      } else {
        signature.push_back(-1);
        signature.push_back(graph.buffer(b).size);
      }
    }
  }
  for (OpId id : block) position[id.index()] = -1;
  return signature;
}

}  // namespace

RepeatedBlocks FindRepeatedBlocks(const Graph& graph) {
  RepeatedBlocks found;
  found.class_of.assign(static_cast<size_t>(graph.num_buffers()), -1);
  std::vector<char> tied(static_cast<size_t>(graph.num_ops()), 0);
  std::vector<int32_t> position(static_cast<size_t>(graph.num_ops()), -1);
  for (size_t level = 0; level < kMaxLevels; ++level) {
    // family key ("blocks.#") -> block number -> the block's forward ops, in id order.
    std::map<std::string, std::map<int64_t, std::vector<OpId>>> families;
    for (int32_t o = 0; o < graph.num_ops(); ++o) {
      const Op& op = graph.op(OpId(o));
      if (op.phase != Phase::kForward || tied[static_cast<size_t>(o)]) continue;
      const std::string_view path = ModulePath(op);
      const std::vector<Numbered> numbered = NumberedComponents(path);
      if (numbered.size() <= level) continue;
      const Numbered& n = numbered[level];
      int64_t number = 0;
      std::from_chars(path.data() + n.number_begin, path.data() + n.end, number);
      std::string key(path.substr(0, n.number_begin));
      key += '#';
      families[key][number].push_back(OpId(o));
    }
    for (const auto& [key, blocks] : families) {
      if (blocks.size() < 2) continue;
      // Blocks with one signature, in block order.
      std::map<std::vector<int64_t>, std::vector<const std::vector<OpId>*>> alike;
      for (const auto& [number, ops] : blocks)
        alike[Signature(graph, ops, position)].push_back(&ops);
      for (const auto& [signature, members] : alike) {
        if (members.size() < 2) continue;
        ++found.families;
        const std::vector<OpId>& first = *members.front();
        for (size_t p = 0; p < first.size(); ++p) {
          for (size_t j = 0; j < graph.op(first[p]).allocates.size(); ++j) {
            std::vector<BufferId> members_here;
            for (const std::vector<OpId>* block : members)
              members_here.push_back(graph.op((*block)[p]).allocates[j]);
            for (BufferId b : members_here)
              found.class_of[b.index()] = static_cast<int32_t>(found.classes.size());
            found.classes.push_back(std::move(members_here));
          }
        }
        for (const std::vector<OpId>* block : members) {
          for (OpId id : *block) tied[id.index()] = 1;
          found.members.push_back(*block);
        }
      }
    }
  }
  return found;
}

}  // namespace olla
