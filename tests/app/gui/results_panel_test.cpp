// The result table's columns, built from the session's runs: one per run,
// what each says while live, once finished or failed, and for a trace file.
#include "app/gui/results_panel.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "engine/demos/registry.h"
#include "support/live_run.h"

namespace asyncscope::app {
namespace {

RunRecord& add_idle(RunList& runs, const char* name) {
  const demos::Program& p = *demos::find_demo(name);
  return runs.add_live(p, p.defaults(), std::make_shared<trace::Recorder>());
}

TEST(ResultColumns, OnePerRunMarkingTheShownOne) {
  RunList runs;
  EXPECT_TRUE(result_columns(runs).empty());
  add_idle(runs, "sync-vs-async");
  auto columns = result_columns(runs);
  ASSERT_EQ(columns.size(), 1u);
  EXPECT_EQ(columns[0].title, "run 1: sync-vs-async");
  EXPECT_EQ(columns[0].subtitle, "running…");
  EXPECT_TRUE(columns[0].current);
  EXPECT_TRUE(columns[0].cells.empty());

  demos::Results results;
  results.rows.push_back({"sync_s", "sync loop", 0.5, "s"});
  runs.end_live(results, "");
  add_idle(runs, "sync-vs-async");
  runs.end_live(std::nullopt, "the engine said no");
  columns = result_columns(runs);
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_FALSE(columns[0].current);
  EXPECT_TRUE(columns[1].current);
  EXPECT_EQ(columns[0].subtitle, runs.at(0).params_text);
  ASSERT_EQ(columns[0].cells.size(), 1u);
  EXPECT_EQ(columns[0].cells[0].key, "sync_s");
  EXPECT_EQ(columns[0].cells[0].value, 0.5);
  EXPECT_EQ(columns[0].cells[0].unit, "s");
  EXPECT_EQ(columns[1].subtitle, "failed: the engine said no");
}

TEST(ResultColumns, ATraceFileOfOursShowsWhatMadeItItsResultsAndOpCount) {
  RunList runs;
  ProgramRunner runner;
  const RunRecord& run = testing::run_to_end(runs, runner, "sync-vs-async", {{"iterations", "20"}});
  const std::filesystem::path dir = std::filesystem::path(ASYNCSCOPE_TEST_TMP) / "results_panel";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.json").string();
  export_trace(run, path);
  runs.open_trace(path);
  const auto columns = result_columns(runs);
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[1].title, "t.json");
  EXPECT_EQ(columns[1].subtitle, "sync-vs-async: " + run.params_text);
  // The run's own table, as the run showed it, then what the file holds.
  ASSERT_TRUE(run.results.has_value());
  ASSERT_EQ(columns[1].cells.size(), run.results->rows.size() + 1);
  for (size_t i = 0; i < run.results->rows.size(); ++i) {
    EXPECT_EQ(columns[1].cells[i].key, run.results->rows[i].key);
    EXPECT_EQ(columns[1].cells[i].label, run.results->rows[i].label);
    EXPECT_EQ(columns[1].cells[i].value, run.results->rows[i].value) << run.results->rows[i].key;
    EXPECT_EQ(columns[1].cells[i].unit, run.results->rows[i].unit);
  }
  EXPECT_EQ(columns[1].cells.back().key, "ops");
  EXPECT_EQ(columns[1].cells.back().value, static_cast<double>(run.model.ops.size()));
}

TEST(ResultColumns, AnotherTraceFileShowsItsPathAndOpCount) {
  RunList runs;
  const std::string path = std::string(ASYNCSCOPE_SOURCE_DIR) + "/tests/data/traces/torch211_h200_chapter_cuda.json.gz";
  const RunRecord& opened = runs.open_trace(path);
  const auto columns = result_columns(runs);
  ASSERT_EQ(columns.size(), 1u);
  EXPECT_EQ(columns[0].subtitle, path);
  ASSERT_EQ(columns[0].cells.size(), 1u);
  EXPECT_EQ(columns[0].cells[0].key, "ops");
  EXPECT_EQ(columns[0].cells[0].value, static_cast<double>(opened.model.ops.size()));
}

}  // namespace
}  // namespace asyncscope::app
