// queued-vs-finished: x = uniform(n x n); y = dot(x, x).sum(). The calls
// return in microseconds; the value is there only after the whole GEMM.
#include <sstream>

#include "engine/demos/registry.h"
#include "engine/demos/session.h"
#include "engine/tensor/ops.h"
#include "engine/trace/clock.h"

namespace asyncscope::demos {
namespace {

class QueuedVsFinished final : public Demo {
 public:
  std::string name() const override { return "queued-vs-finished"; }
  std::string title() const override { return "Queued vs finished"; }
  std::string summary() const override {
    return "y = dot(x, x).sum() returns at once; waiting for y takes the whole matrix product";
  }
  std::vector<Param> params() const override {
    return {Param{"size", "x is size x size", Param::Kind::integer, 2000, 1, 65536, {}, {}}, workers_param(),
            device_param(), seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t n = v.integer("size");
    return 2 * n * n * 4;  // x and the product
  }

  Results run(const ParamValues& v, RunEnv& env) const override {
    const int64_t n = v.integer("size");
    Session s(session_options(v), env);
    // Load BLAS and warm the pool first, so the measured calls are the demo's alone.
    sum(dot(ones(s.ctx(), {8, 8}), ones(s.ctx(), {8, 8}))).wait_to_read();
    s.check_stop();

    s.mark("calls");
    const int64_t t0 = trace::now_ns();
    NDArray x = uniform(s.ctx(), {n, n});
    NDArray y = sum(dot(x, x));
    const double queued = seconds_since(t0);
    s.mark("wait for y");
    s.progress(0.1, "waiting for y");
    y.wait_to_read();
    const double finished = seconds_since(t0);
    const float value = y.item();
    s.finish();

    double gemm = 0;
    const trace::TraceModel m = s.model();
    for (const trace::OpInfo& op : m.ops) {
      if (op.executed() && m.op_name(op) == "dot") gemm = static_cast<double>(op.end - op.start) * 1e-9;
    }
    Results r;
    r.rows = {
        {"queued_s", "the three calls returned after", queued, "s"},
        {"finished_s", "y was available after", finished, "s"},
        {"gemm_s", "the matrix product ran for", gemm, "s"},
        {"finished_over_queued", "finished / queued", queued > 0 ? finished / queued : 0, "x"},
        {"gflops", "matrix product speed", gemm > 0 ? 2.0 * static_cast<double>(n) * n * n / gemm * 1e-9 : 0,
         "GFLOP/s"},
        {"y", "value of y", value, ""},
    };
    std::ostringstream note;
    note << "The calls only enqueued work: they returned " << static_cast<int64_t>(finished / std::max(queued, 1e-9))
         << "x sooner than the value was ready.";
    r.notes.push_back(note.str());
    return r;
  }
};

}  // namespace

std::unique_ptr<Demo> make_queued_vs_finished() { return std::make_unique<QueuedVsFinished>(); }

}  // namespace asyncscope::demos
