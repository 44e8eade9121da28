// The timeline as SVG: a well-formed document whose text is text (lane
// names, labels, the caption and notes) and whose spans are elements, drawn
// by the app's own lanes, folded so that a million ops stay small.
#include "widgets/timeline_svg.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "engine/trace/insight.h"
#include "support/timeline_fixtures.h"
#include "widgets/canvas.h"

namespace asyncscope::widgets {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(TimelineSvg, DrawsTheLanesNamesSpansAndNotes) {
  const trace::TraceModel m = small_model();
  trace::RunInsight insight;
  insight.update(m, true);
  SvgOptions o;
  o.title = "a small run";
  o.notes = {"backend-bound: the <workers> & the frontend"};
  const std::string svg = timeline_svg(m, &insight, o);
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  for (const std::string& text : {std::string(">a small run</text>"), std::string(">frontend</text>"),
                                  std::string(">CPU worker 0</text>"), std::string(">CPU worker 1</text>"),
                                  std::string(">backend-bound: the &lt;workers&gt; &amp; the frontend</text>")}) {
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  }
  EXPECT_GT(count(svg, "<rect"), 10u);
  // Balanced groups, and every clip path it uses is defined.
  EXPECT_EQ(count(svg, "<g "), count(svg, "</g>"));
  std::smatch match;
  std::string rest = svg;
  while (std::regex_search(rest, match, std::regex("url\\(#([a-z][0-9]+)\\)"))) {
    EXPECT_NE(svg.find("id=\"" + match[1].str() + "\""), std::string::npos) << match[1];
    rest = match.suffix();
  }
}

TEST(TimelineSvg, AMillionOpsFoldIntoAPictureUnderTwoMegabytes) {
  const trace::TraceModel m = dense_model(1'000'000);
  trace::RunInsight insight;
  insight.update(m, true);
  const std::string svg = timeline_svg(m, &insight, SvgOptions{});
  EXPECT_LT(svg.size(), size_t{2} << 20);
  EXPECT_NE(svg.find(">CPU worker 3</text>"), std::string::npos);
}

TEST(TimelineSvg, TextFromATraceIsEscapedAndMadeValidUtf8) {
  EXPECT_EQ(xml_escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  EXPECT_EQ(xml_escape("caf\xc3\xa9 \xce\xbcs"), "caf\xc3\xa9 \xce\xbcs");
  EXPECT_EQ(xml_escape("bad \xff\xc3 \x01 end"), "bad \xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD end");
  EXPECT_EQ(xml_escape("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate, byte by byte
}

TEST(TimelineSvg, ItLeavesTheCallersImGuiContextCurrent) {
  ImGuiContext* before = ImGui::GetCurrentContext();
  timeline_svg(small_model(), nullptr, SvgOptions{});
  EXPECT_EQ(ImGui::GetCurrentContext(), before);
}

}  // namespace
}  // namespace asyncscope::widgets
