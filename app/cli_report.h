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

// `view FILE --print`: reads a saved trace and prints what it holds (its
// path and lane names escaped); 2 for a file that cannot be read.
int describe_trace(const std::string& path, std::ostream& out, std::ostream& err);

// `view FILE --print` and/or `--json OUT`: any trace (ours or a profiler's)
// described on `out` and/or its answers written as JSON (profile_report.h's
// schema for a profiler's trace; a run's verdict and holders for ours).
// Returns the exit code: 2 with one line on err for a file it cannot read or
// an output it cannot write.
// `diff A B [--json OUT]`: the comparison of two traces of any kind
// (trace_diff.h) printed, and written as JSON when asked. Returns the exit
// code (2 with one line on err for a file it cannot read or an output it
// cannot write).
int diff_command(const std::string& a, const std::string& b, const trace::AnalysisOptions& options,
                 const std::string* json, std::ostream& out, std::ostream& err);

// `svg`: also the timeline as an SVG picture (timeline_svg.h), `svg_width`
// pixels wide, of the window [range_from, range_to) ns (negative: the
// trace's start / end), whose verdict and holders it shows, under `title`
// (default: the file's name and format).
int report_trace(const std::string& path, const trace::AnalysisOptions& options, bool print, const std::string* json,
                 std::ostream& out, std::ostream& err, const std::string* svg = nullptr, float svg_width = 1400,
                 int64_t range_from = -1, int64_t range_to = -1, const std::string* title = nullptr);

}  // namespace asyncscope::app
