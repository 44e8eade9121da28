// Export half of chrome_trace.h. Events are serialised one at a time, so a
// trace of millions of ops never exists as one JSON tree in memory.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/base/output_file.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/json_writer.h"
#include "engine/trace/source_lines.h"

namespace asyncscope::trace {
namespace {

using nlohmann::json;

constexpr int kPid = 1;
// Times at or past 2^50 ns (13 days since run start) would lose nanoseconds
// as microsecond doubles; no run is that long, so such a time is a bad model.
constexpr int64_t kMaxTimeNs = int64_t{1} << 50;
// v2 flow ids live beside the ids a viewer allocates for v1 flows; keep them apart.
constexpr uint64_t kBindIdBase = uint64_t{1} << 40;

const char* device_name(DeviceKind d) { return d == DeviceKind::cuda ? "cuda" : "cpu"; }
const char* span_name(SpanKind s) { return s == SpanKind::launch ? "launch" : "execute"; }

// Every slice has this category, and the flow events the one of their slices:
// DevTools binds a flow event only to a slice of its own category, and the
// two ends of a flow must share it. What a slice is goes in args.event.
constexpr const char* kSliceCategory = "asyncscope";

// Microseconds as a double for an exact ns count, nudged up when needed so
// that both truncating (older Perfetto) and rounding (newer Perfetto)
// value * 1000 give back ns exactly.
double micros(int64_t ns) {
  double us = static_cast<double>(ns) / 1000.0;
  while (static_cast<int64_t>(us * 1000.0) < ns) us = std::nextafter(us, std::numeric_limits<double>::infinity());
  return us;
}

// The dur of a span written at ts = micros(start): a reader that adds
// ts + dur as doubles (DevTools, most JS viewers) must never get past
// micros(end), the ts of a span that starts where this one ends, or it sees
// an overlap and drops that span. micros(end - start) reads back exactly
// however a reader rounds, and it is kept when the sum stays in bounds; else
// (about one span in eight) the largest double whose sum does: it rounds
// back to the exact ns, and truncates to at most 1 ns less, never more.
double micros_dur(double ts, int64_t start, int64_t end) {
  const double limit = micros(end);
  double dur = micros(end - start);
  if (ts + dur <= limit) return dur;
  dur = limit - ts;
  while (ts + dur > limit) dur = std::nextafter(dur, 0.0);
  if (std::llround(dur * 1000.0) != end - start) {
    throw std::logic_error("micros_dur: no duration reads back as " + std::to_string(end - start) + " ns");
  }
  return dur;
}

class Exporter {
 public:
  Exporter(const TraceModel& m, const ExportOptions& options, std::ostream& out)
      : m_(m), options_(options), out_(out), w_(out) {}

  void run() {
    index_waits();
    w_.raw("{\"displayTimeUnit\":\"ns\",\"otherData\":");
    // The header is one JSON document of its own (names, lines, the run): built whole, once.
    w_.raw(other_data().dump(-1, ' ', false, json::error_handler_t::replace));
    w_.raw(",\"traceEvents\":[");
    metadata_events();
    timed_events();
    w_.raw("\n]}\n");
    w_.flush();
    if (!out_) throw std::runtime_error("cannot write the trace: the output stream failed");
  }

 private:
  // Every event on a line of its own.
  void begin_event() {
    w_.raw(first_event_ ? "\n" : ",\n");
    first_event_ = false;
    w_.begin_object();
  }

  int64_t checked(int64_t t, const char* what, uint64_t id) const {
    if (t < 0 || t >= kMaxTimeNs) {
      throw std::runtime_error("cannot export the trace: " + std::string(what) + " " + std::to_string(id) +
                               " has time " + std::to_string(t) + " ns, outside [0, 2^50) ns since run start");
    }
    return t;
  }

  int frontend_tid(uint32_t lane) const { return 1 + static_cast<int>(lane); }
  int worker_tid(uint32_t lane) const { return 1 + static_cast<int>(m_.frontends.size() + lane); }
  int counters_tid() const { return 1 + static_cast<int>(m_.frontends.size() + m_.workers.size()); }
  uint64_t enqueue_flow_id(const OpInfo& op) const { return op.id - m_.first_op_id + 1; }
  uint64_t wait_flow_id(uint32_t sync) const { return m_.ops.size() + sync + 1; }
  uint64_t launch_flow_id(const OpInfo& op) const { return m_.ops.size() + m_.syncs.size() + op.id - m_.first_op_id + 1; }

  // The members that follow "name" in every event, in key order (ph, pid,
  // tid, ts), with `extra` members of an event kind between them where their
  // keys sort: ns_ts after name ("C"), s after pid ("i").
  void name_ph_pid_tid_ts(std::string_view name, const char* ph, int tid, int64_t t, const int64_t* ns_ts = nullptr,
                          bool instant_scope = false) {
    w_.member("name", name);
    if (ns_ts != nullptr) w_.member("ns_ts", *ns_ts);
    w_.member("ph", ph);
    w_.member("pid", kPid);
    if (instant_scope) w_.member("s", "t");
    w_.member("tid", tid);
    w_.member("ts", micros(t));
    w_.end_object();
  }

  // The flow members of a slice ("bind_id" after "args", flow_in/out after "dur").
  struct Flows {
    bool bind = false, in = false, out = false;
    uint64_t id = 0;
  };

  // A slice: what it is (enqueue, sync, op, launch) in args.event; `args`
  // writes the args object's members.
  template <class Args>
  void slice(std::string_view name, int tid, int64_t start, int64_t end, const Flows& flows, const Args& args) {
    begin_event();
    w_.key("args").begin_object();
    args();
    w_.end_object();
    if (flows.bind) w_.member("bind_id", kBindIdBase + flows.id);
    w_.member("cat", kSliceCategory);
    const double ts = micros(start);
    w_.member("dur", micros_dur(ts, start, end));
    if (flows.in) w_.member("flow_in", true);
    if (flows.out) w_.member("flow_out", true);
    name_ph_pid_tid_ts(name, "X", tid, start);
  }

  // Which executed op each sync waited for: for a var, the last op pushed
  // before the wait that wrote it; for wait_all, the last op pushed before
  // it; for the in-flight bound, the op whose end freed a slot: the last to
  // end before the wait did (it may have ended just before the wait began
  // and counted as finished just after).
  void index_waits() {
    std::unordered_map<uint64_t, std::vector<uint64_t>> writers;  // var id -> op ids, ascending
    std::vector<std::pair<int64_t, uint64_t>> ends;                // (end, op id) of executed ops
    for (const OpInfo& op : m_.ops) {
      if (!op.known()) continue;
      for (uint16_t w = 0; w < op.num_writes; ++w) writers[m_.writes_of(op)[w]].push_back(op.id);
      if (op.executed()) ends.emplace_back(op.end, op.id);
    }
    std::sort(ends.begin(), ends.end());
    waited_.assign(m_.syncs.size(), nullptr);
    waiters_.assign(m_.ops.size(), {});
    for (uint32_t s = 0; s < m_.syncs.size(); ++s) {
      const SyncSpan& sync = m_.syncs[s];
      const OpInfo* op = nullptr;
      if (sync.kind == SyncKind::inflight_bound) {
        auto after = std::upper_bound(ends.begin(), ends.end(), std::pair(sync.end, UINT64_MAX));
        if (after != ends.begin()) op = m_.find_op((after - 1)->second);
      } else if (sync.target == 0) {
        op = m_.find_op(sync.last_op);
      } else if (auto it = writers.find(sync.target); it != writers.end()) {
        auto after = std::upper_bound(it->second.begin(), it->second.end(), sync.last_op);
        if (after != it->second.begin()) op = m_.find_op(*(after - 1));
      }
      // An arrow must not point back in time (only a hand-made model could ask for that).
      if (op == nullptr || !op->executed() || op->start > sync.end) continue;
      waited_[s] = op;
      waiters_[op->id - m_.first_op_id].push_back(s);
    }
  }

  json other_data() const {
    // Errors of ops that have no event to carry them, sorted so that equal models give equal files.
    std::vector<std::pair<uint64_t, const std::string*>> orphans;
    for (const auto& [id, text] : m_.errors) {
      const OpInfo* op = m_.find_op(id);
      if (op == nullptr || (op->enqueue == kNoTime && !op->executed() && !op->launched())) orphans.emplace_back(id, &text);
    }
    std::sort(orphans.begin(), orphans.end());
    json errors_without_events = json::array();
    for (const auto& [id, text] : orphans) errors_without_events.push_back({{"op", id}, {"error", *text}});
    json doc{{"asyncscope_version", kChromeTraceVersion},
                {"run_label", options_.run_label},
                {"origin_ns", m_.origin_ns},
                {"first_op_id", m_.first_op_id},
                {"num_ops", m_.ops.size()},
                {"dropped", m_.dropped},
                {"counter_names", m_.counter_names},
                {"names", m_.names},
                {"errors_without_events", std::move(errors_without_events)}};
    if (!m_.source_points.empty()) add_source_lines(doc);
    if (!m_.scopes.empty()) doc["scopes"] = m_.scopes;
    if (const RunOrigin& origin = options_.origin.empty() ? m_.origin : options_.origin; !origin.empty()) {
      json params = json::array();
      for (const auto& [name, value] : origin.params) params.push_back(json::array({name, value}));
      json results = json::array();
      for (const RunOrigin::Row& r : origin.results) {
        // JSON has no NaN or infinity: null (read back as NaN).
        const json value = std::isfinite(r.value) ? json(r.value) : json(nullptr);
        results.push_back({{"key", r.key}, {"label", r.label}, {"value", value}, {"unit", r.unit}});
      }
      doc["run"] = {{"program", origin.program}, {"params", std::move(params)}, {"results", std::move(results)},
                    {"notes", origin.notes}};
    }
    return doc;
  }

  // A script's lines with their per-line figures (what a viewer shows as the
  // trace's metadata), and every execution of a line as [ns, line, frontend]
  // (what an import needs to attribute the ops and waits again).
  void add_source_lines(json& doc) const {
    json lines = json::array();
    for (const SourceLine& line : m_.source_lines) {
      lines.push_back({{"file_id", line.file}, {"file", m_.name(line.file)}, {"line", line.line}});
    }
    for (const LineFigures& r : line_figures(m_)) {
      json& row = lines[r.line_index];
      row["runs"] = r.runs;
      row["ops"] = r.ops;
      row["enqueue_ns"] = r.enqueue_ns;
      row["waits"] = r.waits;
      row["wait_ns"] = r.wait_ns;
      row["bytes"] = r.bytes;
    }
    json points = json::array();
    for (size_t i = 0; i < m_.source_points.size(); ++i) {
      const SourcePoint& p = m_.source_points[i];
      points.push_back(json::array({checked(p.t, "source point", i), p.line, p.frontend}));
    }
    doc["source_lines"] = std::move(lines);
    doc["source_points"] = std::move(points);
  }

  // "file.py:12" for a person reading args in a viewer, and the point for an import.
  void source_args(uint32_t source) {
    if (source == 0) return;
    w_.member("source", m_.source_text(source));
    w_.member("source_point", source - 1);
  }

  // A lane's two metadata events; `lane_args` writes its thread_name args.
  template <class Args>
  void lane_metadata(int tid, int sort_index, const Args& lane_args) {
    begin_event();
    w_.key("args").begin_object();
    lane_args();
    w_.end_object();
    w_.member("cat", "__metadata").member("name", "thread_name").member("ph", "M").member("pid", kPid).member("tid", tid);
    w_.end_object();
    begin_event();
    w_.key("args").begin_object().member("sort_index", sort_index).end_object();
    w_.member("cat", "__metadata").member("name", "thread_sort_index").member("ph", "M").member("pid", kPid).member("tid", tid);
    w_.end_object();
  }

  void metadata_events() {
    const std::string process = options_.run_label.empty() ? "asyncscope" : "asyncscope: " + options_.run_label;
    // Chrome's category for metadata; some readers require a category on every event.
    begin_event();
    w_.key("args").begin_object().member("name", process).end_object();
    w_.member("cat", "__metadata").member("name", "process_name").member("ph", "M").member("pid", kPid);
    w_.end_object();
    int sort = 0;
    for (uint32_t i = 0; i < m_.frontends.size(); ++i) {
      lane_metadata(frontend_tid(i), sort++, [&] {
        w_.member("index", i).member("lane", "frontend").member("name", m_.frontends[i].name);
      });
    }
    for (uint32_t i = 0; i < m_.workers.size(); ++i) {
      const WorkerLane& lane = m_.workers[i];
      lane_metadata(worker_tid(i), sort++, [&] {
        w_.member("device", device_name(lane.device)).member("device_index", static_cast<unsigned>(lane.device_index));
        w_.member("index", i).member("lane", "worker").member("name", lane.name).member("span", span_name(lane.span));
        w_.member("worker", static_cast<unsigned>(lane.worker));
      });
    }
    if (!m_.counter_names.empty() || !m_.counters.empty()) {
      lane_metadata(counters_tid(), sort, [&] { w_.member("index", 0).member("lane", "counters").member("name", "counters"); });
    }
  }

  // The members an op's events carry besides what the frontend said about it.
  struct OpArgs {
    const char* event = "";
    int64_t ns_ts = 0;
    std::optional<int64_t> ns_dur, ns_push, ns_queued;
    const char* status = nullptr;
    const std::string* worker_lane = nullptr;
    const std::string* helped_lane = nullptr;
  };

  // What the frontend said about an op when it pushed it, on each of its
  // events, with the event's own members, in key order.
  void op_args(const OpInfo& op, const OpArgs& a) {
    w_.member("bytes", op.out_bytes);
    w_.member("device", device_name(op.device));
    w_.member("device_index", static_cast<unsigned>(op.device_index));
    if (auto it = m_.errors.find(op.id); it != m_.errors.end()) w_.member("error", it->second);
    w_.member("event", a.event);
    if (a.helped_lane != nullptr) w_.member("helped_lane", *a.helped_lane);
    w_.member("id", op.id);
    w_.member("internal", op.internal);
    w_.member("iteration", op.iteration);
    w_.member("name_id", op.name);
    if (a.ns_dur) w_.member("ns_dur", *a.ns_dur);
    if (a.ns_push) w_.member("ns_push", *a.ns_push);
    if (a.ns_queued) w_.member("ns_queued", *a.ns_queued);
    w_.member("ns_ts", a.ns_ts);
    w_.key("reads").begin_array();
    for (uint16_t i = 0; i < op.num_reads; ++i) w_.value(m_.reads_of(op)[i]);
    w_.end_array();
    if (op.scope != 0) w_.member("scope", m_.scope_text(op.scope));
    source_args(op.source);
    if (a.status != nullptr) w_.member("status", a.status);
    if (a.worker_lane != nullptr) w_.member("worker_lane", *a.worker_lane);
    w_.key("writes").begin_array();
    for (uint16_t i = 0; i < op.num_writes; ++i) w_.value(m_.writes_of(op)[i]);
    w_.end_array();
  }

  // A v1 flow event at the start of its slice, in the slice's category:
  // DevTools binds it to the first slice with the same ts, pid, tid and cat.
  void flow(const char* ph, uint64_t id, const char* name, int tid, int64_t t) {
    begin_event();
    if (ph[0] == 'f') w_.member("bp", "e");  // bind to the enclosing slice, not the next one
    w_.member("cat", kSliceCategory);
    w_.member("id", id);
    name_ph_pid_tid_ts(name, ph, tid, t);
  }

  // `limit`: where the lane's next enqueue or wait begins.
  void enqueue_event(const OpInfo& op, uint32_t lane, int64_t limit) {
    const int tid = frontend_tid(lane);
    const int64_t t = checked(op.enqueue, "the enqueue of op", op.id);
    // From the moment the op entered the engine to push's return: the time
    // the frontend spent enqueuing it. Clocks read without a fence may step
    // back a few ns between threads' events; never past the lane's next event.
    const int64_t end = t + std::clamp<int64_t>(limit - t, 0, op.push_ns);
    OpArgs a;
    a.event = "enqueue";
    a.ns_ts = t;
    a.ns_push = op.push_ns;
    if (end > t) a.ns_dur = end - t;
    // The arrow goes to the op's first span: its launch, else its execution.
    const bool flows = op.executed() || op.launched();
    slice(m_.op_name(op), tid, t, end, Flows{flows, false, flows, enqueue_flow_id(op)}, [&] { op_args(op, a); });
    if (flows && v1_arrow(t, first_span_start(op))) flow("s", enqueue_flow_id(op), "enqueue", tid, t);
  }

  void sync_event(uint32_t index, uint32_t lane) {
    const SyncSpan& s = m_.syncs[index];
    const int tid = frontend_tid(lane);
    const int64_t begin = checked(s.begin, "sync", index);
    const int64_t end = checked(s.end, "sync", index);
    if (end < begin) throw std::runtime_error("cannot export the trace: sync " + std::to_string(index) + " ends before it begins");
    const OpInfo* op = waited_[index];
    const bool arrow = op != nullptr && has_wait_arrow(*op, s);
    slice(to_string(s.kind), tid, begin, end, Flows{arrow, arrow, false, arrow ? enqueue_flow_id(*op) : 0}, [&] {
      w_.member("event", "sync").member("index", index).member("kind", to_string(s.kind)).member("last_op", s.last_op);
      w_.member("ns_dur", end - begin).member("ns_ts", begin);
      source_args(s.source);
      w_.member("target", s.target);
      if (op != nullptr) w_.member("waited_for", op->id);
    });
    if (arrow) flow("f", wait_flow_id(index), "wait", tid, begin);
  }

  // Flows bind where slices begin, and an arrow must not point back in time:
  // only a wait that began after the op started gets an arrow from it (the
  // others still name the op in args.waited_for).
  static bool has_wait_arrow(const OpInfo& op, const SyncSpan& sync) { return op.start < sync.begin; }
  // DevTools keys a flow's steps by their time: a v1 arrow whose two ends
  // share a nanosecond (an op that started the moment it was enqueued) is
  // lost there, so it is not written; the v2 bind_id still links them.
  static bool v1_arrow(int64_t from, int64_t to) { return from < to; }
  // Where an op's first span starts: its launch, else its execution.
  static int64_t first_span_start(const OpInfo& op) { return op.launched() ? op.launch_start : op.start; }

  // Where each source of events stands in the merge of timed_events().
  // Sources: the frontend lanes, the worker lanes, the markers, the counters.
  struct Cursor {
    size_t next = 0;       // enqueues, spans, markers or samples written
    size_t next_sync = 0;  // frontend lanes: syncs written; execution lanes: help spans written
  };

  size_t num_sources() const { return m_.frontends.size() + m_.workers.size() + 2; }

  // On a frontend lane, enqueues and syncs merged by time; at equal times the
  // longer span comes first, so viewers nest them the same way.
  bool sync_is_next(const FrontendLane& f, const Cursor& c) const {
    return c.next == f.enqueues.size() ||
           (c.next_sync < f.syncs.size() && m_.syncs[f.syncs[c.next_sync]].begin <= m_.ops[f.enqueues[c.next]].enqueue);
  }

  // On an execution lane, the op spans and help spans merged by time.
  bool help_is_next(const WorkerLane& w, const Cursor& c) const {
    if (c.next_sync == w.helps.size()) return false;
    return c.next == w.ops.size() || w.helps[c.next_sync].start < m_.ops[w.ops[c.next]].start;
  }

  // The time of the next event of a source, or nullopt when it has no more.
  std::optional<int64_t> next_time(size_t source, const Cursor& c) const {
    const size_t nf = m_.frontends.size(), nw = m_.workers.size();
    if (source < nf) {
      const FrontendLane& f = m_.frontends[source];
      if (c.next == f.enqueues.size() && c.next_sync == f.syncs.size()) return std::nullopt;
      return sync_is_next(f, c) ? m_.syncs[f.syncs[c.next_sync]].begin : m_.ops[f.enqueues[c.next]].enqueue;
    }
    if (source < nf + nw) {
      const WorkerLane& w = m_.workers[source - nf];
      if (c.next == w.ops.size() && c.next_sync == w.helps.size()) return std::nullopt;
      if (help_is_next(w, c)) return w.helps[c.next_sync].start;
      const OpInfo& op = m_.ops[w.ops[c.next]];
      return w.launches() ? op.launch_start : op.start;
    }
    if (source == nf + nw) {
      if (c.next == m_.markers.size()) return std::nullopt;
      return m_.markers[c.next].t;
    }
    if (c.next == m_.counters.size()) return std::nullopt;
    return m_.counters[c.next].t;
  }

  void write_next(size_t source, Cursor& c) {
    const size_t nf = m_.frontends.size(), nw = m_.workers.size();
    if (source < nf) {
      const FrontendLane& f = m_.frontends[source];
      const auto lane = static_cast<uint32_t>(source);
      if (sync_is_next(f, c)) {
        sync_event(f.syncs[c.next_sync++], lane);
      } else {
        const OpInfo& op = m_.ops[f.enqueues[c.next++]];
        int64_t limit = std::numeric_limits<int64_t>::max();
        if (c.next < f.enqueues.size()) limit = m_.ops[f.enqueues[c.next]].enqueue;
        if (c.next_sync < f.syncs.size()) limit = std::min(limit, m_.syncs[f.syncs[c.next_sync]].begin);
        enqueue_event(op, lane, limit);
      }
    } else if (source < nf + nw) {
      const WorkerLane& w = m_.workers[source - nf];
      if (help_is_next(w, c)) {
        help_span(w.helps[c.next_sync++], w, worker_tid(static_cast<uint32_t>(source - nf)));
        return;
      }
      const uint32_t index = w.ops[c.next++];
      if (w.launches()) {
        launch_span(m_.ops[index], w, worker_tid(static_cast<uint32_t>(source - nf)));
      } else {
        execute_span(index, w, worker_tid(static_cast<uint32_t>(source - nf)));
      }
    } else if (source == nf + nw) {
      marker_event(c.next++);
    } else {
      counter_events(c.next++);
    }
  }

  // Every lane's events in its own order (what the import relies on), the
  // lanes merged by time, at equal times in lane order. DevTools takes the
  // slices of a flow in file order as cause and effect, so a slice must come
  // after the slices its arrows start from; time order gives that.
  void timed_events() {
    std::vector<Cursor> cursors(num_sources());
    for (;;) {
      size_t best = cursors.size();
      int64_t best_time = 0;
      for (size_t source = 0; source < cursors.size(); ++source) {
        const std::optional<int64_t> t = next_time(source, cursors[source]);
        if (t && (best == cursors.size() || *t < best_time)) best = source, best_time = *t;
      }
      if (best == cursors.size()) return;
      write_next(best, cursors[best]);
    }
  }

  // One span of an op on a worker lane, with what the frontend said about it.
  void span_event(const OpInfo& op, const WorkerLane& lane, int tid, const char* event, int64_t start, int64_t end,
                  const Flows& flows, const std::string* helped_lane = nullptr) {
    if (end < start) throw std::runtime_error("cannot export the trace: op " + std::to_string(op.id) + " ends before it starts");
    OpArgs a;
    a.event = event;
    a.ns_ts = start;
    a.ns_dur = end - start;
    if (op.enqueue != kNoTime && helped_lane == nullptr) a.ns_queued = start - op.enqueue;
    a.status = to_string(op.status);
    a.worker_lane = &lane.name;
    a.helped_lane = helped_lane;
    slice(m_.op_name(op), tid, start, end, flows, [&] { op_args(op, a); });
  }

  // A GPU op's launch: the arrow from its enqueue comes in, the one to its
  // execution on the GPU goes out. v2 flows chain on the op's one bind_id.
  void launch_span(const OpInfo& op, const WorkerLane& lane, int tid) {
    const int64_t start = checked(op.launch_start, "the launch start of op", op.id);
    const int64_t end = checked(op.launch_end, "the launch end of op", op.id);
    const bool bind = op.enqueue != kNoTime || op.executed();
    span_event(op, lane, tid, "launch", start, end,
               Flows{bind, bind && op.enqueue != kNoTime, bind && op.executed(), enqueue_flow_id(op)});
    if (op.enqueue != kNoTime && v1_arrow(op.enqueue, start)) flow("f", enqueue_flow_id(op), "enqueue", tid, start);
    if (op.executed() && v1_arrow(start, op.start)) flow("s", launch_flow_id(op), "launch", tid, start);
  }

  // An op's execution: the arrow from its launch (GPU) or enqueue (CPU) comes
  // in, the ones to the syncs that waited for it go out.
  void execute_span(uint32_t index, const WorkerLane& lane, int tid) {
    const OpInfo& op = m_.ops[index];
    const int64_t start = checked(op.start, "the start of op", op.id);
    const int64_t end = checked(op.end, "the end of op", op.id);
    const std::vector<uint32_t>& waiters = waiters_[index];
    const bool has_v2_waiter =
        std::any_of(waiters.begin(), waiters.end(), [&](uint32_t s) { return has_wait_arrow(op, m_.syncs[s]); });
    const bool flow_in = op.enqueue != kNoTime || op.launched();
    span_event(op, lane, tid, "op", start, end, Flows{flow_in || has_v2_waiter, flow_in, has_v2_waiter, enqueue_flow_id(op)});
    if (op.launched()) {
      if (v1_arrow(op.launch_start, start)) flow("f", launch_flow_id(op), "launch", tid, start);
    } else if (op.enqueue != kNoTime && v1_arrow(op.enqueue, start)) {
      flow("f", enqueue_flow_id(op), "enqueue", tid, start);
    }
    for (uint32_t s : waiters) {
      if (has_wait_arrow(op, m_.syncs[s])) flow("s", wait_flow_id(s), "wait", tid, start);
    }
  }

  // A worker's time on parts of an op that another worker ran: a slice with
  // the op's name and arguments, args.event "help"; no arrows.
  void help_span(const HelpSpan& h, const WorkerLane& lane, int tid) {
    const OpInfo& op = m_.ops[h.op];
    const std::string helped = op.executed() ? m_.workers[op.worker].name : std::string();
    span_event(op, lane, tid, "help", h.start, h.end, Flows{}, &helped);
  }

  void marker_event(size_t i) {
    const Marker& mk = m_.markers[i];
    const int64_t t = checked(mk.t, "marker", i);
    begin_event();
    w_.key("args").begin_object();
    w_.member("frontend", mk.frontend).member("name_id", mk.name).member("ns_ts", t).member("value", mk.value);
    w_.end_object();
    w_.member("cat", "marker");
    name_ph_pid_tid_ts(m_.name(mk.name), "i", frontend_tid(mk.frontend), t, nullptr, /*instant_scope=*/true);
  }

  // One C event per counter and sample, so each counter gets its own track
  // and scale. Their args are the plotted series, so the exact time goes in
  // an event field of our own (viewers ignore unknown fields).
  void counter_events(size_t i) {
    const size_t n = std::min(m_.counter_names.size(), static_cast<size_t>(kMaxCounters));
    const CounterSample& s = m_.counters[i];
    const int64_t t = checked(s.t, "counter sample", i);
    for (size_t c = 0; c < n; ++c) {
      begin_event();
      w_.key("args").begin_object().member("value", s.values[c]).end_object();
      w_.member("cat", "counter");
      name_ph_pid_tid_ts(m_.counter_names[c], "C", counters_tid(), t, &t);
    }
  }

  const TraceModel& m_;
  const ExportOptions& options_;
  std::ostream& out_;
  JsonWriter w_;
  bool first_event_ = true;
  std::vector<const OpInfo*> waited_;           // by sync index: the op it waited for, or null
  std::vector<std::vector<uint32_t>> waiters_;  // by op index: the syncs that waited for it
};

}  // namespace

void write_chrome_trace(const TraceModel& model, std::ostream& out, const ExportOptions& options) {
  Exporter(model, options, out).run();
}

std::string to_chrome_trace_json(const TraceModel& model, const ExportOptions& options) {
  std::ostringstream out;
  write_chrome_trace(model, out, options);
  return std::move(out).str();
}

void write_chrome_trace(const TraceModel& model, const std::string& path, const ExportOptions& options) {
  write_output(path, [&](std::ostream& out) { write_chrome_trace(model, out, options); }, "trace");
}

}  // namespace asyncscope::trace
