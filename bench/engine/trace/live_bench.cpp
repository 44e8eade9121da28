// What publishing a run live (trace/live.h) costs the program: the push of
// the smallest op on an engine whose recorder is published, against the same
// on an engine whose recorder is not, batches of 10,000 pushes and a wait
// alternating (run_paired, so both see the same machine).
//  - Arg 0: published, and nobody attached. The server's thread sleeps in
//    poll() until a viewer connects: the figure should be the noise.
//  - Arg 1: published, and a viewer attached (a LiveClient in this process,
//    as the app would be in another): the server reads the logs every 20 ms
//    and sends them, the viewer receives and copies them; both threads take
//    CPU the program's threads could use.
// Counters: ns per push on each side and on_over_off (the time with
// publishing over without; 1.02 is 2% slower).
// Threading: the benchmark's thread.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "engine/trace/live.h"
#include "support/paired.h"
#include "support/tiny_op.h"

namespace asyncscope {
namespace {

EngineOptions one_worker(std::shared_ptr<trace::Recorder> recorder) {
  EngineOptions options;
  options.cpu_workers = 1;
  options.recorder = std::move(recorder);
  return options;
}

void BM_TinyOpPublishedVsNot(benchmark::State& state) {
  char templ[] = "/tmp/asyncscope-live-bench-XXXXXX";
  const char* dir = ::mkdtemp(templ);
  if (dir == nullptr) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  const bool viewer = state.range(0) != 0;
  auto plain = std::make_shared<trace::Recorder>(), published = std::make_shared<trace::Recorder>();
  bench::TinyOpRig off(make_engine(one_worker(plain))), on(make_engine(one_worker(published)));
  std::unique_ptr<trace::LiveClient> client;
  {
    trace::LiveServer server(published, {dir, "live bench", std::chrono::milliseconds(20)});
    if (viewer) client = std::make_unique<trace::LiveClient>(::getpid(), dir);
    constexpr int kBatch = 10000;
    const bench::PairedSeconds s =
        bench::run_paired(state, [&] { off.batch(kBatch); }, [&] { on.batch(kBatch); });
    bench::per_op_counters(state, s, kBatch, "off", "on");
    state.counters["on_over_off"] = s.b / s.a;
    if (client) state.counters["viewer_MB"] = static_cast<double>(client->bytes_received()) / 1e6;
  }
  client.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_TinyOpPublishedVsNot)->Arg(0)->Arg(1)->UseManualTime()->MinTime(2.0);

}  // namespace
}  // namespace asyncscope
