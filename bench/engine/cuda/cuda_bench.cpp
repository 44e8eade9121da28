// GPU benchmarks (issue targets, on a GPU):
//   - cuBLAS GEMM 4096^2 pushed through the engine vs raw cuBLAS calls on the
//     same stream: ratio >= 0.95;
//   - push cost of a GPU op (y = x + 1 on a 2-element cuda array): <= 5 us;
//   - 10 x (normal + matmul 1000^2): enqueue time vs synchronised time;
//   - the device's idle gap between two dependent kernels (same-stream
//     successors are submitted at their producer's launch): < 5 us.
// Without a usable GPU each one reports "skipped" with the reason.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/cuda/cuda.h"
#include "engine/cuda/kernels.h"
#include "engine/tensor/ops.h"
#include "engine/trace/clock.h"
#include "engine/trace/model.h"

namespace asyncscope {
namespace {

// Reports the benchmark as skipped with the reason. On a machine that must
// have a GPU (ASYNCSCOPE_REQUIRE_GPU set), a missing one aborts the run.
bool skip_without_gpu(benchmark::State& state) {
  if (cuda::available()) return false;
  if (std::getenv("ASYNCSCOPE_REQUIRE_GPU") != nullptr) {
    std::fprintf(stderr, "ASYNCSCOPE_REQUIRE_GPU is set but CUDA is not available: %s\n", cuda::status().reason.c_str());
    std::exit(1);
  }
  state.SkipWithError(("no GPU: " + cuda::status().reason).c_str());
  return true;
}

ContextPtr gpu_context() {
  Context::Options options;
  options.device = Device::cuda(0);
  options.seed = 1;
  return Context::create(options);
}

constexpr int kGemmN = 4096;
constexpr int kGemmBatch = 10;
constexpr double kGemmFlops = 2.0 * kGemmN * kGemmN * kGemmN;

void set_gemm_counters(benchmark::State& state) {
  state.counters["TFLOPS"] = benchmark::Counter(
      kGemmFlops * kGemmBatch * static_cast<double>(state.iterations()) / 1e12, benchmark::Counter::kIsRate);
  state.SetLabel(cuda::status().device_name);
}

// kGemmBatch dot ops pushed through the engine, then one wait.
void BM_CudaGemm4096Engine(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  auto ctx = gpu_context();
  NDArray x = uniform(ctx, {kGemmN, kGemmN});
  dot(x, x).wait_to_read();  // warm-up: cuBLAS set-up, memory pool
  std::vector<NDArray> out(kGemmBatch);
  for (auto _ : state) {
    for (NDArray& o : out) o = dot(x, x);
    ctx->engine().wait_all();
  }
  set_gemm_counters(state);
}
BENCHMARK(BM_CudaGemm4096Engine)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The same kGemmBatch products as plain cuBLAS calls, issued by one op on the
// same engine stream into preallocated outputs: the baseline without the
// engine's per-op work (dependency tracking, events, completion).
void BM_CudaGemm4096Raw(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  auto ctx = gpu_context();
  NDArray x = uniform(ctx, {kGemmN, kGemmN});
  std::vector<NDArray> out;
  for (int i = 0; i < kGemmBatch; ++i) out.push_back(dot(x, x));  // allocates the outputs
  ctx->engine().wait_all();
  std::vector<float*> c;
  for (NDArray& o : out) c.push_back(o.chunk()->data);
  const float* a = x.chunk()->data;
  Var* written[kGemmBatch];
  for (int i = 0; i < kGemmBatch; ++i) written[i] = out[static_cast<size_t>(i)].var();
  Var* const read[] = {x.var()};
  const OpMeta meta("raw_sgemm_batch", Device::cuda(0));
  for (auto _ : state) {
    ctx->engine().push(
        [a, &c](const RunContext& rc) {
          for (float* ci : c) {
            cuda::sgemm(rc.stream, false, false, kGemmN, kGemmN, kGemmN, 1.0f, a, kGemmN, a, kGemmN, 0.0f, ci, kGemmN);
          }
        },
        std::span<Var* const>(read), std::span<Var* const>(written, kGemmBatch), meta);
    ctx->engine().wait_all();
  }
  set_gemm_counters(state);
}
BENCHMARK(BM_CudaGemm4096Raw)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Push cost of a tiny GPU op: only the pushes are timed (the device drains
// them after the loop).
void BM_CudaPushTinyOp(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  auto ctx = gpu_context();
  NDArray x = full(ctx, {2}, 1.0f);
  NDArray y = x + 1.0f;
  ctx->engine().wait_all();
  for (auto _ : state) y = x + 1.0f;
  ctx->engine().wait_all();  // after the loop: the timer has stopped
  state.SetLabel(cuda::status().device_name);
}
BENCHMARK(BM_CudaPushTinyOp)->Iterations(100000)->UseRealTime()->Unit(benchmark::kMicrosecond);

// The design card's experiment: 10 x (normal 1000^2 + matmul) on the GPU.
// Reported time = synchronised; enqueue_ms = when the pushes returned.
void BM_CudaNormalMatmulEnqueueVsSync(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  auto ctx = gpu_context();
  {
    NDArray w = normal(ctx, {1000, 1000});
    dot(w, w).wait_to_read();
  }
  double enqueue_total = 0;
  for (auto _ : state) {
    std::vector<NDArray> keep;
    const int64_t t0 = trace::now_ns();
    for (int i = 0; i < 10; ++i) {
      NDArray a = normal(ctx, {1000, 1000});
      keep.push_back(dot(a, a));
    }
    const int64_t t1 = trace::now_ns();
    ctx->engine().wait_all();
    const int64_t t2 = trace::now_ns();
    enqueue_total += static_cast<double>(t1 - t0) * 1e-6;
    state.SetIterationTime(static_cast<double>(t2 - t0) * 1e-9);
  }
  state.counters["enqueue_ms"] = enqueue_total / static_cast<double>(state.iterations());
  state.SetLabel(cuda::status().device_name);
}
BENCHMARK(BM_CudaNormalMatmulEnqueueVsSync)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);

// A chain of dependent tiny kernels (y = y + 1 on 2 elements) on the one
// stream: the gap on the device between one kernel's end and the next one's
// start, from the CUDA events in the trace. Without same-stream successors
// each gap held a completion round trip through the host (event poll, var
// release, dispatch, launch). Reported: the median and 90th percentile gap.
void BM_CudaDependentKernelGap(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  constexpr int kChain = 2000;
  Context::Options options;
  options.device = Device::cuda(0);
  options.engine.recorder = std::make_shared<trace::Recorder>();
  auto ctx = Context::create(options);
  NDArray y = full(ctx, {2}, 0.0f);
  (y + 1.0f).wait_to_read();  // warm-up: the kernel's first launch
  std::vector<double> gaps_us;
  for (auto _ : state) {
    const int64_t t0 = trace::now_ns();
    for (int i = 0; i < kChain; ++i) y = y + 1.0f;
    y.wait_to_read();
    state.SetIterationTime(static_cast<double>(trace::now_ns() - t0) * 1e-9);
  }
  const trace::TraceModel m = trace::snapshot(*options.engine.recorder);
  std::vector<const trace::OpInfo*> chain;
  for (const trace::OpInfo& op : m.ops) {
    if (op.known() && op.executed() && op.device != DeviceKind::cpu && m.op_name(op) == "add_scalar") {
      chain.push_back(&op);
    }
  }
  // Consecutive ops of one chain (ids in push order; a chain's first op
  // follows the wait that ended the one before, so that gap is left out).
  for (size_t i = 1; i < chain.size(); ++i) {
    if (chain[i]->enqueue < chain[i - 1]->end) gaps_us.push_back(static_cast<double>(chain[i]->start - chain[i - 1]->end) / 1e3);
  }
  std::sort(gaps_us.begin(), gaps_us.end());
  if (!gaps_us.empty()) {
    state.counters["gap_median_us"] = gaps_us[gaps_us.size() / 2];
    state.counters["gap_p90_us"] = gaps_us[gaps_us.size() * 9 / 10];
    state.counters["gaps"] = static_cast<double>(gaps_us.size());
  }
  state.SetLabel(cuda::status().device_name);
}
BENCHMARK(BM_CudaDependentKernelGap)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace asyncscope
