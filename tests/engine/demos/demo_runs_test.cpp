// Each demo in a small configuration, its qualitative result asserted from
// the trace (ordering and counts), never from wall-clock ratios.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/trace/insight.h"
#include "engine/trace/model.h"
#include "engine/trace/op_graph.h"
#include "support/run_program.h"

namespace asyncscope::demos {
namespace {

using DemoRun = testing::ProgramRun;
using testing::run_demo;

std::vector<const trace::OpInfo*> ops_named(const trace::TraceModel& m, std::string_view name) {
  std::vector<const trace::OpInfo*> out;
  for (const auto& op : m.ops) {
    if (op.known() && m.op_name(op) == name) out.push_back(&op);
  }
  return out;
}

int64_t marker_time(const trace::TraceModel& m, std::string_view name) {
  for (const auto& mk : m.markers) {
    if (m.name(mk.name) == name) return mk.t;
  }
  ADD_FAILURE() << "no marker " << name;
  return 0;
}

TEST(DemoRuns, QueuedVsFinishedEnqueuesEverythingBeforeTheGemmEnds) {
  const DemoRun r = run_demo("queued-vs-finished", {{"size", "400"}, {"workers", "2"}});
  const auto dots = ops_named(r.model, "dot");
  ASSERT_EQ(dots.size(), 2u);  // the warm-up and the demo's
  const trace::OpInfo* gemm = dots.back();
  for (const char* op : {"uniform", "sum"}) {
    const auto found = ops_named(r.model, op);
    ASSERT_FALSE(found.empty());
    EXPECT_LT(found.back()->enqueue, gemm->end) << op << " was enqueued after the GEMM ended";
  }
  EXPECT_LT(gemm->enqueue, gemm->end);
  EXPECT_LT(r.results.value("queued_s"), r.results.value("finished_s"));
  EXPECT_GT(r.results.value("gemm_s"), 0);
  EXPECT_GT(r.results.value("gflops"), 0.1);
  EXPECT_NEAR(r.results.value("y"), 400.0 * 400 * 400 * 0.25, 400.0 * 400 * 400 * 0.25 * 0.05);  // E[x]^2 n^3
}

TEST(DemoRuns, SyncFunctionsEachWaitForTheirOwnInputs) {
  const DemoRun r = run_demo("sync-functions", {{"size", "256"}, {"unrelated", "2"}, {"workers", "2"}});
  std::vector<trace::SyncKind> kinds;
  for (const auto& s : r.model.syncs) {
    if (s.kind != trace::SyncKind::wait_all || kinds.empty() || kinds.back() != trace::SyncKind::wait_all) {
      kinds.push_back(s.kind);
    }
  }
  // Every sync function appears in the trace, in the demo's order.
  for (trace::SyncKind k : {trace::SyncKind::wait_to_read, trace::SyncKind::to_host, trace::SyncKind::item,
                            trace::SyncKind::print}) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), k), kinds.end()) << trace::to_string(k);
  }
  EXPECT_EQ(r.results.value("wait_all_waited_for_unrelated"), 1.0);
  EXPECT_GT(r.results.value("gflops"), 0.1) << "every demo that multiplies says how fast";
  for (const char* k : {"wait_to_read_s", "wait_all_s", "to_host_s", "item_s", "print_s"}) {
    EXPECT_GT(r.results.value(k), 0) << k;
  }
  // Each wait on y ended after y's sum ran, i.e. it waited for its input.
  const auto sums = ops_named(r.model, "sum");
  for (const auto& s : r.model.syncs) {
    if (s.kind == trace::SyncKind::wait_all) continue;
    const trace::OpInfo* last_sum = nullptr;
    for (const auto* op : sums) {
      if (op->enqueue < s.begin) last_sum = op;
    }
    ASSERT_NE(last_sum, nullptr);
    EXPECT_GE(s.end, last_sum->end) << trace::to_string(s.kind) << " returned before its input was computed";
  }
}

TEST(DemoRuns, SyncVsAsyncSerialisesWithSyncAndRunsAheadWithout) {
  const DemoRun r = run_demo("sync-vs-async", {{"iterations", "60"}, {"size", "256"}, {"workers", "2"}});
  const int64_t sync_from = marker_time(r.model, "sync loop");
  const int64_t async_from = marker_time(r.model, "async loop");
  std::vector<const trace::OpInfo*> sync_ops, async_ops;
  for (const auto* op : ops_named(r.model, "add_scalar")) {
    if (op->enqueue >= async_from) {
      async_ops.push_back(op);
    } else if (op->enqueue >= sync_from) {
      sync_ops.push_back(op);
    }
  }
  ASSERT_EQ(sync_ops.size(), 60u);
  ASSERT_EQ(async_ops.size(), 60u);
  // With a wait per iteration, op i+1 is enqueued only after op i ended.
  for (size_t i = 1; i < sync_ops.size(); ++i) EXPECT_GE(sync_ops[i]->enqueue, sync_ops[i - 1]->end) << i;
  // Without, the frontend runs ahead: most ops are enqueued before their predecessor ends.
  size_t ahead = 0;
  for (size_t i = 1; i < async_ops.size(); ++i) ahead += async_ops[i]->enqueue < async_ops[i - 1]->end;
  EXPECT_GT(ahead, async_ops.size() / 2);
  for (const char* k : {"sync_s", "async_s", "t1_us", "t2_us", "t3_us", "model_sync_s", "model_async_s"}) {
    EXPECT_GT(r.results.value(k), 0) << k;
  }
}

// Each loop's terms come from its own trace, and the sync loop's split is
// exact: its frontend time outside the waits, the adds running, and their
// hand-offs and returns, less the overlap of the frontend's work after each
// push with that push's hand-off, add up to the loop. With the default size,
// the run calibrates one and says so.
TEST(DemoRuns, SyncVsAsyncSplitsEachLoopFromItsOwnTraceAndCalibratesItsSize) {
  const DemoRun r = run_demo("sync-vs-async", {{"iterations", "40"}});
  EXPECT_GE(r.results.value("size"), 64);
  bool said = false;
  for (const std::string& note : r.results.notes) said = said || note.find("calibrated on this machine") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_GT(r.results.value("sync_t2_us"), 0);
  EXPECT_GE(r.results.value("overlap_us"), 0);
  // The split covers the loop up to its last wait; the loop's own clock adds only its last reading.
  EXPECT_LT(std::abs(r.results.value("model_sync_error_pct")), 5.0) << r.results.value("model_sync_s");
  EXPECT_GE(r.results.value("model_textbook_s"), r.results.value("model_sync_s"));
  const DemoRun fixed = run_demo("sync-vs-async", {{"iterations", "20"}, {"size", "32"}});
  EXPECT_EQ(fixed.results.value("size"), 32);
  for (const std::string& note : fixed.results.notes) EXPECT_EQ(note.find("calibrated"), std::string::npos) << note;
}

// The verdict flips with the work per op: 1x1 adds take the workers less time
// than the frontend takes to push them; 1000x1000 adds take far longer.
TEST(DemoRuns, SyncVsAsyncVerdictFollowsTheWorkPerOp) {
  const DemoRun tiny = run_demo("sync-vs-async", {{"size", "1"}, {"iterations", "3000"}});
  trace::RunInsight a;
  a.update(tiny.model, true);
  EXPECT_EQ(a.verdict().bound, trace::Bound::frontend) << a.verdict().text();
  // Its workers are idle (starved, or held while an op waits for one to wake
  // up) most of the time. Starved alone need not outweigh busy, even on a
  // quiet machine (the two shares come out close), so busy is checked
  // against half.
  EXPECT_LT(a.verdict().worker_busy_frac, 0.5) << a.verdict().text();
  // The demo's own model agrees below, comparing the two sizes: t1 / t2
  // falls as the work per op grows. (t1 > t2 for the tiny run alone fails
  // on a loaded machine: a worker descheduled inside a 200 ns add stretches
  // its span, enough to push t2 past t1.)

  // One worker: with two, the waiting loop's adds keep one of them busy and
  // leave the other starved, and on a loaded machine that can tip the shares.
  const DemoRun big = run_demo("sync-vs-async", {{"size", "1000"}, {"iterations", "20"}, {"workers", "1"}});
  trace::RunInsight b;
  b.update(big.model, true);
  EXPECT_EQ(b.verdict().bound, trace::Bound::backend) << b.verdict().text();
  // Not busy > starved: in the waiting loop the worker starves whenever the
  // frontend, just woken, waits for a core, so on a loaded machine starved
  // can exceed busy while the verdict is still right.
  EXPECT_GT(b.verdict().frontend_wait_frac, 0.5) << b.verdict().text();
  EXPECT_LT(big.results.value("t1_us"), big.results.value("t2_us"));
  const auto ratio = [](const DemoRun& run) { return run.results.value("t1_us") / run.results.value("t2_us"); };
  EXPECT_GT(ratio(tiny), 10 * ratio(big)) << "t1/t2: " << ratio(tiny) << " (1x1) against " << ratio(big)
                                          << " (1000x1000)";
}

// Without a per-batch sync, what holds the memory at the peak is the batches
// the frontend generated ahead (the random-normal inputs); with item() per
// batch, at most a batch or two of them.
TEST(DemoRuns, MemoryAndSyncPeakIsHeldByTheGeneratedBatches) {
  constexpr int kBatches = 24, kRows = 256;
  const uint64_t batch_bytes = uint64_t{kRows} * 512 * 4;
  const auto held_by = [](const trace::HolderTable& t, const std::string& op) {
    uint64_t bytes = 0;
    for (const trace::Holder& h : t.rows) bytes += h.op == op ? h.bytes : 0;
    return bytes;
  };
  const DemoRun none = run_demo("memory-and-sync", {{"batches", std::to_string(kBatches)},
                                                   {"batch-size", std::to_string(kRows)}, {"sync", "none"}});
  trace::RunInsight a;
  a.update(none.model, true);
  const trace::HolderTable peak = a.peak_holders(none.model);
  ASSERT_FALSE(peak.rows.empty());
  EXPECT_EQ(peak.rows.front().op, "normal") << "largest holder at the peak: " << peak.rows.front().op;
  EXPECT_GE(held_by(peak, "normal"), batch_bytes * kBatches / 2);
  // The peak table accounts for the allocator's own count: never more than it saw.
  EXPECT_LE(static_cast<double>(peak.live_bytes), none.results.value("peak_live_mb") * 1024 * 1024 * 1.0001);

  const DemoRun item = run_demo("memory-and-sync", {{"batches", std::to_string(kBatches)},
                                                   {"batch-size", std::to_string(kRows)}, {"sync", "item"}});
  trace::RunInsight b;
  b.update(item.model, true);
  EXPECT_LE(held_by(b.peak_holders(item.model), "normal"), 3 * batch_bytes);
}

TEST(DemoRuns, DependencyGraphHasTheExpectedShapeAndOrder) {
  const DemoRun r = run_demo("dependency-graph", {{"size", "64"}, {"workers", "2"}});
  EXPECT_EQ(r.results.value("ops"), 8);
  EXPECT_EQ(r.results.value("edges"), 7);
  EXPECT_EQ(r.results.value("critical_path"), 3);
  EXPECT_EQ(r.results.value("z"), 3.0f);
  EXPECT_EQ(r.results.value("d"), 4.0f);
  // Every dependent op started after all its inputs ended.
  const trace::OpGraph g = trace::build_op_graph(r.model);
  for (const auto& e : g.edges) {
    const auto& from = r.model.ops[g.nodes[e.from].op];
    const auto& to = r.model.ops[g.nodes[e.to].op];
    EXPECT_GE(to.start, from.end) << r.model.op_name(from) << " -> " << r.model.op_name(to);
  }
}

TEST(DemoRuns, MemoryAndSyncPilesUpBatchesOnlyWithoutASync) {
  // The pile-up of generated inputs (batches x input) must dominate what one
  // batch in flight holds: its activations (about 10 inputs) and, while
  // backward replaces them (grad_req write), up to two generations of the
  // gradients (8.4 MB each, whatever the batch size). At 64 rows an input is
  // 128 KB, too little for the pile-up to dominate reliably (the unsynced
  // peak can come out below the synced one); at 256 rows it is 512 KB.
  constexpr int kBatches = 24;
  constexpr int kRows = 256;
  const std::vector<std::pair<std::string, std::string>> small = {{"batches", std::to_string(kBatches)},
                                                                  {"batch-size", std::to_string(kRows)}};
  auto with = [&small](std::string key, std::string value) {
    auto settings = small;
    settings.emplace_back(std::move(key), std::move(value));
    return settings;
  };
  const DemoRun none = run_demo("memory-and-sync", with("sync", "none"));
  const DemoRun item = run_demo("memory-and-sync", with("sync", "item"));
  const DemoRun bounded = run_demo("memory-and-sync", with("max-inflight", "100"));  // about 1.5 batches of ops
  const double batch_mb = kRows * 512.0 * 4 / (1024.0 * 1024.0);
  EXPECT_GT(none.results.value("peak_live_mb"), item.results.value("peak_live_mb") + 4 * batch_mb);
  EXPECT_GT(none.results.value("peak_live_mb"), bounded.results.value("peak_live_mb") + 4 * batch_mb);
  // Same seed, same data, same training, whatever the sync mode.
  EXPECT_EQ(none.results.value("loss_last"), item.results.value("loss_last"));
  EXPECT_GT(none.results.value("gflops"), 0.1) << "every demo that multiplies says how fast";
  // With item(), batch i+1's input is generated only after batch i's loss was read.
  // (The one normal before the "training" marker is the warm-up's forward.)
  const int64_t training = marker_time(item.model, "training");
  std::vector<const trace::OpInfo*> generated;
  for (const auto* op : ops_named(item.model, "normal")) {
    if (op->enqueue >= training) generated.push_back(op);
  }
  ASSERT_EQ(generated.size(), static_cast<size_t>(kBatches));
  size_t item_waits = 0;
  for (const auto& s : item.model.syncs) {
    if (s.kind != trace::SyncKind::item) continue;
    ++item_waits;
    size_t generated_before = 0;
    for (const auto* op : generated) generated_before += op->enqueue < s.end;
    EXPECT_LE(generated_before, item_waits) << "a batch was generated ahead of the previous loss";
  }
  EXPECT_GE(item_waits, static_cast<size_t>(kBatches));
}

TEST(DemoRuns, HostVsGpuEnqueuesFasterThanItSynchronises) {
  const DemoRun r = run_demo("host-vs-gpu", {{"repeats", "3"}, {"size", "200"}});
  EXPECT_GT(r.results.value("host_s"), 0);
  EXPECT_LE(r.results.value("device_enqueue_s"), r.results.value("device_synced_s"));
  EXPECT_GT(r.results.value("host_gflops"), 0.1);
  EXPECT_GT(r.results.value("device_gflops"), 0.1);
  const auto dots = ops_named(r.model, "dot");
  ASSERT_EQ(dots.size(), 1u + 3u);  // an untimed warm-up product, then the repeats
  // The last push happened before the first product finished.
  const auto normals = ops_named(r.model, "normal");
  EXPECT_LT(normals.back()->enqueue, dots.back()->end);
}

}  // namespace
}  // namespace asyncscope::demos
