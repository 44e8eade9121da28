// What the command line prints and writes: its one-line messages, the demo
// list, the op table, a run's result table, its verdict and memory holders, the per-line
// table of a script, the results JSON, and the description of a saved trace.
// Threading: main thread only (the CLI's).
#pragma once

#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/base/output_file.h"
#include "engine/demos/program.h"
#include "engine/trace/insight.h"
#include "engine/trace/model.h"
#include "engine/trace/profile_analysis.h"
#include "engine/trace/source_lines.h"

namespace asyncscope::app {

// One line of a message on err ("asyncscope: ..."); whatever text it carries
// from elsewhere (an option's value, a path, a library's error) cannot break
// the line or send escape sequences to the terminal.
void say(std::ostream& err, const std::string& message);

// A parameter's default as `list` and `--help` show it.
std::string default_text(const demos::Param& p);

// `asyncscope list`: the demos, their parameters and defaults.
void print_list(std::ostream& out);

// `asyncscope ops`: the op table (engine/tensor/op_table.h), as a table or
// as JSON (one object per op).
void print_ops(std::ostream& out, bool json);
// The same as the page docs/ops.md (Markdown), which a test keeps in step.
void print_ops_markdown(std::ostream& out);

// A run's result table: the program and its values, then its rows and notes.
void print_results(std::ostream& out, const demos::Program& demo, const demos::ParamValues& values,
                   const demos::Results& results);

// The per-line table of a script's run as JSON rows (times in seconds).
nlohmann::json lines_json(const std::vector<trace::LineFigures>& rows);

// The table for a terminal, each row followed by its line's text: from
// `texts` (the script's own, as it ran: its file may be a pipe, read once)
// or read from the regular files the rows name; a file that cannot be read
// shows no text.
void print_lines(std::ostream& out, const std::vector<trace::LineFigures>& rows,
                 const std::map<std::string, std::string>& texts = {});

// The run's verdict and what held the memory at its peak, from its trace.
struct RunAnswers {
  trace::Verdict verdict;
  trace::HolderTable peak;
};
RunAnswers answers_of(const trace::TraceModel& model);
void print_answers(std::ostream& out, const RunAnswers& a);

// The results JSON (--json): parameters, rows, notes, the per-line table,
// the answers and the BLAS the run multiplied with.
std::string results_json(const demos::Program& demo, const demos::ParamValues& values, const demos::Results& results,
                         const std::vector<trace::LineFigures>& lines, const RunAnswers& answers);

// `view FILE --print` of a saved trace of ours: what its model holds (the
// path and lane names escaped).
void describe_trace(const std::string& path, const trace::TraceModel& model, std::ostream& out);

// What `view FILE --print / --json OUT / --svg OUT` (and `profile`) asks of a trace.
struct TraceReport {
  std::string path;
  trace::AnalysisOptions options;
  bool print = false;                 // described on `out`
  const std::string* json = nullptr;  // its answers as JSON (profile_report.h's schema for a
                                      // profiler's trace; a run's verdict and holders for ours)
  const std::string* svg = nullptr;   // the timeline as an SVG picture (timeline_svg.h)
  float svg_width = 1400;
  // The window [range_from, range_to) ns (negative: the trace's start /
  // end) that the picture, and the figures written beside it, are of.
  int64_t range_from = -1, range_to = -1;
  const std::string* title = nullptr;  // the picture's (default: the file's name and format)
};

// Any trace (ours or a profiler's) reported as `report` asks. Its outputs
// join `outputs` when given (with the files the caller reads or writes
// already in it, so that none replaces another), else a set of their own;
// either way the trace itself is an input no output may replace. Returns
// the exit code: 2 with one line on err for a file it cannot read, an
// output it cannot write, or a window outside the trace.
int report_trace(const TraceReport& report, std::ostream& out, std::ostream& err, OutputSet* outputs = nullptr);

// Checks, before a window opens, outputs that the window will write (the
// screenshot) against the files the command reads. Each pair is (what,
// path): ("--screenshot", "a.png"), ("the trace", "t.json"). Returns ""
// or the one-line reason ("cannot write --screenshot 't.json': it is the
// trace being read; ...").
std::string check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                          const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace asyncscope::app
