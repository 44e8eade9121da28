// The differential test at a larger scale (label "stress": `make stress`).
#include <gtest/gtest.h>

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
          for (int workers : {1, 2, 3, 4, 8, 16}) {
            EngineOptions options;
            options.cpu_workers = workers;
            const auto got = testing::run_workload(*make_engine(options), workload, 64);
            ASSERT_EQ(got.observed, reference.observed) << "seed " << seed << " workers " << workers;
            ASSERT_EQ(got.values, reference.values) << "seed " << seed << " workers " << workers;
            ASSERT_EQ(got.errors, reference.errors) << "seed " << seed << " workers " << workers;
          }
        }
      },
      std::chrono::seconds(600));
}

}  // namespace
}  // namespace asyncscope
