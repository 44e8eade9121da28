// The differential test at a larger scale (label "stress": `make stress`).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "engine/core/random_workload.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

TEST(DifferentialStress, ManyLargeRandomWorkloadsMatchTheNaiveEngine) {
  testing::run_with_timeout(
      [] {
        for (uint64_t seed = 100; seed < 110; ++seed) {
          const auto workload = testing::make_workload(seed, 64, 20000);
          EngineOptions naive;
          naive.kind = EngineKind::naive;
          const auto reference = testing::run_workload(*make_engine(naive), workload, 64);
          for (const Scheduling scheduling : {Scheduling::tuned, Scheduling::fifo}) {
            for (int workers : {1, 2, 3, 4, 8, 16}) {
              EngineOptions options;
              options.cpu_workers = workers;
              options.scheduling = scheduling;
              const auto got = testing::run_workload(*make_engine(options), workload, 64);
              const std::string where = "seed " + std::to_string(seed) + " workers " + std::to_string(workers) +
                                        " scheduling " + to_string(scheduling);
              ASSERT_EQ(got.observed, reference.observed) << where;
              ASSERT_EQ(got.values, reference.values) << where;
              ASSERT_EQ(got.errors, reference.errors) << where;
            }
          }
        }
      },
      std::chrono::seconds(600));
}

// Fault injection: 100k random ops over 64 vars, a tenth of them throwing,
// on 1, 2, 4 and 8 workers. Every failure reaches exactly the sync points
// and vars the naive engine says depend on it (none lost, none extra), no
// wait hangs, and the engine keeps working afterwards.
TEST(DifferentialStress, ATenthOfOpsFailingReachExactlyTheirSyncPoints) {
  testing::run_with_timeout(
      [] {
        const auto workload = testing::make_workload(2026, 64, 100000, 0, 100);
        size_t failing = 0;
        for (const auto& a : workload) failing += a.fails;
        ASSERT_GT(failing, 9000u);
        EngineOptions naive;
        naive.kind = EngineKind::naive;
        const auto reference = testing::run_workload(*make_engine(naive), workload, 64);
        // Both outcomes are common among the sync points, so each is tested.
        size_t errors_seen = 0;
        for (const std::string& o : reference.observed) errors_seen += o.rfind("error:", 0) == 0;
        EXPECT_GT(errors_seen, reference.observed.size() / 10);
        EXPECT_LT(errors_seen, reference.observed.size() * 9 / 10);
        for (const auto& [workers, scheduling] : {std::pair{1, Scheduling::tuned}, {2, Scheduling::tuned},
                                                  {4, Scheduling::tuned}, {8, Scheduling::tuned},
                                                  {2, Scheduling::fifo}, {8, Scheduling::fifo}}) {
          SCOPED_TRACE(std::string("scheduling ") + to_string(scheduling));
          EngineOptions options;
          options.cpu_workers = workers;
          options.scheduling = scheduling;
          auto engine = make_engine(options);
          const auto got = testing::run_workload(*engine, workload, 64);
          ASSERT_EQ(got.observed, reference.observed) << "workers " << workers;
          ASSERT_EQ(got.values, reference.values) << "workers " << workers;
          ASSERT_EQ(got.errors, reference.errors) << "workers " << workers;
          Var* v = engine->new_var();
          engine->push([](const RunContext&) {}, {}, {v}, OpMeta("after"));
          EXPECT_NO_THROW(engine->wait_for_var(v)) << "workers " << workers;
          EXPECT_NO_THROW(engine->wait_all()) << "workers " << workers;
        }
      },
      std::chrono::seconds(600));
}

}  // namespace
}  // namespace asyncscope
