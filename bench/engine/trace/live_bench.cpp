// What publishing a run live (trace/live.h) costs the program: the push of
// the smallest op on an engine whose recorder is published, against the same
// on an engine whose recorder is not, alternating (so both see the same
// machine). Counters: ns per push on each side and on_over_off (the time
// with publishing over without; 1.02 is 2% slower).
//  - BM_TinyOpPublishedVsNot/0: published, and nobody attached. The server's
//    thread sleeps in poll() until a viewer connects: the figure should be
//    the noise. Batches of 10,000 pushes and a wait (run_paired).
//  - BM_TinyOpPublishedVsNot/2, the control: neither engine published. Its
//    ratio is what two identical engines differ by here (which one was made
//    first, where their memory landed), the yardstick for the first.
//  - BM_TinyOpFollowedVsNot: published with a viewer attached (a LiveClient
//    in this process, as the app would be in another): the server reads the
//    logs every 20 ms and sends them, the viewer receives and copies them,
//    and both threads take CPU the program's threads could use. Batches of
//    100,000 pushes; before each, untimed, the viewer catches up, so the
//    unpublished side never runs beside the viewer's work for the other.
//    What the viewer does after a batch ended (at most one round) is not in
//    the times: viewer_cpu_ns_per_op, the CPU time of the server's and the
//    viewer's threads over the ops published, is the whole of it.
// Threading: the benchmark's thread.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

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

// A private folder for the socket, removed at the end.
struct SocketDir {
  SocketDir() {
    char templ[] = "/tmp/asyncscope-live-bench-XXXXXX";
    if (const char* made = ::mkdtemp(templ)) path = made;
  }
  ~SocketDir() {
    if (!path.empty()) std::filesystem::remove_all(path);
  }
  std::string path;
};

void BM_TinyOpPublishedVsNot(benchmark::State& state) {
  SocketDir dir;
  if (dir.path.empty()) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  const bool control = state.range(0) == 2;
  auto plain = std::make_shared<trace::Recorder>(), published = std::make_shared<trace::Recorder>();
  bench::TinyOpRig off(make_engine(one_worker(plain))), on(make_engine(one_worker(published)));
  std::optional<trace::LiveServer> server;
  if (!control) server.emplace(published, trace::LiveServer::Options{dir.path, "live bench", std::chrono::milliseconds(20)});
  constexpr int kBatch = 10000;
  const bench::PairedSeconds s = bench::run_paired(state, [&] { off.batch(kBatch); }, [&] { on.batch(kBatch); });
  bench::per_op_counters(state, s, kBatch, "off", "on");
  state.counters["on_over_off"] = s.b / s.a;
}
BENCHMARK(BM_TinyOpPublishedVsNot)->Arg(0)->Arg(2)->UseManualTime()->MinTime(2.0);

// CPU seconds of this process's threads named `name` (the scheduler's
// count in ns, /proc/self/task/TID/schedstat).
double thread_cpu_seconds(const std::string& name) {
  double total = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string thread_name;
    std::getline(comm, thread_name);
    if (thread_name != name) continue;
    std::ifstream schedstat(task.path() / "schedstat");
    unsigned long long on_cpu_ns = 0;
    if (schedstat >> on_cpu_ns) total += static_cast<double>(on_cpu_ns) * 1e-9;
  }
  return total;
}

size_t entries(const trace::Recorder& rec) {
  size_t n = rec.counter_log().size();
  for (const trace::ThreadBuffer* t : rec.threads()) {
    n += t->enqueues.size() + t->vars.size() + t->execs.size() + t->syncs.size() + t->markers.size() + t->sources.size() +
         t->scopes.size();
  }
  return n;
}

void BM_TinyOpFollowedVsNot(benchmark::State& state) {
  SocketDir dir;
  if (dir.path.empty()) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  auto plain = std::make_shared<trace::Recorder>(), published = std::make_shared<trace::Recorder>();
  bench::TinyOpRig off(make_engine(one_worker(plain))), on(make_engine(one_worker(published)));
  trace::LiveServer server(published, {dir.path, "live bench", std::chrono::milliseconds(20)});
  trace::LiveClient client(::getpid(), dir.path);
  const auto caught_up = [&] {
    while (entries(*client.recorder()) < entries(*published)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  const auto timed = [](auto&& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  constexpr int kBatch = 100'000;
  const double cpu0 = thread_cpu_seconds("asyncscope live") + thread_cpu_seconds("asyncscope attach");
  bench::PairedSeconds s;
  bool on_first = true;
  for (auto _ : state) {
    double t_on = 0, t_off = 0;
    caught_up();
    if (on_first) {
      t_on = timed([&] { on.batch(kBatch); });
      caught_up();
      t_off = timed([&] { off.batch(kBatch); });
    } else {
      t_off = timed([&] { off.batch(kBatch); });
      t_on = timed([&] { on.batch(kBatch); });
    }
    on_first = !on_first;
    s.a += t_off;
    s.b += t_on;
    state.SetIterationTime(t_on + t_off);
  }
  caught_up();
  const double cpu = thread_cpu_seconds("asyncscope live") + thread_cpu_seconds("asyncscope attach") - cpu0;
  bench::per_op_counters(state, s, kBatch, "off", "on");
  state.counters["on_over_off"] = s.b / s.a;
  state.counters["viewer_cpu_ns_per_op"] = cpu / (static_cast<double>(state.iterations()) * kBatch) * 1e9;
  state.counters["viewer_MB"] = static_cast<double>(client.bytes_received()) / 1e6;
}
BENCHMARK(BM_TinyOpFollowedVsNot)->UseManualTime()->Iterations(12);

}  // namespace
}  // namespace asyncscope
