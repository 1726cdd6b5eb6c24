#include "olla/report/svg.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/core/bytes.h"
#include "olla/core/check.h"

namespace olla {
namespace {

constexpr double kPanelWidth = 560;
constexpr double kPanelHeight = 520;
constexpr double kLeft = 70;  // Room for the address axis.
constexpr double kTop = 60;
constexpr double kGap = 60;
constexpr double kBottom = 70;

constexpr const char* kPhaseColours[] = {"#4c78a8", "#f58518", "#54a24b"};
constexpr const char* kPersistentColour = "#9d9d9d";
constexpr const char* kWorkspaceColour = "#b279a2";

std::string Escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows no control characters but tab and newlines.
        out += static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' ? '?' : c;
    }
  }
  return out;
}

// One rectangle: a buffer (or a workspace) over steps [start, end) at [address,
// address + size).
struct Block {
  int32_t start, end;
  int64_t address, size;
  const char* colour;
  std::string tooltip;
};

// One side of the picture: the blocks, the live bytes per step and the marks.
struct Panel {
  std::string title;
  std::vector<Block> blocks;
  std::vector<int64_t> live;  // Persistent included, per step.
  int64_t total = 0;          // Reserved bytes; persistent + arena.
  std::string total_label;
  int32_t peak_step = 0;
};

std::string Tooltip(const Graph& graph, BufferId id, const Lifetime& life) {
  const Buffer& b = graph.buffer(id);
  const OpId producer = graph.producer(id);
  return fmt::format("{} ({}, {}), steps [{}, {}){}", b.name, BufferKindName(b.kind),
                     FormatBytes(b.size), life.start, life.end,
                     producer.valid() ? ", from " + graph.Describe(producer) : "");
}

const char* ColourOf(const Graph& graph, BufferId id) {
  if (graph.buffer(id).persistent) return kPersistentColour;
  const OpId producer = graph.producer(id);
  return producer.valid() ? kPhaseColours[static_cast<size_t>(graph.op(producer).phase)]
                          : kPhaseColours[0];
}

// The blocks of `order`, with `address_of(buffer)` (-1: not drawn) and the workspace
// address of each step; persistent buffers span the whole step.
template <typename AddressOf, typename WorkspaceOf>
std::vector<Block> Blocks(const Graph& graph, const Order& order,
                          const Lifetimes& lifetimes, AddressOf address_of,
                          WorkspaceOf workspace_of) {
  std::vector<Block> blocks;
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    const int64_t address = address_of(id);
    if (address < 0 || graph.buffer(id).size == 0) continue;
    Lifetime life = lifetimes[id];
    if (graph.buffer(id).persistent) life = {0, order.size()};
    blocks.push_back({life.start, life.end, address, graph.buffer(id).size,
                      ColourOf(graph, id), Tooltip(graph, id, life)});
  }
  for (int32_t s = 0; s < order.size(); ++s) {
    const OpId op = order.ops[static_cast<size_t>(s)];
    const int64_t address = workspace_of(s);
    if (address < 0 || graph.op(op).workspace == 0) continue;
    blocks.push_back({s, s + 1, address, graph.op(op).workspace, kWorkspaceColour,
                      fmt::format("workspace of {} ({}), step {}", graph.Describe(op),
                                  FormatBytes(graph.op(op).workspace), s)});
  }
  return blocks;
}

std::vector<int64_t> LiveWithPersistent(const Graph& graph, const Order& order,
                                        const Lifetimes& lifetimes) {
  MemoryTimeline timeline = ComputeTimeline(graph, order, lifetimes);
  for (int64_t& bytes : timeline.live_bytes) bytes += graph.persistent_bytes();
  return timeline.live_bytes;
}

class Canvas {
 public:
  Canvas(int32_t steps, int64_t max_bytes)
      : steps_(std::max(steps, 1)), max_(max_bytes) {}

  double X(double step, int panel) const {
    return kLeft + panel * (kPanelWidth + kGap) + step * kPanelWidth / steps_;
  }
  double Y(double bytes) const {
    return kTop + kPanelHeight - bytes * kPanelHeight / static_cast<double>(max_);
  }
  double Width(double steps) const { return steps * kPanelWidth / steps_; }
  double Height(double bytes) const {
    return bytes * kPanelHeight / static_cast<double>(max_);
  }

 private:
  int32_t steps_;
  int64_t max_;
};

void DrawPanel(const Panel& panel, int index, const Canvas& canvas, int64_t bound,
               int32_t steps, std::string& out, int64_t& hidden) {
  const double x0 = canvas.X(0, index);
  out += fmt::format(
      "<g>\n<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"15\" "
      "font-weight=\"bold\">{}</text>\n",
      x0, kTop - 30, Escape(panel.title));
  out += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "fill=\"#fafafa\" "
      "stroke=\"#cccccc\"/>\n",
      x0, kTop, kPanelWidth, kPanelHeight);
  for (const Block& block : panel.blocks) {
    const double width = canvas.Width(block.end - block.start);
    const double height = canvas.Height(static_cast<double>(block.size));
    if (width < 1 && height < 1) {  // Below a pixel: its bytes show in the curve.
      ++hidden;
      continue;
    }
    out += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\" "
        "stroke=\"#ffffff\" stroke-width=\"0.2\"><title>{}</title></rect>\n",
        canvas.X(block.start, index),
        canvas.Y(static_cast<double>(block.address + block.size)), std::max(width, 0.5),
        std::max(height, 0.5), block.colour, Escape(block.tooltip));
  }
  std::string points;
  for (int32_t s = 0; s < steps; ++s) {
    const double y = canvas.Y(static_cast<double>(panel.live[static_cast<size_t>(s)]));
    points += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", canvas.X(s, index), y,
                          canvas.X(s + 1, index), y);
  }
  out += fmt::format(
      "<polyline points=\"{}\" fill=\"none\" stroke=\"#222222\" stroke-width=\"1.2\">"
      "<title>live bytes (persistent included)</title></polyline>\n",
      points);
  const double x1 = canvas.X(steps, index);
  // The total's label at the right end above its line, the bound's at the left end
  // below its line: they stay apart when the two coincide.
  auto line = [&](int64_t bytes, const char* colour, const char* dash,
                  const std::string& label, bool right) {
    const double y = canvas.Y(static_cast<double>(bytes));
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-dasharray=\"{}\"/>\n<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" "
        "fill=\"{}\" text-anchor=\"{}\">{}</text>\n",
        x0, y, x1, y, colour, dash, right ? x1 - 4 : x0 + 4, right ? y - 4 : y + 13,
        colour, right ? "end" : "start", Escape(label));
  };
  line(panel.total, "#d62728", "6 3", panel.total_label, true);
  line(bound, "#2ca02c", "2 3", "lower bound " + FormatBinaryUnits(bound), false);
  const int64_t peak = panel.live[static_cast<size_t>(panel.peak_step)];
  out += fmt::format(
      "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#222222\"><title>peak {} at "
      "step "
      "{}</title></circle>\n",
      canvas.X(panel.peak_step + 0.5, index), canvas.Y(static_cast<double>(peak)),
      FormatBytes(peak), panel.peak_step);
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">step 0</text>\n<text "
      "x=\"{:.1f}\" "
      "y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">step {}</text>\n</g>\n",
      x0, kTop + kPanelHeight + 14, x1, kTop + kPanelHeight + 14, steps);
}

}  // namespace

std::string OptimizeSvg(const Graph& graph, const OptimizeResult& result) {
  OLLA_CHECK(result.plan.has_value(), "a picture needs a plan");
  const Plan& plan = *result.plan;
  const Order eager = EagerOrder(graph);
  // With recomputation the plan runs more steps, over the expanded graph.
  const Graph& planned = result.planned_graph(graph);
  const int32_t steps = planned.num_ops();

  Panel left;
  left.title = "eager PyTorch (caching allocator model)";
  const AllocatorReplay& replay = result.eager.allocator;
  const Lifetimes eager_lifetimes = ComputeLifetimes(graph, eager);
  left.blocks = Blocks(
      graph, eager, eager_lifetimes,
      [&](BufferId id) { return replay.addresses[id.index()]; },
      [&](int32_t s) { return replay.workspace_addresses[static_cast<size_t>(s)]; });
  left.live = LiveWithPersistent(graph, eager, eager_lifetimes);
  left.total = replay.reserved_peak_bytes;
  left.total_label = "reserved " + FormatBinaryUnits(left.total);
  left.peak_step = result.eager.peak_step;

  // olla's side: persistent buffers stacked from 0 in id order, the arena above them.
  const int64_t persistent = graph.persistent_bytes();
  std::vector<int64_t> persistent_at(static_cast<size_t>(planned.num_buffers()), -1);
  int64_t next = 0;
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    if (!graph.buffer(BufferId(b)).persistent) continue;
    persistent_at[static_cast<size_t>(b)] = next;
    next += graph.buffer(BufferId(b)).size;
  }
  Panel right;
  right.title = plan.recomputes() ? "olla's plan (order, offsets, recomputation)"
                                  : "olla's plan (order and offsets)";
  const Lifetimes plan_lifetimes = ComputeLifetimes(planned, plan.order);
  right.blocks = Blocks(
      planned, plan.order, plan_lifetimes,
      [&](BufferId id) {
        const std::optional<int64_t>& offset = plan.offsets[id.index()];
        return offset ? persistent + *offset : persistent_at[id.index()];
      },
      [&](int32_t s) -> int64_t {
        if (!plan.places_workspace()) return -1;
        const std::optional<int64_t>& offset =
            plan.workspace_offsets[plan.order.ops[static_cast<size_t>(s)].index()];
        return offset ? persistent + *offset : -1;
      });
  right.live = LiveWithPersistent(planned, plan.order, plan_lifetimes);
  right.total = persistent + plan.arena_bytes;
  right.total_label = "persistent + arena " + FormatBinaryUnits(right.total);
  right.peak_step = result.peak_step;

  const int64_t bound = persistent + result.lower_bound_bytes();
  const int64_t top = std::max({left.total, right.total, int64_t{1}});
  const Canvas canvas(steps, top + top / 20);
  const double width = kLeft + 2 * kPanelWidth + kGap + 20;
  const double height = kTop + kPanelHeight + kBottom;
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\">\n"
      "<title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
      width, height, width, height,
      Escape(fmt::format("olla plan for {}", graph.name())));
  // The address axis, shared by both panels.
  for (int tick = 0; tick <= 4; ++tick) {
    const int64_t bytes = top * tick / 4;
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" "
        "text-anchor=\"end\">{}</text>\n",
        kLeft - 6, canvas.Y(static_cast<double>(bytes)) + 4,
        Escape(FormatBinaryUnits(bytes)));
  }
  int64_t hidden = 0;
  DrawPanel(left, 0, canvas, bound, steps, out, hidden);
  DrawPanel(right, 1, canvas, bound, steps, out, hidden);
  // Legend and caption.
  const double legend_y = kTop + kPanelHeight + 36;
  double x = kLeft;
  const std::pair<const char*, const char*> legend[] = {{kPhaseColours[0], "forward"},
                                                        {kPhaseColours[1], "backward"},
                                                        {kPhaseColours[2], "optimizer"},
                                                        {kPersistentColour, "persistent"},
                                                        {kWorkspaceColour, "workspace"}};
  for (const auto& [colour, label] : legend) {
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\">{}</text>\n",
        x, legend_y - 10, colour, x + 16, legend_y, label);
    x += 110;
  }
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\">{}</text>\n", kLeft,
      legend_y + 22,
      Escape(fmt::format(
          "{}: {} ops, {} buffers; olla saves {:.1f}% of eager reserved; {} blocks "
          "under a pixel drawn only in the curve",
          graph.name(), graph.num_ops(), graph.num_buffers(),
          100 * result.saving_vs_reserved(), hidden)));
  out += "</svg>\n";
  return out;
}

}  // namespace olla
