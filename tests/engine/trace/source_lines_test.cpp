// Source attribution: what a scripting frontend records (source events
// before its pushes and waits) read into the model, each enqueue and wait
// given the latest line of its own thread, and the per-line table built from
// that. Hand-written recorder contents, so every figure is exact.
#include "engine/trace/source_lines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>

#include "engine/trace/model.h"
#include "engine/trace_record/names.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::trace {
namespace {

struct Script {
  Recorder r;
  NameId file = intern("source_lines_test/script.py");

  void source(int64_t t, uint32_t line) { r.local().sources.append(SourceEvent{r.origin_ns() + t, file, line}); }
  void enqueue(uint64_t op, int64_t t, uint64_t bytes = 0, bool internal = false) {
    EnqueueEvent e;
    e.op = op;
    e.t = r.origin_ns() + t;
    e.out_bytes = bytes;
    e.internal = internal;
    r.local().enqueues.append(e);
  }
  void wait(int64_t begin, int64_t end, SyncKind kind = SyncKind::wait_to_read) {
    r.local().syncs.append(SyncEvent{r.origin_ns() + begin, r.origin_ns() + end, 1, 0, kind});
  }
};

TEST(SourceLines, EnqueuesAndWaitsTakeTheLatestLineOfTheirThread) {
  Script s;
  s.source(10, 3);   // point 0: two pushes
  s.enqueue(1, 12, 400);
  s.enqueue(2, 15, 100);
  s.source(20, 4);   // point 1: a wait
  s.wait(21, 30);
  s.source(40, 3);   // point 2: line 3 again
  s.enqueue(3, 41);
  std::thread([&] { s.enqueue(4, 50); }).join();  // another thread, no line
  TraceModel m = snapshot(s.r);

  ASSERT_EQ(m.source_lines.size(), 2u);
  ASSERT_EQ(m.source_points.size(), 3u);
  EXPECT_EQ(m.frontends[0].sources, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(m.find_op(1)->source, 1u);
  EXPECT_EQ(m.find_op(2)->source, 1u);
  EXPECT_EQ(m.find_op(3)->source, 3u);
  EXPECT_EQ(m.find_op(4)->source, 0u) << "a thread that recorded no line";
  ASSERT_EQ(m.syncs.size(), 1u);
  EXPECT_EQ(m.syncs[0].source, 2u);
  EXPECT_EQ(m.source_text(m.find_op(3)->source), "source_lines_test/script.py:3");
  EXPECT_EQ(m.source_text(0), "");
  EXPECT_EQ(m.source_of(m.syncs[0].source)->line, 4u);
}

TEST(SourceLines, AnIncrementalReadAttributesAsOneSnapshotDoes) {
  Script s;
  TraceReader reader(s.r);
  TraceModel m;
  s.source(10, 7);
  s.enqueue(1, 11);
  reader.update(m);
  s.enqueue(2, 12);  // same execution, read later
  s.source(20, 8);
  s.wait(21, 25);
  reader.update(m);
  s.enqueue(3, 30);
  reader.update(m);
  EXPECT_EQ(m.find_op(1)->source, 1u);
  EXPECT_EQ(m.find_op(2)->source, 1u);
  EXPECT_EQ(m.syncs[0].source, 2u);
  EXPECT_EQ(m.find_op(3)->source, 2u);
}

TEST(SourceLines, WhatFollowsLeavingTheScriptHasNoLine) {
  Script s;
  s.source(10, 3);
  s.enqueue(1, 11);
  s.source(20, 0);  // the script ended: the host's final wait is not line 3's
  s.wait(21, 30, SyncKind::wait_all);
  s.enqueue(2, 31);
  const TraceModel m = snapshot(s.r);
  EXPECT_EQ(m.source_points.size(), 1u) << "leaving is no execution of a line";
  EXPECT_EQ(m.find_op(1)->source, 1u);
  EXPECT_EQ(m.syncs[0].source, 0u);
  EXPECT_EQ(m.find_op(2)->source, 0u);
  EXPECT_EQ(line_figures(m)[0].waits, 0u);
}

TEST(SourceLines, TheTableCountsRunsOpsTimesAndBytesPerLine) {
  Script s;
  s.source(10, 3);
  s.enqueue(1, 12, 400);
  s.enqueue(2, 15, 100);
  s.enqueue(9, 16, 0, /*internal=*/true);  // a free: no op of the line's, but after its last push
  s.source(20, 4);
  s.wait(21, 30);
  s.source(40, 3);
  s.enqueue(3, 41);
  s.source(100, 5);  // push, wait, push: the wait is not enqueue time
  s.enqueue(4, 102, 8);
  s.wait(103, 150, SyncKind::inflight_bound);
  s.enqueue(5, 151, 8);
  s.wait(152, 160, SyncKind::item);  // after its last push
  const std::vector<LineFigures> rows = line_figures(snapshot(s.r));
  ASSERT_EQ(rows.size(), 3u);

  EXPECT_EQ(rows[0].line, 3u);
  EXPECT_EQ(rows[0].file, "source_lines_test/script.py");
  EXPECT_EQ(rows[0].runs, 2u);
  EXPECT_EQ(rows[0].ops, 3u);
  EXPECT_EQ(rows[0].enqueue_ns, (15 - 10) + (41 - 40));
  EXPECT_EQ(rows[0].waits, 0u);
  EXPECT_EQ(rows[0].bytes, 500u);

  EXPECT_EQ(rows[1].line, 4u);
  EXPECT_EQ(rows[1].runs, 1u);
  EXPECT_EQ(rows[1].ops, 0u);
  EXPECT_EQ(rows[1].enqueue_ns, 0);
  EXPECT_EQ(rows[1].waits, 1u);
  EXPECT_EQ(rows[1].wait_ns, 9);

  EXPECT_EQ(rows[2].line, 5u);
  EXPECT_EQ(rows[2].ops, 2u);
  EXPECT_EQ(rows[2].waits, 2u);
  EXPECT_EQ(rows[2].wait_ns, 47 + 8);
  EXPECT_EQ(rows[2].enqueue_ns, (151 - 100) - 47);
  EXPECT_EQ(rows[2].bytes, 16u);

  const std::string text = format_line_table(rows, [](const LineFigures& r) {
    return r.line == 3 ? "    y = x + 1   " : "";
  });
  EXPECT_EQ(text.substr(0, text.find('\n')).find("line"), 0u) << text;
  EXPECT_NE(text.find("script.py:3 "), std::string::npos) << text;
  EXPECT_NE(text.find("  y = x + 1\n"), std::string::npos) << "the line's text, trimmed:\n" << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
}

// What an error at a sync point names: the line of the op's push, found in
// the pushing thread's logs (here two threads), as the model would say.
TEST(SourceLines, AnOpsLineIsFoundInItsThreadsLogsAsTheModelFindsIt) {
  Script s;
  s.source(10, 3);
  s.enqueue(1, 11);
  s.enqueue(2, 12);
  s.source(20, 7);
  s.enqueue(5, 21);
  std::thread([&s] {
    s.source(15, 9);
    s.enqueue(3, 16);
    s.source(17, 0);  // left the script
    s.enqueue(4, 18);
  }).join();
  s.enqueue(6, 30);
  const TraceModel m = snapshot(s.r);
  for (const uint64_t op : {1, 2, 3, 4, 5, 6}) {
    const OpInfo* info = m.find_op(op);
    ASSERT_NE(info, nullptr) << op;
    EXPECT_EQ(op_source_text(s.r, op), m.source_text(info->source)) << op;
  }
  EXPECT_EQ(op_source_text(s.r, 2), "source_lines_test/script.py:3");
  EXPECT_EQ(op_source_text(s.r, 6), "source_lines_test/script.py:7");
  EXPECT_EQ(op_source_text(s.r, 4), "");   // pushed after the thread left the script
  EXPECT_EQ(op_source_text(s.r, 99), "");  // not recorded
}

TEST(SourceLines, ARunWithoutSourcesHasNoTable) {
  Script s;
  s.enqueue(1, 5);
  s.wait(6, 7);
  const TraceModel m = snapshot(s.r);
  EXPECT_TRUE(m.source_points.empty());
  EXPECT_EQ(m.find_op(1)->source, 0u);
  EXPECT_TRUE(line_figures(m).empty());
  EXPECT_EQ(format_line_table({}), "");
}

}  // namespace
}  // namespace asyncscope::trace
