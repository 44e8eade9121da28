#include "widgets/op_graph_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "support/model_vars.h"
#include "widgets/imgui_context.h"

namespace asyncscope::widgets {
namespace {

using trace::kNoTime;
using trace::OpGraph;
using trace::OpInfo;
using trace::OpStatus;
using trace::TraceModel;

// A hand-written model: ops with names, vars and (optionally) execution times.
struct ModelBuilder {
  TraceModel m;
  ModelBuilder() {
    m.names = {""};
    m.workers.push_back({"CPU worker 0", trace::DeviceKind::cpu, 0, 0, trace::SpanKind::execute, {}, {}});
  }
  uint64_t op(const std::string& name, std::vector<uint64_t> reads, std::vector<uint64_t> writes) {
    OpInfo op;
    op.id = m.first_op_id + m.ops.size();
    op.enqueue = static_cast<int64_t>(m.ops.size()) * 1000;
    testing::set_vars(m, op, reads, writes);
    m.names.push_back(name);
    op.name = static_cast<trace::NameId>(m.names.size() - 1);
    m.ops.push_back(op);
    return op.id;
  }
  void run(uint64_t id, int64_t start, int64_t end, OpStatus status = OpStatus::ok) {
    OpInfo& op = m.ops[id - m.first_op_id];
    op.start = start;
    op.end = end;
    op.status = status;
    m.workers[0].ops.push_back(static_cast<uint32_t>(id - m.first_op_id));
  }
};

// The dependency-graph demo: x = ones; y = ones; z = x * y + 2; a = ones;
// b = a + 1; c = a * 2; d = b + c. Vars: x 1, y 2, x*y 3, z 4, a 5, b 6, c 7, d 8.
ModelBuilder dependency_graph(size_t ops_enqueued = 8, size_t ops_run = 8) {
  ModelBuilder b;
  const std::vector<std::tuple<const char*, std::vector<uint64_t>, std::vector<uint64_t>>> ops = {
      {"ones", {}, {1}}, {"ones", {}, {2}},        {"mul", {1, 2}, {3}},     {"add_scalar", {3}, {4}},
      {"ones", {}, {5}}, {"add_scalar", {5}, {6}}, {"mul_scalar", {5}, {7}}, {"add", {6, 7}, {8}},
  };
  for (size_t i = 0; i < ops_enqueued; ++i) b.op(std::get<0>(ops[i]), std::get<1>(ops[i]), std::get<2>(ops[i]));
  for (size_t i = 0; i < ops_run && i < ops_enqueued; ++i) {
    b.run(b.m.first_op_id + i, 10000 + static_cast<int64_t>(i) * 5000, 14000 + static_cast<int64_t>(i) * 5000);
  }
  return b;
}

// Layout properties every graph must have in a region of `size`.
void expect_valid_layout(const OpGraph& g, const OpGraphLayout& layout, ImVec2 size) {
  ASSERT_EQ(layout.centers.size(), g.nodes.size());
  if (g.nodes.empty()) return;
  const ImVec2 half(layout.node_size.x * 0.5f, layout.node_size.y * 0.5f);
  ASSERT_GT(half.x, 0.0f);
  ASSERT_GT(half.y, 0.0f);
  constexpr float eps = 1e-3f;
  for (const ImVec2& c : layout.centers) {
    EXPECT_GE(c.x - half.x, -eps);
    EXPECT_LE(c.x + half.x, size.x + eps);
    EXPECT_GE(c.y - half.y, -eps);
    EXPECT_LE(c.y + half.y, size.y + eps);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (size_t j = i + 1; j < g.nodes.size(); ++j) {
      const ImVec2 a = layout.centers[i], b = layout.centers[j];
      const bool overlap =
          std::abs(a.x - b.x) < layout.node_size.x - eps && std::abs(a.y - b.y) < layout.node_size.y - eps;
      ASSERT_FALSE(overlap) << "nodes " << i << " and " << j;
    }
  }
  for (const auto& e : g.edges) {
    EXPECT_LT(g.nodes[e.from].layer, g.nodes[e.to].layer);
    EXPECT_LT(layout.centers[e.from].x + half.x, layout.centers[e.to].x - half.x) << "edges run left to right";
  }
}

void expect_same(const OpGraphLayout& a, const OpGraphLayout& b) {
  ASSERT_EQ(a.centers.size(), b.centers.size());
  for (size_t i = 0; i < a.centers.size(); ++i) {
    EXPECT_EQ(a.centers[i].x, b.centers[i].x);
    EXPECT_EQ(a.centers[i].y, b.centers[i].y);
  }
  EXPECT_EQ(a.node_size.x, b.node_size.x);
  EXPECT_EQ(a.node_size.y, b.node_size.y);
}

// A random DAG as build_op_graph makes them: edges from earlier to later
// nodes, layer = longest path from a source.
OpGraph random_dag(uint32_t n, unsigned seed) {
  std::mt19937 rng(seed);
  OpGraph g;
  for (uint32_t j = 0; j < n; ++j) {
    int layer = 0;
    const int inputs = j == 0 ? 0 : static_cast<int>(rng() % 4);
    for (int k = 0; k < inputs; ++k) {
      // Mostly recent producers, as in a real program, sometimes far back.
      const uint32_t back = rng() % 4 == 0 ? rng() % j : std::min<uint32_t>(j - 1, rng() % 8);
      const uint32_t from = j - 1 - back;
      g.edges.push_back({from, j, 1000 + j * 4 + static_cast<uint64_t>(k)});
      layer = std::max(layer, g.nodes[from].layer + 1);
    }
    g.nodes.push_back({j, layer});
    g.layers = std::max(g.layers, layer + 1);
  }
  return g;
}

OpGraphColumns push_order(const OpGraph& g) {
  OpGraphColumns columns(static_cast<size_t>(g.layers));
  for (uint32_t i = 0; i < g.nodes.size(); ++i) columns[g.nodes[i].layer].push_back(i);
  return columns;
}

TEST(OpGraphLayout, DependencyGraphDemoShape) {
  const ModelBuilder b = dependency_graph();
  const OpGraph g = trace::build_op_graph(b.m);
  ASSERT_EQ(g.nodes.size(), 8u);
  ASSERT_EQ(g.edges.size(), 7u);
  ASSERT_EQ(g.layers, 3);

  const OpGraphColumns columns = OrderOpGraph(g);
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0].size(), 3u);  // x, y, a
  EXPECT_EQ(columns[1].size(), 3u);  // x * y, b, c
  EXPECT_EQ(columns[2].size(), 2u);  // z, d
  EXPECT_EQ(CountCrossings(g, columns), 0);

  for (const ImVec2 size : {ImVec2(800, 500), ImVec2(300, 120), ImVec2(2000, 1200)}) {
    const OpGraphLayout layout = LayoutOpGraph(g, size);
    expect_valid_layout(g, layout, size);
    expect_same(layout, LayoutOpGraph(g, size));
    EXPECT_LE(layout.node_size.x, 120.0f);
    EXPECT_LE(layout.node_size.y, 36.0f);
  }
  // A roomy region gives the full box size.
  EXPECT_EQ(LayoutOpGraph(g, ImVec2(2000, 1200)).node_size.x, 120.0f);
}

TEST(OpGraphLayout, BarycentreOrderingRemovesACrossing) {
  // 0 -> 3 and 1 -> 2 cross in push order.
  OpGraph g;
  g.nodes = {{0, 0}, {1, 0}, {2, 1}, {3, 1}};
  g.edges = {{0, 3, 10}, {1, 2, 11}};
  g.layers = 2;
  EXPECT_EQ(CountCrossings(g, push_order(g)), 1);
  const OpGraphColumns ordered = OrderOpGraph(g);
  EXPECT_EQ(CountCrossings(g, ordered), 0);
  EXPECT_EQ(ordered, OrderOpGraph(g));
}

TEST(OpGraphLayout, RandomDagsOf200Nodes) {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    const OpGraph g = random_dag(200, seed);
    const OpGraphColumns columns = OrderOpGraph(g);
    // Every node once, in the column of its layer.
    std::vector<int> seen(g.nodes.size(), 0);
    ASSERT_EQ(columns.size(), static_cast<size_t>(g.layers));
    for (size_t c = 0; c < columns.size(); ++c) {
      for (uint32_t v : columns[c]) {
        ASSERT_LT(v, g.nodes.size());
        EXPECT_EQ(g.nodes[v].layer, static_cast<int>(c));
        ++seen[v];
      }
    }
    for (int s : seen) EXPECT_EQ(s, 1);
    EXPECT_LE(CountCrossings(g, columns), CountCrossings(g, push_order(g)));
    EXPECT_EQ(columns, OrderOpGraph(g));

    for (const ImVec2 size : {ImVec2(1200, 700), ImVec2(400, 150)}) {
      const OpGraphLayout layout = LayoutOpGraph(g, size);
      expect_valid_layout(g, layout, size);
      expect_same(layout, LayoutOpGraph(g, size));
    }
  }
}

// Pairs of edges over the same span whose ends are in opposite orders, pair by pair.
int64_t brute_force_crossings(const OpGraph& g, const OpGraphColumns& columns) {
  std::vector<std::pair<int, int>> at(g.nodes.size());  // column, index
  for (size_t c = 0; c < columns.size(); ++c) {
    for (size_t k = 0; k < columns[c].size(); ++k) at[columns[c][k]] = {static_cast<int>(c), static_cast<int>(k)};
  }
  int64_t n = 0;
  for (size_t i = 0; i < g.edges.size(); ++i) {
    for (size_t j = i + 1; j < g.edges.size(); ++j) {
      const auto [fi, ai] = at[g.edges[i].from];
      const auto [ti, bi] = at[g.edges[i].to];
      const auto [fj, aj] = at[g.edges[j].from];
      const auto [tj, bj] = at[g.edges[j].to];
      n += fi == fj && ti == tj && (ai - aj) * (bi - bj) < 0;
    }
  }
  return n;
}

TEST(OpGraphLayout, CrossingCountMatchesPairByPair) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const OpGraph g = random_dag(200, seed);
    EXPECT_EQ(CountCrossings(g, push_order(g)), brute_force_crossings(g, push_order(g)));
    const OpGraphColumns ordered = OrderOpGraph(g);
    EXPECT_EQ(CountCrossings(g, ordered), brute_force_crossings(g, ordered));
  }
}

TEST(OpGraphLayout, EmptyAndDegenerateRegions) {
  const OpGraph empty;
  EXPECT_TRUE(OrderOpGraph(empty).empty());
  EXPECT_TRUE(LayoutOpGraph(empty, ImVec2(100, 100)).centers.empty());
  EXPECT_EQ(CountCrossings(empty, {}), 0);
  const OpGraph g = trace::build_op_graph(dependency_graph().m);
  const OpGraphLayout zero = LayoutOpGraph(g, ImVec2(0, 0));  // must not crash or go negative
  for (const ImVec2& c : zero.centers) {
    EXPECT_GE(c.x, 0.0f);
    EXPECT_GE(c.y, 0.0f);
  }
}

// Vertices the window's draw list holds after one frame drawing `draw`.
template <typename Draw>
int frame_vertices(HeadlessContext& ctx, Draw&& draw) {
  ctx.begin_frame();
  draw();
  ImDrawData* data = ctx.end_frame();
  return data ? data->TotalVtxCount : 0;
}

TEST(OpGraphView, DrawsEmptyLiveAndCompleteModels) {
  HeadlessContext ctx(1000, 700);
  const int baseline = frame_vertices(ctx, [] {});
  const ModelBuilder complete = dependency_graph();
  const ModelBuilder live = dependency_graph(5, 2);  // 5 ops pushed, 2 finished
  ModelBuilder failed = dependency_graph(8, 3);
  failed.run(failed.m.first_op_id + 3, 40000, 41000, OpStatus::failed);
  failed.m.errors[failed.m.first_op_id + 3] = "add_scalar: out of memory";
  failed.run(failed.m.first_op_id + 4, 42000, 42000, OpStatus::skipped);
  failed.run(failed.m.first_op_id + 5, 42000, 42000, OpStatus::cancelled);
  const TraceModel empty_model;

  OpGraphViewState state;
  const OpGraph empty_graph;
  EXPECT_GT(frame_vertices(ctx, [&] { OpGraphView("g", empty_model, empty_graph, state); }), baseline);
  for (const ModelBuilder* b : std::vector<const ModelBuilder*>{&live, &complete, &failed}) {
    const OpGraph g = trace::build_op_graph(b->m);
    for (int frame = 0; frame < 3; ++frame) {
      EXPECT_GT(frame_vertices(ctx, [&] { OpGraphView("g", b->m, g, state); }), baseline);
    }
    // A small region draws too (one-line or text-less boxes).
    EXPECT_GT(frame_vertices(ctx, [&] { OpGraphView("g", b->m, g, state, ImVec2(150, 90)); }), baseline);
  }
  // 200 ops in a random DAG, half of them done.
  ModelBuilder big;
  for (int i = 0; i < 200; ++i) big.op(i % 3 ? "add" : "mul", {}, {static_cast<uint64_t>(i + 1)});
  for (int i = 0; i < 100; ++i) big.run(big.m.first_op_id + static_cast<uint64_t>(i), i * 100, i * 100 + 50);
  const OpGraph dag = random_dag(200, 7);
  EXPECT_GT(frame_vertices(ctx, [&] { OpGraphView("g", big.m, dag, state); }), baseline);
  EXPECT_EQ(trace::build_op_graph(live.m).nodes.size(), 5u);
}

TEST(OpGraphView, GrowingModelReordersAndKeepsDrawing) {
  HeadlessContext ctx(1000, 700);
  OpGraphViewState state;
  for (size_t pushed = 0; pushed <= 8; ++pushed) {
    const ModelBuilder b = dependency_graph(pushed, pushed / 2);
    const OpGraph g = trace::build_op_graph(b.m);
    frame_vertices(ctx, [&] { OpGraphView("g", b.m, g, state); });
    EXPECT_EQ(state.cache.nodes, pushed);
  }
}

TEST(OpGraphView, LargeLiveGraphAppendsWhileGrowingAndOrdersOnceSettled) {
  HeadlessContext ctx(1000, 700);
  const OpGraph full = random_dag(3000, 11);
  ModelBuilder b;
  for (int i = 0; i < 3000; ++i) b.op("add", {}, {static_cast<uint64_t>(i + 1)});
  auto prefix = [&](uint32_t k) {
    OpGraph g;
    g.nodes.assign(full.nodes.begin(), full.nodes.begin() + k);
    for (const auto& e : full.edges) {
      if (e.to < k) g.edges.push_back(e);
    }
    for (const auto& node : g.nodes) g.layers = std::max(g.layers, node.layer + 1);
    return g;
  };
  OpGraphViewState state;
  const OpGraph first = prefix(2000);
  frame_vertices(ctx, [&] { OpGraphView("g", b.m, first, state); });
  EXPECT_FALSE(state.cache.stale);
  EXPECT_EQ(state.cache.columns, OrderOpGraph(first));

  frame_vertices(ctx, [&] { OpGraphView("g", b.m, full, state); });
  EXPECT_TRUE(state.cache.stale) << "new nodes appended, not reordered, while the graph grows";
  size_t placed = 0;
  for (const auto& column : state.cache.columns) placed += column.size();
  EXPECT_EQ(placed, full.nodes.size());

  frame_vertices(ctx, [&] { OpGraphView("g", b.m, full, state); });
  EXPECT_FALSE(state.cache.stale);
  EXPECT_EQ(state.cache.columns, OrderOpGraph(full));
}

TEST(OpGraphView, HugeGraphStaysWithinTheDrawListVertexLimit) {
  // 16-bit indices without vertex offsets (as here) allow 65536 vertices per draw list.
  HeadlessContext ctx(1200, 800);
  const OpGraph g = random_dag(20000, 5);
  ModelBuilder b;
  for (int i = 0; i < 20000; ++i) b.op(i % 2 ? "add" : "mul", {}, {static_cast<uint64_t>(i + 1)});
  for (int i = 0; i < 10000; ++i) b.run(b.m.first_op_id + static_cast<uint64_t>(i), i * 10, i * 10 + 5);
  OpGraphViewState state;
  for (const float zoom : {1.0f, 8.0f, 40.0f}) {
    state.zoom = zoom;
    ctx.begin_frame();
    OpGraphView("g", b.m, g, state);
    EXPECT_LT(ImGui::GetWindowDrawList()->VtxBuffer.Size, 1 << 16) << "zoom " << zoom;
    ctx.end_frame();
  }
}

TEST(OpGraphView, HoverAndClickSelectAnOp) {
  HeadlessContext ctx(1000, 700);
  ImGuiIO& io = ImGui::GetIO();
  // Only the diamond: a is alone in its column, so its centre does not depend on the box size.
  ModelBuilder b;
  const uint64_t a = b.op("ones", {}, {5});
  b.op("add_scalar", {5}, {6});
  b.op("mul_scalar", {5}, {7});
  b.op("add", {6, 7}, {8});
  const OpGraph g = trace::build_op_graph(b.m);
  OpGraphViewState state;
  const ImVec2 size(800, 500);
  ImVec2 origin;
  auto frame = [&] {
    frame_vertices(ctx, [&] {
      origin = ImGui::GetCursorScreenPos();
      OpGraphView("g", b.m, g, state, size);
    });
  };
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  frame();
  // The graph area is the region less the legend strip under it.
  const float legend = ImGui::GetFontSize() + 2 * ImGui::GetStyle().FramePadding.y;
  const OpGraphLayout layout = LayoutOpGraph(g, ImVec2(size.x, size.y - legend));
  const ImVec2 on_a(origin.x + layout.centers[0].x, origin.y + layout.centers[0].y);

  io.MousePos = on_a;
  frame();
  EXPECT_EQ(state.hovered_op, static_cast<int64_t>(a));
  EXPECT_EQ(state.selected_op, -1);
  io.MouseDown[0] = true;
  frame();
  io.MouseDown[0] = false;
  frame();
  EXPECT_EQ(state.selected_op, static_cast<int64_t>(a));
  EXPECT_EQ(state.hovered_op, static_cast<int64_t>(a));

  // Empty space: nothing hovered; a click there clears the selection.
  io.MousePos = ImVec2(origin.x + 3, origin.y + 3);
  frame();
  EXPECT_EQ(state.hovered_op, -1);
  EXPECT_EQ(state.selected_op, static_cast<int64_t>(a));
  io.MouseDown[0] = true;
  frame();
  io.MouseDown[0] = false;
  frame();
  EXPECT_EQ(state.selected_op, -1);
}

TEST(OpGraphView, DragPansAndDoubleClickFits) {
  HeadlessContext ctx(1000, 700);
  ImGuiIO& io = ImGui::GetIO();
  const ModelBuilder b = dependency_graph();
  const OpGraph g = trace::build_op_graph(b.m);
  OpGraphViewState state;
  auto frame = [&] { frame_vertices(ctx, [&] { OpGraphView("g", b.m, g, state, ImVec2(800, 500)); }); };
  io.MousePos = ImVec2(20, 20);
  frame();
  io.MouseDown[0] = true;
  frame();
  for (int i = 1; i <= 5; ++i) {
    io.MousePos = ImVec2(20.0f + 10.0f * static_cast<float>(i), 20);
    frame();
  }
  io.MouseDown[0] = false;
  frame();
  EXPECT_GT(state.pan.x, 0.0f);
  EXPECT_EQ(state.selected_op, -1) << "a drag is not a click";

  io.MouseWheel = 1;
  frame();
  io.MouseWheel = 0;
  EXPECT_GT(state.zoom, 1.0f);
}

}  // namespace
}  // namespace asyncscope::widgets
