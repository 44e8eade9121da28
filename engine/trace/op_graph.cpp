#include "engine/trace/op_graph.h"

#include <algorithm>
#include <unordered_map>

namespace asyncscope::trace {

OpGraph build_op_graph(const TraceModel& model, uint64_t first_op, uint64_t last_op) {
  OpGraph graph;
  std::unordered_map<uint64_t, uint32_t> last_writer;  // var id -> node index
  for (size_t i = 0; i < model.ops.size(); ++i) {
    const OpInfo& op = model.ops[i];
    if (!op.known() || op.internal || op.enqueue == kNoTime || op.id < first_op || op.id > last_op) continue;
    const auto node = static_cast<uint32_t>(graph.nodes.size());
    int layer = 0;
    const uint64_t* reads = model.reads_of(op);
    for (uint16_t r = 0; r < op.num_reads; ++r) {
      if (auto it = last_writer.find(reads[r]); it != last_writer.end()) {
        graph.edges.push_back({it->second, node, reads[r]});
        layer = std::max(layer, graph.nodes[it->second].layer + 1);
      }
    }
    graph.nodes.push_back({static_cast<uint32_t>(i), layer});
    graph.layers = std::max(graph.layers, layer + 1);
    const uint64_t* writes = model.writes_of(op);
    for (uint16_t w = 0; w < op.num_writes; ++w) last_writer[writes[w]] = node;
  }
  return graph;
}

}  // namespace asyncscope::trace
