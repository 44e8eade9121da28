// Which ops and waits came from one script line: the timeline dims what did
// not when a line is highlighted (TimelineState::highlight_line, set by the
// app's script view). Plain functions of the model, testable without a window.
// Threading: UI thread only (where the model is owned).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace/model.h"

namespace asyncscope::widgets {

// No line highlighted.
inline constexpr int64_t kNoLine = -1;

// The index into model.source_lines of the line a source (OpInfo::source,
// SyncSpan::source) points at, or kNoLine for none.
int64_t source_line_of(const trace::TraceModel& model, uint32_t source) noexcept;
inline bool op_on_line(const trace::TraceModel& model, const trace::OpInfo& op, int64_t line) noexcept {
  return line != kNoLine && source_line_of(model, op.source) == line;
}
inline bool sync_on_line(const trace::TraceModel& model, const trace::SyncSpan& sync, int64_t line) noexcept {
  return line != kNoLine && source_line_of(model, sync.source) == line;
}

// Whether any of `count` items from position `first` of `items` (op indices,
// or with `syncs` set, indices into model.syncs) came from `line`: a folded
// box stays bright if so. Scans at most kFoldScan items; a bigger box is
// taken to hold some (drawing never costs more than that per box).
inline constexpr uint32_t kFoldScan = 4096;
bool any_on_line(const trace::TraceModel& model, const std::vector<uint32_t>& items, uint32_t first, uint32_t count,
                 int64_t line, bool syncs) noexcept;

// The ops (indices into model.ops, internal ones left out) and waits (into
// model.syncs) of a line, in model order: what the highlight picks out.
struct LineItems {
  std::vector<uint32_t> ops;
  std::vector<uint32_t> syncs;
};
LineItems items_on_line(const trace::TraceModel& model, int64_t line);

}  // namespace asyncscope::widgets
