// The timeline's script-line highlight on a hand-built trace: which ops and
// waits a line owns, folded boxes (bright if any item is the line's, bounded
// scanning), and the highlight reaching every lane through the frame.
#include "widgets/source_highlight.h"

#include <gtest/gtest.h>

#include "support/timeline_fixtures.h"

namespace asyncscope::widgets {
namespace {

// small_model with two script lines: line 3 pushed the two ones, line 4 the
// product and the addition and waited for w; the free has no source.
trace::TraceModel model_with_lines() {
  trace::TraceModel m = small_model();
  m.names.push_back("s.py");
  const auto file = static_cast<trace::NameId>(m.names.size() - 1);
  const uint32_t three = m.intern_source_line({file, 3});
  const uint32_t four = m.intern_source_line({file, 4});
  m.source_points = {{900, three, 0}, {1900, four, 0}};
  m.ops[0].source = m.ops[1].source = 1;
  m.ops[2].source = m.ops[3].source = 2;
  m.syncs[0].source = 2;
  return m;
}

TEST(SourceHighlight, ALineOwnsExactlyTheOpsAndWaitsItCausedAndNoneIsHighlightedByDefault) {
  const trace::TraceModel m = model_with_lines();
  EXPECT_EQ(source_line_of(m, 0), kNoLine);
  EXPECT_EQ(source_line_of(m, 99), kNoLine) << "a source past the points is none, not a crash";
  const LineItems three = items_on_line(m, 0);
  EXPECT_EQ(three.ops, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(three.syncs.empty());
  const LineItems four = items_on_line(m, 1);
  EXPECT_EQ(four.ops, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(four.syncs, (std::vector<uint32_t>{0}));
  EXPECT_TRUE(items_on_line(m, kNoLine).ops.empty());
  EXPECT_FALSE(op_on_line(m, m.ops[4], 0)) << "the internal free came from no line";
  EXPECT_EQ(TimelineState{}.highlight_line, -1);
}

TEST(SourceHighlight, AFoldedBoxStaysBrightWhenAnyOfItsItemsIsTheLines) {
  const trace::TraceModel m = model_with_lines();
  const std::vector<uint32_t>& worker0 = m.workers[0].ops;  // ops 0, 2, 4
  EXPECT_TRUE(any_on_line(m, worker0, 0, 3, 0, false));
  EXPECT_TRUE(any_on_line(m, worker0, 1, 2, 1, false));
  EXPECT_FALSE(any_on_line(m, worker0, 2, 1, 1, false)) << "the free alone";
  EXPECT_FALSE(any_on_line(m, worker0, 0, 3, kNoLine, false));
  EXPECT_TRUE(any_on_line(m, m.frontends[0].syncs, 0, 1, 1, true));
  EXPECT_FALSE(any_on_line(m, m.frontends[0].syncs, 0, 1, 0, true));
  EXPECT_TRUE(any_on_line(m, worker0, 0, kFoldScan + 1, 5, false)) << "too many to scan: taken to hold some";
}

TEST(SourceHighlight, EveryLaneOfAFrameGetsTheHighlightedLine) {
  const trace::TraceModel m = model_with_lines();
  PreparedFrame p = prepared(m, TimeView{0, 60000});
  p.f.highlight_line = 1;
  ASSERT_FALSE(p.f.lanes.empty());
  for (size_t i = 0; i < p.f.lanes.size(); ++i) EXPECT_EQ(p.f.context(i).highlight_line, 1);
}

}  // namespace
}  // namespace asyncscope::widgets
