// The session's runs without a window: numbering, which run is shown and
// which is compared, the live run's lifecycle, and trace files in and out.
#include "app/gui/run_list.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "engine/demos/registry.h"
#include "support/live_run.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;

const demos::Program& demo(const char* name) { return *demos::find_demo(name); }

std::string scratch(const std::string& name) {
  const fs::path dir = fs::path(ASYNCSCOPE_TEST_TMP) / "run_list";
  fs::create_directories(dir);
  fs::remove(dir / name);
  return (dir / name).string();
}

// A live run that records nothing: enough for the list's bookkeeping.
RunRecord& add_idle(RunList& runs, const char* name) {
  const demos::Program& p = demo(name);
  return runs.add_live(p, p.defaults(), std::make_shared<trace::Recorder>());
}

TEST(RunList, ALiveRunIsNumberedShownAndTakesItsProgramsViews) {
  RunList runs;
  EXPECT_EQ(runs.current(), nullptr);
  RunRecord& run = add_idle(runs, "dependency-graph");
  EXPECT_EQ(run.number, 1);
  EXPECT_EQ(run.title(), "run 1: dependency-graph");
  EXPECT_TRUE(run.live);
  EXPECT_TRUE(run.timeline.follow_live);
  EXPECT_TRUE(run.views.op_graph) << "the program's views, not its name, decide the op graph";
  EXPECT_EQ(runs.current(), &run);
  EXPECT_EQ(runs.live(), &run);
  EXPECT_NE(run.params_text.find("size="), std::string::npos) << run.params_text;
  EXPECT_THROW(add_idle(runs, "dependency-graph"), std::logic_error) << "one live run at a time";
  runs.end_live(std::nullopt, "");
  EXPECT_FALSE(add_idle(runs, "queued-vs-finished").views.op_graph);
}

TEST(RunList, ARerunOfTheSameProgramIsComparedWithTheRunBefore) {
  RunList runs;
  add_idle(runs, "memory-and-sync");
  runs.end_live(std::nullopt, "");
  EXPECT_EQ(runs.compared(), nullptr);
  RunRecord& second = add_idle(runs, "memory-and-sync");
  runs.end_live(std::nullopt, "");
  ASSERT_NE(runs.compared(), nullptr);
  EXPECT_EQ(runs.compared()->number, 1);
  EXPECT_EQ(runs.current(), &second);

  // Another program: nothing to compare with.
  add_idle(runs, "sync-vs-async");
  runs.end_live(std::nullopt, "");
  EXPECT_EQ(runs.compared(), nullptr);
  EXPECT_EQ(runs.compare_index(), -1);
}

TEST(RunList, ShowAndCompareWithPickRunsAndIgnoreWhatIsNotThere) {
  RunList runs;
  for (int i = 0; i < 3; ++i) {
    add_idle(runs, "sync-vs-async");
    runs.end_live(std::nullopt, "");
  }
  const uint64_t before = runs.generation();
  runs.show(0);
  EXPECT_EQ(runs.current_index(), 0);
  EXPECT_GT(runs.generation(), before) << "the result columns mark the shown run";
  runs.show(7);
  EXPECT_EQ(runs.current_index(), 0);
  runs.compare_with(2);
  ASSERT_NE(runs.compared(), nullptr);
  EXPECT_EQ(runs.compared()->number, 3);
  runs.compare_with(0);
  EXPECT_EQ(runs.compared(), nullptr) << "a run is not compared with itself";
  runs.compare_with(-1);
  EXPECT_EQ(runs.compare_index(), -1);
  runs.compare_with(9);
  EXPECT_EQ(runs.compare_index(), -1);
}

TEST(RunList, ARealRunEndsWithItsTraceResultsAndConsole) {
  RunList runs;
  ProgramRunner runner;
  RunRecord& run = testing::run_to_end(runs, runner, "queued-vs-finished", {{"size", "64"}});
  EXPECT_FALSE(run.live);
  EXPECT_EQ(runs.live(), nullptr);
  EXPECT_TRUE(run.error.empty()) << run.error;
  ASSERT_TRUE(run.results.has_value());
  EXPECT_FALSE(run.results->rows.empty());
  EXPECT_FALSE(run.model.ops.empty());
  ASSERT_EQ(run.console.size(), 1u);
  EXPECT_EQ(run.console[0].rfind("sum = ", 0), 0u) << run.console[0];
  EXPECT_GT(run.timeline.view.end_ns, run.timeline.view.begin_ns) << "the whole run in view";
}

// Stacked runs share one time axis: when the shown run ends, the view covers
// the longer of the two, so a compared run that took longer is not cut off.
TEST(RunList, TheFitWhenARerunEndsCoversTheComparedRunToo) {
  RunList runs;
  ProgramRunner runner;
  const RunRecord& first = testing::run_to_end(runs, runner, "sync-vs-async", {{"iterations", "200"}});
  const RunRecord& second = testing::run_to_end(runs, runner, "sync-vs-async", {{"iterations", "2"}});
  ASSERT_EQ(runs.compared(), &first);
  EXPECT_LE(second.timeline.view.begin_ns, 0);
  EXPECT_GE(second.timeline.view.end_ns, first.model.end_time());
  EXPECT_GE(second.timeline.view.end_ns, second.model.end_time());
}

TEST(RunList, AnExportedTraceOpensAsARunOfItsOwn) {
  RunList runs;
  ProgramRunner runner;
  const RunRecord& run = testing::run_to_end(runs, runner, "sync-vs-async", {{"iterations", "20"}});
  const std::string path = scratch("exported.json");
  export_trace(run, path);
  const RunRecord& opened = runs.open_trace(path);
  EXPECT_EQ(opened.number, 2);
  EXPECT_EQ(opened.title(), "exported.json");
  EXPECT_EQ(opened.source, path);
  EXPECT_FALSE(opened.live);
  EXPECT_FALSE(opened.timeline.follow_live);
  EXPECT_EQ(opened.model.ops.size(), run.model.ops.size());
  EXPECT_EQ(runs.current(), &opened);
  EXPECT_EQ(runs.compared(), nullptr) << "a file is no rerun of the program";
  // What made the run came with it: the program, its knobs, its results.
  EXPECT_EQ(run.origin.program, "sync-vs-async");
  ASSERT_TRUE(run.results.has_value());
  EXPECT_EQ(run.origin.results.size(), run.results->rows.size());
  EXPECT_EQ(opened.origin, run.origin);
  ASSERT_TRUE(opened.results.has_value());
  EXPECT_EQ(opened.results->rows.size(), run.results->rows.size());
  EXPECT_EQ(opened.results->notes, run.results->notes);
  EXPECT_EQ(opened.params_text, "sync-vs-async: " + run.params_text);
}

TEST(RunList, AFileThatCannotBeReadAddsNothing) {
  RunList runs;
  EXPECT_THROW(runs.open_trace(scratch("missing.json")), std::runtime_error);
  EXPECT_TRUE(runs.empty());
  EXPECT_EQ(runs.current(), nullptr);
}

TEST(RunList, ExportSaysWhyItCannotWrite) {
  RunList runs;
  add_idle(runs, "sync-vs-async");
  try {
    export_trace(*runs.current(), "/nonexistent-folder/x.json");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder/x.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asyncscope::app
