// GPU benchmarks (issue targets, on a GPU):
//   - cuBLAS GEMM 4096^2 pushed through the engine vs raw cuBLAS calls on the
//     same stream: ratio >= 0.95;
//   - push cost of a GPU op (y = x + 1 on a 2-element cuda array): <= 5 us;
//   - 10 x (normal + matmul 1000^2): enqueue time vs synchronised time;
//   - the device's idle gap between two dependent kernels (same-stream
//     successors are submitted at their producer's launch): < 5 us;
//   - a waited tiny op (y = x + 1; wait), with and without the completer's
//     poll, split into push, launch, device time and wake-up from the trace;
// and, to find where a GPU op's launch and wait go, the CUDA runtime calls
// one op makes, each timed alone (BM_CudaApiCosts, builds with CUDA only).
// Without a usable GPU each one reports "skipped" with the reason.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/cuda/cuda.h"
#include "engine/cuda/kernels.h"
#if ASYNCSCOPE_BENCH_CUDA
#include <cuda_runtime.h>
#endif
#include "engine/tensor/ops.h"
#include "engine/trace_record/clock.h"
#include "engine/trace/model.h"
#include "support/median.h"

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
  for (NDArray& o : out) c.push_back(static_cast<float*>(o.chunk()->data));
  const float* a = static_cast<const float*>(x.chunk()->data);
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
// Reported time = synchronised; enqueue_ms = when the pushes returned;
// normal_us, dot_us: the ops' median spans on the device; gap_us: the
// median idle time on the stream before an op.
void BM_CudaNormalMatmulEnqueueVsSync(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  Context::Options options;
  options.device = Device::cuda(0);
  options.seed = 1;
  options.engine.recorder = std::make_shared<trace::Recorder>();
  auto ctx = Context::create(options);
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
  // Where the device time goes, from the trace: each op's span on the device
  // and the idle gap before it on the stream (medians, microseconds).
  const trace::TraceModel m = trace::snapshot(*options.engine.recorder);
  std::vector<double> normal_us, dot_us, gap_us;
  struct Span {
    int64_t start, end, enqueue;
    bool operator<(const Span& o) const { return start < o.start; }
  };
  std::vector<Span> spans;
  for (const trace::OpInfo& op : m.ops) {
    if (!op.known() || !op.executed() || op.device == trace::DeviceKind::cpu) continue;
    const std::string_view name = m.op_name(op);
    if (name == "normal") normal_us.push_back(static_cast<double>(op.end - op.start) / 1e3);
    if (name == "dot") dot_us.push_back(static_cast<double>(op.end - op.start) / 1e3);
    if (name == "normal" || name == "dot") spans.push_back({op.start, op.end, op.enqueue});
  }
  // The stream's idle time before each op that was pushed before the op
  // ahead of it ended (an iteration's first op waits for its push instead).
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].enqueue >= spans[i - 1].end) continue;
    gap_us.push_back(static_cast<double>(std::max<int64_t>(spans[i].start - spans[i - 1].end, 0)) / 1e3);
  }
  if (!dot_us.empty()) {
    state.counters["normal_us"] = bench::median(normal_us);
    state.counters["dot_us"] = bench::median(dot_us);
    state.counters["gap_us"] = bench::median(gap_us);
  }
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

// A waited tiny GPU op, y = x + 1 on a 128 x 128 array then y.wait_to_read(),
// the sync-vs-async demo's iteration on a GPU, with the completer's poll
// budget the argument in microseconds (0: it sleeps in cudaEventSynchronize
// at once). Reported: the median iteration and its parts from the trace,
// each a median over the iterations, in microseconds:
//   push_us    the frontend's push (enqueue to the wait's begin)
//   dispatch_us  from the enqueue to the launch thread's start
//   launch_us  the launch lane's span (event records, the kernel launch)
//   start_after_launch_us  from the launch's start to the op's start on the device
//   device_us  the op's span on the device (its two events)
//   wake_us    from the device end to the wait's end (completer, release,
//              the frontend's wake-up)
void BM_CudaWaitedTinyOp(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const int64_t poll_before = cuda::completion_poll_ns();
  cuda::set_completion_poll_ns(state.range(0) * 1000);
  Context::Options options;
  options.device = Device::cuda(0);
  options.engine.recorder = std::make_shared<trace::Recorder>();
  auto ctx = Context::create(options);
  NDArray x = full(ctx, {128, 128}, 1.0f);
  for (int i = 0; i < 100; ++i) (x + 1.0f).wait_to_read();  // warm-up: kernel load, pools
  const int64_t t_begin = trace::now_ns();
  std::vector<double> iterations;
  for (auto _ : state) {
    const int64_t t0 = trace::now_ns();
    NDArray y = x + 1.0f;
    y.wait_to_read();
    iterations.push_back(static_cast<double>(trace::now_ns() - t0) / 1e3);
  }
  const trace::TraceModel m = trace::snapshot(*options.engine.recorder);
  std::vector<double> push, dispatch, launch, queued, device, wake;
  const int64_t origin_begin = t_begin - m.origin_ns;
  for (const trace::SyncSpan& s : m.syncs) {
    if (s.begin < origin_begin || s.kind != trace::SyncKind::wait_to_read) continue;
    const trace::OpInfo* op = m.find_op(s.last_op);
    if (op == nullptr || !op->executed() || !op->launched()) continue;
    push.push_back(static_cast<double>(s.begin - op->enqueue) / 1e3);
    dispatch.push_back(static_cast<double>(op->launch_start - op->enqueue) / 1e3);
    launch.push_back(static_cast<double>(op->launch_end - op->launch_start) / 1e3);
    queued.push_back(static_cast<double>(op->start - op->launch_start) / 1e3);
    device.push_back(static_cast<double>(op->end - op->start) / 1e3);
    wake.push_back(static_cast<double>(s.end - op->end) / 1e3);
  }
  if (!wake.empty()) {
    state.counters["iteration_us"] = bench::median(iterations);
    state.counters["push_us"] = bench::median(push);
    state.counters["dispatch_us"] = bench::median(dispatch);
    state.counters["launch_us"] = bench::median(launch);
    state.counters["start_after_launch_us"] = bench::median(queued);
    state.counters["device_us"] = bench::median(device);
    state.counters["wake_us"] = bench::median(wake);
    state.counters["measured"] = static_cast<double>(wake.size());
  }
  cuda::set_completion_poll_ns(poll_before);
  state.SetLabel(cuda::status().device_name);
}
BENCHMARK(BM_CudaWaitedTinyOp)->Arg(0)->Arg(10)->Arg(50)->Iterations(3000)
    ->UseRealTime()->Unit(benchmark::kMicrosecond);

#if ASYNCSCOPE_BENCH_CUDA
// The CUDA runtime calls behind one GPU op, each timed alone: what the
// launch span of a tiny op and the wait's wake-up after its end event
// (several microseconds each, well above the tiny kernel's own time) are made
// of, and what other ways of waiting for an event would cost. The stream
// backend records a start and an end event around each op's kernels, with
// cudaEventBlockingSync events, and its completer thread sleeps in
// cudaEventSynchronize. Counters, medians of kCalls calls, in microseconds:
//   launch_us           a tiny kernel (cuda::fill on 2 floats), asynchronous
//   record_blocking_us  cudaEventRecord of a blocking-sync event
//   record_default_us   cudaEventRecord of a default (spin-wait) event
//   elapsed_us          the two cudaEventElapsedTime calls the completer
//                       makes per op, between the end event and the wake-up
//   rt_*_us             record, launch, record, then wait for the end event:
//                       blocking (cudaEventSynchronize on a blocking-sync
//                       event, as the backend does), spin (cudaEventQuery in a
//                       loop), stream (cudaStreamSynchronize), yield
//                       (cudaEventQuery, yielding between queries)
//   rt_spin_blocking_us the spin, on a blocking-sync event
//   query_done_us       cudaEventQuery of an event that has completed
//   span_*_us           the device time between the two events, per kind
//   handoff_us          one thread waking another through a condition
//                       variable (half a ping-pong), no CUDA involved
void BM_CudaApiCosts(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  constexpr int kCalls = 2000;
  float* y = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t blocking[2], plain[2];
  if (cudaSetDevice(0) != cudaSuccess || cudaMalloc(&y, 2 * sizeof(float)) != cudaSuccess ||
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    state.SkipWithError("cudaMalloc or cudaStreamCreate failed");
    return;
  }
  for (int i = 0; i < 2; ++i) {
    cudaEventCreateWithFlags(&blocking[i], cudaEventBlockingSync);
    cudaEventCreate(&plain[i]);
  }
  const auto now_us = [] { return static_cast<double>(trace::now_ns()) / 1e3; };
  cuda::fill_raw(stream, y, 2, 1.0f);  // loads the kernel
  cudaStreamSynchronize(stream);
  for (auto _ : state) {
    std::vector<double> v;
    const auto time_calls = [&](const char* name, auto call) {
      v.clear();
      for (int i = 0; i < kCalls; ++i) {
        const double t0 = now_us();
        call(i);
        v.push_back(now_us() - t0);
        if (i % 64 == 63) cudaStreamSynchronize(stream);  // keep the launch queue short
      }
      cudaStreamSynchronize(stream);
      state.counters[name] = bench::median(v);
    };
    time_calls("launch_us", [&](int) { cuda::fill_raw(stream, y, 2, 1.0f); });
    time_calls("record_blocking_us", [&](int i) { cudaEventRecord(blocking[i & 1], stream); });
    time_calls("record_default_us", [&](int i) { cudaEventRecord(plain[i & 1], stream); });
    cudaEventRecord(blocking[0], stream);
    cuda::fill_raw(stream, y, 2, 1.0f);
    cudaEventRecord(blocking[1], stream);
    cudaEventSynchronize(blocking[1]);
    time_calls("elapsed_us", [&](int) {
      float ms = 0;
      cudaEventElapsedTime(&ms, blocking[0], blocking[1]);
      cudaEventElapsedTime(&ms, blocking[0], blocking[1]);
    });
    const auto round_trips = [&](const char* rt_name, const char* span_name, cudaEvent_t* events, auto wait) {
      std::vector<double> spans;
      v.clear();
      for (int i = 0; i < kCalls; ++i) {
        const double t0 = now_us();
        cudaEventRecord(events[0], stream);
        cuda::fill_raw(stream, y, 2, 1.0f);
        cudaEventRecord(events[1], stream);
        wait(events[1]);
        v.push_back(now_us() - t0);
        float ms = 0;
        cudaEventElapsedTime(&ms, events[0], events[1]);
        spans.push_back(static_cast<double>(ms) * 1e3);
      }
      state.counters[rt_name] = bench::median(v);
      state.counters[span_name] = bench::median(spans);
    };
    round_trips("rt_blocking_us", "span_blocking_us", blocking, [](cudaEvent_t e) { cudaEventSynchronize(e); });
    round_trips("rt_spin_us", "span_default_us", plain, [](cudaEvent_t e) {
      while (cudaEventQuery(e) == cudaErrorNotReady) {
      }
    });
    round_trips("rt_spin_blocking_us", "span_spin_blocking_us", blocking, [](cudaEvent_t e) {
      while (cudaEventQuery(e) == cudaErrorNotReady) {
      }
    });
    time_calls("query_done_us", [&](int) { cudaEventQuery(blocking[1]); });
    round_trips("rt_stream_us", "span_stream_us", plain, [stream](cudaEvent_t) { cudaStreamSynchronize(stream); });
    round_trips("rt_yield_us", "span_yield_us", plain, [](cudaEvent_t e) {
      while (cudaEventQuery(e) == cudaErrorNotReady) std::this_thread::yield();
    });
  }
  {
    // One thread waking another through a mutex and condition variable (the
    // completer waking a waiting frontend): half a ping-pong round trip.
    std::mutex m;
    std::condition_variable cv;
    int turn = 0;
    constexpr int kRounds = 2000;
    std::thread other([&] {
      for (int i = 0; i < kRounds; ++i) {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return turn == 1; });
        turn = 0;
        cv.notify_one();
      }
    });
    std::vector<double> v;
    for (int i = 0; i < kRounds; ++i) {
      const double t0 = now_us();
      std::unique_lock lock(m);
      turn = 1;
      cv.notify_one();
      cv.wait(lock, [&] { return turn == 0; });
      v.push_back((now_us() - t0) / 2);
    }
    other.join();
    state.counters["handoff_us"] = bench::median(v);
  }
  for (int i = 0; i < 2; ++i) {
    cudaEventDestroy(blocking[i]);
    cudaEventDestroy(plain[i]);
  }
  cudaStreamDestroy(stream);
  cudaFree(y);
  state.SetLabel(cuda::status().device_name);
}
BENCHMARK(BM_CudaApiCosts)->Iterations(1)->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace asyncscope
