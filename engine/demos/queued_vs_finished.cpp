// queued-vs-finished: x = uniform(n x n); y = dot(x, x).sum(); print y. The
// calls return in microseconds; printing y waits for the whole GEMM.
#include <sstream>

#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/tensor/ops.h"
#include "engine/trace_record/clock.h"

namespace asyncscope::demos {
namespace {

class QueuedVsFinished final : public Program {
 public:
  std::string name() const override { return "queued-vs-finished"; }
  std::string title() const override { return "Queued vs finished"; }
  std::string summary() const override {
    return "y = dot(x, x).sum() returns at once; printing y waits for the whole matrix product";
  }
  std::vector<Param> params() const override {
    return {Param{"size", "x is size x size", Param::Kind::integer, 2000, 1, 65536, {}, {}}, workers_param(),
            device_param(), seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t n = v.integer("size");
    return 2 * n * n * 4 + run_overhead_bytes(64, 64);  // x and the product; a handful of ops
  }

  void run(const ParamValues& v, RunEnv& env) const override {
    const int64_t n = v.integer("size");
    // Load BLAS (on a GPU: the product's kernels) and warm the pool first,
    // so the measured calls are the demo's alone.
    warm_up_products(env, n);
    env.check_stop();

    env.mark("calls");
    const int64_t t0 = trace::now_ns();
    NDArray x = uniform({n, n});
    NDArray y = sum(dot(x, x));
    const double queued = seconds_since(t0);
    env.mark("print y");
    env.progress(0.1, "printing y");
    std::ostringstream text;
    text << "sum = " << y;  // the sync point: printing needs the value
    const double finished = seconds_since(t0);
    env.print(text.str());
    const float value = y.item();
    env.finish();

    // The product's span (the warm-up's came before the marker).
    const trace::TraceModel m = env.model();
    const double gemm = op_busy_seconds(m, "dot", marker_time(m, "calls"));
    env.result("queued_s", "the three calls returned after", queued, "s");
    env.result("finished_s", "y was printed after", finished, "s");
    env.result("gemm_s", "the matrix product ran for", gemm, "s");
    env.result("finished_over_queued", "finished / queued", queued > 0 ? finished / queued : 0, "x");
    env.result("gflops", "matrix product speed",
               gflops(2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n), gemm), "GFLOP/s");
    env.result("y", "value of y", value, "");
    std::ostringstream note;
    note << "The calls only enqueued work: they returned " << static_cast<int64_t>(finished / std::max(queued, 1e-9))
         << "x sooner than y could be printed.";
    env.note(note.str());
  }
};

}  // namespace

std::unique_ptr<Program> make_queued_vs_finished() { return std::make_unique<QueuedVsFinished>(); }

}  // namespace asyncscope::demos
