// Opening one of our own exports: open_trace (read, parse, check, the model
// the app draws) on a generated run of 200,000 ops on four CPU workers, with
// a wait every 100 ops and a counter sample every 50 (about 180 MB of text,
// written once to the temporary folder). Counters: file_MB, ops, and
// peak_rss_MB (the process's peak resident memory during the open, from a
// reset of the kernel's high-water mark).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "engine/trace/chrome_trace.h"
#include "engine/trace/profile_model.h"
#include "support/process_memory.h"
#include "support/synthetic_ops.h"

namespace asyncscope::trace {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kOps = 200'000;
constexpr uint16_t kWorkers = 4;

TraceModel finished_run() {
  TraceModel m;
  m.names = {"", "add", "mul", "dot", "free"};
  m.frontends.push_back(FrontendLane{"frontend", {}, {}, {}});
  for (uint16_t w = 0; w < kWorkers; ++w) {
    m.workers.push_back(WorkerLane{"CPU worker " + std::to_string(w), DeviceKind::cpu, 0, w, SpanKind::execute, {}, {}});
  }
  m.counter_names = {"queue_depth", "live_bytes"};
  std::mt19937_64 rng(11);
  int64_t front = 1000;
  int64_t free_at[kWorkers] = {};
  for (uint32_t i = 0; i < kOps; ++i) {
    OpInfo op;
    op.id = i + 1;
    op.name = static_cast<NameId>(1 + rng() % 4);
    op.internal = op.name == 4;
    op.enqueue = front;
    op.push_ns = 150;
    const auto w = static_cast<uint16_t>(std::min_element(free_at, free_at + kWorkers) - free_at);
    op.worker = w;
    op.start = std::max(front + 200, free_at[w] + 50);
    op.end = op.start + 1000 + static_cast<int64_t>(rng() % 3000);
    free_at[w] = op.end;
    bench::add_synthetic_vars(m, op, i, rng);
    m.frontends[0].enqueues.push_back(i);
    m.workers[w].ops.push_back(i);
    m.ops.push_back(op);
    front += 400 + static_cast<int64_t>(rng() % 400);
    if (i % 50 == 49) {
      CounterSample s;
      s.t = front;
      s.values[0] = static_cast<int64_t>(rng() % 64);
      s.values[1] = static_cast<int64_t>(i) * 4096;
      m.counters.push_back(s);
      front += 10;
    }
    if (i % 100 == 99) {
      // The frontend waits for this op; the wait ends when it has run.
      const int64_t end = std::max(front, op.end) + 100;
      m.frontends[0].syncs.push_back(static_cast<uint32_t>(m.syncs.size()));
      m.syncs.push_back(SyncSpan{front, end, op.id, op.id, 0, SyncKind::wait_to_read, 0});
      front = end + 100;
    }
  }
  return m;
}

std::string export_path() {
  const std::string path = (fs::temp_directory_path() / "asyncscope_bench_export_200k.json").string();
  if (!fs::exists(path)) write_chrome_trace(finished_run(), path);
  return path;
}

void BM_OpenOwnExport200k(benchmark::State& state) {
  const std::string path = export_path();
  double peak = 0;
  size_t ops = 0;
  for (auto _ : state) {
    bench::reset_peak_rss();
    OpenedTrace t = open_trace(path);
    peak = std::max(peak, static_cast<double>(bench::status_kb("VmHWM")) / 1024.0);
    ops = t.model.ops.size();
    benchmark::DoNotOptimize(t);
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(path)) / 1e6;
  state.counters["peak_rss_MB"] = peak;
}
BENCHMARK(BM_OpenOwnExport200k)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace asyncscope::trace
