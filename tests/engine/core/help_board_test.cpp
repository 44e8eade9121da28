// HelpBoard: an op's parts run exactly once each, on idle workers of its pool
// when there are any (their time traced as help spans of that op), on the
// owner alone when the others are busy; a part's exception reaches the op's
// sync point; and a helper goes back to ready ops instead of holding them up.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "engine/core/errors.h"
#include "engine/core/help_board.h"
#include "engine/trace/model.h"
#include "engine/trace_record/recorder.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::run_with_timeout;

void spin_for(std::chrono::microseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

struct Rig {
  std::shared_ptr<trace::Recorder> recorder = std::make_shared<trace::Recorder>();
  std::shared_ptr<Engine> engine;
  explicit Rig(int workers) {
    EngineOptions options;
    options.cpu_workers = workers;
    options.recorder = recorder;
    engine = make_engine(options);
  }
};

// What each part saw: which thread ran it, and how often it ran.
struct PartLog {
  std::mutex mutex;
  std::vector<std::thread::id> thread;
  std::vector<int> runs;
  explicit PartLog(int parts) : thread(static_cast<size_t>(parts)), runs(static_cast<size_t>(parts), 0) {}
  void record(int part) {
    std::lock_guard lock(mutex);
    thread[static_cast<size_t>(part)] = std::this_thread::get_id();
    ++runs[static_cast<size_t>(part)];
  }
  std::set<std::thread::id> threads() {
    std::lock_guard lock(mutex);
    return {thread.begin(), thread.end()};
  }
};

TEST(HelpBoard, WithoutHelpersThePartsRunInOrderOnTheCaller) {
  std::vector<int> order;
  RunContext rc{Device::cpu(), 0, 1, nullptr, nullptr};
  EXPECT_EQ(help_capacity(rc), 0);
  run_parts(rc, 5, [&](int part) { order.push_back(part); });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(HelpBoard, AnIdleWorkerRunsPartsAndIsTracedAsHelpingThatOp) {
  run_with_timeout([] {
    Rig rig(2);
    constexpr int kParts = 16;
    // Whether a helper joins depends on scheduling; over a few ops one does
    // (the other worker is idle and spinning or asleep the whole time).
    bool helped = false;
    for (int attempt = 0; attempt < 20 && !helped; ++attempt) {
      auto log = std::make_shared<PartLog>(kParts);
      Var* out = rig.engine->new_var();
      auto capacity = std::make_shared<int>(-1);
      rig.engine->push(
          [log, capacity](const RunContext& rc) {
            *capacity = help_capacity(rc);
            run_parts(rc, kParts, [&](int part) {
              log->record(part);
              spin_for(std::chrono::microseconds(500));
            });
          },
          {}, {out}, OpMeta("parts"));
      rig.engine->wait_for_var(out);
      EXPECT_EQ(*capacity, 1);
      EXPECT_EQ(log->runs, std::vector<int>(kParts, 1)) << "each part exactly once";
      helped = log->threads().size() == 2;
      rig.engine->delete_var(out);
    }
    ASSERT_TRUE(helped) << "no part ever ran on the idle worker";
    rig.engine->wait_all();
    trace::TraceModel m = trace::snapshot(*rig.recorder);
    size_t helps = 0;
    for (const trace::WorkerLane& lane : m.workers) {
      for (const trace::HelpSpan& h : lane.helps) {
        ++helps;
        const trace::OpInfo& op = m.ops.at(h.op);
        EXPECT_EQ(m.op_name(op), "parts");
        EXPECT_NE(&m.workers[op.worker], &lane) << "a worker does not help its own op";
        EXPECT_LE(h.start, h.end);
        EXPECT_GE(h.start, op.start) << "helping begins after the op began";
      }
    }
    EXPECT_GE(helps, 1u);
  });
}

TEST(HelpBoard, WhileTheOtherWorkerIsBusyTheOwnerRunsEveryPart) {
  run_with_timeout([] {
    Rig rig(2);
    std::atomic<bool> release{false};
    std::atomic<bool> blocking{false};
    Var* blocker = rig.engine->new_var();
    rig.engine->push(
        [&](const RunContext&) {
          blocking = true;
          while (!release.load()) std::this_thread::yield();
        },
        {}, {blocker}, OpMeta("blocker"));
    while (!blocking.load()) std::this_thread::yield();
    auto log = std::make_shared<PartLog>(8);
    Var* out = rig.engine->new_var();
    rig.engine->push([log](const RunContext& rc) { run_parts(rc, 8, [&](int part) { log->record(part); }); }, {},
                     {out}, OpMeta("parts"));
    rig.engine->wait_for_var(out);
    EXPECT_EQ(log->runs, std::vector<int>(8, 1));
    EXPECT_EQ(log->threads().size(), 1u) << "the busy worker did not leave its op to help";
    release = true;
    rig.engine->wait_all();
  });
}

TEST(HelpBoard, APartsExceptionFailsTheOpAndEveryOtherPartStillRuns) {
  run_with_timeout([] {
    Rig rig(2);
    auto log = std::make_shared<PartLog>(12);
    Var* out = rig.engine->new_var();
    rig.engine->push(
        [log](const RunContext& rc) {
          run_parts(rc, 12, [&](int part) {
            log->record(part);
            spin_for(std::chrono::microseconds(200));
            if (part == 5) throw std::runtime_error("part 5 failed");
          });
        },
        {}, {out}, OpMeta("parts"));
    try {
      rig.engine->wait_for_var(out);
      FAIL() << "expected OpError";
    } catch (const OpError& e) {
      EXPECT_EQ(e.op_name(), "parts");
      EXPECT_NE(std::string(e.what()).find("part 5 failed"), std::string::npos) << e.what();
    }
    EXPECT_EQ(log->runs, std::vector<int>(12, 1));
    EXPECT_THROW(rig.engine->wait_all(), OpError);
    Var* next = rig.engine->new_var();
    rig.engine->push([](const RunContext& rc) { run_parts(rc, 4, [](int) {}); }, {}, {next}, OpMeta("again"));
    EXPECT_NO_THROW(rig.engine->wait_for_var(next));
  });
}

TEST(HelpBoard, AHelperGoesBackToReadyOpsInsteadOfHoldingThemUp) {
  // 64 parts of 1 ms on the owner; an op pushed meanwhile finishes long
  // before the split op does, whoever was helping.
  run_with_timeout([] {
    Rig rig(2);
    std::atomic<bool> started{false};
    Var* big = rig.engine->new_var();
    Var* small = rig.engine->new_var();
    rig.engine->push(
        [&started](const RunContext& rc) {
          started = true;
          run_parts(rc, 64, [](int) { spin_for(std::chrono::microseconds(1000)); });
        },
        {}, {big}, OpMeta("big"));
    while (!started.load()) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    rig.engine->push([](const RunContext&) {}, {}, {small}, OpMeta("small"));
    rig.engine->wait_all();
    trace::TraceModel m = trace::snapshot(*rig.recorder);
    const trace::OpInfo* big_op = nullptr;
    const trace::OpInfo* small_op = nullptr;
    for (const trace::OpInfo& op : m.ops) {
      if (m.op_name(op) == "big") big_op = &op;
      if (m.op_name(op) == "small") small_op = &op;
    }
    ASSERT_TRUE(big_op && small_op);
    EXPECT_LT(small_op->end, big_op->end) << "the small op waited for the whole split op";
  });
}

}  // namespace
}  // namespace asyncscope
