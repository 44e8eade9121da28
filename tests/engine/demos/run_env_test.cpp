// The run environment: what run_program gives a program (its context as the
// thread's current one, console, results, progress), stop from another
// thread (also for a program that never checks), and arrays a program keeps
// after its run (a Python global will): readable, memory valid, no new ops.
#include "engine/demos/run_env.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <functional>
#include <thread>

#include "engine/core/errors.h"
#include "engine/cuda/cuda.h"
#include "engine/tensor/ops.h"
#include "support/help_trace_model.h"
#include "support/timeout.h"

namespace asyncscope::demos {
namespace {

// A program whose body is given by the test.
class TestProgram final : public Program {
 public:
  explicit TestProgram(std::function<void(const ParamValues&, RunEnv&)> body) : body_(std::move(body)) {}
  std::string name() const override { return "test"; }
  std::string title() const override { return "Test"; }
  std::string summary() const override { return "a program made by a test"; }
  std::vector<Param> params() const override { return {workers_param(), seed_param()}; }
  void run(const ParamValues& values, RunEnv& env) const override { body_(values, env); }

 private:
  std::function<void(const ParamValues&, RunEnv&)> body_;
};

TEST(RunEnv, AProgramRunsInItsOwnCurrentContextAndReportsThroughItsHost) {
  testing::run_with_timeout([] {
    const TestProgram program([](const ParamValues&, RunEnv& env) {
      EXPECT_EQ(current_context_or_null(), env.context());
      NDArray x = ones({2, 2});  // no context argument
      env.print("x has " + std::to_string(x.size()) + " elements");
      env.progress(0.5, "half way");
      env.result("sum", "sum of x", sum(x).item(), "");
      env.note("done");
      env.print("bye");
    });
    std::vector<std::string> console, progress;
    std::vector<std::string> live_rows;
    RunHooks hooks;
    hooks.console = [&console](std::string_view line) { console.emplace_back(line); };
    hooks.progress = [&progress](double, const std::string& what) { progress.push_back(what); };
    hooks.result = [&live_rows](const Result& row) { live_rows.push_back(row.key); };
    RunControl control;
    const Results results = run_program(program, program.defaults(), hooks, control);
    EXPECT_EQ(console, (std::vector<std::string>{"x has 4 elements", "bye"}));
    EXPECT_EQ(progress, (std::vector<std::string>{"half way"}));
    EXPECT_EQ(live_rows, (std::vector<std::string>{"sum"}));
    EXPECT_EQ(results.value("sum"), 4.0);
    EXPECT_EQ(results.notes, (std::vector<std::string>{"done"}));
    EXPECT_EQ(current_context_or_null(), nullptr) << "the scope ends with the run";
    ASSERT_NE(hooks.recorder, nullptr);
    EXPECT_GT(trace::snapshot(*hooks.recorder).ops.size(), 0u);
  });
}

TEST(RunEnv, StopEndsAProgramThatNeverChecksAtItsNextPush) {
  testing::run_with_timeout([] {
    std::atomic<int64_t> pushed{0};
    const TestProgram program([&pushed](const ParamValues&, RunEnv&) {
      NDArray x = ones({16});
      for (;;) {  // never asks whether to stop
        x = x + 1.0f;
        pushed.fetch_add(1, std::memory_order_relaxed);
      }
    });
    RunHooks hooks;
    RunControl control;
    std::thread stopper([&] {
      while (pushed.load(std::memory_order_relaxed) < 1000) std::this_thread::yield();
      control.stop();
    });
    EXPECT_THROW(run_program(program, program.defaults(), hooks, control), StoppedError);
    stopper.join();
    EXPECT_TRUE(control.stop_requested());
  });
}

TEST(RunEnv, StopEndsAProgramBlockedInAWait) {
  testing::run_with_timeout([] {
    std::atomic<bool> waiting{false};
    const TestProgram program([&waiting](const ParamValues&, RunEnv&) {
      // A long queue of dependent work on one worker, then a wait for its end.
      NDArray x = ones({256, 256});
      for (int i = 0; i < 4000; ++i) x = dot(x, x) * 0.001f;
      waiting = true;
      x.wait_to_read();
    });
    ParamValues values = program.defaults();
    values.set("workers", "1");
    RunHooks hooks;
    RunControl control;
    std::thread stopper([&] {
      while (!waiting) std::this_thread::yield();
      control.stop();
    });
    // The wait ends with the dropped ops' CancelledError, which the host sees as the stop it asked for.
    EXPECT_THROW(run_program(program, values, hooks, control), StoppedError);
    stopper.join();
    const trace::TraceModel m = trace::snapshot(*hooks.recorder);
    size_t cancelled = 0;
    for (const auto& op : m.ops) cancelled += op.status == trace::OpStatus::cancelled;
    EXPECT_GT(cancelled, 0u) << "pending work was dropped, not run";
  });
}

TEST(RunEnv, AStopBeforeTheRunStartsRunsNothing) {
  testing::run_with_timeout([] {
    bool ran = false;
    const TestProgram program([&ran](const ParamValues&, RunEnv&) { ran = true; });
    RunHooks hooks;
    RunControl control;
    control.stop();
    EXPECT_THROW(run_program(program, program.defaults(), hooks, control), StoppedError);
    EXPECT_FALSE(ran);
  });
}

TEST(RunEnv, ArraysKeptPastTheRunStayReadableAndRefuseNewOps) {
  testing::run_with_timeout([] {
    NDArray kept_x, kept_grad;  // what a Python global would hold
    const TestProgram program([&](const ParamValues&, RunEnv&) {
      NDArray w = from_host({3}, {1, 2, 3});
      w.attach_grad();
      NDArray loss;
      {
        autograd::Record record;
        loss = sum(w * w);
      }
      loss.backward();
      kept_x = w;
      kept_grad = w.grad();
    });
    RunHooks hooks;
    RunControl control;
    run_program(program, program.defaults(), hooks, control);
    // The run is over: its engine, allocators and recorder are held only by these arrays.
    EXPECT_EQ(kept_x.to_host(), (std::vector<float>{1, 2, 3}));
    EXPECT_EQ(kept_grad.to_host(), (std::vector<float>{2, 4, 6}));
    EXPECT_THROW(kept_x + 1.0f, std::logic_error);
    EXPECT_THROW(kept_x += kept_grad, std::logic_error);
    kept_x = NDArray();
    kept_grad = NDArray();  // the last handles: frees into the run's allocator, which then goes
  });
}

TEST(RunEnv, AFailingProgramsErrorReachesTheHostAndTheRunStillEnds) {
  testing::run_with_timeout([] {
    NDArray kept;
    const TestProgram program([&kept](const ParamValues&, RunEnv&) {
      kept = ones({4});
      NDArray never_written = NDArray::empty(current_context(), {3});
      (never_written + 1.0f).wait_to_read();  // fails on the worker, rethrown here
    });
    RunHooks hooks;
    RunControl control;
    EXPECT_THROW(run_program(program, program.defaults(), hooks, control), OpError);
    EXPECT_TRUE(kept.context().closed());
  });
}

// Sets the memory budget of the runs a test makes, restoring it after.
class ScopedBudget {
 public:
  explicit ScopedBudget(const char* megabytes) {
    if (const char* old = std::getenv(kEnv)) old_ = old;
    setenv(kEnv, megabytes, 1);
  }
  ~ScopedBudget() {
    if (old_) {
      setenv(kEnv, old_->c_str(), 1);
    } else {
      unsetenv(kEnv);
    }
  }

 private:
  static constexpr const char* kEnv = "ASYNCSCOPE_MEMORY_BUDGET_MB";
  std::optional<std::string> old_;
};

// Many tiny ops and no wait: the pending ops and their trace outgrow a small
// budget, and the run ends with the budget's error (not a stop, not growth);
// what was recorded is still there. Counts and bytes, no timing.
TEST(RunEnv, ARunThatOutgrowsTheBudgetEndsWithTheBudgetsError) {
  testing::run_with_timeout([] {
    ScopedBudget budget("8");
    int64_t pushed = 0;
    const TestProgram program([&pushed](const ParamValues&, RunEnv&) {
      NDArray x = ones({1});
      for (; pushed < 10'000'000; ++pushed) x = x + 1.0f;
    });
    RunHooks hooks;
    RunControl control;
    try {
      run_program(program, program.defaults(), hooks, control);
      FAIL() << "expected MemoryBudgetError after " << pushed << " ops";
    } catch (const MemoryBudgetError& e) {
      EXPECT_NE(std::string(e.what()).find("memory budget of 8.00 MB"), std::string::npos) << e.what();
    }
    EXPECT_LT(pushed, 10'000'000);
    EXPECT_GT(pushed, 1000);
    EXPECT_LE(hooks.recorder->bytes(), size_t{8} << 20);
    const trace::TraceModel m = trace::snapshot(*hooks.recorder);
    EXPECT_GT(m.ops.size(), 1000u);
  });
}

// A sync every iteration keeps nothing pending: the trace alone grows, and
// is what the budget stops.
TEST(RunEnv, ATraceThatOutgrowsTheBudgetEndsTheRunWithTheBudgetsError) {
  testing::run_with_timeout([] {
    ScopedBudget budget("4");
    int64_t iterations = 0;
    const TestProgram program([&iterations](const ParamValues&, RunEnv&) {
      NDArray x = ones({1});
      for (; iterations < 10'000'000; ++iterations) {
        x = x + 1.0f;
        x.wait_to_read();
      }
    });
    RunHooks hooks;
    RunControl control;
    try {
      run_program(program, program.defaults(), hooks, control);
      FAIL() << "expected MemoryBudgetError after " << iterations << " iterations";
    } catch (const MemoryBudgetError& e) {
      EXPECT_NE(std::string(e.what()).find("recording the trace"), std::string::npos) << e.what();
    }
    EXPECT_LE(hooks.recorder->bytes(), size_t{4} << 20);
    EXPECT_GT(trace::snapshot(*hooks.recorder).ops.size(), 1000u);
  });
}

TEST(RunEnv, ARunOnTheCpuAsksForTheGpuBesideItOnlyWhenThereIsOne) {
  testing::run_with_timeout([] {
    ContextRequest request;
    request.gpu_when_available = true;
    RunHooks hooks;
    RunControl control;
    RunEnv env(request, hooks, control);
    EXPECT_EQ(env.context()->device(), Device::cpu()) << "creation ops stay on the CPU";
    const int streams = env.context()->engine().num_workers(Device::cuda(0));
    if (!cuda::available()) {
      EXPECT_EQ(streams, 0) << "no CUDA here: the run is a plain CPU run";
      EXPECT_EQ(env.device_allocator(), nullptr);
      return;
    }
    EXPECT_EQ(streams, 1);
    ASSERT_NE(env.device_allocator(), nullptr);
    NDArray x = ones(env.context(), {2, 2}, Device::cuda(0));
    EXPECT_EQ(sum(x).item(), 4.0f);
    EXPECT_GT(env.device_allocator()->live_bytes(), 0);
  });
}

// What a host adds (the app: its render CPU) is sampled with the run's own
// counters, after them, and the trace carries it like them.
TEST(RunEnv, TheHostsExtraCountersAreSampledAfterTheRunsOwn) {
  testing::run_with_timeout([] {
    const TestProgram program([](const ParamValues&, RunEnv& env) {
      NDArray x = ones({64, 64});
      for (int i = 0; i < 50; ++i) x = x + 1.0f;
      env.wait_all("adds");
    });
    RunHooks hooks;
    auto reads = std::make_shared<std::atomic<int64_t>>(0);
    hooks.extra_counters.push_back({"host_constant", [] { return int64_t{42}; }});
    hooks.extra_counters.push_back({"host_reads", [reads] { return reads->fetch_add(1) + 1; }});
    RunControl control;
    run_program(program, program.defaults(), hooks, control);
    const trace::TraceModel m = trace::snapshot(*hooks.recorder);
    ASSERT_GE(m.counter_names.size(), 7u);
    EXPECT_EQ(m.counter_names[0], kRssCounter) << "the run's own come first";
    const int constant = m.counter_index("host_constant");
    const int counted = m.counter_index("host_reads");
    EXPECT_EQ(constant, static_cast<int>(m.counter_names.size()) - 2);
    EXPECT_EQ(counted, static_cast<int>(m.counter_names.size()) - 1);
    ASSERT_GE(m.counters.size(), 2u) << "at least the first and the last sample";
    for (size_t i = 0; i < m.counters.size(); ++i) {
      EXPECT_EQ(m.counters[i].values[constant], 42);
      EXPECT_EQ(m.counters[i].values[counted], static_cast<int64_t>(i + 1)) << "one read per sample, in order";
    }
  });
}

// More counters than a sample holds: the run does not start, and says why.
TEST(RunEnv, TooManyExtraCountersAreRefused) {
  const TestProgram program([](const ParamValues&, RunEnv&) { ADD_FAILURE() << "the program ran"; });
  RunHooks hooks;
  for (int i = 0; i < trace::kMaxCounters; ++i) {
    hooks.extra_counters.push_back({"extra" + std::to_string(i), [] { return int64_t{0}; }});
  }
  RunControl control;
  EXPECT_THROW(run_program(program, program.defaults(), hooks, control), std::invalid_argument);
}

TEST(RunEnvHelpers, OpBusySecondsIsTheUnionOfTheNamedOpsSpans) {
  trace::TraceModel m = testing::help_test_model();  // dot 1000..9000 on worker 0 (helped), adds 500..900, 9500..9700
  EXPECT_DOUBLE_EQ(op_busy_seconds(m, "dot"), 8000e-9) << "a help span is not counted twice";
  EXPECT_DOUBLE_EQ(op_busy_seconds(m, "add"), 600e-9);
  EXPECT_DOUBLE_EQ(op_busy_seconds(m, "add", 1000), 200e-9) << "only ops that started from then on";
  // Two overlapping adds on two workers count once where they overlap.
  m.ops[2].start = 700;
  m.ops[2].end = 1100;
  EXPECT_DOUBLE_EQ(op_busy_seconds(m, "add"), 600e-9);
  EXPECT_DOUBLE_EQ(op_busy_seconds(m, "nothing"), 0);
  m.markers.push_back(trace::Marker{4321, 0, 1, 0});  // named "add"
  EXPECT_EQ(marker_time(m, "add"), 4321);
  EXPECT_EQ(marker_time(m, "dot"), 0);
  EXPECT_DOUBLE_EQ(gflops(2e9, 0.5), 4.0);
  EXPECT_DOUBLE_EQ(gflops(2e9, 0), 0.0);
}

}  // namespace
}  // namespace asyncscope::demos
