#include "widgets/colors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "widgets/imgui_context.h"

namespace asyncscope::widgets {
namespace {

float channel(ImU32 c, int shift) { return static_cast<float>((c >> shift) & 0xFF); }
float luma(ImU32 c) {
  return 0.2126f * channel(c, IM_COL32_R_SHIFT) + 0.7152f * channel(c, IM_COL32_G_SHIFT) +
         0.0722f * channel(c, IM_COL32_B_SHIFT);
}
float distance(ImU32 a, ImU32 b) {
  float d = 0;
  for (int shift : {IM_COL32_R_SHIFT, IM_COL32_G_SHIFT, IM_COL32_B_SHIFT}) {
    d += (channel(a, shift) - channel(b, shift)) * (channel(a, shift) - channel(b, shift));
  }
  return std::sqrt(d);
}

TEST(Colors, OpColorsAreStableAndOpaque) {
  EXPECT_EQ(OpColor("dot"), OpColor("dot"));
  EXPECT_EQ(OpColor("my_custom_kernel"), OpColor(std::string("my_custom") + "_kernel"));
  EXPECT_EQ(OpColor("anything") >> IM_COL32_A_SHIFT, 255u);
}

TEST(Colors, KindsSeenTogetherInADemoAreClearlyDistinct) {
  // The ops of the MLP demo and of the dependency-graph demo.
  const std::vector<std::vector<const char*>> demos = {
      {"dot", "add", "relu", "relu_grad", "sub", "mul_scalar", "sum_axis0", "transpose", "normal", "mean",
       "add_scaled", "zeros", "mul", "sum", "sum_axis1"},
      {"ones", "mul", "add_scalar", "dot", "sum", "uniform"},
  };
  for (const auto& kinds : demos) {
    for (size_t i = 0; i < kinds.size(); ++i) {
      for (size_t j = i + 1; j < kinds.size(); ++j) {
        EXPECT_GT(distance(OpColor(kinds[i]), OpColor(kinds[j])), 40.0f) << kinds[i] << " vs " << kinds[j];
      }
    }
  }
}

TEST(Colors, OpColorsStandOutFromTheBackgroundAndCarryReadableText) {
  for (const char* kind : {"dot", "add", "add_scalar", "relu", "sum", "uniform", "copy", "x", "yy", "kernel"}) {
    const ImU32 c = OpColor(kind);
    EXPECT_GT(luma(c) - luma(theme::kBackground), 60.0f) << kind;
    EXPECT_GT(std::fabs(luma(text_on(c)) - luma(c)), 90.0f) << kind;
  }
  // Internal ops are subdued, not hidden.
  EXPECT_LT(luma(subdued(OpColor("free"))), luma(OpColor("free")));
  EXPECT_GT(luma(subdued(OpColor("dot"))), luma(theme::kBackground));
}

TEST(Colors, ArithmeticKeepsAlphaAndClamps) {
  EXPECT_EQ(with_alpha(IM_COL32(1, 2, 3, 255), 10), IM_COL32(1, 2, 3, 10));
  EXPECT_EQ(scale_rgb(IM_COL32(200, 100, 0, 77), 2.0f), IM_COL32(255, 200, 0, 77));
  EXPECT_EQ(mix(IM_COL32(0, 0, 0, 255), IM_COL32(200, 100, 50, 255), 0.5f), IM_COL32(100, 50, 25, 255));
}

TEST(Colors, LegendDrawsTheKindsPresent) {
  trace::TraceModel model;
  model.names = {"", "dot", "free", "add"};
  for (trace::NameId name : {1, 1, 2, 3}) {
    trace::OpInfo op;
    op.id = model.ops.size() + 1;
    op.enqueue = 1;
    op.name = name;
    op.internal = name == 2;
    model.ops.push_back(op);
  }
  HeadlessContext ctx(400, 300);
  ctx.begin_frame();
  OpLegend(model);
  const int first = ctx.end_frame()->TotalVtxCount;
  EXPECT_GT(first, 0);
  // The model grows: the legend picks up new kinds.
  model.names.push_back("relu");
  trace::OpInfo op;
  op.id = model.ops.size() + 1;
  op.enqueue = 2;
  op.name = 4;
  model.ops.push_back(op);
  ctx.begin_frame();
  OpLegend(model);
  EXPECT_GT(ctx.end_frame()->TotalVtxCount, first);
  trace::TraceModel empty;
  ctx.begin_frame();
  OpLegend(empty);
  EXPECT_GT(ctx.end_frame()->TotalVtxCount, 0);
}

}  // namespace
}  // namespace asyncscope::widgets
