// The Insight tab's rows and the stacked runs' alignment, from hand-built
// traces with known answers.
#include "app/gui/insight_panel.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>

#include "app/gui/timeline_panel.h"
#include "support/timeline_fixtures.h"
#include "widgets/imgui_context.h"

#include <imgui_internal.h>

namespace asyncscope::app {
namespace {

using trace::LaneState;

TEST(InsightPanel, StateRowsShareTheRunsActivePartAndTheView) {
  const trace::TraceModel m = widgets::small_model();
  trace::RunInsight insight;
  insight.update(m, true);
  // Active part [1000, 51000): 2 workers x 50000 ns, the frontend 50000 ns.
  const std::vector<StateRow> rows = state_rows(insight, 10000, 20000);
  ASSERT_EQ(rows.size(), 5u);  // busy, held, starved; running, wait_to_read
  EXPECT_EQ(rows[0].state, LaneState::busy);
  EXPECT_EQ(rows[0].run_ns, 55500);
  EXPECT_DOUBLE_EQ(rows[0].run_frac, 0.555);
  EXPECT_EQ(rows[0].view_ns, 10000);  // w0 [10000,12000) [13000,20000); w1 [10000,11000)
  EXPECT_DOUBLE_EQ(rows[0].view_frac, 0.5);
  EXPECT_EQ(rows[1].state, LaneState::held);
  EXPECT_EQ(rows[1].run_ns, 34500);
  EXPECT_EQ(rows[2].state, LaneState::starved);
  EXPECT_EQ(rows[2].run_ns, 10000);
  EXPECT_EQ(rows[2].view_ns, 0);
  EXPECT_FALSE(rows[3].worker);
  EXPECT_EQ(rows[3].state, LaneState::running);
  EXPECT_EQ(rows[3].run_ns, 2500);
  EXPECT_EQ(rows[4].state, LaneState::wait_to_read);
  EXPECT_DOUBLE_EQ(rows[4].view_frac, 1.0);
}

TEST(TimelinePanel, StackedRunsAlignOnACommonMarker) {
  trace::TraceModel a = widgets::small_model();  // markers "calls" at 0, "wait for w" at 3500
  trace::TraceModel b = widgets::small_model();
  b.markers[1].t = 9000;
  EXPECT_EQ(alignment_offset(a, b, ""), 0);
  EXPECT_EQ(alignment_offset(a, b, "wait for w"), 3500 - 9000);
  EXPECT_EQ(alignment_offset(a, b, "no such marker"), 0);
  EXPECT_EQ(common_markers(a, b), (std::vector<std::string>{"calls", "wait for w"}));
  b.markers.pop_back();
  EXPECT_EQ(common_markers(a, b), (std::vector<std::string>{"calls"}));
}

// A profiler's trace: the panel shows its own figures (the verdict, HTA's
// stream table, the memory holders), not the lane classifier's.
TEST(InsightPanel, AProfilersTraceShowsItsStreamsVerdictAndHolders) {
  RunList runs;
  const RunRecord& run =
      runs.open_trace(std::string(ASYNCSCOPE_SOURCE_DIR) + "/tests/data/traces/torch211_h200_chapter_cuda.json.gz");
  ASSERT_NE(run.figures, nullptr);
  EXPECT_EQ(run.timeline.insight, nullptr) << "no lane-state strips on a profiler's lanes";
  InsightPanel panel;
  widgets::HeadlessContext context(1400, 500);
  std::string text;
  for (int frame = 0; frame < 2; ++frame) {
    context.begin_frame();
    ImGui::LogToBuffer();
    panel.draw(&run, nullptr);
    text = ImGui::GetCurrentContext()->LogBuffer.c_str();
    ImGui::LogFinish();
    context.end_frame();
  }
  // Wrapped text is a line per wrap: read the text as one run of words.
  std::string words = text;
  std::replace(words.begin(), words.end(), '\n', ' ');
  for (const std::string& expected :
       {run.figures->verdict.text, std::string("GPU 0 stream 7"), std::string("host wait"),
        std::string("cuda:0 at its peak"), run.figures->memory.front().peak.rows.front().op}) {
    EXPECT_NE(words.find(expected), std::string::npos) << expected << "\nin:\n" << text;
  }
}

// With ProfilerSteps, the panel offers HTA's count of complete steps only:
// stream 7 of the sampled training trace queues 80 launches at most over
// the whole trace, 76 over its complete step (HTA's figure).
TEST(InsightPanel, AProfilersStepsCanBeCountedAsHtaCountsThem) {
  const char* env = std::getenv("ASYNCSCOPE_REAL_TRACES");
  const std::string path = std::string(env != nullptr ? env : ASYNCSCOPE_REAL_TRACES) + "/sampled_training.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "the real traces live in ../shared/traces";
  RunList runs;
  const RunRecord& run = runs.open_trace(path);
  InsightPanel panel;
  const auto drawn = [&] {
    widgets::HeadlessContext context(1600, 500);
    std::string text;
    for (int frame = 0; frame < 2; ++frame) {
      context.begin_frame();
      ImGui::LogToBuffer();
      panel.draw(&run, nullptr);
      text = ImGui::GetCurrentContext()->LogBuffer.c_str();
      ImGui::LogFinish();
      context.end_frame();
    }
    return text;
  };
  const std::string whole = drawn();
  EXPECT_NE(whole.find("complete ProfilerSteps only"), std::string::npos) << whole;
  panel.count_complete_steps(true);
  const std::string steps = drawn();
  const auto row_of_stream_7 = [](const std::string& text) {
    const size_t at = text.find("GPU 0 stream 7");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_NE(row_of_stream_7(whole).find(" 80 "), std::string::npos) << row_of_stream_7(whole);
  EXPECT_NE(row_of_stream_7(steps).find(" 76 "), std::string::npos) << row_of_stream_7(steps);
}

}  // namespace
}  // namespace asyncscope::app
