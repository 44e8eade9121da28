// The explanations' markdown subset, and that every built-in demo has one.
#include "app/gui/explanation.h"

#include <gtest/gtest.h>

#include "engine/demos/registry.h"

namespace asyncscope::app {
namespace {

TEST(Explanation, ParagraphsBulletsAndContinuationLines) {
  const auto blocks = parse_explanation(
      "# Title\n"
      "First paragraph\n"
      "goes on here.\n"
      "\n"
      "What to look for:\n"
      "- one bullet\n"
      "  continued\n"
      "- `code` and **bold** lose their marks; a * b stays\n");
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_FALSE(blocks[0].bullet);
  EXPECT_EQ(blocks[0].text, "First paragraph goes on here.");
  EXPECT_FALSE(blocks[1].bullet);
  EXPECT_EQ(blocks[1].text, "What to look for:");
  EXPECT_TRUE(blocks[2].bullet);
  EXPECT_EQ(blocks[2].text, "one bullet continued");
  EXPECT_TRUE(blocks[3].bullet);
  EXPECT_EQ(blocks[3].text, "code and bold lose their marks; a * b stays");
}

TEST(Explanation, EmptyTextHasNoBlocks) {
  EXPECT_TRUE(parse_explanation("").empty());
  EXPECT_TRUE(parse_explanation("# only a title\n\n").empty());
}

TEST(Explanation, EveryBuiltInDemoHasOne) {
  const Explanations explanations;
  for (const auto& demo : demos::all_demos()) {
    const auto* blocks = explanations.find(demo->name());
    ASSERT_NE(blocks, nullptr) << "no assets/demos/" << demo->name() << ".md";
    EXPECT_FALSE(blocks->empty()) << demo->name();
  }
  EXPECT_EQ(explanations.find("no-such-program"), nullptr);
}

}  // namespace
}  // namespace asyncscope::app
