// A trace's timeline as a standalone SVG picture: the lanes the app's
// timeline shows (the default lanes, with the state strips when an insight
// is given, queue depth and memory counters, sync waits, markers), laid out
// and folded by the same code and drawn through SvgCanvas (canvas.h), so a
// million-op run is a picture of what fits in its pixels, not of its ops.
// Text stays text (lane names, labels, the caption and the lines under the
// lanes), each span a <rect>. For `asyncscope view --svg`, notebooks and
// slides.
// Threading: any thread, one call at a time (it makes and ends an ImGui
// context of its own, and restores the caller's current one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/trace/insight.h"
#include "engine/trace/model.h"

namespace asyncscope::widgets {

struct SvgOptions {
  float width = 1400;           // pixels
  float height = 0;             // the lanes' area; 0: as tall as the lanes need at their natural size
  int64_t from_ns = -1;         // the time range shown; -1: from the start / to the end of the trace
  int64_t to_ns = -1;
  std::string title;            // a caption above the lanes ("" for none)
  std::vector<std::string> notes;  // lines under the lanes: the verdict, t1/t2, the peak holders
};

// The SVG document. `insight` (of this model, updated) adds the lanes' state
// strips; null draws the lanes without them.
std::string timeline_svg(const trace::TraceModel& model, const trace::RunInsight* insight, const SvgOptions& options);

}  // namespace asyncscope::widgets
