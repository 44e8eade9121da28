// Engine overheads on the smallest possible op (y = x + 1 on a 1x2 buffer):
// push cost, end-to-end throughput, and the push + wait round trip.
#include <benchmark/benchmark.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "engine/core/spin_lock.h"
#include "support/competing_load.h"
#include "support/median.h"
#include "support/paired.h"
#include "support/tiny_op.h"

namespace asyncscope {
namespace {

using bench::engine_for;
using bench::TinyOpRig;

// The frontend's cost of one push (the workers drain concurrently).
void BM_PushTinyOp(benchmark::State& state) {
  TinyOpRig rig(state);
  for (auto _ : state) rig.push();
  rig.engine->wait_all();  // after the loop: not timed
}
BENCHMARK(BM_PushTinyOp)->Arg(1)->Arg(2)->Iterations(1 << 20)->UseRealTime();

// Pushed asynchronously, end to end: a batch of tiny ops and one wait_all.
void BM_TinyOpAsyncEndToEnd(benchmark::State& state, bool traced) {
  TinyOpRig rig(state, traced ? std::make_shared<trace::Recorder>() : nullptr);
  constexpr int kBatch = 10000;
  for (auto _ : state) rig.batch(kBatch);
  state.SetItemsProcessed(state.iterations() * kBatch);
}
void BM_TinyOpAsyncEndToEnd_TracingOff(benchmark::State& state) { BM_TinyOpAsyncEndToEnd(state, false); }
void BM_TinyOpAsyncEndToEnd_TracingOn(benchmark::State& state) { BM_TinyOpAsyncEndToEnd(state, true); }
BENCHMARK(BM_TinyOpAsyncEndToEnd_TracingOff)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_TinyOpAsyncEndToEnd_TracingOn)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);

// The tracing overhead target (on >= 0.9x the throughput of off), measured
// so that both sides see the same machine. Comparing the two benchmarks
// above is biased: Google Benchmark runs every repetition of one before the
// other, and where the machine's speed drifts (a shared VM, say) the two see
// different machines. Here one engine runs batches with its recorder
// switched on and off in turn (off-on, then on-off, so neither side always
// goes first), and the counters are the time per op of each side and off/on,
// the throughput with tracing on as a fraction of that with it off.
void BM_TinyOpTracingOnVsOff(benchmark::State& state) {
  auto recorder = std::make_shared<trace::Recorder>();
  TinyOpRig rig(state, recorder);
  constexpr int kBatch = 10000;
  const auto batch = [&](bool traced) {
    recorder->set_enabled(traced);  // between batches: the engine is idle
    rig.batch(kBatch);
  };
  const bench::PairedSeconds s = bench::run_paired(state, [&] { batch(false); }, [&] { batch(true); });
  bench::per_op_counters(state, s, kBatch, "off", "on");
  state.counters["on_over_off"] = s.a / s.b;
}
BENCHMARK(BM_TinyOpTracingOnVsOff)->Arg(1)->Arg(2)->UseManualTime()->MinTime(2.0);

// A dependent chain of tiny ops (each writes y, so each waits for the one
// before it) on an engine with 2 workers against one with 1, batches
// alternating (run_paired): with 2 workers a chain should cost no more per
// op, which needs each op the frontend makes ready to run where its input
// was just written instead of on whichever worker pops it first. Counters:
// ns per op with 1 and with 2 workers, and two_over_one.
void BM_TinyOpChainTwoWorkersVsOne(benchmark::State& state) {
  const auto rig = [](int workers) {
    EngineOptions options;
    options.cpu_workers = workers;
    return std::make_unique<TinyOpRig>(make_engine(options));
  };
  const auto one = rig(1), two = rig(2);
  constexpr int kBatch = 10000;
  const bench::PairedSeconds s = bench::run_paired(state, [&] { one->batch(kBatch); }, [&] { two->batch(kBatch); });
  bench::per_op_counters(state, s, kBatch, "one", "two");
  state.counters["two_over_one"] = s.b / s.a;
}
BENCHMARK(BM_TinyOpChainTwoWorkersVsOne)->UseManualTime()->MinTime(2.0);

// The tuned scheduling policies against the plain FIFO reference
// (EngineOptions::scheduling), 2 workers each, batches alternating
// (run_paired). Arg 0: 10,000 tiny ops pushed, then one wait_all (each op
// writes y, so they form a chain the frontend runs ahead of: local runs,
// mailboxes, the hold-back); arg 1: 1,000 push + wait round trips
// (mailboxes, leaving a waiter's CPU). Counters: ns per op of each and
// fifo_over_tuned, what the policies gain together.
void BM_SchedulingFifoOverTuned(benchmark::State& state) {
  const auto rig = [](Scheduling scheduling) {
    EngineOptions options;
    options.cpu_workers = 2;
    options.scheduling = scheduling;
    return std::make_unique<TinyOpRig>(make_engine(options));
  };
  const auto tuned = rig(Scheduling::tuned), fifo = rig(Scheduling::fifo);
  const bool round_trips = state.range(0) == 1;
  const int n = round_trips ? 1000 : 10000;
  const auto work = [&](TinyOpRig& r) {
    if (!round_trips) return r.batch(n);
    for (int i = 0; i < n; ++i) {
      r.push();
      r.engine->wait_for_var(r.y);
    }
  };
  const bench::PairedSeconds s = bench::run_paired(state, [&] { work(*tuned); }, [&] { work(*fifo); });
  bench::per_op_counters(state, s, n, "tuned", "fifo");
  state.counters["fifo_over_tuned"] = s.b / s.a;
}
BENCHMARK(BM_SchedulingFifoOverTuned)->Arg(0)->Arg(1)->UseManualTime()->MinTime(2.0);

// One push followed by a wait on its output: the synchronous round trip.
void BM_PushWaitRoundTrip(benchmark::State& state) {
  TinyOpRig rig(state);
  std::vector<double> samples;
  samples.reserve(1 << 20);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    rig.push();
    rig.engine->wait_for_var(rig.y);
    samples.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(samples.begin(), samples.end());
  state.counters["median_ns"] = samples[samples.size() / 2];
  state.counters["p99_ns"] = samples[samples.size() * 99 / 100];
}
BENCHMARK(BM_PushWaitRoundTrip)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);

// The machine's floor for any hand-off between two threads: one writes a
// counter, the other spins until it sees it and answers on a second line,
// and so on; no engine. A round trip of the engine (push, a worker takes and
// runs the op, the waiter sees it done) crosses at least this, and crosses
// more lines than two (the op record, the queue, the var, the wait slot).
void BM_CacheLinePingPong(benchmark::State& state) {
  struct alignas(64) Line {
    std::atomic<int64_t> value{0};
  };
  Line ping, pong;
  constexpr int64_t kStop = -1;  // sent on ping: no third line for the spinning thread to read
  std::thread other([&] {
    for (int64_t seen = 0;;) {
      int64_t v;
      while ((v = ping.value.load(std::memory_order_acquire)) == seen) cpu_relax();
      if (v == kStop) return;
      seen = v;
      pong.value.store(v, std::memory_order_release);
    }
  });
  int64_t n = 0;
  for (auto _ : state) {
    ping.value.store(++n, std::memory_order_release);
    while (pong.value.load(std::memory_order_acquire) != n) cpu_relax();
  }
  ping.value.store(kStop, std::memory_order_release);
  other.join();
}
BENCHMARK(BM_CacheLinePingPong)->UseRealTime()->MinTime(1.0);

// Latency on a busy desktop: the same measurements with another process
// keeping one core busy (bench::CompetingLoad), alternating blocks with and
// without it so both see the same machine. Counters: the median round trip
// (or ns per op of a 10k tiny-op batch) quiet and loaded, and their ratio.
// The targets: loaded <= 1.5x quiet, and the round trip no worse than
// MXNet's engine measured in the same conditions on the same machine.
template <class Block>
void quiet_vs_loaded(benchmark::State& state, Block block, const char* unit) {
  std::vector<double> quiet, loaded;
  bool loaded_first = false;
  for (auto _ : state) {
    const auto run = [&](bool with_load) {
      std::optional<bench::CompetingLoad> load;
      if (with_load) load.emplace();
      block(with_load ? loaded : quiet);
    };
    run(loaded_first);
    run(!loaded_first);
    loaded_first = !loaded_first;
  }
  const double q = bench::median(quiet), l = bench::median(loaded);
  state.counters[std::string("quiet_") + unit] = q;
  state.counters[std::string("loaded_") + unit] = l;
  state.counters["loaded_over_quiet"] = q > 0 ? l / q : 0;
}

void BM_PushWaitRoundTripQuietVsLoaded(benchmark::State& state) {
  TinyOpRig rig(state);
  quiet_vs_loaded(
      state,
      [&](std::vector<double>& samples) {
        for (int i = 0; i < 20000; ++i) {
          const auto t0 = std::chrono::steady_clock::now();
          rig.push();
          rig.engine->wait_for_var(rig.y);
          samples.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
        }
      },
      "median_ns");
}
BENCHMARK(BM_PushWaitRoundTripQuietVsLoaded)->Arg(1)->Arg(2)->Iterations(8)->UseRealTime();

void BM_TinyOpLoopQuietVsLoaded(benchmark::State& state) {
  TinyOpRig rig(state);
  constexpr int kBatch = 10000;
  quiet_vs_loaded(
      state,
      [&](std::vector<double>& samples) {
        for (int round = 0; round < 10; ++round) {
          const auto t0 = std::chrono::steady_clock::now();
          rig.batch(kBatch);
          samples.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                            kBatch);
        }
      },
      "ns_per_op");
}
BENCHMARK(BM_TinyOpLoopQuietVsLoaded)->Arg(1)->Arg(2)->Iterations(8)->UseRealTime();

// The floor under BM_PushWaitRoundTripQuietVsLoaded's loaded half: when
// another process takes one of two cores, the frontend and the worker take
// turns on the other, and every round trip then needs two context switches
// however the engine hands work over. Measured with the benchmark's thread
// and its children pinned to one core, alternating:
//   raw_ns     two bare threads handing a token back and forth through a
//              futex (std::atomic wait/notify): the switches alone;
//   engine_ns  the engine's push + wait round trip, its worker on that core.
// Medians of 20,000 round trips each.
void BM_HandOffFloorOnOneCore(benchmark::State& state) {
  cpu_set_t all;
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) < 1) {
    state.SkipWithError("sched_getaffinity failed");
    return;
  }
  int core = 0;
  while (!CPU_ISSET(core, &all)) ++core;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(core, &one);
  sched_setaffinity(0, sizeof one, &one);  // threads started from here on inherit it
  std::vector<double> raw, engine;
  {
    EngineOptions options;
    options.cpu_workers = 1;
    TinyOpRig rig(make_engine(options));
    std::atomic<uint32_t> token{0};
    std::atomic<bool> stop{false};
    std::thread partner([&] {
      uint32_t seen = 0;
      for (;;) {
        token.wait(seen, std::memory_order_acquire);
        seen = token.load(std::memory_order_acquire);
        if (stop.load(std::memory_order_relaxed)) return;
        if (seen % 2 == 1) {  // ping: answer with pong
          token.store(++seen, std::memory_order_release);
          token.notify_one();
        }
      }
    });
    uint32_t next = 0;
    for (auto _ : state) {
      for (int i = 0; i < 20000; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        token.store(++next, std::memory_order_release);  // ping
        token.notify_one();
        token.wait(next, std::memory_order_acquire);  // until the pong
        ++next;
        raw.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
        t0 = std::chrono::steady_clock::now();
        rig.push();
        rig.engine->wait_for_var(rig.y);
        engine.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
      }
    }
    stop.store(true);
    token.store(++next, std::memory_order_release);
    token.notify_one();
    partner.join();
  }
  sched_setaffinity(0, sizeof all, &all);
  state.counters["raw_ns"] = bench::median(raw);
  state.counters["engine_ns"] = bench::median(engine);
}
BENCHMARK(BM_HandOffFloorOnOneCore)->Iterations(4)->UseRealTime();

}  // namespace
}  // namespace asyncscope
