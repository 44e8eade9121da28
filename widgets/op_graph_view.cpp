#define IMGUI_DEFINE_MATH_OPERATORS  // ImVec2 arithmetic from imgui_internal.h
#include "widgets/op_graph_view.h"

#include <imgui_internal.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>

#include "widgets/colors.h"
#include "widgets/frame_request.h"
#include "widgets/results_table.h"

namespace asyncscope::widgets {
namespace {

using trace::kNoTime;
using trace::OpGraph;
using trace::OpInfo;
using trace::OpStatus;
using trace::TraceModel;

constexpr int kSweeps = 8;                // alternating down / up barycentre sweeps
constexpr float kNodeFill = 0.7f;         // a box takes at most this share of its column / row pitch
constexpr float kRowSpread = 2.2f;        // rows of a short column sit this many box heights apart
constexpr size_t kLiveOrderNodes = 1000;  // above this, a growing graph is ordered once it stops growing

bool valid_edge(const OpGraph& g, const OpGraph::Edge& e) {
  return e.from < g.nodes.size() && e.to < g.nodes.size() && e.from != e.to;
}

// Neighbours by node: incoming (sources of edges into it) or outgoing.
std::vector<std::vector<uint32_t>> adjacency(const OpGraph& g, bool incoming) {
  std::vector<std::vector<uint32_t>> adj(g.nodes.size());
  for (const auto& e : g.edges) {
    if (valid_edge(g, e)) adj[incoming ? e.to : e.from].push_back(incoming ? e.from : e.to);
  }
  return adj;
}

void normalise(const std::vector<uint32_t>& column, std::vector<float>& pos) {
  for (size_t k = 0; k < column.size(); ++k) {
    pos[column[k]] = (static_cast<float>(k) + 0.5f) / static_cast<float>(column.size());
  }
}

// What a node shows; `ready` means pending with every input done.
enum class NodeState { pending, ready, running, done, failed, skipped, cancelled, count };

NodeState node_state(const OpInfo& op) {
  switch (op.status) {
    case OpStatus::failed: return NodeState::failed;
    case OpStatus::skipped: return NodeState::skipped;
    case OpStatus::cancelled: return NodeState::cancelled;
    case OpStatus::ok: break;
  }
  if (op.executed()) return NodeState::done;
  // A launched GPU op is on its stream: running, or queued behind earlier work there.
  if (op.start != kNoTime || op.launched()) return NodeState::running;
  return NodeState::pending;
}

const char* state_name(NodeState s) {
  static const char* const kNames[] = {"pending", "ready", "running", "done", "failed", "skipped", "cancelled"};
  return kNames[static_cast<int>(s)];
}

const ImU32 kFailed = theme::kError;
const ImU32 kAmber = IM_COL32(222, 160, 48, 255);
const ImU32 kInputEdge = IM_COL32(97, 175, 239, 255);  // blue: what the selected op read
const ImU32 kOutputEdge = theme::kDependency;  // yellow: who read what it wrote

std::string seconds(int64_t ns) { return FormatValue(static_cast<double>(ns) * 1e-9, "s"); }

struct Style {
  ImU32 fill, border, text;
  float thickness;
};

Style node_style(NodeState s, ImU32 color, float pulse) {
  const ImU32 text = theme::kText;
  switch (s) {
    case NodeState::pending: return {theme::kBackground, theme::kTextDim, text, 1.0f};
    case NodeState::ready: return {with_alpha(color, 46), with_alpha(color, 230), text, 1.5f};
    case NodeState::running:
      return {with_alpha(color, 90), with_alpha(color, static_cast<int>(140 + 115 * pulse)), text, 3.0f};
    case NodeState::done: return {color, scale_rgb(color, 0.7f), text_on(color), 1.0f};
    case NodeState::failed: return {kFailed, kFailed, text_on(kFailed), 1.0f};
    default: return {kAmber, kAmber, text_on(kAmber), 1.0f};
  }
}

void node_tooltip(const TraceModel& model, const OpInfo& op, NodeState s) {
  ImGui::BeginTooltip();
  ImGui::Text("%.*s  #%llu", static_cast<int>(model.op_name(op).size()), model.op_name(op).data(),
              static_cast<unsigned long long>(op.id));
  ImGui::TextDisabled("%s", state_name(s));
  if (op.enqueue != kNoTime) ImGui::Text("enqueued at %s", seconds(op.enqueue).c_str());
  if (op.start != kNoTime) {
    if (op.enqueue != kNoTime) ImGui::Text("started %s after enqueue", seconds(op.start - op.enqueue).c_str());
    if (op.end != kNoTime) ImGui::Text("ran for %s", seconds(op.end - op.start).c_str());
    if (op.executed() && op.worker < model.workers.size()) ImGui::Text("on %s", model.workers[op.worker].name.c_str());
  } else if (op.launched() && op.launch_worker < model.workers.size()) {
    ImGui::Text("launched by %s, not finished", model.workers[op.launch_worker].name.c_str());
  } else if (const int64_t now = model.end_time(); op.enqueue != kNoTime && now > op.enqueue) {
    ImGui::Text("not finished %s after enqueue", seconds(now - op.enqueue).c_str());
  }
  std::string vars = "reads var";
  const auto append = [&vars](const uint64_t* ids, uint16_t count) {
    if (count == 0) vars += " none";
    for (uint16_t i = 0; i < count; ++i) {
      vars += i ? ", " : " ";
      vars += std::to_string(ids[i]);
    }
  };
  append(model.reads_of(op), op.num_reads);
  vars += "; writes var";
  append(model.writes_of(op), op.num_writes);
  ImGui::TextDisabled("%s", vars.c_str());
  if (auto it = model.errors.find(op.id); it != model.errors.end()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kFailed), "%s", it->second.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::EndTooltip();
}

// Ordering costs milliseconds per thousand nodes, so it is redone only when the
// graph changed. A large graph that grows while the run goes on gets its new
// nodes appended to their columns, and is ordered in full once a frame finds
// it unchanged (the run paused or ended).
void update_order(const OpGraph& graph, OpGraphViewState::Cache& cache) {
  const size_t n = graph.nodes.size();
  const uint32_t first_op = n ? graph.nodes.front().op : 0, last_op = n ? graph.nodes.back().op : 0;
  const bool same =
      cache.nodes == n && cache.edges == graph.edges.size() && cache.first_op == first_op && cache.last_op == last_op;
  if (same && !cache.stale) return;
  const bool grew = n > cache.nodes && cache.nodes > 0 && cache.first_op == first_op &&
                    graph.nodes[cache.nodes - 1].op == cache.last_op;
  if (!same && grew && n > kLiveOrderNodes) {
    for (size_t i = cache.nodes; i < n; ++i) {
      const auto layer = static_cast<size_t>(std::max(0, graph.nodes[i].layer));
      if (layer >= cache.columns.size()) cache.columns.resize(layer + 1);
      cache.columns[layer].push_back(static_cast<uint32_t>(i));
    }
    cache.stale = true;
  } else {
    cache.columns = OrderOpGraph(graph);
    cache.stale = false;
  }
  cache.nodes = n;
  cache.edges = graph.edges.size();
  cache.first_op = first_op;
  cache.last_op = last_op;
}

}  // namespace

int64_t CountCrossings(const OpGraph& graph, const OpGraphColumns& columns) {
  const size_t n = graph.nodes.size();
  std::vector<int> column_of(n, -1);
  std::vector<uint32_t> index_of(n, 0);
  for (size_t c = 0; c < columns.size(); ++c) {
    for (size_t k = 0; k < columns[c].size(); ++k) {
      if (columns[c][k] >= n) continue;
      column_of[columns[c][k]] = static_cast<int>(c);
      index_of[columns[c][k]] = static_cast<uint32_t>(k);
    }
  }
  // Two segments of the same span cross when their sources and targets are in opposite orders:
  // sorted by (span, source, target), count the earlier ones with a higher target (Fenwick tree).
  std::vector<std::tuple<int, int, uint32_t, uint32_t>> segments;
  for (const auto& e : graph.edges) {
    if (!valid_edge(graph, e) || column_of[e.from] < 0 || column_of[e.to] < 0) continue;
    segments.emplace_back(column_of[e.from], column_of[e.to], index_of[e.from], index_of[e.to]);
  }
  std::sort(segments.begin(), segments.end());
  int64_t crossings = 0;
  std::vector<int64_t> tree(n + 1, 0);  // counts by target index + 1
  for (size_t i = 0, group = 0; i < segments.size(); ++i) {
    if (std::get<0>(segments[i]) != std::get<0>(segments[group]) ||
        std::get<1>(segments[i]) != std::get<1>(segments[group])) {
      for (size_t j = group; j < i; ++j) {  // clear what the previous span added
        for (size_t t = std::get<3>(segments[j]) + 1; t <= n; t += t & (~t + 1)) tree[t] = 0;
      }
      group = i;
    }
    const size_t b = std::get<3>(segments[i]) + 1;
    int64_t at_or_below = 0;
    for (size_t t = b; t > 0; t -= t & (~t + 1)) at_or_below += tree[t];
    crossings += static_cast<int64_t>(i - group) - at_or_below;
    for (size_t t = b; t <= n; t += t & (~t + 1)) ++tree[t];
  }
  return crossings;
}

OpGraphColumns OrderOpGraph(const OpGraph& graph) {
  const size_t n = graph.nodes.size();
  int layers = 0;
  for (const auto& node : graph.nodes) layers = std::max(layers, node.layer + 1);
  OpGraphColumns columns(static_cast<size_t>(layers));
  for (size_t i = 0; i < n; ++i) columns[std::max(0, graph.nodes[i].layer)].push_back(static_cast<uint32_t>(i));
  if (n == 0) return columns;

  const auto in = adjacency(graph, true), out = adjacency(graph, false);
  std::vector<float> pos(n, 0.0f), key(n, 0.0f);
  for (const auto& column : columns) normalise(column, pos);
  OpGraphColumns best = columns;
  int64_t best_crossings = CountCrossings(graph, columns);
  // Positions are normalised to [0, 1] per column so that edges spanning several
  // layers pull as much as adjacent ones; a node without neighbours on the sweep's
  // side keeps its place, and ties keep the previous order (stable sort).
  for (int sweep = 0; sweep < kSweeps && best_crossings > 0; ++sweep) {
    const bool down = sweep % 2 == 0;
    const auto& adj = down ? in : out;
    for (int step = 1; step < layers; ++step) {
      auto& column = columns[static_cast<size_t>(down ? step : layers - 1 - step)];
      for (uint32_t v : column) {
        float sum = 0;
        for (uint32_t u : adj[v]) sum += pos[u];
        key[v] = adj[v].empty() ? pos[v] : sum / static_cast<float>(adj[v].size());
      }
      std::stable_sort(column.begin(), column.end(), [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
      normalise(column, pos);
    }
    const int64_t crossings = CountCrossings(graph, columns);
    if (crossings < best_crossings) {
      best_crossings = crossings;
      best = columns;
    }
  }
  return best;
}

OpGraphLayout PlaceOpGraph(const OpGraphColumns& columns, size_t num_nodes, ImVec2 size, ImVec2 max_node) {
  OpGraphLayout layout;
  layout.centers.assign(num_nodes, ImVec2(0, 0));
  size_t tallest = 0;
  for (const auto& column : columns) tallest = std::max(tallest, column.size());
  if (columns.empty() || tallest == 0) return layout;
  const float w = std::max(size.x, 0.0f), h = std::max(size.y, 0.0f);
  const float margin = std::min({8.0f, w * 0.05f, h * 0.05f});
  const float inner_w = w - 2 * margin, inner_h = h - 2 * margin;
  const float column_pitch = inner_w / static_cast<float>(columns.size());
  layout.node_size = ImVec2(std::min(max_node.x, column_pitch * kNodeFill),
                            std::min(max_node.y, inner_h / static_cast<float>(tallest) * kNodeFill));
  for (size_t c = 0; c < columns.size(); ++c) {
    const auto& column = columns[c];
    const float x = margin + column_pitch * (static_cast<float>(c) + 0.5f);
    const float k = static_cast<float>(column.size());
    const float pitch = std::min(inner_h / std::max(k, 1.0f), layout.node_size.y * kRowSpread);
    for (size_t i = 0; i < column.size(); ++i) {
      if (column[i] >= num_nodes) continue;
      layout.centers[column[i]] = ImVec2(x, h * 0.5f + (static_cast<float>(i) - (k - 1) * 0.5f) * pitch);
    }
  }
  return layout;
}

OpGraphLayout LayoutOpGraph(const OpGraph& graph, ImVec2 size, ImVec2 max_node) {
  return PlaceOpGraph(OrderOpGraph(graph), graph.nodes.size(), size, max_node);
}

namespace {

// Dear ImGui's 16-bit indices cap a draw list at 65536 vertices unless the
// renderer can offset them; a graph that would not fit draws in less detail,
// and what still does not fit is counted and left out (zooming in shows it).
constexpr unsigned kVertexReserve = 6000;  // for the legend and whatever the window draws after us
constexpr unsigned kDetailedNodeVtx = 200, kDetailedEdgeVtx = 60, kPlainVtx = 8;
constexpr int kCurveSegments = 12;

unsigned vertices_left(const ImDrawList* draw) {
  if (sizeof(ImDrawIdx) > 2 || (draw->Flags & ImDrawListFlags_AllowVtxOffset)) return UINT32_MAX;
  const unsigned limit = (1u << 16) - kVertexReserve;
  return draw->_VtxCurrentIdx < limit ? limit - draw->_VtxCurrentIdx : 0;
}

// One frame's geometry and node states: what hit tests and drawing share.
struct Scene {
  Scene(const TraceModel& m, const OpGraph& g) : model(m), graph(g) {}
  const TraceModel& model;
  const OpGraph& graph;
  OpGraphLayout layout;
  ImVec2 origin, half;
  float zoom = 1, arrow = 0;
  std::vector<NodeState> states;
  int counts[static_cast<int>(NodeState::count)] = {};

  const OpInfo* op_of(uint32_t node) const {
    return graph.nodes[node].op < model.ops.size() ? &model.ops[graph.nodes[node].op] : nullptr;
  }
  ImVec2 center(uint32_t node) const { return origin + layout.centers[node] * zoom; }
  ImRect box(uint32_t node) const { return ImRect(center(node) - half, center(node) + half); }
  // A horizontal S-curve from the source's right side to just before the target's arrowhead.
  void curve(const OpGraph::Edge& e, ImVec2 p[4]) const {
    p[0] = center(e.from) + ImVec2(half.x, 0);
    p[3] = center(e.to) - ImVec2(half.x + arrow, 0);
    const float dx = (p[3].x - p[0].x) * 0.5f;
    p[1] = p[0] + ImVec2(dx, 0);
    p[2] = p[3] - ImVec2(dx, 0);
  }
  ImRect curve_bounds(const ImVec2 p[4]) const {
    return ImRect(ImMin(p[0], p[3]) - ImVec2(0, arrow), ImMax(p[0], p[3]) + ImVec2(arrow, arrow));
  }
};

void compute_states(Scene& scene) {
  const size_t n = scene.graph.nodes.size();
  scene.states.assign(n, NodeState::pending);
  for (uint32_t i = 0; i < n; ++i) {
    if (const OpInfo* op = scene.op_of(i)) scene.states[i] = node_state(*op);
  }
  // Ready: still pending, but every input done (queued for a worker, or running).
  std::vector<uint8_t> inputs_open(n, 0);
  for (const auto& e : scene.graph.edges) {
    if (valid_edge(scene.graph, e) && scene.states[e.from] != NodeState::done) inputs_open[e.to] = 1;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (scene.states[i] == NodeState::pending && !inputs_open[i] && scene.op_of(i)) scene.states[i] = NodeState::ready;
    ++scene.counts[static_cast<int>(scene.states[i])];
  }
}

int64_t node_at(const Scene& scene, ImVec2 mouse) {
  for (uint32_t i = 0; i < scene.graph.nodes.size(); ++i) {
    if (scene.op_of(i) && scene.box(i).Contains(mouse)) return i;
  }
  return -1;
}

int64_t edge_at(const Scene& scene, ImVec2 mouse) {
  constexpr float kReach = 5.0f;
  float best = kReach * kReach;
  int64_t found = -1;
  for (size_t k = 0; k < scene.graph.edges.size(); ++k) {
    if (!valid_edge(scene.graph, scene.graph.edges[k])) continue;
    ImVec2 p[4];
    scene.curve(scene.graph.edges[k], p);
    ImRect bounds = scene.curve_bounds(p);
    bounds.Expand(kReach);
    if (!bounds.Contains(mouse)) continue;
    const float d = ImLengthSqr(ImBezierCubicClosestPoint(p[0], p[1], p[2], p[3], mouse, kCurveSegments) - mouse);
    if (d < best) best = d, found = static_cast<int64_t>(k);
  }
  return found;
}

// Name, then "#id" and the state (or, when done, how long it ran) when two lines fit.
void node_label(ImDrawList* draw, const Scene& scene, uint32_t i, const ImRect& box, ImU32 color) {
  const float font = ImGui::GetFontSize(), pad = ImGui::GetStyle().FramePadding.y;
  if (box.GetHeight() < font + 2) return;
  const OpInfo& op = *scene.op_of(i);
  const std::string_view name = scene.model.op_name(op);
  const NodeState s = scene.states[i];
  char second[64];
  std::snprintf(second, sizeof second, "#%llu  %s", static_cast<unsigned long long>(op.id),
                s == NodeState::done ? seconds(op.end - op.start).c_str() : state_name(s));
  const ImVec4 clip(box.Min.x + 2, box.Min.y, box.Max.x - 2, box.Max.y);
  const bool two_lines = box.GetHeight() >= 2 * font + pad;
  const ImVec2 c = box.GetCenter();
  const float name_w = ImGui::CalcTextSize(name.data(), name.data() + name.size()).x;
  draw->AddText(nullptr, 0.0f,
                ImVec2(std::max(box.Min.x + pad, c.x - name_w * 0.5f), two_lines ? c.y - font : c.y - font * 0.5f),
                color, name.data(), name.data() + name.size(), 0.0f, &clip);
  if (two_lines) {
    const float w = ImGui::CalcTextSize(second).x;
    draw->AddText(nullptr, 0.0f, ImVec2(std::max(box.Min.x + pad, c.x - w * 0.5f), c.y), with_alpha(color, 210), second,
                  nullptr, 0.0f, &clip);
  }
}

// Edges under nodes; returns how many items did not fit the vertex budget.
size_t draw_graph(ImDrawList* draw, const Scene& scene, const ImRect& clip, int64_t selected, int64_t hovered_node,
                  int64_t hovered_edge) {
  const OpGraph& g = scene.graph;
  size_t visible_nodes = 0, visible_edges = 0;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) visible_nodes += scene.op_of(i) && clip.Overlaps(scene.box(i));
  for (const auto& e : g.edges) {
    ImVec2 p[4];
    if (valid_edge(g, e)) scene.curve(e, p), visible_edges += clip.Overlaps(scene.curve_bounds(p));
  }
  const bool detailed = scene.half.y >= 1.5f &&
                        visible_nodes * kDetailedNodeVtx + visible_edges * kDetailedEdgeVtx <= vertices_left(draw);
  const unsigned node_vtx = detailed ? kDetailedNodeVtx : kPlainVtx, edge_vtx = detailed ? kDetailedEdgeVtx : kPlainVtx;
  const size_t node_reserve = visible_nodes * node_vtx;
  size_t left_out = 0;

  const ImU32 edge_color = with_alpha(theme::kText, selected >= 0 ? 40 : 115);
  for (size_t k = 0; k < g.edges.size(); ++k) {
    const OpGraph::Edge& e = g.edges[k];
    ImVec2 p[4];
    if (!valid_edge(g, e)) continue;
    scene.curve(e, p);
    if (!clip.Overlaps(scene.curve_bounds(p))) continue;
    if (vertices_left(draw) < node_reserve + edge_vtx) {
      ++left_out;
      continue;
    }
    ImU32 color = edge_color;
    float thickness = 1.5f;
    if (static_cast<int64_t>(e.to) == selected) color = kInputEdge, thickness = 2.5f;
    if (static_cast<int64_t>(e.from) == selected) color = kOutputEdge, thickness = 2.5f;
    if (static_cast<int64_t>(k) == hovered_edge) color = theme::kSelection, thickness = 2.5f;
    const ImVec2 tip = p[3] + ImVec2(scene.arrow, 0);
    if (!detailed) {
      draw->AddLine(p[0], tip, color, 1.0f);
      continue;
    }
    draw->AddBezierCubic(p[0], p[1], p[2], p[3], color, thickness, kCurveSegments);
    draw->AddTriangleFilled(tip, p[3] - ImVec2(0, scene.arrow * 0.6f), p[3] + ImVec2(0, scene.arrow * 0.6f), color);
  }

  const float pulse = 0.5f + 0.5f * std::sin(static_cast<float>(ImGui::GetTime()) * 6.0f);
  // Running nodes pulse (their border, drawn in detail): the next frame is wanted without input.
  if (detailed && scene.counts[static_cast<int>(NodeState::running)] > 0) RequestFrameWithin(1.0 / 30);
  const float rounding = std::min(6.0f, scene.half.y * 0.6f);
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const ImRect box = scene.box(i);
    if (!scene.op_of(i) || !clip.Overlaps(box)) continue;
    if (vertices_left(draw) < node_vtx) {
      ++left_out;
      continue;
    }
    const Style s = node_style(scene.states[i], OpColor(scene.model.op_name(*scene.op_of(i))), pulse);
    const bool marked = static_cast<int64_t>(i) == selected || static_cast<int64_t>(i) == hovered_node;
    if (!detailed) {
      draw->AddRectFilled(box.Min, box.Max, scene.states[i] == NodeState::pending ? s.border : s.fill);
      if (marked) draw->AddRect(box.Min - ImVec2(2, 2), box.Max + ImVec2(2, 2), theme::kSelection);
      continue;
    }
    draw->AddRectFilled(box.Min, box.Max, s.fill, rounding);
    draw->AddRect(box.Min, box.Max, s.border, rounding, 0, s.thickness);
    if (marked) {
      const float grow = static_cast<int64_t>(i) == selected ? 3.0f : 2.0f;
      draw->AddRect(box.Min - ImVec2(grow, grow), box.Max + ImVec2(grow, grow), theme::kSelection, rounding + grow, 0,
                    grow - 1.0f);
    }
    node_label(draw, scene, i, box, s.text);
  }
  return left_out;
}

// A swatch and a count per state, then what did not fit, if anything.
void draw_legend(ImDrawList* draw, const Scene& scene, ImVec2 at, size_t left_out) {
  const float font = ImGui::GetFontSize(), pad = ImGui::GetStyle().FramePadding.y;
  char label[64];
  for (int k = 0; k < static_cast<int>(NodeState::count); ++k) {
    const auto s = static_cast<NodeState>(k);
    if (s == NodeState::running && scene.counts[k] == 0) continue;  // the recorder may report start and end together
    const Style st = node_style(s, OpColor("add"), 1.0f);
    const ImVec2 sw(font * 0.9f, font * 0.9f);
    draw->AddRectFilled(at + ImVec2(0, font * 0.05f), at + sw, st.fill, 2.0f);
    draw->AddRect(at + ImVec2(0, font * 0.05f), at + sw, st.border, 2.0f, 0, std::min(st.thickness, 2.0f));
    std::snprintf(label, sizeof label, "%s %d", state_name(s), scene.counts[k]);
    draw->AddText(at + ImVec2(sw.x + pad, 0), theme::kText, label);
    at.x += sw.x + pad + ImGui::CalcTextSize(label).x + font;
  }
  if (left_out == 0) return;
  std::snprintf(label, sizeof label, "%zu not drawn: zoom in", left_out);
  draw->AddText(at, theme::kTextDim, label);
}

void edge_tooltip(const Scene& scene, const OpGraph::Edge& e) {
  ImGui::BeginTooltip();
  ImGui::Text("var %llu", static_cast<unsigned long long>(e.var));
  const OpInfo *from = scene.op_of(e.from), *to = scene.op_of(e.to);
  if (from && to) {
    const std::string_view a = scene.model.op_name(*from), b = scene.model.op_name(*to);
    ImGui::TextDisabled("%.*s #%llu \xE2\x86\x92 %.*s #%llu", static_cast<int>(a.size()), a.data(),
                        static_cast<unsigned long long>(from->id), static_cast<int>(b.size()), b.data(),
                        static_cast<unsigned long long>(to->id));
  }
  ImGui::EndTooltip();
}

// Boxes as wide as the longest name or "#id  cancelled" (measured once per distinct name), two lines tall.
ImVec2 max_node_size(const TraceModel& model, const OpGraph& graph) {
  const float font = ImGui::GetFontSize(), pad = ImGui::GetStyle().FramePadding.y;
  char id_line[48];
  const OpInfo* last =
      graph.nodes.empty() || graph.nodes.back().op >= model.ops.size() ? nullptr : &model.ops[graph.nodes.back().op];
  std::snprintf(id_line, sizeof id_line, "#%llu  cancelled", static_cast<unsigned long long>(last ? last->id : 0));
  float widest = ImGui::CalcTextSize(id_line).x;
  std::vector<uint8_t> measured(model.names.size(), 0);
  for (const auto& node : graph.nodes) {
    if (node.op >= model.ops.size()) continue;
    const trace::NameId name = model.ops[node.op].name;
    if (name >= measured.size() || measured[name]) continue;
    measured[name] = 1;
    widest = std::max(widest, ImGui::CalcTextSize(model.names[name].c_str()).x);
  }
  return ImVec2(std::min(widest, font * 14.0f) + 4 * pad, 2 * font + 3 * pad);
}

}  // namespace

void OpGraphView(const char* id, const TraceModel& model, const OpGraph& graph, OpGraphViewState& state, ImVec2 size) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return;
  const ImGuiID gid = window->GetID(id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 item_size = ImGui::CalcItemSize(size, std::max(avail.x, 120.0f), std::max(avail.y, 120.0f));
  const ImRect bb(window->DC.CursorPos, window->DC.CursorPos + item_size);
  ImGui::ItemSize(bb);
  if (!ImGui::ItemAdd(bb, gid)) return;

  ImGuiIO& io = ImGui::GetIO();
  const float pad = ImGui::GetStyle().FramePadding.y;
  const float legend_h = ImGui::GetFontSize() + 2 * pad;
  const ImRect area(bb.Min, ImVec2(bb.Max.x, std::max(bb.Min.y, bb.Max.y - legend_h)));

  bool hovered = false, held = false;
  const bool clicked = ImGui::ButtonBehavior(bb, gid, &hovered, &held);
  if (hovered) {
    ImGui::SetItemUsingMouseWheel();
    if (io.MouseWheel != 0) {
      const float zoom = std::clamp(state.zoom * std::pow(1.15f, io.MouseWheel), 0.2f, 40.0f);
      const ImVec2 m = io.MousePos - area.Min;  // keep the point under the cursor in place
      state.pan = m - (m - state.pan) * (zoom / state.zoom);
      state.zoom = zoom;
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) state.zoom = 1.0f, state.pan = ImVec2(0, 0);
  }
  if (held && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) state.pan += io.MouseDelta;

  update_order(graph, state.cache);
  Scene scene(model, graph);
  scene.layout = PlaceOpGraph(state.cache.columns, graph.nodes.size(), area.GetSize(), max_node_size(model, graph));
  scene.origin = area.Min + state.pan;
  scene.zoom = state.zoom;
  scene.half = scene.layout.node_size * (0.5f * state.zoom);
  scene.arrow = std::clamp(scene.half.y * 0.5f, 3.0f, 7.0f);
  compute_states(scene);

  // Hit tests: a node first, else the nearest edge within a few pixels.
  const bool mouse_in = hovered && area.Contains(io.MousePos);
  const int64_t hovered_node = mouse_in ? node_at(scene, io.MousePos) : -1;
  const int64_t hovered_edge = mouse_in && hovered_node < 0 ? edge_at(scene, io.MousePos) : -1;
  state.hovered_op = hovered_node >= 0 ? static_cast<int64_t>(scene.op_of(hovered_node)->id) : -1;
  if (clicked && io.MouseDragMaxDistanceSqr[0] < io.MouseDragThreshold * io.MouseDragThreshold) {
    state.selected_op = state.hovered_op;  // a click, not the end of a drag
  }
  int64_t selected_node = -1;
  for (uint32_t i = 0; state.selected_op >= 0 && i < graph.nodes.size(); ++i) {
    if (scene.op_of(i) && static_cast<int64_t>(scene.op_of(i)->id) == state.selected_op) selected_node = i;
  }

  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(bb.Min, bb.Max, theme::kBackground, ImGui::GetStyle().FrameRounding);
  draw->PushClipRect(area.Min, area.Max, true);
  if (graph.nodes.empty()) {
    const char* text = "No ops yet: the graph appears as the run pushes them.";
    draw->AddText(area.GetCenter() - ImGui::CalcTextSize(text) * 0.5f, theme::kTextDim, text);
  }
  const ImRect clip(draw->GetClipRectMin(), draw->GetClipRectMax());
  const size_t left_out = draw_graph(draw, scene, clip, selected_node, hovered_node, hovered_edge);
  draw->PopClipRect();
  draw->PushClipRect(bb.Min, bb.Max, true);
  draw_legend(draw, scene, ImVec2(bb.Min.x + pad * 2, area.Max.y + pad), left_out);
  draw->PopClipRect();

  if (hovered_node >= 0) node_tooltip(model, *scene.op_of(hovered_node), scene.states[hovered_node]);
  if (hovered_edge >= 0) edge_tooltip(scene, graph.edges[hovered_edge]);
}

}  // namespace asyncscope::widgets
