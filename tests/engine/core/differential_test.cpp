// Differential test: random workloads through the threaded engine with 1, 2,
// 4 and 8 workers give exactly the naive (sequential) engine's results: the
// final contents of every var, the errors they carry, and what every
// intermediate sync point observed; also with a third of the ops on a
// (simulated) device stream. Both scheduling policies: the tuned one, and
// the plain FIFO reference (a sample here, the rest under the stress label).
#include <gtest/gtest.h>

#include "engine/core/random_workload.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::make_workload;
using testing::run_workload;
using testing::run_with_timeout;

void expect_same_as_naive(uint64_t seed, int num_vars, int num_ops, std::vector<int> worker_counts,
                          Scheduling scheduling = Scheduling::tuned) {
  const auto workload = make_workload(seed, num_vars, num_ops);
  EngineOptions naive_options;
  naive_options.kind = EngineKind::naive;
  const auto reference = run_workload(*make_engine(naive_options), workload, num_vars);
  for (int workers : worker_counts) {
    SCOPED_TRACE("workers=" + std::to_string(workers) + " seed=" + std::to_string(seed) +
                 " scheduling=" + to_string(scheduling));
    EngineOptions options;
    options.cpu_workers = workers;
    options.scheduling = scheduling;
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

// A tenth of the ops throwing (the stress label runs 100k of them).
TEST(Differential, ManyFailingOpsReachExactlyTheSyncPointsThatDependOnThem) {
  run_with_timeout([] {
    const auto workload = make_workload(77, 16, 4000, 0, 100);
    EngineOptions naive_options;
    naive_options.kind = EngineKind::naive;
    const auto reference = run_workload(*make_engine(naive_options), workload, 16);
    for (const int workers : {1, 4}) {
      EngineOptions options;
      options.cpu_workers = workers;
      const auto got = run_workload(*make_engine(options), workload, 16);
      ASSERT_EQ(got.observed, reference.observed) << "workers " << workers;
      EXPECT_EQ(got.values, reference.values) << "workers " << workers;
      EXPECT_EQ(got.errors, reference.errors) << "workers " << workers;
    }
  });
}

TEST(Differential, TheFifoReferencePolicyMatchesTheNaiveEngine) {
  run_with_timeout([] {
    for (uint64_t seed = 21; seed <= 22; ++seed) expect_same_as_naive(seed, 24, 1200, {1, 4}, Scheduling::fifo);
    expect_same_as_naive(23, 3, 2000, {2}, Scheduling::fifo);  // long chains
  });
}

TEST(Differential, FewVarsMeansLongDependencyChains) {
  run_with_timeout([] { expect_same_as_naive(99, 3, 3000, {2, 8}); });
}

// With a device stream: a third of the ops run on it, where one may follow
// another by stream order before the device finished it (see Var), mixed
// with CPU ops and sync points on 1, 2 and 4 CPU workers.
TEST(Differential, StreamOrderedOpsMixedWithHostOpsMatchTheNaiveEngine) {
  run_with_timeout([] {
    for (uint64_t seed = 11; seed <= 14; ++seed) {
      const int num_vars = seed % 2 ? 4 : 24;  // long chains, and wide ones
      const auto workload = make_workload(seed, num_vars, 1500, 35);
      EngineOptions naive_options;
      naive_options.kind = EngineKind::naive;
      const auto reference = run_workload(*make_engine(naive_options), workload, num_vars);
      for (const int workers : {1, 2, 4}) {
        SCOPED_TRACE("workers=" + std::to_string(workers) + " seed=" + std::to_string(seed));
        EngineOptions options;
        options.cpu_workers = workers;
        options.gpu_streams = 1;
        options.stream_factory = [](Device, int) { return std::make_unique<testing::SimulatedStream>(); };
        const auto got = run_workload(*make_engine(options), workload, num_vars, /*use_stream=*/true);
        ASSERT_EQ(got.observed, reference.observed);
        EXPECT_EQ(got.values, reference.values);
        EXPECT_EQ(got.errors, reference.errors);
      }
    }
  });
}

}  // namespace
}  // namespace asyncscope
