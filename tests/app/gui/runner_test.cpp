// ProgramRunner, the API the GUI's Run/Stop (Space) drives: every demo
// started and stopped at random moments, many times in one process. Each
// stop ends its run promptly, no run fails, the next run works, and neither
// threads nor memory pile up. The default suite runs 120 cycles; the stress
// label runs 1000 (ASYNCSCOPE_RUN_STOP_CYCLES). And the counter the runner
// adds to every run: the CPU share of the UI thread.
#include "app/gui/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "engine/demos/registry.h"
#include "engine/trace_record/counters.h"
#include "engine/trace/model.h"
#include "support/proc_status.h"

namespace asyncscope::app {
namespace {

using Clock = std::chrono::steady_clock;
using testing::status_field;

int cycles() {
  const char* v = std::getenv("ASYNCSCOPE_RUN_STOP_CYCLES");
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : 120;
}

TEST(RunnerStop, DemosStoppedAtRandomMomentsEndPromptlyAndLeakNothing) {
  const auto& demos = demos::all_demos();
  ASSERT_FALSE(demos.empty());
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int> pause_us(0, 20000);
  ProgramRunner runner;
  const int total = cycles();
  const int baseline_at = total / 4;
  long rss_base = 0, threads_base = 0;
  int stopped = 0, finished = 0;
  for (int cycle = 1; cycle <= total; ++cycle) {
    const demos::Program& demo = *demos[static_cast<size_t>(cycle) % demos.size()];
    demos::ParamValues values = demo.defaults();
    values.set("workers", cycle % 3 == 0 ? "1" : "2");
    runner.start(demo, values);
    std::this_thread::sleep_for(std::chrono::microseconds(pause_us(rng)));
    const auto asked = Clock::now();
    runner.stop();
    while (runner.busy() && Clock::now() - asked < std::chrono::seconds(10)) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ASSERT_FALSE(runner.busy()) << "cycle " << cycle << ": " << demo.name() << " did not stop within 10 s";
    runner.join();
    ASSERT_NE(runner.state(), ProgramRunner::State::failed)
        << "cycle " << cycle << ": " << demo.name() << ": " << runner.error();
    (runner.state() == ProgramRunner::State::cancelled ? stopped : finished) += 1;
    if (cycle == baseline_at) {
      rss_base = status_field("VmRSS");
      threads_base = status_field("Threads");
    }
  }
  EXPECT_GT(stopped, total / 2) << "most runs should still be going when stopped";
  EXPECT_LE(status_field("Threads"), threads_base) << "threads left behind by stopped runs";
  const long growth = status_field("VmRSS") - rss_base;
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps freed memory in quarantine (256 MB) and its shadow
  // grows with it: RSS says nothing there. LeakSanitizer checks for leaks instead.
#else
  EXPECT_LT(growth, 64 * 1024) << "RSS grew by " << growth << " kB after cycle " << baseline_at;
#endif
  RecordProperty("cycles", total);
  RecordProperty("stopped", stopped);
  RecordProperty("finished", finished);
  RecordProperty("rss_growth_kb", static_cast<int>(growth));

  // The runner still runs a demo to its end.
  const demos::Program& quick = *demos::find_demo("dependency-graph");
  demos::ParamValues values = quick.defaults();
  values.set("size", "64");
  runner.start(quick, values);
  const auto began = Clock::now();
  while (runner.busy() && Clock::now() - began < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  runner.join();
  EXPECT_EQ(runner.state(), ProgramRunner::State::finished) << runner.error();
}

// The app keeps a live model, its insight and the timeline's tables of each
// run: a run it starts reserves that per recorded op with the trace, so it
// counts against the run's memory budget (a run from the command line
// reserves only what reading the trace at the end needs).
TEST(Runner, ARunReservesWhatTheAppKeepsPerRecordedOp) {
  const demos::Program& demo = *demos::find_demo("sync-vs-async");
  demos::ParamValues values = demo.defaults();
  values.set("iterations", "10");
  ProgramRunner runner;
  runner.start(demo, values);
  EXPECT_EQ(runner.recorder()->read_reserve(), kAppReadReserveBytesPerOp);
  EXPECT_GT(kAppReadReserveBytesPerOp, trace::kReadReserveBytesPerOp);
  runner.join();
  EXPECT_EQ(runner.state(), ProgramRunner::State::finished) << runner.error();
  EXPECT_EQ(trace::Recorder().read_reserve(), trace::kReadReserveBytesPerOp);
}

// A run started from the app records the CPU share of the thread that
// started it (the UI thread, which draws the frames): here the test's own
// thread, which spins on busy() while the run goes on, so it shows.
TEST(Runner, ARunRecordsTheCpuShareOfTheThreadThatStartedIt) {
  const demos::Program& demo = *demos::find_demo("sync-vs-async");
  demos::ParamValues values = demo.defaults();
  values.set("iterations", "20000");  // long enough for 20+ samples at 1 kHz, even with a fast round trip
  values.set("workers", "1");
  ProgramRunner runner;
  runner.start(demo, values);
  const auto began = Clock::now();
  while (runner.busy() && Clock::now() - began < std::chrono::seconds(60)) {
  }
  runner.join();
  ASSERT_EQ(runner.state(), ProgramRunner::State::finished) << runner.error();
  const trace::TraceModel m = trace::snapshot(*runner.recorder());
  const int column = m.counter_index(trace::kRenderCpuCounter);
  ASSERT_GE(column, 0) << "no " << trace::kRenderCpuCounter << " counter in the run's trace";
  ASSERT_GE(m.counters.size(), 20u);
  int64_t highest = 0;
  for (const trace::CounterSample& s : m.counters) {
    EXPECT_GE(s.values[column], 0);
    EXPECT_LE(s.values[column], 1050) << "more than one core";
    highest = std::max(highest, s.values[column]);
  }
  EXPECT_GT(highest, 100) << "the spinning thread's share never reached 10%";
}

}  // namespace
}  // namespace asyncscope::app
