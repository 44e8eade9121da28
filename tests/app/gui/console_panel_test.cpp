// The console pane without a window: following the newest line, its texts,
// when it comes to the front, and that a real demo's printed lines are what
// it draws (ImGui's log captures the text of a headless frame).
#include "app/gui/console_panel.h"

#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/demos/registry.h"
#include "support/live_run.h"
#include "widgets/imgui_context.h"

namespace asyncscope::app {
namespace {

TEST(ConsoleFollow, ANewRunStartsAtItsNewestLine) {
  ConsoleFollow follow;
  EXPECT_TRUE(follow.update(1, 0, 0, 5));
  // The same run scrolled to the top of a long output is left there...
  EXPECT_FALSE(follow.update(1, 0, 400, 5));
  // ...but another run shown starts at its end.
  EXPECT_TRUE(follow.update(2, 0, 400, 5));
}

TEST(ConsoleFollow, FollowsAtTheBottomStopsWhenScrolledUpResumesAtTheBottom) {
  ConsoleFollow follow;
  follow.update(3, 0, 0, 5);
  EXPECT_TRUE(follow.update(3, 200, 200, 5)) << "at the bottom: new lines scroll in";
  EXPECT_FALSE(follow.update(3, 120, 240, 5)) << "scrolled up to read: left alone";
  EXPECT_FALSE(follow.update(3, 120, 300, 5)) << "more lines came: still left alone";
  EXPECT_TRUE(follow.update(3, 297, 300, 5)) << "back near the bottom: follows again";
}

TEST(Console, Texts) {
  EXPECT_EQ(line_count_text(0), "0 lines");
  EXPECT_EQ(line_count_text(1), "1 line");
  EXPECT_EQ(line_count_text(12), "12 lines");
  EXPECT_EQ(join_lines({}), "");
  const std::vector<std::string> lines = {"a = 1", "", "b = 2"};
  EXPECT_EQ(join_lines(lines), "a = 1\n\nb = 2\n");
}

TEST(Console, HintsSayWhyThereIsNothingToShow) {
  EXPECT_NE(console_hint(nullptr), nullptr);
  RunRecord run;
  run.live = true;
  EXPECT_STREQ(console_hint(&run), "Nothing printed yet.");
  run.live = false;
  EXPECT_STREQ(console_hint(&run), "This run printed nothing.");
  run.source = "trace.json";
  EXPECT_STREQ(console_hint(&run), "A trace file keeps no console output.");
  run.source.clear();
  run.console = {"x"};
  EXPECT_EQ(console_hint(&run), nullptr);
}

TEST(Console, TabCountsTheLinesUnderOneId) {
  RunRecord run;
  EXPECT_EQ(console_tab_label(nullptr), "Console###console");
  EXPECT_EQ(console_tab_label(&run), "Console###console");
  run.console = {"a", "b"};
  EXPECT_EQ(console_tab_label(&run), "Console (2)###console");
}

TEST(Console, ComesToTheFrontOnlyWhenARunPrintedAndLeftNoResults) {
  RunRecord run;
  EXPECT_FALSE(console_first_after(run)) << "nothing printed";
  run.console = {"loss 0.5"};
  EXPECT_TRUE(console_first_after(run)) << "failed or stopped: what it printed is the news";
  run.results = demos::Results{};
  EXPECT_TRUE(console_first_after(run)) << "an empty table shows nothing either";
  run.results->rows.push_back({"t", "took", 1, "s"});
  EXPECT_FALSE(console_first_after(run)) << "a table to read: the user's tab stays";
}

// Draws the pane in headless frames; returns the text of the last one.
std::string drawn_text(ConsolePanel& panel, const RunRecord* run) {
  widgets::HeadlessContext context(900, 300);
  std::string text;
  for (int frame = 0; frame < 2; ++frame) {  // the first frame lays the child window out
    context.begin_frame();
    ImGui::LogToBuffer();
    panel.draw(run, nullptr);
    text = ImGui::GetCurrentContext()->LogBuffer.c_str();
    ImGui::LogFinish();
    context.end_frame();
  }
  return text;
}

TEST(ConsolePanel, DrawsTheLinesADemoPrinted) {
  RunList runs;
  ProgramRunner runner;
  const RunRecord& run = testing::run_to_end(runs, runner, "memory-and-sync", {{"batches", "2"}, {"batch-size", "32"}});
  ASSERT_GE(run.console.size(), 2u);
  ConsolePanel panel;
  const std::string text = drawn_text(panel, &run);
  for (const std::string& line : run.console) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
  EXPECT_NE(text.find(run.title()), std::string::npos) << "says whose lines they are";
}

TEST(ConsolePanel, DrawsTheHintWhenThereIsNothing) {
  ConsolePanel panel;
  EXPECT_NE(drawn_text(panel, nullptr).find(console_hint(nullptr)), std::string::npos);
}

TEST(ConsolePanel, ManyLinesDrawOnlyTheVisibleOnesScrolledToTheNewest) {
  RunRecord run;
  run.number = 1;
  for (int i = 0; i < 5000; ++i) run.console.push_back("line " + std::to_string(i));
  ConsolePanel panel;
  widgets::HeadlessContext context(900, 300);
  ImDrawData* drawn = nullptr;
  for (int frame = 0; frame < 3; ++frame) {  // a scroll asked for in one frame applies in the next
    context.begin_frame();
    panel.draw(&run, nullptr);
    drawn = context.end_frame();
  }
  // ImGui's log turns clipping off, so look at the geometry: a few lines'
  // worth of glyphs, not 5000 lines'.
  EXPECT_LT(drawn->TotalVtxCount, 20000);
  const ImGuiWindow* lines = nullptr;
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (std::string(w->Name).find("/lines_") != std::string::npos) lines = w;
  }
  ASSERT_NE(lines, nullptr);
  EXPECT_GT(lines->ScrollMax.y, 0);
  EXPECT_EQ(lines->Scroll.y, lines->ScrollMax.y) << "a newly shown run starts at its newest line";
}

}  // namespace
}  // namespace asyncscope::app
