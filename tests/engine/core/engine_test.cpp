// The Engine contract, for both implementations where it is shared: errors
// reach the right sync point, cancellation, destruction with work pending,
// the in-flight bound and live statistics.
#include "engine/core/engine.h"

#include <sched.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/errors.h"
#include "engine/tensor/context.h"
#include "engine/core/op_record.h"
#include "engine/core/var.h"
#include "engine/core/wait_slot.h"
#include "engine/trace/model.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::eventually;
using testing::run_with_timeout;

std::shared_ptr<Engine> engine_of(EngineKind kind, int workers = 2, int64_t max_inflight = 0,
                                  std::shared_ptr<trace::Recorder> recorder = nullptr) {
  EngineOptions options;
  options.kind = kind;
  options.cpu_workers = workers;
  options.max_inflight = max_inflight;
  options.recorder = std::move(recorder);
  return make_engine(options);
}

class EngineContract : public ::testing::TestWithParam<EngineKind> {};

INSTANTIATE_TEST_SUITE_P(Both, EngineContract, ::testing::Values(EngineKind::threaded, EngineKind::naive),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST_P(EngineContract, ErrorIsRethrownAtTheSyncPointNamingTheOp) {
  run_with_timeout([] {
    auto engine = engine_of(GetParam());
    Var* bad = engine->new_var();
    Var* good = engine->new_var();
    Var* downstream = engine->new_var();
    engine->push([](const RunContext&) { throw std::runtime_error("disk on fire"); }, {}, {bad},
                 OpMeta("explode"));
    int good_value = 0;
    engine->push([&good_value](const RunContext&) { good_value = 42; }, {}, {good}, OpMeta("fine"));
    bool downstream_ran = false;
    engine->push([&downstream_ran](const RunContext&) { downstream_ran = true; }, {bad}, {downstream},
                 OpMeta("consumer"));

    // An unrelated var is unaffected.
    EXPECT_NO_THROW(engine->wait_for_var(good));
    EXPECT_EQ(good_value, 42);
    // The failing var and everything computed from it rethrow, naming the op that failed.
    try {
      engine->wait_for_var(bad);
      FAIL() << "expected OpError";
    } catch (const OpError& e) {
      EXPECT_EQ(e.op_name(), "explode");
      EXPECT_EQ(e.reason(), "disk on fire");
      EXPECT_NE(std::string(e.what()).find("explode"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("disk on fire"), std::string::npos);
    }
    EXPECT_THROW(engine->wait_for_var(downstream), OpError);
    EXPECT_FALSE(downstream_ran) << "an op whose input failed must be skipped";
    // wait_all reports it once, then forgets it.
    EXPECT_THROW(engine->wait_all(), OpError);
    EXPECT_NO_THROW(engine->wait_all());
    EXPECT_EQ(engine->stats().failed, 1u);

    // The engine keeps working, and a successful write clears the error.
    bool rewritten = false;
    engine->push([&rewritten](const RunContext&) { rewritten = true; }, {}, {bad}, OpMeta("rewrite"));
    EXPECT_NO_THROW(engine->wait_for_var(bad));
    EXPECT_TRUE(rewritten);
  });
}

TEST_P(EngineContract, NonStandardExceptionsAreReportedToo) {
  run_with_timeout([] {
    auto engine = engine_of(GetParam());
    Var* v = engine->new_var();
    engine->push([](const RunContext&) { throw 7; }, {}, {v}, OpMeta("odd"));
    try {
      engine->wait_for_var(v);
      FAIL() << "expected OpError";
    } catch (const OpError& e) {
      EXPECT_EQ(e.op_name(), "odd");
      EXPECT_NE(e.reason().find("unknown exception"), std::string::npos);
    }
  });
}

TEST_P(EngineContract, DeleteVarRunsItsCallbackAfterPendingOps) {
  run_with_timeout([] {
    auto engine = engine_of(GetParam());
    Var* v = engine->new_var();
    std::atomic<int> uses{0};
    std::atomic<int> uses_at_delete{-1};
    for (int i = 0; i < 20; ++i) engine->push([&uses](const RunContext&) { uses.fetch_add(1); }, {v}, {}, OpMeta("use"));
    engine->delete_var(v, [&](const RunContext&) { uses_at_delete = uses.load(); });
    engine->wait_all();
    EXPECT_EQ(uses_at_delete.load(), 20);
  });
}

TEST_P(EngineContract, DeleteVarOfAnIdleVarFreesItAtOnceOnTheCaller) {
  run_with_timeout([] {
    auto engine = engine_of(GetParam());
    Var* v = engine->new_var();
    engine->push([](const RunContext&) {}, {}, {v}, OpMeta("write"));
    engine->wait_for_var(v);
    // The wait returns at its signal; the signaller counts the wait's read
    // off the var just after (threaded_engine.cpp, signal_sync), and until
    // then the var is not idle: a free then queues behind it, as it should.
    eventually([v] { return v->idle(); });
    const uint64_t pushed = engine->stats().pushed;
    std::thread::id ran_on;
    uint16_t worker = 0;
    engine->delete_var(v, [&](const RunContext& rc) {
      ran_on = std::this_thread::get_id();
      worker = rc.worker;
    });
    EXPECT_EQ(ran_on, std::this_thread::get_id());  // before delete_var returned, on this thread
    EXPECT_EQ(worker, kCallerThread);
    EXPECT_EQ(engine->stats().pushed, pushed);  // no free op
    // The var is recycled as a new var.
    Var* w = engine->new_var();
    engine->push([](const RunContext&) {}, {}, {w}, OpMeta("write"));
    EXPECT_NO_THROW(engine->wait_all());
  });
}

TEST_P(EngineContract, ATracedEngineTracesTheFreeOfAnIdleVar) {
  run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    auto engine = engine_of(GetParam(), 2, 0, recorder);
    Var* v = engine->new_var();
    engine->push([](const RunContext&) {}, {}, {v}, OpMeta("write"));
    engine->wait_for_var(v);
    const uint64_t id = v->id();
    engine->delete_var(v);
    engine->wait_all();
    const trace::TraceModel m = trace::snapshot(*recorder);
    const auto freed = std::find_if(m.ops.begin(), m.ops.end(), [&](const trace::OpInfo& op) {
      return op.known() && op.internal && m.op_name(op) == "free" && op.num_writes == 1 && m.writes_of(op)[0] == id;
    });
    ASSERT_NE(freed, m.ops.end());
    EXPECT_TRUE(freed->executed());
  });
}

TEST(ThreadedEngineDelete, AVarInUseIsFreedOnAWorkerAfterItsOps) {
  run_with_timeout([] {
    EngineOptions options;
    options.cpu_workers = 2;
    auto engine = make_engine(options);
    Var* v = engine->new_var();
    std::atomic<bool> release{false};
    engine->push([&](const RunContext&) {
      while (!release.load()) std::this_thread::yield();
    }, {v}, {}, OpMeta("held read"));
    std::atomic<bool> freed{false};
    std::thread::id freed_on;
    engine->delete_var(v, [&](const RunContext&) {
      freed_on = std::this_thread::get_id();
      freed = true;
    });
    EXPECT_FALSE(freed.load());  // the read still holds the var
    EXPECT_EQ(engine->stats().pending, 2u);  // the read and the free op
    release = true;
    engine->wait_all();
    EXPECT_TRUE(freed.load());
    EXPECT_NE(freed_on, std::this_thread::get_id());
  });
}

// A frontend far ahead of its workers: the records of its pending ops count
// against the budget, and push refuses with MemoryBudgetError (nothing
// pushed) instead of growing. Counts and bytes, no timing.
TEST(ThreadedEngineMemory, PendingOpsAreChargedAndPushIsRefusedPastTheBudget) {
  run_with_timeout([] {
    constexpr int64_t kBudget = 1 << 20;
    auto memory = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>(),
                                                    PooledAllocator::Options{kBudget, 0});
    EngineOptions options;
    options.cpu_workers = 1;
    options.memory = std::make_shared<AllocatorAccount>(memory);
    auto engine = make_engine(options);
    Var* v = engine->new_var();
    std::atomic<bool> release{false};
    engine->push([&](const RunContext&) {
      while (!release.load()) std::this_thread::yield();
    }, {}, {v}, OpMeta("held write"));
    static const trace::NameId kRead = trace::intern("read");
    int pushed = 0;
    bool refused = false;
    for (; pushed < 100000 && !refused; ++pushed) {
      try {
        engine->push([](const RunContext&) {}, {v}, {}, OpMeta(kRead));
        // Charged ahead, never behind: every op waiting is paid for.
        const auto waiting = static_cast<int64_t>(engine->stats().pending);
        ASSERT_GE(memory->charged_bytes(), waiting * kPendingOpBytes) << "after push " << pushed;
      } catch (const MemoryBudgetError& e) {
        refused = true;
        EXPECT_NE(std::string(e.what()).find("ops waiting to run"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
      }
    }
    ASSERT_TRUE(refused) << "pushed " << pushed << " ops past a " << kBudget << "-byte budget";
    // The charge is within the budget, covers every pending op, and was
    // refused no more than one recount's pushes (charged ahead) early.
    EXPECT_LE(memory->charged_bytes(), kBudget);
    const auto pending = static_cast<int64_t>(engine->stats().pending);
    EXPECT_LE(pending * kPendingOpBytes, memory->charged_bytes());
    EXPECT_GE(pending * kPendingOpBytes, kBudget - 2 * 64 * kPendingOpBytes);
    release = true;
    engine->wait_all();
    // Given back once nothing is pending, but for the pushes charged ahead.
    EXPECT_LE(memory->charged_bytes(), 64 * kPendingOpBytes);
    engine->push([](const RunContext&) {}, {v}, {}, OpMeta(kRead));  // and the engine goes on
    engine->wait_all();
    engine.reset();
    EXPECT_EQ(memory->charged_bytes(), 0) << "all of it given back with the engine";
  });
}

TEST_P(EngineContract, StatsCountEveryOp) {
  run_with_timeout([] {
    auto engine = engine_of(GetParam());
    Var* v = engine->new_var();
    for (int i = 0; i < 500; ++i) engine->push([](const RunContext&) {}, {}, {v}, OpMeta("tick"));
    engine->wait_all();
    const EngineStats s = engine->stats();
    EXPECT_EQ(s.pushed, 500u);
    EXPECT_EQ(s.finished, 500u);
    EXPECT_EQ(s.pending, 0u);
    EXPECT_EQ(s.running, 0u);
  });
}

TEST_P(EngineContract, RejectsBadInput) {
  auto engine = engine_of(GetParam());
  EXPECT_THROW(engine->push([](const RunContext&) {}, {nullptr}, {}, OpMeta("x")), std::invalid_argument);
  OpMeta gpu("x", Device::cuda(0));
  Var* v = engine->new_var();
  EXPECT_THROW(engine->push([](const RunContext&) {}, {}, {v}, gpu), std::invalid_argument);
  EXPECT_THROW(engine->wait_for_var(nullptr), std::invalid_argument);
  EXPECT_EQ(engine->num_workers(Device::cuda(0)), 0);
}

TEST(EngineOptions, RejectsBadOptions) {
  EngineOptions options;
  options.cpu_workers = -1;
  EXPECT_THROW(make_engine(options), std::invalid_argument);
  options.cpu_workers = 1;
  options.max_inflight = -5;
  EXPECT_THROW(make_engine(options), std::invalid_argument);
  options.max_inflight = 0;
  EXPECT_EQ(make_engine(options)->num_workers(Device::cpu()), 1);
  EXPECT_EQ(make_engine(EngineOptions{})->num_workers(Device::cpu()), hardware_threads());
}

TEST(ThreadedEngine, PushNeverRunsTheOpOnTheCallingThread) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 2);
    Var* v = engine->new_var();
    const auto frontend = std::this_thread::get_id();
    std::atomic<int> on_frontend{0};
    for (int i = 0; i < 2000; ++i) {
      engine->push([&](const RunContext&) { on_frontend += std::this_thread::get_id() == frontend; }, {}, {v},
                   OpMeta("op"));
    }
    engine->wait_all();
    EXPECT_EQ(on_frontend.load(), 0);
  });
}

TEST(NaiveEngine, RunsEachOpOnThePushingThread) {
  auto engine = engine_of(EngineKind::naive);
  Var* v = engine->new_var();
  std::thread::id ran_on;
  engine->push([&ran_on](const RunContext&) { ran_on = std::this_thread::get_id(); }, {}, {v}, OpMeta("op"));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

// Holds a worker inside an op until released, so tests can build a backlog.
struct Gate {
  std::atomic<bool> open{false};
  std::atomic<bool> entered{false};
  OpFn op() {
    return [this](const RunContext&) {
      entered = true;
      eventually([this] { return open.load(); });
    };
  }
};

TEST(ThreadedEngine, CancelDropsPendingOpsAndLetsTheRunningOneFinish) {
  run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    auto engine = engine_of(EngineKind::threaded, 1, 0, recorder);
    Var* v = engine->new_var();
    Gate gate;
    bool running_finished = false;
    engine->push([&](const RunContext& ctx) {
      gate.op()(ctx);
      running_finished = true;
    }, {}, {v}, OpMeta("running"));
    std::atomic<int> dropped_ran{0};
    for (int i = 0; i < 100; ++i) {
      engine->push([&dropped_ran](const RunContext&) { dropped_ran++; }, {v}, {v}, OpMeta("pending"));
    }
    ASSERT_TRUE(eventually([&] { return gate.entered.load(); }));
    engine->cancel();
    gate.open = true;
    EXPECT_THROW(engine->wait_for_var(v), CancelledError);
    EXPECT_THROW(engine->wait_all(), CancelledError);
    EXPECT_TRUE(running_finished);
    EXPECT_EQ(dropped_ran.load(), 0);
    EXPECT_EQ(engine->stats().cancelled, 100u);

    // Reusable: new work runs normally and clears the var.
    bool ran = false;
    engine->push([&ran](const RunContext&) { ran = true; }, {}, {v}, OpMeta("after"));
    EXPECT_NO_THROW(engine->wait_for_var(v));
    EXPECT_NO_THROW(engine->wait_all());
    EXPECT_TRUE(ran);

    const auto m = trace::snapshot(*recorder);
    size_t cancelled = 0;
    for (const auto& op : m.ops) cancelled += op.status == trace::OpStatus::cancelled;
    EXPECT_EQ(cancelled, 100u);
  });
}

TEST(ThreadedEngine, CancelWakesAFrontendBlockedOnASyncPoint) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 1);
    Var* v = engine->new_var();
    Var* out = engine->new_var();
    Gate gate;
    engine->push(gate.op(), {}, {v}, OpMeta("slow"));
    engine->push([](const RunContext&) {}, {v}, {out}, OpMeta("waited-on"));
    std::thread stopper([&] {
      eventually([&] { return gate.entered.load(); });
      engine->cancel();
      gate.open = true;
    });
    EXPECT_THROW(engine->wait_for_var(out), CancelledError);
    stopper.join();
  });
}

TEST(ThreadedEngine, DestroyingWithPendingWorkDoesNotHang) {
  run_with_timeout([] {
    std::atomic<int> ran{0};
    {
      auto engine = engine_of(EngineKind::threaded, 2);
      std::vector<Var*> vars;
      for (int i = 0; i < 8; ++i) vars.push_back(engine->new_var());
      for (int i = 0; i < 20000; ++i) {
        engine->push([&ran](const RunContext&) { ran++; }, {vars[static_cast<size_t>(i) % 8]},
                     {vars[static_cast<size_t>(i + 3) % 8]}, OpMeta("work"));
      }
    }
    EXPECT_LE(ran.load(), 20000);
  });
}

TEST(ThreadedEngine, InflightBoundBlocksPushAndRecordsTheWait) {
  run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    auto engine = engine_of(EngineKind::threaded, 2, 4, recorder);
    std::atomic<uint64_t> max_seen{0};
    std::vector<Var*> vars;
    for (int i = 0; i < 16; ++i) vars.push_back(engine->new_var());
    for (int i = 0; i < 400; ++i) {
      engine->push([](const RunContext&) {
        volatile int x = 0;
        for (int k = 0; k < 20000; ++k) x = x + k;
      }, {}, {vars[static_cast<size_t>(i) % 16]}, OpMeta("work"));
      // Right after push returns, at most the bound plus the op just pushed are pending.
      const uint64_t pending = engine->stats().pending;
      uint64_t prev = max_seen.load();
      while (pending > prev && !max_seen.compare_exchange_weak(prev, pending)) {}
    }
    engine->wait_all();
    EXPECT_LE(max_seen.load(), 5u);
    const auto m = trace::snapshot(*recorder);
    size_t bound_waits = 0;
    for (const auto& s : m.syncs) bound_waits += s.kind == trace::SyncKind::inflight_bound;
    EXPECT_GT(bound_waits, 0u) << "400 slow ops through a bound of 4 must block the frontend";
  });
}

// A wait_all behind a chain of ops sleeps until the last one finishes: the
// workers do not wake it for each op (a futex wake on the worker, a wake-up
// and a sleep on the frontend's core, per op: system calls and context
// switches that cost far more than a tiny op, and would slow a run-ahead
// loop of tiny ops by a large share).
TEST(ThreadedEngine, AWaitAllBehindManyOpsIsWokenOnlyWhenTheyHaveFinished) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 1);
    Var* v = engine->new_var();
    Gate gate;
    engine->push(gate.op(), {}, {v}, OpMeta("slow"));
    std::atomic<int> ran{0};
    for (int i = 0; i < 300; ++i) engine->push([&ran](const RunContext&) { ran++; }, {}, {v}, OpMeta("chain"));
    std::atomic<bool> waited{false};
    std::thread waiter([&] {
      engine->wait_all();
      waited = true;
    });
    ASSERT_TRUE(eventually([&] { return gate.entered.load(); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the waiter spins a few us, then sleeps
    EXPECT_FALSE(waited.load());
    const uint64_t before = engine->stats().waiter_wakes;
    gate.open = true;
    waiter.join();
    EXPECT_EQ(ran.load(), 300);
    EXPECT_LE(engine->stats().waiter_wakes - before, 2u) << "woken for ops it still had to wait behind";
  });
}

// A waiter goes on as soon as it is signalled, while the worker still
// counts off the wait's read: what the waiter does next must find the var
// consistent. Right after each wait it pushes a write on the var (which must
// run after the wait's read), drops the var, and every few rounds destroys
// the engine (which must not free the vars under the worker). Run under
// ThreadSanitizer in CI.
TEST(ThreadedEngine, WhatAWaiterDoesRightAfterItsSignalFindsTheVarConsistent) {
  run_with_timeout([] {
    for (int engine_round = 0; engine_round < 40; ++engine_round) {
      auto engine = engine_of(EngineKind::threaded, 2);
      constexpr int kVars = 50;
      std::vector<std::atomic<int>> values(kVars);
      for (int i = 0; i < kVars; ++i) {
        Var* v = engine->new_var();
        engine->push([&values, i](const RunContext&) { values[i] = 1; }, {}, {v}, OpMeta("set"));
        engine->wait_for_var(v);
        EXPECT_EQ(values[i].load(), 1);
        engine->push([&values, i](const RunContext&) { values[i] += 1; }, {}, {v}, OpMeta("overwrite"));
        engine->delete_var(v);
      }
      engine->wait_all();
      for (int i = 0; i < kVars; ++i) EXPECT_EQ(values[i].load(), 2) << "var " << i;
      if (engine_round % 4 != 0) continue;
      Var* last = engine->new_var();
      engine->push([](const RunContext&) {}, {}, {last}, OpMeta("last"));
      engine->wait_for_var(last);
      engine.reset();  // the worker may still be counting off the wait's read
    }
  });
}

// A thread's sleep hook (a Python thread's GIL release) runs only when a
// wait sleeps, in pairs, on the waiting thread: a wait_for_var and a wait_all
// behind a gated op sleep; a wait on a finished var does not.
TEST(ThreadedEngine, WaitsThatSleepRunTheThreadsSleepHookAndQuickOnesDoNot) {
  struct Hook final : SleepHook {
    std::atomic<int> before{0};
    std::atomic<int> after{0};
    void before_sleep() noexcept override { before++; }
    void after_sleep() noexcept override { after++; }
  };
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 1);
    Var* v = engine->new_var();
    Hook hook;
    std::thread waiter([&] {
      ScopedSleepHook scope(hook);
      for (int round = 0; round < 2; ++round) {
        Gate gate;
        engine->push(gate.op(), {}, {v}, OpMeta("slow"));
        std::thread opener([&gate] {
          std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the waiter spins 20 us, then sleeps
          gate.open = true;
        });
        if (round == 0) {
          engine->wait_for_var(v);
        } else {
          engine->wait_all();
        }
        opener.join();
      }
      const int slept = hook.before.load();
      engine->wait_for_var(v);  // nothing pending: no sleep
      EXPECT_EQ(hook.before.load(), slept);
    });
    waiter.join();
    EXPECT_EQ(hook.before.load(), 2);
    EXPECT_EQ(hook.after.load(), 2);
  });
}

// A sleep hook that gives up (Ctrl+C in Python, a stop) ends each kind of
// blocking call with WaitInterrupted while the work goes on: a wait on a
// var, a wait_all, and a push held by the in-flight bound (which then pushes
// nothing). The same calls afterwards, with the hook quiet, work as usual.
TEST(ThreadedEngine, ABlockingCallThatItsThreadsSleepHookGivesUpThrowsAndTheWorkGoesOn) {
  struct GivingUp final : SleepHook {
    std::atomic<bool> give_up{true};
    void before_sleep() noexcept override {}
    void after_sleep() noexcept override {}
    int64_t poll_every_ns() const noexcept override { return 2'000'000; }
    bool interrupted() noexcept override { return give_up.load(); }
  };
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 1, 3);
    Var* v = engine->new_var();
    GivingUp hook;
    ScopedSleepHook scope(hook);
    Gate gate;
    engine->push(gate.op(), {}, {v}, OpMeta("slow"));
    EXPECT_THROW(engine->wait_for_var(v), WaitInterrupted);
    EXPECT_THROW(engine->wait_all(), WaitInterrupted);
    Var* others[2] = {engine->new_var(), engine->new_var()};
    engine->push([](const RunContext&) {}, {v}, {others[0]}, OpMeta("after"));
    engine->push([](const RunContext&) {}, {v}, {others[1]}, OpMeta("after"));
    const uint64_t pushed = engine->stats().pushed;
    EXPECT_THROW(engine->push([](const RunContext&) {}, {}, {engine->new_var()}, OpMeta("held")), WaitInterrupted);
    EXPECT_EQ(engine->stats().pushed, pushed);  // the held push pushed nothing
    gate.open = true;
    hook.give_up = false;
    engine->wait_for_var(v);
    engine->wait_all();
    EXPECT_EQ(engine->stats().pending, 0u);
    EXPECT_EQ(engine->stats().finished, pushed);
  });
}

// A frontend that runs ahead on the one core its worker may use still lets
// the worker run while it pushes: the worker, woken onto that core, would
// otherwise wait behind it until the scheduler moved it (up to a scheduler
// tick, milliseconds, which can be the whole run-ahead loop of sync-vs-async).
TEST(ThreadedEngine, AFrontendPushingOnItsWorkersOnlyCoreLetsItRun) {
  run_with_timeout([] {
    cpu_set_t before;
    ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &before)) {
        CPU_SET(c, &one);
        break;
      }
    }
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);  // this thread, and the worker it starts
    {
      auto engine = engine_of(EngineKind::threaded, 1);
      Var* v = engine->new_var();
      // A wait per op first, as in the demo's first loop: the two threads
      // hand the core to each other, and the worker is left spinning
      // (runnable, not woken: nothing makes the scheduler switch to it).
      for (int i = 0; i < 50; ++i) {
        engine->push([](const RunContext&) {}, {}, {v}, OpMeta("waited"));
        engine->wait_for_var(v);
      }
      std::atomic<bool> pushing{true};
      std::atomic<int> ran_while_pushing{0};
      constexpr int kOps = 2000;  // pushed well within one time slice
      for (int i = 0; i < kOps; ++i) {
        engine->push([&](const RunContext&) { ran_while_pushing += pushing.load() ? 1 : 0; }, {}, {v}, OpMeta("op"));
      }
      pushing = false;
      engine->wait_all();
      EXPECT_GT(ran_while_pushing.load(), 0) << "the worker ran none of " << kOps << " ops while the frontend pushed";
    }
    ASSERT_EQ(sched_setaffinity(0, sizeof(before), &before), 0);
  });
}

// The in-flight bound is woken as soon as pending falls below it.
TEST(ThreadedEngine, InflightBoundWakesThePusherOnceBelowTheBound) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 1, 3);
    Var* v = engine->new_var();
    Gate gate;
    engine->push(gate.op(), {}, {v}, OpMeta("slow"));
    engine->push([](const RunContext&) {}, {}, {v}, OpMeta("queued"));
    engine->push([](const RunContext&) {}, {}, {v}, OpMeta("queued"));
    std::atomic<bool> pushed{false};
    std::thread pusher([&] {
      engine->push([](const RunContext&) {}, {}, {v}, OpMeta("blocked"));  // 3 pending: waits
      pushed = true;
    });
    ASSERT_TRUE(eventually([&] { return gate.entered.load(); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(pushed.load()) << "pushed past the bound";
    gate.open = true;
    pusher.join();
    engine->wait_all();
    EXPECT_EQ(engine->stats().finished, 4u);
  });
}

TEST(ThreadedEngine, InflightBoundUnblocksWhenOpsAreCancelled) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 1, 2);
    Var* v = engine->new_var();
    Gate gate;
    engine->push(gate.op(), {}, {v}, OpMeta("slow"));
    engine->push([](const RunContext&) {}, {}, {v}, OpMeta("queued"));
    std::thread stopper([&] {
      eventually([&] { return gate.entered.load(); });
      engine->cancel();
      gate.open = true;
    });
    engine->push([](const RunContext&) {}, {}, {v}, OpMeta("blocked"));  // blocks until the cancel drains
    stopper.join();
    EXPECT_THROW(engine->wait_all(), CancelledError);
  });
}

TEST(ThreadedEngine, ManyFrontendThreadsCanPushAndWait) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 2);
    std::vector<std::thread> frontends;
    std::atomic<int> total{0};
    for (int t = 0; t < 4; ++t) {
      frontends.emplace_back([&] {
        Var* v = engine->new_var();
        int local = 0;
        for (int i = 0; i < 2000; ++i) {
          engine->push([&local, &total](const RunContext&) {
            ++local;
            total++;
          }, {}, {v}, OpMeta("inc"));
          if (i % 100 == 0) engine->wait_for_var(v);
        }
        engine->wait_for_var(v);
        EXPECT_EQ(local, 2000);
        engine->delete_var(v);
      });
    }
    for (auto& f : frontends) f.join();
    engine->wait_all();
    EXPECT_EQ(total.load(), 8000);
  });
}

// Ops the frontends make ready are handed to a spinning worker's mailbox
// when one is free: with several frontends racing for the same mailbox and
// workers going to sleep and waking between pushes, every op runs exactly
// once and every wait returns.
TEST(ThreadedEngine, ReadyOpsFromManyFrontendsRunExactlyOnceOnAnyPoolSize) {
  for (const int workers : {2, 3}) {
    run_with_timeout([workers] {
      auto engine = engine_of(EngineKind::threaded, workers);
      constexpr int kThreads = 4;
      constexpr int kOps = 3000;
      std::vector<std::atomic<int>> runs(kThreads * kOps);
      std::vector<std::thread> frontends;
      for (int t = 0; t < kThreads; ++t) {
        frontends.emplace_back([&, t] {
          Var* v = engine->new_var();
          for (int i = 0; i < kOps; ++i) {
            std::atomic<int>* slot = &runs[static_cast<size_t>(t * kOps + i)];
            engine->push([slot](const RunContext&) { slot->fetch_add(1); }, {}, {v}, OpMeta("inc"));
            if (i % 3 != 2) engine->wait_for_var(v);  // mostly ready at push: the mailbox path
            if (i % 500 == 499) std::this_thread::sleep_for(std::chrono::microseconds(200));  // let workers sleep
          }
          engine->wait_for_var(v);
          engine->delete_var(v);
        });
      }
      for (auto& f : frontends) f.join();
      engine->wait_all();
      for (size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << "op " << i << ", " << workers << " workers";
    });
  }
}

// A chain pushed one op at a time, the frontend working a few microseconds
// between pushes: every push finds its input written and the op ready, and
// it goes to the worker that wrote that input (spinning idle), not to
// whichever idle worker pops the shared queue first. On a quiet machine
// every op stays on one worker; one that fell asleep (the frontend paused
// over 50 us) may hand over, so the check allows a quarter of the ops to
// switch (with only the shared queue, about half of them would).
TEST(ThreadedEngine, AReadyOpGoesToTheWorkerThatWroteItsInput) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 2);
    Var* v = engine->new_var();
    constexpr int kOps = 2000;
    std::vector<uint16_t> ran_on(kOps);
    for (int i = 0; i < kOps; ++i) {
      uint16_t* slot = &ran_on[static_cast<size_t>(i)];
      engine->push([slot](const RunContext& rc) { *slot = rc.worker; }, {}, {v}, OpMeta("step"));
    }
    engine->wait_all();
    int switches = 0;
    for (int i = 1; i < kOps; ++i) switches += ran_on[static_cast<size_t>(i)] != ran_on[static_cast<size_t>(i - 1)];
    EXPECT_LT(switches, kOps / 4) << switches << " of " << kOps << " ops ran on another worker than the op before";
    engine->delete_var(v);
  });
}

// The frontend's `y = y + 1` loop: each op reads the last array and writes
// a new one, and the last array is freed right after. Pushed while a gate
// holds the chain back, every op and every free is made ready by a worker's
// completion. A free goes to the worker that made it ready, and so does
// the chain's next op (the queue stays empty): with two workers the whole
// chain runs on one, as with one worker. (Queued, the frees would go to the
// other worker, the queue would then seldom be empty when the next op became
// ready, and the chain would alternate between the workers.)
TEST(ThreadedEngine, AChainAndTheFreesItMakesReadyStayOnTheWorkerThatRunsIt) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 2);
    constexpr int kOps = 2000;
    std::atomic<bool> open{false};
    std::vector<int> op_ran_on(kOps, -1), free_ran_on(kOps, -1);
    Var* y = engine->new_var();
    engine->push([&open](const RunContext&) {
      while (!open.load(std::memory_order_acquire)) std::this_thread::yield();
    }, {}, {y}, OpMeta("gate"));
    for (int i = 0; i < kOps; ++i) {
      Var* next = engine->new_var();
      int* slot = &op_ran_on[static_cast<size_t>(i)];
      engine->push([slot](const RunContext& rc) { *slot = rc.worker; }, {y}, {next}, OpMeta("add"));
      int* freed = &free_ran_on[static_cast<size_t>(i)];
      engine->delete_var(y, [freed](const RunContext& rc) { *freed = rc.worker; });
      y = next;
    }
    open.store(true, std::memory_order_release);
    engine->wait_all();
    for (int i = 0; i < kOps; ++i) {
      ASSERT_EQ(op_ran_on[static_cast<size_t>(i)], op_ran_on[0]) << "op " << i << " of the chain ran on another worker";
      ASSERT_EQ(free_ran_on[static_cast<size_t>(i)], op_ran_on[static_cast<size_t>(i)])
          << "the free of the array op " << i << " read ran on another worker";
    }
    engine->delete_var(y);
  });
}

// Run-ahead (ThreadedEngine::hold_back): a worker holds back an op only
// for a frontend that pushed many ops since its last wait (more than 64).
// One that waits after every 48 pushes (a loop with a sync per iteration of
// a few dozen ops) never has an op held, with one worker or two.
TEST(ThreadedEngine, AFrontendThatWaitsEveryFewPushesHasNoOpHeldBack) {
  for (int workers : {1, 2}) {
    run_with_timeout([workers] {
      auto engine = engine_of(EngineKind::threaded, workers);
      Var* y = engine->new_var();
      for (int i = 0; i < 200; ++i) {
        for (int k = 0; k < 48; ++k) engine->push([](const RunContext&) {}, {}, {y}, OpMeta("step"));
        engine->wait_for_var(y);
      }
      EXPECT_EQ(engine->stats().held_back, 0u) << workers << " workers";
      engine->delete_var(y);
    });
  }
}

// Pushes past the 64th since the last wait run ahead: a worker that takes
// one of the last of them holds it back for the pushes that may follow. None
// follows here and nobody waits, yet every op runs (held only while pushes
// keep coming, briefly).
TEST(ThreadedEngine, AnOpPushedRunningAheadIsHeldBackAndStillRunsWithoutAWait) {
  run_with_timeout([] {
    auto engine = engine_of(EngineKind::threaded, 1);
    std::atomic<int> ran{0};
    std::vector<Var*> vars;
    constexpr int kOps = 100;
    for (int i = 0; i < kOps; ++i) {
      vars.push_back(engine->new_var());
      engine->push([&ran](const RunContext&) { ran.fetch_add(1); }, {}, {vars.back()}, OpMeta("step"));
    }
    EXPECT_TRUE(eventually([&] { return engine->stats().held_back >= 1; }));
    EXPECT_TRUE(eventually([&] { return ran.load() == kOps; })) << "a held op must run without a wait";
    engine->wait_all();
    for (Var* v : vars) engine->delete_var(v);
  });
}

// The FIFO reference policy: the same pushes that the tuned policy holds
// back (previous test) run in the order they became ready, none held, and
// a chain of ops on two workers keeps its order.
TEST(ThreadedEngine, TheFifoPolicyHoldsNothingAndRunsOpsInReadyOrder) {
  run_with_timeout([] {
    EngineOptions options;
    options.cpu_workers = 1;
    options.scheduling = Scheduling::fifo;
    auto engine = make_engine(options);
    std::vector<int> order;
    std::vector<Var*> vars;
    constexpr int kOps = 100;
    for (int i = 0; i < kOps; ++i) {
      vars.push_back(engine->new_var());
      engine->push([&order, i](const RunContext&) { order.push_back(i); }, {}, {vars.back()}, OpMeta("step"));
    }
    engine->wait_all();
    ASSERT_EQ(order.size(), static_cast<size_t>(kOps));
    for (int i = 0; i < kOps; ++i) EXPECT_EQ(order[i], i);
    EXPECT_EQ(engine->stats().held_back, 0u);
    for (Var* v : vars) engine->delete_var(v);
  });
}

}  // namespace
}  // namespace asyncscope
