// The per-line table of a script's run: for each source line that pushed an
// op or waited, how often it ran, what it pushed and allocated, and how long
// the frontend spent enqueuing and waiting on it. Built from a TraceModel's
// source points (recorded by a scripting frontend; C++ programs have none, so
// their table is empty). The CLI prints it (--lines), results JSON and
// exported traces carry it, and the app shows it beside the source.
//
// Threading: a pure function of the model; call it where the model is owned.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/trace/model.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::trace {

struct LineFigures {
  uint32_t line_index = 0;  // into TraceModel::source_lines
  std::string file;         // the script's path as recorded
  uint32_t line = 0;        // 1-based line number
  uint64_t runs = 0;        // executions of the line that pushed or waited (its source points)
  uint64_t ops = 0;         // ops it pushed (internal ones, such as frees, not counted)
  int64_t enqueue_ns = 0;   // frontend time from each execution's first push to its last enqueue, waits excluded
  uint64_t waits = 0;       // sync points it waited at (the in-flight bound included)
  int64_t wait_ns = 0;      // time spent in them
  uint64_t bytes = 0;       // bytes its ops' outputs allocated
};

// One row per line, ordered by file, then line number.
std::vector<LineFigures> line_figures(const TraceModel& model);

// The table as fixed-width text (file:line, runs, ops, enqueue ms, waits,
// wait ms, bytes), one row per line under a header; "" when there are no
// rows. line_text, when given, returns the source text of a row's line,
// shown (trimmed and shortened) after the figures.
std::string format_line_table(const std::vector<LineFigures>& rows,
                              const std::function<std::string(const LineFigures&)>& line_text = {});

// "file.py:12": the script line that pushed op `op_id`, read straight from
// the recorder (two binary searches in the pushing thread's logs, not a
// model of the whole run), or "" if the op or its line is not recorded.
// For an error raised at a sync point, which names the line of the push.
// Threading: any thread, while the recorder's threads go on recording.
std::string op_source_text(const Recorder& recorder, uint64_t op_id);

}  // namespace asyncscope::trace
