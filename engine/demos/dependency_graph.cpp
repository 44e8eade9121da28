// dependency-graph: x = ones; y = ones; z = x * y + 2, and a diamond
// a -> (b, c) -> d. Independent ops run side by side on different workers;
// dependent ones wait. The op graph (from the trace) is what the GUI draws.
#include "engine/demos/registry.h"
#include "engine/demos/session.h"
#include "engine/tensor/ops.h"
#include "engine/trace/op_graph.h"

namespace asyncscope::demos {
namespace {

bool overlap(const trace::OpInfo& a, const trace::OpInfo& b) { return a.start < b.end && b.start < a.end; }

class DependencyGraph final : public Demo {
 public:
  std::string name() const override { return "dependency-graph"; }
  std::string title() const override { return "Dependency graph"; }
  std::string summary() const override {
    return "z = x * y + 2: x and y are independent and run in parallel; the ops that use them wait";
  }
  std::vector<Param> params() const override {
    return {Param{"size", "arrays are size x size", Param::Kind::integer, 2000, 1, 65536, {}, {}}, workers_param(),
            device_param(), seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t n = v.integer("size");
    return 9 * n * n * 4;
  }

  Results run(const ParamValues& v, RunEnv& env) const override {
    const int64_t n = v.integer("size");
    Session s(session_options(v), env);
    s.mark("z = x * y + 2");
    const uint64_t first = s.engine().stats().pushed + 1;
    NDArray x = ones(s.ctx(), {n, n});
    NDArray y = ones(s.ctx(), {n, n});
    NDArray z = x * y + 2.0f;
    s.mark("diamond");
    NDArray a = ones(s.ctx(), {n, n});
    NDArray b = a + 1.0f;
    NDArray c = a * 2.0f;
    NDArray d = b + c;
    s.engine().wait_all();
    const float z00 = z.to_host()[0];
    const float d00 = d.to_host()[0];
    s.finish();

    const trace::TraceModel m = s.model();
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
    Results r;
    r.rows = {
        {"ops", "ops in the graph", static_cast<double>(graph.nodes.size()), ""},
        {"edges", "data dependencies", static_cast<double>(graph.edges.size()), ""},
        {"critical_path", "longest chain of dependent ops", static_cast<double>(graph.critical_path()), ""},
        {"x_y_parallel", "x and y ran at the same time", parallel ? 1.0 : 0.0, ""},
        {"overlapping_pairs", "pairs of ops that overlapped", static_cast<double>(pairs), ""},
        {"z", "z[0]", z00, ""},
        {"d", "d[0]", d00, ""},
    };
    r.notes.push_back(parallel ? "x and y ran side by side on two workers; x * y waited for both."
                               : "x and y did not overlap (one worker, or one finished before the other started).");
    return r;
  }
};

}  // namespace

std::unique_ptr<Demo> make_dependency_graph() { return std::make_unique<DependencyGraph>(); }

}  // namespace asyncscope::demos
