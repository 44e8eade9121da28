// sync-functions: the same work waited on by each sync function. Each waits
// for exactly what its array depends on: an unrelated, longer computation
// pushed just before keeps running, except under wait_all.
#include <iterator>
#include <sstream>

#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/tensor/ops.h"
#include "engine/trace_record/clock.h"

namespace asyncscope::demos {
namespace {

constexpr const char* kKinds[] = {"wait_to_read", "wait_all", "to_host", "item", "print"};

class SyncFunctions final : public Program {
 public:
  std::string name() const override { return "sync-functions"; }
  std::string title() const override { return "Sync functions"; }
  std::string summary() const override {
    return "wait_to_read, wait_all, to_host, item and print each block until exactly their inputs are computed";
  }
  std::vector<Param> params() const override {
    return {Param{"size", "the waited-on matrices are size x size", Param::Kind::integer, 1000, 2, 65536, {}, {}},
            Param{"unrelated", "matrix products in the unrelated chain", Param::Kind::integer, 3, 0, 100, {}, {}},
            workers_param(), device_param(), seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t n = v.integer("size");
    const int64_t ops = 64 + 16 * v.integer("unrelated");  // five sync kinds, each a few ops and the chain
    return 6 * n * n * 4 + run_overhead_bytes(ops, ops);
  }

  void run(const ParamValues& v, RunEnv& env) const override {
    const int64_t n = v.integer("size");
    const int64_t chain = v.integer("unrelated");
    // Load BLAS (on a GPU: the product's kernels) before the first sync
    // function is timed.
    warm_up_products(env, n);

    int index = 0;
    for (const char* kind : kKinds) {
      env.check_stop();
      env.progress(index / 5.0, std::string("waiting with ") + kind);
      env.mark(kind);
      // The unrelated work first, so it is ahead in the queue.
      NDArray z = uniform({n, n});
      for (int64_t i = 0; i < chain; ++i) z = dot(z, z) * (1.0f / static_cast<float>(n));
      NDArray x = uniform({n, n});
      NDArray y = sum(dot(x, x));

      const int64_t t0 = trace::now_ns();
      const std::string k = kind;
      if (k == "wait_to_read") {
        y.wait_to_read();
      } else if (k == "wait_all") {
        wait_all();
      } else if (k == "to_host") {
        y.to_host();
      } else if (k == "item") {
        y.item();
      } else {
        std::ostringstream out;
        out << y;
        env.print("y = " + out.str());
      }
      const double waited = seconds_since(t0);
      // The chain's last write has completed exactly when its var is readable
      // (the engine's counts lag by a moment, the var state does not).
      const bool unrelated_done = z.var()->ready_to_read();
      wait_all();
      env.result(k + "_s", k + " waited", waited, "s");
      env.result(k + "_waited_for_unrelated", k + " also waited for the unrelated work", unrelated_done ? 1.0 : 0.0,
                 "");
      ++index;
    }
    env.finish();
    // Every product is n x n by n x n: the unrelated chain's and y's, per kind.
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) *
                         static_cast<double>(std::size(kKinds)) * static_cast<double>(chain + 1);
    const trace::TraceModel m = env.model();
    env.result("gflops", "matrix product speed", gflops(flops, op_busy_seconds(m, "dot", marker_time(m, kKinds[0]))),
               "GFLOP/s");
    env.note("Only wait_all waits for the unrelated chain; the others return as soon as y is ready.");
  }
};

}  // namespace

std::unique_ptr<Program> make_sync_functions() { return std::make_unique<SyncFunctions>(); }

}  // namespace asyncscope::demos
