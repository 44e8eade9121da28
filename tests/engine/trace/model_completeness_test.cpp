// Trace completeness: a random workload pushed by two frontends onto four
// workers, with the counter sampler running, must come out of the trace whole:
// every op once, executed once, with its vars, a status that a sequential
// replay of the error rules predicts, time-ordered lanes and counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "engine/core/errors.h"
#include "engine/trace_record/counter_sampler.h"
#include "engine/trace/model.h"
#include "engine/trace/model_check.h"
#include "engine/trace/model_checks.h"
#include "support/timeout.h"

namespace asyncscope::trace {
namespace {

using testing::run_with_timeout;

struct PlannedOp {
  std::vector<int> reads, writes;  // var indices, duplicates allowed
  bool throws = false;
  uint64_t id = 0;  // set when pushed
};

std::vector<PlannedOp> make_plan(uint64_t seed, int num_ops, int num_vars) {
  std::mt19937_64 rng(seed);
  const auto var = [&] { return static_cast<int>(rng() % static_cast<uint64_t>(num_vars)); };
  std::vector<PlannedOp> plan(static_cast<size_t>(num_ops));
  for (PlannedOp& op : plan) {
    for (uint64_t i = rng() % 4; i > 0; --i) op.reads.push_back(var());
    for (uint64_t i = 1 + rng() % 2; i > 0; --i) op.writes.push_back(var());
    op.throws = rng() % 150 == 0;
  }
  return plan;
}

// The engine's var rules: duplicates collapse, a var read and written counts
// as written. Returns (reads, writes) in the order the engine keeps them.
std::pair<std::vector<int>, std::vector<int>> effective_vars(const PlannedOp& op) {
  std::vector<int> reads, writes;
  for (int w : op.writes) {
    if (std::find(writes.begin(), writes.end(), w) == writes.end()) writes.push_back(w);
  }
  for (int r : op.reads) {
    if (std::find(reads.begin(), reads.end(), r) == reads.end() &&
        std::find(writes.begin(), writes.end(), r) == writes.end()) {
      reads.push_back(r);
    }
  }
  return {reads, writes};
}

// Sequential replay: an op reading a var that carries an error is skipped;
// otherwise it fails if it throws; its writes then carry its error (or none).
std::vector<OpStatus> expected_statuses(const std::vector<PlannedOp>& plan, int num_vars) {
  std::vector<bool> error(static_cast<size_t>(num_vars), false);
  std::vector<OpStatus> out;
  for (const PlannedOp& op : plan) {
    const auto [reads, writes] = effective_vars(op);
    OpStatus s = op.throws ? OpStatus::failed : OpStatus::ok;
    for (int r : reads) {
      if (error[static_cast<size_t>(r)]) s = OpStatus::skipped;
    }
    for (int w : writes) error[static_cast<size_t>(w)] = s != OpStatus::ok;
    out.push_back(s);
  }
  return out;
}

// Every op starts after each op it depends on ended: for each var it uses,
// the last earlier write of it and, if it writes the var, the reads of it
// since that write. Workers read the clock once per op and clamp starts to
// what the vars pass on (OpRecord::ready_ns); this checks that end to end.
void expect_dependencies_ordered(const TraceModel& m, const std::vector<PlannedOp>& plan, int num_vars) {
  std::vector<uint64_t> last_write(static_cast<size_t>(num_vars), 0);
  std::vector<std::vector<uint64_t>> reads_since(static_cast<size_t>(num_vars));
  size_t checked = 0;
  for (const PlannedOp& planned : plan) {
    const OpInfo* op = m.find_op(planned.id);
    ASSERT_NE(op, nullptr) << planned.id;
    const auto [reads, writes] = effective_vars(planned);
    std::vector<uint64_t> deps;
    for (int r : reads) deps.push_back(last_write[static_cast<size_t>(r)]);
    for (int w : writes) {
      deps.push_back(last_write[static_cast<size_t>(w)]);
      deps.insert(deps.end(), reads_since[static_cast<size_t>(w)].begin(), reads_since[static_cast<size_t>(w)].end());
    }
    for (uint64_t dep : deps) {
      if (dep == 0) continue;
      const OpInfo* before = m.find_op(dep);
      ASSERT_NE(before, nullptr) << dep;
      EXPECT_GE(op->start, before->end) << "op " << planned.id << " started before op " << dep << " ended";
      ++checked;
    }
    for (int r : reads) reads_since[static_cast<size_t>(r)].push_back(planned.id);
    for (int w : writes) {
      last_write[static_cast<size_t>(w)] = planned.id;
      reads_since[static_cast<size_t>(w)].clear();
    }
  }
  EXPECT_GT(checked, plan.size()) << "the workload should be full of dependencies";
}

TEST(TraceCompleteness, RandomWorkloadIsRecordedWhole) {
  run_with_timeout([] {
    constexpr int kWorkers = 4;
    constexpr int kFrontends = 2;
    constexpr int kOpsEach = 1500;
    constexpr int kVarsEach = 24;

    auto recorder = std::make_shared<Recorder>();
    EngineOptions options;
    options.cpu_workers = kWorkers;
    options.recorder = recorder;
    std::shared_ptr<Engine> engine = make_engine(options);
    CounterSampler sampler(recorder, {rss_counter(), Counter{"pending", [e = engine.get()] {
                                                               return static_cast<int64_t>(e->stats().pending);
                                                             }}});
    sampler.start();

    std::vector<std::vector<PlannedOp>> plans;
    std::vector<std::vector<Var*>> vars(kFrontends);
    for (int f = 0; f < kFrontends; ++f) {
      plans.push_back(make_plan(0xC0FFEE + static_cast<uint64_t>(f), kOpsEach, kVarsEach));
      for (int v = 0; v < kVarsEach; ++v) vars[static_cast<size_t>(f)].push_back(engine->new_var());
    }
    // How often each op's function ran.
    std::vector<std::atomic<int>> runs(static_cast<size_t>(kFrontends * kOpsEach));

    // Each frontend has its own vars, so its push order alone decides its results.
    std::vector<std::thread> frontends;
    for (int f = 0; f < kFrontends; ++f) {
      frontends.emplace_back([&, f] {
        set_thread_name("pusher " + std::to_string(f));
        const std::vector<Var*>& my_vars = vars[static_cast<size_t>(f)];
        const auto to_vars = [&](const std::vector<int>& indices) {
          std::vector<Var*> out;
          for (int i : indices) out.push_back(my_vars[static_cast<size_t>(i)]);
          return out;
        };
        for (int i = 0; i < kOpsEach; ++i) {
          PlannedOp& op = plans[static_cast<size_t>(f)][static_cast<size_t>(i)];
          std::atomic<int>* counter = &runs[static_cast<size_t>(f * kOpsEach + i)];
          const bool throws = op.throws;
          const std::vector<Var*> reads = to_vars(op.reads);
          const std::vector<Var*> writes = to_vars(op.writes);
          op.id = engine->push(
              [counter, throws](const RunContext&) {
                counter->fetch_add(1);
                if (throws) throw std::runtime_error("completeness: planned failure");
              },
              reads, writes, OpMeta(throws ? "completeness.throws" : "completeness.op"));
          if (i % 97 == 0) {
            try {
              engine->wait_for_var(my_vars[static_cast<size_t>(i % kVarsEach)]);
            } catch (const OpError&) {
            }
          }
        }
      });
    }
    for (auto& t : frontends) t.join();
    try {
      engine->wait_all();
    } catch (const OpError&) {
    }
    sampler.stop();
    const TraceModel m = snapshot(*recorder);

    constexpr size_t kTotal = size_t{kFrontends} * kOpsEach;
    EXPECT_EQ(m.dropped, 0u);
    ASSERT_EQ(m.ops.size(), kTotal);  // ids are dense: nothing else was pushed
    expect_worker_lanes_consistent(m, kTotal);
    EXPECT_EQ(first_violation(m), "");  // what an import of its export will check
    EXPECT_LE(m.workers.size(), static_cast<size_t>(kWorkers));
    for (const WorkerLane& lane : m.workers) EXPECT_EQ(lane.name, "CPU worker " + std::to_string(lane.worker));

    size_t failed = 0;
    size_t skipped = 0;
    for (int f = 0; f < kFrontends; ++f) {
      const std::vector<PlannedOp>& plan = plans[static_cast<size_t>(f)];
      const std::vector<OpStatus> statuses = expected_statuses(plan, kVarsEach);
      // The frontend's lane lists its ops in push order.
      const std::string lane_name = "pusher " + std::to_string(f);
      const auto lane = std::find_if(m.frontends.begin(), m.frontends.end(),
                                     [&](const FrontendLane& l) { return l.name == lane_name; });
      ASSERT_NE(lane, m.frontends.end()) << lane_name;
      ASSERT_EQ(lane->enqueues.size(), plan.size());
      for (size_t i = 0; i < plan.size(); ++i) {
        const PlannedOp& planned = plan[i];
        ASSERT_EQ(lane->enqueues[i] + m.first_op_id, planned.id);
        const OpInfo* op = m.find_op(planned.id);
        ASSERT_NE(op, nullptr) << planned.id;
        EXPECT_EQ(m.frontends[op->frontend].name, lane_name);
        if (i > 0) {
          EXPECT_LE(m.ops[lane->enqueues[i - 1]].enqueue, op->enqueue);
        }
        ASSERT_TRUE(op->executed()) << planned.id;
        EXPECT_LE(op->enqueue, op->start) << planned.id;
        EXPECT_LE(op->start, op->end) << planned.id;

        const auto [reads, writes] = effective_vars(planned);
        std::vector<uint64_t> read_ids, write_ids;
        for (int r : reads) read_ids.push_back(vars[static_cast<size_t>(f)][static_cast<size_t>(r)]->id());
        for (int w : writes) write_ids.push_back(vars[static_cast<size_t>(f)][static_cast<size_t>(w)]->id());
        EXPECT_EQ(var_list(m.reads_of(*op), op->num_reads), read_ids) << planned.id;
        EXPECT_EQ(var_list(m.writes_of(*op), op->num_writes), write_ids) << planned.id;

        EXPECT_EQ(op->status, statuses[i]) << "op " << planned.id << ": " << to_string(op->status);
        const int ran = runs[static_cast<size_t>(f * kOpsEach) + i].load();
        EXPECT_EQ(ran, op->status == OpStatus::skipped ? 0 : 1) << "op " << planned.id;
        if (op->status == OpStatus::failed) {
          ++failed;
          const auto error = m.errors.find(planned.id);
          ASSERT_NE(error, m.errors.end()) << planned.id;
          EXPECT_EQ(error->second, "completeness: planned failure");
        }
        if (op->status == OpStatus::skipped) ++skipped;
      }
    }
    for (const std::vector<PlannedOp>& plan : plans) expect_dependencies_ordered(m, plan, kVarsEach);
    EXPECT_EQ(m.errors.size(), failed);
    EXPECT_GT(failed, 0u) << "the workload should exercise failures";
    EXPECT_GT(skipped, 0u) << "the workload should exercise skipped ops";

    // Counters: both named, time-monotone, inside the run, positive RSS.
    EXPECT_EQ(m.counter_names, (std::vector<std::string>{"rss_bytes", "pending"}));
    ASSERT_FALSE(m.counters.empty());
    for (size_t i = 0; i < m.counters.size(); ++i) {
      const CounterSample& s = m.counters[i];
      EXPECT_GE(s.t, 0);
      if (i > 0) {
        EXPECT_GT(s.t, m.counters[i - 1].t) << "counter sample " << i;
      }
      EXPECT_GT(s.values[0], 0);
      EXPECT_GE(s.values[1], 0);
    }
    EXPECT_EQ(m.counters.back().values[1], 0) << "the final sample comes after wait_all";
    EXPECT_GE(m.end_time(), m.counters.back().t);
  });
}

}  // namespace
}  // namespace asyncscope::trace
