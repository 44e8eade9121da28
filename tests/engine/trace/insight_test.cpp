// RunInsight: its parts kept in step as the trace grows (the incremental
// update against one pass over the finished trace), and its answers the
// parts' own.
#include "engine/trace/insight.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "support/insight_models.h"
#include "support/live_read.h"

namespace asyncscope::trace {
namespace {

using testing::build;
using testing::Row;
using testing::segments;

// A random run: a frontend pushing ops onto `workers` lanes with waits in
// between; spans never overlap on a lane and never start before their enqueue.
TraceModel random_run(uint32_t seed, int workers, int ops) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> gap(0, 3000), dur(1, 5000), who(0, workers - 1), coin(0, 9);
  std::vector<Row> rows;
  std::vector<int64_t> lane_free(workers, 0);
  std::vector<SyncSpan> syncs;
  int64_t t = 500;
  for (int i = 0; i < ops; ++i) {
    t += gap(rng);
    const uint16_t w = static_cast<uint16_t>(who(rng));
    const int64_t start = std::max(t + gap(rng) / 10, lane_free[w]) + (coin(rng) == 0 ? gap(rng) : 0);
    const int64_t end = start + dur(rng);
    lane_free[w] = end;
    rows.push_back({static_cast<NameId>(coin(rng) < 2 ? 4 : 3), t, start, end, w, {}, {uint64_t(i % 7 + 1)}, 16});
    if (coin(rng) == 0) {  // the frontend waits for what it pushed
      const int64_t until = *std::max_element(lane_free.begin(), lane_free.end());
      if (until > t) {
        syncs.push_back(SyncSpan{t + 1, until + 1, 0, 0, 0, coin(rng) < 5 ? SyncKind::wait_all : SyncKind::item});
        t = until + 1;
      }
    }
  }
  TraceModel m = build(rows, workers);
  for (size_t i = 0; i < syncs.size(); ++i) {
    m.syncs.push_back(syncs[i]);
    m.frontends[0].syncs.push_back(static_cast<uint32_t>(i));
  }
  return m;
}

TEST(RunInsight, UpdatedAsTheTraceGrowsItAgreesWithOnePassOverTheWhole) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const int workers = 1 + static_cast<int>(seed % 3);
    const TraceModel full = random_run(seed, workers, 400);
    RunInsight once;
    once.update(full, true);
    RunInsight live;
    const int64_t end = full.end_time();
    int64_t last_frontier = 0;
    int advanced = 0;
    for (int64_t cut = 1; cut < end; cut += 1 + end / 37) {
      const TraceModel seen = testing::read_by(full, cut);
      live.update(seen, false);
      ASSERT_GE(live.frontier(), last_frontier);
      ASSERT_LE(live.frontier(), cut);
      advanced += live.frontier() > last_frontier;
      last_frontier = live.frontier();
      // What it has classified is final: the same as the whole run's answer there.
      for (size_t w = 0; w < seen.workers.size(); ++w) {
        size_t wf = 0;
        while (full.workers[wf].worker != seen.workers[w].worker) ++wf;
        EXPECT_EQ(live.worker(w).time_in(0, live.frontier()).ns, once.worker(wf).time_in(0, live.frontier()).ns)
            << "seed " << seed << " cut " << cut << " lane " << w;
      }
      EXPECT_EQ(live.frontend(0).time_in(0, live.frontier()).ns, once.frontend(0).time_in(0, live.frontier()).ns)
          << "seed " << seed << " cut " << cut;
    }
    EXPECT_GT(advanced, 20) << "the frontier should follow the run, seed " << seed;
    live.update(full, true);
    for (size_t w = 0; w < full.workers.size(); ++w) {
      EXPECT_EQ(segments(live.worker(w)), segments(once.worker(w))) << "seed " << seed << " lane " << w;
    }
    EXPECT_EQ(segments(live.frontend(0)), segments(once.frontend(0)));
    EXPECT_DOUBLE_EQ(live.verdict().t2_ns, once.verdict().t2_ns);
    EXPECT_DOUBLE_EQ(live.verdict().t1_ns, once.verdict().t1_ns);
    // Every lane covers the run exactly once.
    for (size_t w = 0; w < full.workers.size(); ++w) EXPECT_EQ(once.worker(w).time_in(0, end).total(), end);
  }
}

TEST(RunInsight, ItsAnswersAreThoseOfItsPartsReadAlone) {
  const TraceModel m = random_run(9, 2, 300);
  RunInsight insight;
  insight.update(m, true);
  Frontier frontier;
  LaneClassifier lanes;
  lanes.update(m, frontier, 0, frontier.advance(m, true));
  MemoryAttribution memory;
  memory.update(m, m.ops.size());
  EXPECT_EQ(insight.frontier(), frontier.time());
  for (size_t w = 0; w < m.workers.size(); ++w) {
    EXPECT_EQ(segments(insight.worker(w)), segments(lanes.worker(frontier.stable_lane(w)))) << "lane " << w;
  }
  EXPECT_EQ(segments(insight.frontend(0)), segments(lanes.frontend(0)));
  EXPECT_DOUBLE_EQ(insight.verdict().t1_ns, lanes.verdict().t1_ns);
  EXPECT_DOUBLE_EQ(insight.verdict().t2_ns, lanes.verdict().t2_ns);
  const HolderTable a = insight.peak_holders(m), b = memory.peak_holders(m);
  EXPECT_EQ(a.t, b.t);
  EXPECT_EQ(a.live_bytes, b.live_bytes);
  EXPECT_GT(a.live_bytes, 0u);
  EXPECT_EQ(insight.holders_at(m, m.end_time() / 2).buffers, memory.holders_at(m, m.end_time() / 2).buffers);
}

}  // namespace
}  // namespace asyncscope::trace
