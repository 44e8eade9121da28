// Chrome trace-event JSON export and import of a TraceModel: the file opens in
// Perfetto UI and chrome://tracing, and read_chrome_trace() turns one of our
// own exports back into the model it was written from, to the nanosecond.
//
// What a viewer sees (one process, one thread per lane, sorted frontend lanes
// first, then worker lanes in the model's order, then counters):
//   - frontend lanes: each enqueue as an `X` from the moment the op entered
//     the engine to push's return (args ns_push, the measured time; the
//     slice never reaches past the lane's next event; files before it have
//     zero-length enqueues), each sync wait as an `X` named after its kind,
//     markers as thread-scoped `i` events;
//   - worker lanes (CPU workers, and per CUDA stream a launch lane above its
//     GPU lane; the thread_name args say which: lane, device, device_index,
//     worker, span): each executed op as an `X`, its args carrying id, var
//     ids read and written, bytes, iteration, status and error text; on a
//     launch lane, each GPU op's host launch as an `X` with the same args;
//     on a CPU worker's lane, each help span (time on parts of another
//     worker's op) as an `X` named after that op, with its args plus
//     helped_lane, and no arrows;
//   - every `X` (slice) has category "asyncscope" and says what it is in
//     args.event: "enqueue", "sync", "op", "launch" or "help";
//   - counters as `C` events, one track per name in model.counter_names
//     (sample values past the named counters are not written);
//   - flow arrows enqueue -> execution (CPU ops) or enqueue -> launch ->
//     execution on the GPU (GPU ops), and op -> a sync wait that waited for it
//     and began after it started (an earlier wait names the op in
//     args.waited_for only: its arrow would point back in time), both as v1
//     `s`/`f` pairs (named "enqueue", "launch", "wait"; `f` with bp "e") and as
//     v2 `bind_id` + `flow_in` / `flow_out` on the `X` events. Each v1 flow
//     event sits at the start (ts) of its slice, on its thread, in its
//     category: Chrome DevTools binds a flow event only to a slice with the
//     same ts, pid, tid and cat, and both ends of a flow must share the cat.
//     It also keys a flow's steps by time, so an arrow whose ends share a
//     nanosecond (an op that started the moment it was enqueued) has no v1
//     pair, only the v2 link.
// Events are in time order across lanes (each lane in its own order, which
// the import relies on): DevTools takes the slices of a flow in file order as
// cause and effect. Metadata (`M`) events come first, with category
// "__metadata" as Chrome writes them.
// Times are microseconds with nanosecond decimals, chosen so that a reader
// that truncates (or rounds) ts * 1000 gets the exact nanosecond. A dur is
// chosen so that ts + dur, added as doubles (DevTools, JS viewers), never
// passes the ts of a span starting where this one ends (such a reader would
// see an overlap and drop that span); it rounds back to the exact ns, and a
// reader that truncates dur * 1000 gets the exact ns or, for about one span
// in eight, 1 ns less (never more). The exact integers are also in args
// (ns_ts, ns_dur), which the import uses.
//
// Threading: all functions are reentrant; the model must not change while it
// is exported.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "engine/trace/model.h"
#include "engine/trace/trace_file.h"

namespace asyncscope::trace {

// Version of the asyncscope-specific content (otherData.asyncscope_version).
// 2 added launch lanes and "launch" spans; 3 added a script's source lines
// (otherData.source_lines and source_points, "source" and "source_point" in
// op and sync args); 4 gave every slice the category "asyncscope", what it is
// in args.event, and the v1 flow events that category; 5 added help spans;
// 6 the scopes ops were pushed in (a layer's forward: otherData.scopes,
// "scope" in op args); 7 what made the run (otherData.run: the program, its
// knobs, its result table). Older files still read.
inline constexpr int kChromeTraceVersion = 7;
inline constexpr int kOldestChromeTraceVersion = 1;

struct ExportOptions {
  std::string run_label;  // shown in the process name ("asyncscope: label") and kept in otherData
  // What made the run (otherData.run); when empty, the model's own (a file
  // opened and exported again keeps it).
  RunOrigin origin;
};

// Writes the trace as JSON to `out`. Throws std::runtime_error if the model
// holds a time outside [0, 2^50) ns (it cannot be written exactly) or the
// stream fails.
void write_chrome_trace(const TraceModel& model, std::ostream& out, const ExportOptions& options = {});
std::string to_chrome_trace_json(const TraceModel& model, const ExportOptions& options = {});

// Writes as engine/base/output_file.h writes any output: to a temporary file
// in the same folder renamed over `path` (a symbolic link is written
// through), so a failure never leaves a truncated file or clobbers an
// existing one; a FIFO, a device or a folder is refused, /dev/stdout and
// /dev/stderr are streams. Throws std::runtime_error naming the path and the reason.
void write_chrome_trace(const TraceModel& model, const std::string& path, const ExportOptions& options = {});

// Reads an export back, streaming: the file's text is parsed as it is read,
// never held whole. Throws std::runtime_error with a one-line message on
// anything it cannot read: "cannot read trace 'PATH': <reason>" for a
// missing or unreadable file, one that is not a regular file (a FIFO, a
// device such as /dev/zero: refused at once, never read), or one over
// kMaxTraceFileBytes (trace_file.h; a .gz export is decompressed as it is
// read, and the cap is on its text); "'PATH': <what is wrong>" (source_name for
// parse_chrome_trace) for invalid JSON, a Chrome trace not written by
// asyncscope, a newer format version, missing or mistyped fields, or
// out-of-range values, or events that break a rule of model_check.h (spans
// overlapping on one lane, an enqueue inside a wait, ...).
// Text that was not valid UTF-8 was written with U+FFFD replacements.
TraceModel read_chrome_trace(const std::string& path);
TraceModel parse_chrome_trace(std::string_view json, std::string_view source_name = "trace");
// The same, parsing the text as it is read from `in`. An exception the
// stream's buffer throws (a read error) reaches the caller as it is.
TraceModel parse_chrome_trace(std::istream& in, std::string_view source_name = "trace");

}  // namespace asyncscope::trace
