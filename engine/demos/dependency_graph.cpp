// dependency-graph: x = ones; y = ones; z = x * y + 2, and a diamond
// a -> (b, c) -> d. Independent ops run side by side on different workers;
// dependent ones wait. The op graph (from the trace) is what the GUI draws.
#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/tensor/ops.h"
#include "engine/trace/op_graph.h"

namespace asyncscope::demos {
namespace {

bool overlap(const trace::OpInfo& a, const trace::OpInfo& b) { return a.start < b.end && b.start < a.end; }

class DependencyGraph final : public Program {
 public:
  std::string name() const override { return "dependency-graph"; }
  std::string title() const override { return "Dependency graph"; }
  std::string summary() const override {
    return "z = x * y + 2: x and y are independent and run in parallel; the ops that use them wait";
  }
  ProgramViews views() const override { return ProgramViews{.op_graph = true}; }
  std::vector<Param> params() const override {
    return {Param{"size", "arrays are size x size", Param::Kind::integer, 2000, 1, 65536, {}, {}}, workers_param(),
            device_param(), seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t n = v.integer("size");
    return 9 * n * n * 4 + run_overhead_bytes(64, 64);  // a handful of ops
  }

  void run(const ParamValues& v, RunEnv& env) const override {
    const int64_t n = v.integer("size");
    env.mark("z = x * y + 2");
    const uint64_t first = env.engine().stats().pushed + 1;
    NDArray x = ones({n, n});
    NDArray y = ones({n, n});
    NDArray z = x * y + 2.0f;
    env.mark("diamond");
    NDArray a = ones({n, n});
    NDArray b = a + 1.0f;
    NDArray c = a * 2.0f;
    NDArray d = b + c;
    wait_all();
    const float z00 = z.to_host()[0];
    const float d00 = d.to_host()[0];
    env.finish();

    const trace::TraceModel m = env.model();
    const trace::OpGraph graph = build_op_graph(m, first);
    // x and y (the first two ops) are independent: did they overlap in time?
    const trace::OpInfo* ox = m.find_op(first);
    const trace::OpInfo* oy = m.find_op(first + 1);
    const bool parallel = ox && oy && ox->executed() && oy->executed() && overlap(*ox, *oy);
    int64_t pairs = 0;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      for (size_t j = i + 1; j < graph.nodes.size(); ++j) {
        pairs += overlap(m.ops[graph.nodes[i].op], m.ops[graph.nodes[j].op]);
      }
    }
    env.result("ops", "ops in the graph", static_cast<double>(graph.nodes.size()), "");
    env.result("edges", "data dependencies", static_cast<double>(graph.edges.size()), "");
    env.result("critical_path", "longest chain of dependent ops", static_cast<double>(graph.critical_path()), "");
    env.result("x_y_parallel", "x and y ran at the same time", parallel ? 1.0 : 0.0, "");
    env.result("overlapping_pairs", "pairs of ops that overlapped", static_cast<double>(pairs), "");
    env.result("z", "z[0]", z00, "");
    env.result("d", "d[0]", d00, "");
    env.note(parallel ? "x and y ran side by side on two workers; x * y waited for both."
                      : "x and y did not overlap (one worker, or one finished before the other started).");
  }
};

}  // namespace

std::unique_ptr<Program> make_dependency_graph() { return std::make_unique<DependencyGraph>(); }

}  // namespace asyncscope::demos
