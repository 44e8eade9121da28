// host-vs-gpu: repeats x (normal n x n + matmul) run synchronously on the
// host, then pushed through the engine to a device: the pushes return long
// before the device finishes. With --device cuda the engine part runs on a
// CUDA stream (our counter-based RNG kernel + cuBLAS sgemm); with --device
// cpu on the CPU workers, which already shows enqueue vs synchronised time.
#include <vector>

#include "engine/cuda/cuda.h"
#include "engine/base/format.h"
#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/tensor/blas.h"
#include "engine/tensor/ops.h"
#include "engine/base/random.h"
#include "engine/trace_record/clock.h"

namespace asyncscope::demos {
namespace {

class HostVsGpu final : public Program {
 public:
  std::string name() const override { return "host-vs-gpu"; }
  std::string title() const override { return "Host vs GPU"; }
  std::string summary() const override {
    return "normal + matmul on the host blocks each time; pushed to a device, the calls return long before it finishes";
  }
  std::vector<Param> params() const override {
    return {Param{"repeats", "normal + matmul pairs", Param::Kind::integer, 10, 1, 10000, {}, {}},
            Param{"size", "matrices are size x size", Param::Kind::integer, 1000, 1, 65536, {}, {}},
            workers_param(), device_param(), seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t n = v.integer("size");
    const int64_t repeats = v.integer("repeats");
    // Each repeat: normal, matmul, their frees, copies; all pending at once.
    return (2 + 2 * repeats) * n * n * 4 + run_overhead_bytes(16 * repeats + 64, 16 * repeats + 64);
  }

  void run(const ParamValues& v, RunEnv& env) const override {
    const int64_t repeats = v.integer("repeats");
    const int n = static_cast<int>(v.integer("size"));
    const uint64_t seed = static_cast<uint64_t>(v.integer("seed"));
    const bool on_gpu = env.context()->device().kind != DeviceKind::cpu;
    blas::info();  // load BLAS before timing

    // Host: plain synchronous code, each result complete before the next line.
    env.mark("host, synchronous");
    std::vector<float> a(static_cast<size_t>(n) * n), c(a.size());
    const int64_t t_host = trace::now_ns();
    double host_gemm_s = 0;
    for (int64_t i = 0; i < repeats; ++i) {
      const uint64_t key = random::mix64(seed + static_cast<uint64_t>(i));
      random::fill_normal(a.data(), static_cast<int64_t>(a.size()), key, 0.0f, 1.0f);
      const int64_t t_gemm = trace::now_ns();
      blas::sgemm(false, false, n, n, n, 1.0f, a.data(), n, a.data(), n, 0.0f, c.data(), n);
      host_gemm_s += seconds_since(t_gemm);
      env.check_stop();
      env.progress(0.5 * static_cast<double>(i + 1) / static_cast<double>(repeats), "host");
    }
    const double host_s = seconds_since(t_host);

    // One untimed round on the device first: the GPU's first kernels and
    // cuBLAS set themselves up (module loading, workspaces), as BLAS did above.
    env.mark("device warm-up");
    {
      NDArray x = normal({n, n});
      dot(x, x).wait_to_read();
    }

    // Engine: the same work pushed; the loop only enqueues.
    env.mark("engine, asynchronous");
    std::vector<NDArray> results;
    const int64_t t_engine = trace::now_ns();
    for (int64_t i = 0; i < repeats; ++i) {
      NDArray x = normal({n, n});
      results.push_back(dot(x, x));
    }
    const double enqueue_s = seconds_since(t_engine);
    env.progress(0.75, "waiting for the device");
    wait_all();
    const double synced_s = seconds_since(t_engine);
    results.clear();
    env.finish();

    env.print("host, synchronous: " + format_value(host_s, "s"));
    env.print("pushed to " + v.choice("device") + ": the calls returned after " + format_value(enqueue_s, "s") +
              ", all done after " + format_value(synced_s, "s"));
    env.result("host_s", "host, synchronous", host_s, "s");
    env.result("device_enqueue_s", "pushed to " + v.choice("device") + ": calls returned after", enqueue_s, "s");
    env.result("device_synced_s", "pushed to " + v.choice("device") + ": all done after", synced_s, "s");
    // The products' speed: on the host, the sgemm calls alone; pushed, the
    // time any of the engine's products was running (from the trace).
    const double flops = 2.0 * n * n * n * static_cast<double>(repeats);
    const trace::TraceModel m = env.model();
    env.result("host_gflops", "host matrix products", gflops(flops, host_gemm_s), "GFLOP/s");
    env.result("device_gflops", "pushed matrix products", gflops(flops, op_busy_seconds(m, "dot", marker_time(m, "engine, asynchronous"))),
               "GFLOP/s");
    env.note("The push loop returns almost at once; the wait at the end takes the real time.");
    if (on_gpu && simulated_gpus() > 0) {
      env.note("Device: a simulated GPU (host memory and host threads; ASYNCSCOPE_SIMULATED_GPUS).");
    } else if (on_gpu) {
      const cuda::Status& gpu = cuda::status();
      env.note("Device: " + gpu.device_name + " (compute capability " + std::to_string(gpu.compute_capability / 10) +
               "." + std::to_string(gpu.compute_capability % 10) + ").");
    }
  }
};

}  // namespace

std::unique_ptr<Program> make_host_vs_gpu() { return std::make_unique<HostVsGpu>(); }

}  // namespace asyncscope::demos
