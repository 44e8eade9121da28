// OpGraph: the data-flow graph of the ops in a trace: an edge from op A to a
// later op B when B read a var that A wrote last before it (read after
// write). Nodes are layered by longest path from a source, ready to draw as
// a layered DAG.
// Threading: plain data; build from a model owned by the calling thread.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace/model.h"

namespace asyncscope::trace {

struct OpGraph {
  struct Node {
    uint32_t op = 0;  // index into TraceModel::ops
    int layer = 0;    // 0 for ops that read nothing produced in the graph
  };
  struct Edge {
    uint32_t from = 0;  // node indices
    uint32_t to = 0;
    uint64_t var = 0;
  };
  std::vector<Node> nodes;  // in push order
  std::vector<Edge> edges;
  int layers = 0;
  // Length of the longest chain of dependent ops (in ops).
  int critical_path() const noexcept { return layers; }
};

// The graph of the user ops (not the engine's internal ones) with ids in [first_op, last_op].
OpGraph build_op_graph(const TraceModel& model, uint64_t first_op = 0, uint64_t last_op = UINT64_MAX);

}  // namespace asyncscope::trace
