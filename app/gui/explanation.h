// A program's explanation: what to look for in its run, written in
// assets/demos/NAME.md and drawn in the left panel. The files use a small
// markdown subset: "# title" (skipped, the panel shows the title), "- "
// bullets continued by indented lines, and blank-line paragraphs; `code` and
// **bold** marks are dropped (a lone * stays: it is multiplication in the
// formulas).
// Threading: UI thread only.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace asyncscope::app {

// One paragraph or bullet of an explanation, marks removed.
struct ExplanationBlock {
  bool bullet = false;
  std::string text;
};

std::vector<ExplanationBlock> parse_explanation(const std::string& markdown);

// The explanations of the built-in demos, read once. Looked up in
// $ASYNCSCOPE_ASSETS/demos, then in the source tree's assets/demos (see the
// README).
class Explanations {
 public:
  Explanations();
  // The parsed explanation of a program, or nullptr if none was found.
  const std::vector<ExplanationBlock>* find(const std::string& program) const;

 private:
  std::map<std::string, std::vector<ExplanationBlock>> blocks_;
};

// Draws the blocks wrapped to the available width.
void draw_explanation(const std::vector<ExplanationBlock>& blocks);

}  // namespace asyncscope::app
