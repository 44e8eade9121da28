#include "widgets/imgui_context.h"

#include <gtest/gtest.h>

namespace asyncscope::widgets {
namespace {

TEST(HeadlessContext, RunsFramesWithoutAWindow) {
  HeadlessContext ctx(800, 600);
  for (int i = 0; i < 3; ++i) {
    ctx.begin_frame();
    ImGui::Text("hello");
    ImDrawData* data = ctx.end_frame();
    ASSERT_NE(data, nullptr);
    EXPECT_GT(data->TotalVtxCount, 0);
  }
}

}  // namespace
}  // namespace asyncscope::widgets
