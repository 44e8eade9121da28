#include "widgets/source_highlight.h"

#include <algorithm>

namespace asyncscope::widgets {

int64_t source_line_of(const trace::TraceModel& model, uint32_t source) noexcept {
  if (source == 0 || source > model.source_points.size()) return kNoLine;
  return model.source_points[source - 1].line;
}

bool any_on_line(const trace::TraceModel& model, const std::vector<uint32_t>& items, uint32_t first, uint32_t count,
                 int64_t line, bool syncs) noexcept {
  if (line == kNoLine) return false;
  if (count > kFoldScan) return true;
  const size_t end = std::min<size_t>(items.size(), size_t{first} + count);
  for (size_t i = first; i < end; ++i) {
    const uint32_t source = syncs ? model.syncs[items[i]].source : model.ops[items[i]].source;
    if (source_line_of(model, source) == line) return true;
  }
  return false;
}

LineItems items_on_line(const trace::TraceModel& model, int64_t line) {
  LineItems out;
  for (size_t i = 0; i < model.ops.size(); ++i) {
    const trace::OpInfo& op = model.ops[i];
    if (op.known() && !op.internal && op_on_line(model, op, line)) out.ops.push_back(static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < model.syncs.size(); ++i) {
    if (sync_on_line(model, model.syncs[i], line)) out.syncs.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

}  // namespace asyncscope::widgets
