// Differential test: random workloads through the threaded engine with 1, 2,
// 4 and 8 workers give exactly the naive (sequential) engine's results: the
// final contents of every var, the errors they carry, and what every
// intermediate sync point observed.
#include <gtest/gtest.h>

#include "engine/core/random_workload.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::make_workload;
using testing::run_workload;
using testing::run_with_timeout;

void expect_same_as_naive(uint64_t seed, int num_vars, int num_ops, std::vector<int> worker_counts) {
  const auto workload = make_workload(seed, num_vars, num_ops);
  EngineOptions naive_options;
  naive_options.kind = EngineKind::naive;
  const auto reference = run_workload(*make_engine(naive_options), workload, num_vars);
  for (int workers : worker_counts) {
    SCOPED_TRACE("workers=" + std::to_string(workers) + " seed=" + std::to_string(seed));
    EngineOptions options;
    options.cpu_workers = workers;
    const auto got = run_workload(*make_engine(options), workload, num_vars);
    ASSERT_EQ(got.observed.size(), reference.observed.size());
    for (size_t i = 0; i < got.observed.size(); ++i) {
      ASSERT_EQ(got.observed[i], reference.observed[i]) << "sync point " << i;
    }
    EXPECT_EQ(got.values, reference.values);
    EXPECT_EQ(got.errors, reference.errors);
  }
}

// 4 worker counts x 5 seeds x 1200 ops = 24k ops through the threaded engine.
TEST(Differential, RandomWorkloadsMatchTheNaiveEngine) {
  run_with_timeout([] {
    for (uint64_t seed = 1; seed <= 5; ++seed) expect_same_as_naive(seed, 24, 1200, {1, 2, 4, 8});
  });
}

TEST(Differential, FewVarsMeansLongDependencyChains) {
  run_with_timeout([] { expect_same_as_naive(99, 3, 3000, {2, 8}); });
}

}  // namespace
}  // namespace asyncscope
