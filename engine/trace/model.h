// TraceModel: the read side of the trace, plain data that widgets, exporters
// and tests consume. Times are ns since the recorder's origin (run start).
// TraceReader fills a model incrementally from a live Recorder, copying only
// the events published since its last update, so a GUI can refresh it every
// frame while the run goes on.
//
// A CPU op has one span, its execution on a worker lane. A GPU op has two:
// its launch, on the launch lane of the stream worker's host thread, and its
// execution on the GPU, on the stream's lane (see SpanKind in events.h).
//
// Threading: a TraceModel is owned by one thread; a TraceReader updates one
// model from one thread while writers keep recording.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/trace_record/events.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::trace {

inline constexpr int64_t kNoTime = -1;

struct OpInfo {
  uint64_t id = 0;
  int64_t enqueue = kNoTime;  // set when the enqueue was read
  int64_t start = kNoTime;    // set when the execution was read; a GPU op's time on the device
  int64_t end = kNoTime;
  int64_t launch_start = kNoTime;  // GPU ops: the host thread submitting its work, set when the launch was read
  int64_t launch_end = kNoTime;    // kNoTime for ops without a launch span (every CPU op)
  uint64_t out_bytes = 0;
  uint32_t vars_begin = 0;    // reads then writes, in TraceModel::var_ids
  uint16_t num_reads = 0;
  uint16_t num_writes = 0;
  uint32_t iteration = 0;
  NameId name = 0;
  uint32_t frontend = 0;      // index into TraceModel::frontends
  uint16_t worker = 0;        // index into TraceModel::workers of its execution lane (valid when executed())
  uint16_t launch_worker = 0; // index into TraceModel::workers of its launch lane (valid when launched())
  DeviceKind device = DeviceKind::cpu;
  uint8_t device_index = 0;
  OpStatus status = OpStatus::ok;  // from the execution span; from the launch span until that is read
  bool internal = false;
  uint32_t source = 0;        // 1 + index into TraceModel::source_points of the script line that pushed it; 0: none
  uint32_t push_ns = 0;       // how long the push took after `enqueue` (EnqueueEvent::push_ns)
  uint32_t scope = 0;         // 1 + index into TraceModel::scopes of the scopes it was pushed in; 0: none

  bool known() const noexcept { return enqueue != kNoTime || start != kNoTime || launch_start != kNoTime; }
  bool executed() const noexcept { return end != kNoTime; }
  bool launched() const noexcept { return launch_end != kNoTime; }
};

// A thread that pushed ops or waited: one frontend lane.
struct FrontendLane {
  std::string name;
  std::vector<uint32_t> enqueues;  // op indices in enqueue order (time-sorted)
  std::vector<uint32_t> syncs;     // indices into TraceModel::syncs (time-sorted)
  std::vector<uint32_t> sources;   // indices into TraceModel::source_points (time-sorted)
};

// A line of a script's source.
struct SourceLine {
  NameId file = 0;  // the script's path, as a name
  uint32_t line = 0;

  friend bool operator==(const SourceLine&, const SourceLine&) = default;
};

// One execution of a source line (a SourceEvent): the enqueues and waits that
// follow it on its frontend, up to the next one, came from it.
struct SourcePoint {
  int64_t t = 0;
  uint32_t line = 0;  // index into TraceModel::source_lines
  uint32_t frontend = 0;
};

// One lane of op spans, named after the thread that recorded them: a CPU
// worker ("CPU worker 0"), a CUDA stream's execution on the GPU ("cuda:0
// stream 0", span execute) or that stream's host thread launching its ops
// ("cuda:0 launch 0", span launch). Lanes are keyed by (device, device_index,
// worker, span) and kept sorted by that key with launch before execute: CPU
// lanes first, and each stream's launch lane directly above its GPU lane.
// A CPU worker's time on parts of an op that another worker ran (SpanKind::help).
struct HelpSpan {
  uint32_t op = 0;  // index into TraceModel::ops
  int64_t start = 0;
  int64_t end = 0;
};

struct WorkerLane {
  std::string name;
  DeviceKind device = DeviceKind::cpu;
  uint8_t device_index = 0;
  uint16_t worker = 0;  // index within the device's pool (GPU: the stream)
  SpanKind span = SpanKind::execute;
  // Op indices in the order of their spans on this lane (start-sorted, never
  // overlapping): execution order, or on a launch lane, launch order.
  std::vector<uint32_t> ops;
  // Execution lanes: the times this worker helped with other workers' ops
  // (start-sorted, never overlapping each other or this lane's own ops).
  std::vector<HelpSpan> helps;

  bool launches() const noexcept { return span == SpanKind::launch; }
  // The span an op has on this lane: its launch on a launch lane, else its execution.
  int64_t start_of(const OpInfo& op) const noexcept { return launches() ? op.launch_start : op.start; }
  int64_t end_of(const OpInfo& op) const noexcept { return launches() ? op.launch_end : op.end; }
};

struct SyncSpan {
  int64_t begin = 0;
  int64_t end = 0;
  uint64_t target = 0;
  uint64_t last_op = 0;
  uint32_t frontend = 0;
  SyncKind kind = SyncKind::wait_to_read;
  uint32_t source = 0;  // 1 + index into TraceModel::source_points; 0: none
};

struct Marker {
  int64_t t = 0;
  int64_t value = 0;
  NameId name = 0;
  uint32_t frontend = 0;
};

// What made a run, kept with its export (otherData.run) so that the file
// opens as the run was: the program, its knobs and its result table. Empty
// for a profiler's trace and for files of format 6 and older.
struct RunOrigin {
  struct Row {
    std::string key;    // stable name, e.g. "queued_s"
    std::string label;  // for the table, e.g. "calls returned after"
    double value = 0;
    std::string unit;   // "s", "MB", "us", "x", ""
    bool operator==(const Row&) const = default;
  };
  std::string program;                                      // a demo's name ("host-vs-gpu") or a script's
  std::vector<std::pair<std::string, std::string>> params;  // knob and its value as text, in the program's order
  std::vector<Row> results;
  std::vector<std::string> notes;
  bool empty() const noexcept { return program.empty(); }
  bool operator==(const RunOrigin&) const = default;
};

struct TraceModel {
  int64_t origin_ns = 0;
  uint64_t first_op_id = 1;
  std::vector<OpInfo> ops;  // ops[i].id == first_op_id + i; unknown ids have known() == false
  std::vector<uint64_t> var_ids;
  std::vector<FrontendLane> frontends;
  std::vector<WorkerLane> workers;
  std::vector<SyncSpan> syncs;
  std::vector<Marker> markers;
  std::vector<SourceLine> source_lines;    // distinct lines, in the order first seen
  std::vector<SourcePoint> source_points;  // executions of lines, per frontend in time order
  // The distinct nestings of scopes ops were pushed in, outermost first,
  // joined by " > " ("Sequential > dense0 (Dense)"), in the order first seen.
  std::vector<std::string> scopes;
  std::vector<std::string> counter_names;
  std::vector<CounterSample> counters;  // t relative to origin, time-sorted
  std::vector<std::string> names;       // NameId -> text
  std::unordered_map<uint64_t, std::string> errors;  // op id -> error text
  uint64_t dropped = 0;
  RunOrigin origin;  // read from a file; a recorder's model has none (the exporter is told)
  // intern_source_line's and intern_scope's lookups (a line or a nesting
  // met again is found in constant time), brought in step with the vectors
  // above when they were filled otherwise.
  std::unordered_map<uint64_t, uint32_t> source_line_index;
  std::unordered_map<std::string, uint32_t> scope_index;

  const OpInfo* find_op(uint64_t id) const noexcept;
  std::string_view name(NameId id) const noexcept;
  std::string_view op_name(const OpInfo& op) const noexcept { return name(op.name); }
  // Var ids an op read / wrote.
  const uint64_t* reads_of(const OpInfo& op) const noexcept { return var_ids.data() + op.vars_begin; }
  const uint64_t* writes_of(const OpInfo& op) const noexcept { return reads_of(op) + op.num_reads; }
  // Index of a counter by name, or -1.
  int counter_index(std::string_view counter) const noexcept;
  // The highest sample of a counter, or nothing without that counter or samples.
  std::optional<int64_t> counter_peak(std::string_view counter) const noexcept;
  // A counter's value at time t (model time): its last sample at or before t,
  // or nothing without that counter or such a sample.
  std::optional<int64_t> counter_at(std::string_view counter, int64_t t) const noexcept;
  // The script line an op or a wait came from, or null.
  const SourceLine* source_of(uint32_t source) const noexcept {
    return source == 0 ? nullptr : &source_lines[source_points[source - 1].line];
  }
  // "file.py:12", or "" without a source.
  std::string source_text(uint32_t source) const;
  // The index of a line in source_lines, added if new.
  uint32_t intern_source_line(SourceLine line);
  // "Sequential > dense0 (Dense)", or "" for an op pushed in no scope.
  std::string_view scope_text(uint32_t scope) const noexcept {
    return scope == 0 || scope > scopes.size() ? std::string_view() : std::string_view(scopes[scope - 1]);
  }
  // 1 + the index of a scope path in scopes, added if new; 0 for "".
  uint32_t intern_scope(std::string_view path);
  // Latest time seen in any event, launches included (ns since origin), 0 if empty.
  int64_t end_time() const noexcept;
};

// Each worker lane must be recorded by one thread, which records its spans in
// time order (a GPU op's launch and execution come from two threads, read in
// either order). A lane is named after the thread that recorded it.
class TraceReader {
 public:
  explicit TraceReader(const Recorder& recorder) : recorder_(&recorder) {}
  // Appends everything published since the last call. Returns true if the
  // model changed. Gives the same model as one snapshot() of the same events.
  bool update(TraceModel& model);

 private:
  // A source event of a thread: a point's 1-based index, or 0 where the
  // thread left the script (its later events have no line).
  struct SourceMark {
    int64_t t = 0;
    uint32_t source = 0;
  };
  struct Cursor {
    size_t enqueues = 0, execs = 0, syncs = 0, markers = 0, sources = 0;
    int frontend = -1;  // lane index in the model, created on first enqueue or sync
    std::vector<SourceMark> marks;
    // Position in marks of the latest one at or before the last enqueue /
    // wait read (0: none yet), for attributing the next.
    size_t enqueue_source = 0, sync_source = 0;
    // Scopes: the names entered and not left, and per scope event the
    // nesting from then on (1 + index into TraceModel::scopes, 0: none).
    size_t scope_events = 0;
    std::vector<NameId> scope_stack;
    std::vector<SourceMark> scope_marks;
    size_t enqueue_scope = 0;
  };
  OpInfo& op_slot(TraceModel& model, uint64_t id);
  uint16_t worker_lane(TraceModel& model, const ExecEvent& e, const ThreadBuffer& buffer);
  uint32_t frontend_lane(TraceModel& model, Cursor& cursor, const ThreadBuffer& buffer);

  const Recorder* recorder_;
  std::vector<Cursor> cursors_;  // by ThreadBuffer::index
  size_t counters_read_ = 0;
  size_t errors_read_ = 0;
  size_t names_read_ = 0;
};

// A complete model of everything recorded so far.
TraceModel snapshot(const Recorder& recorder);

}  // namespace asyncscope::trace
