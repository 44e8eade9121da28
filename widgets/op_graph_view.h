// OpGraphView: a run's op graph drawn as a layered DAG (layers left to right)
// whose nodes take their op's state as the run goes on, plus the pure layout
// it draws (ordering and placement, testable without ImGui state).
// Threading: UI thread only.
#pragma once

#include <imgui.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/trace/model.h"
#include "engine/trace/op_graph.h"

namespace asyncscope::widgets {

// Node indices per layer (column), top to bottom.
using OpGraphColumns = std::vector<std::vector<uint32_t>>;

// Where the nodes go in a region: centres by node index, relative to the
// region's top-left corner, and the one box size every node gets.
struct OpGraphLayout {
  std::vector<ImVec2> centers;
  ImVec2 node_size{0, 0};
};

// Columns by layer, each ordered by alternating barycentre sweeps, keeping the
// order with the fewest crossings (push order when nothing beats it).
// Deterministic: the same graph always gives the same order.
OpGraphColumns OrderOpGraph(const trace::OpGraph& graph);

// Places ordered columns in a region of `size`: columns evenly spaced left to
// right, a column's nodes evenly spaced and centred vertically, boxes at most
// `max_node` and shrunk so that no two overlap and all stay inside.
OpGraphLayout PlaceOpGraph(const OpGraphColumns& columns, size_t num_nodes, ImVec2 size, ImVec2 max_node);

// OrderOpGraph then PlaceOpGraph.
OpGraphLayout LayoutOpGraph(const trace::OpGraph& graph, ImVec2 size, ImVec2 max_node = ImVec2(120, 36));

// Crossings between pairs of edges that span the same two layers (straight
// segments between column positions): what OrderOpGraph reduces.
int64_t CountCrossings(const trace::OpGraph& graph, const OpGraphColumns& columns);

struct OpGraphViewState {
  int64_t hovered_op = -1;   // op id (OpInfo::id) under the mouse, -1 for none
  int64_t selected_op = -1;  // op id clicked last, -1 for none; a click on empty space clears it
  // View over the fitted layout: the wheel zooms at the cursor, a drag pans,
  // a double-click fits again.
  float zoom = 1.0f;
  ImVec2 pan{0, 0};
  // The ordering of the last graph drawn (initially that of the empty graph),
  // recomputed when the graph changes; stale: a large growing graph's new
  // nodes were appended to their columns, not ordered yet.
  struct Cache {
    size_t nodes = 0, edges = 0;
    uint32_t first_op = 0, last_op = 0;
    bool stale = false;
    OpGraphColumns columns;
  } cache;
};

// Draws the graph in the available region (or `size`). Node states come from
// the model: pending (enqueued), ready (its inputs are done: queued for a
// worker or running), running (started, not ended), done (filled with the
// op's colour), failed / skipped / cancelled (red / amber, status written).
// Hover shows an op's times and worker, or an edge's var; a click selects an
// op and highlights its input and output edges.
void OpGraphView(const char* id, const trace::TraceModel& model, const trace::OpGraph& graph, OpGraphViewState& state,
                 ImVec2 size = ImVec2(0, 0));

}  // namespace asyncscope::widgets
