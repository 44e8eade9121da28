// Import half of chrome_trace.h. The document is read by trace_events.h,
// which hands over one trace event at a time (a JsonValue reused from one
// to the next), so reading a large export holds the model and one event,
// not the whole document. Events are
// first staged as read (metadata may come before or after them), then
// checked against each other and assembled into the model, which must then
// keep the rules of model_check.h.
#include <istream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/quote.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/json_reader.h"
#include "engine/trace/trace_events.h"
#include "engine/trace/model_check.h"

namespace asyncscope::trace {
namespace {

constexpr int64_t kMaxTimeNs = int64_t{1} << 50;  // as in the export
constexpr uint64_t kMaxLaneTid = uint64_t{1} << 31;
constexpr const char* kForeign = "not an asyncscope trace (no asyncscope metadata); it can be opened in Perfetto "
                                 "or chrome://tracing but not here";

struct StagedLane {
  size_t event = 0;
  int64_t tid = 0;
  std::string kind;
  uint64_t index = 0;
  std::string name;
  DeviceKind device = DeviceKind::cpu;
  uint8_t device_index = 0;
  uint16_t worker = 0;
  SpanKind span = SpanKind::execute;
};

struct StagedEnqueue {
  size_t event = 0;
  int64_t tid = 0;
  OpInfo op;
  std::vector<uint64_t> vars;  // reads, then writes
  std::optional<std::string> error;
};

// An op's span on a worker lane: its execution, or a GPU op's launch.
struct StagedExec {
  size_t event = 0;
  int64_t tid = 0;
  uint64_t id = 0;
  int64_t start = 0, end = 0;
  OpStatus status = OpStatus::ok;
  std::optional<std::string> error;
  SpanKind span = SpanKind::execute;
  // What the op's args say of it, for an op without an enqueue event (a
  // profiler's span mapped onto the model has none).
  NameId name = 0;
  DeviceKind device = DeviceKind::cpu;
  uint8_t device_index = 0;
};

struct StagedSync {
  size_t event = 0;
  int64_t tid = 0;
  uint64_t index = 0;
  SyncSpan span;
};

struct StagedMarker {
  size_t event = 0;
  int64_t tid = 0;
  Marker marker;
};

struct StagedCounter {
  size_t event = 0;
  std::string name;
  int64_t t = 0, value = 0;
};

class Importer final : public TraceEventSink {
 public:
  explicit Importer(std::string_view source) : source_(escape_controls(source)) {}

  TraceModel run(std::string_view text) {
    return run_parsed([&] { read_trace_events(text, *this); });
  }
  // Read as the reader asks for it: the file's text is never held whole.
  TraceModel run(std::istream& in) {
    return run_parsed([&] { read_trace_events(in, *this); });
  }

  // --- the document's parts (trace_events.h) ----------------------------------

  void document(bool bare_array) override {
    if (bare_array) not_an_object("a bare array of trace events");
  }
  void scalar_document(const JsonValue& value) override { not_an_object("the file is " + value.a_type()); }
  void top_key(const std::string& key) override {
    if (key == "traceEvents" && std::exchange(events_seen_, true)) fail_plain("traceEvents appears twice");
    if (key == "otherData" && std::exchange(other_seen_, true)) fail_plain("otherData appears twice");
  }
  int member_depth(const std::string& key) override {
    return key == "otherData" || key == "traceEvents" ? JsonBuilder::kAll : -1;
  }
  void top_member(const std::string& key, JsonValue& value) override {
    if (key == "otherData") {
      read_metadata(value);
      // Events that came before the metadata were kept: read them now.
      for (JsonValue& e : early_events_) stage_event(e);
      early_events_.clear();
      early_events_.shrink_to_fit();
    } else if (key == "traceEvents") {
      fail_plain("traceEvents is " + value.a_type() + ", not an array");
    }
  }
  void event(JsonValue& event) override {
    if (meta_seen_) {
      stage_event(event);
    } else {
      early_events_.push_back(std::move(event));
    }
  }

 private:
  // The document is not an object: `what` it is instead, for the message.
  [[noreturn]] void not_an_object(const std::string& what) const { fail_plain(std::string(kForeign) + " (" + what + ")"); }

  template <class Read>
  TraceModel run_parsed(const Read& read) {
    try {
      read();
    } catch (const JsonSyntaxError& e) {
      fail_plain("not valid JSON (" + std::string(e.what()) + ")");
    }
    if (!meta_seen_) fail_plain(kForeign);
    if (!events_seen_) fail_plain("no traceEvents array");
    return assemble();
  }

  // --- errors ---------------------------------------------------------------

  // Text from the file is quoted where it is named; escape_controls also
  // covers what a library's message (the JSON parser's) quotes from it.
  [[noreturn]] void fail_plain(const std::string& what) const {
    throw std::runtime_error(source_ + ": " + escape_controls(what));
  }
  [[noreturn]] void fail(const std::string& what) const {
    fail_plain(where_.empty() ? what : where_ + ": " + what);
  }

  // --- typed field access -----------------------------------------------------

  const JsonValue& field(const JsonValue& obj, const char* key) const {
    if (!obj.is_object()) fail("expected an object, found " + obj.a_type());
    const JsonValue* v = obj.find(key);
    if (v == nullptr) fail(std::string("missing field \"") + key + "\"");
    return *v;
  }
  [[noreturn]] void wrong_type(const char* key, const char* wanted, const JsonValue& v) const {
    fail(std::string("field \"") + key + "\" must be " + wanted + ", not " + v.a_type());
  }
  uint64_t get_uint(const JsonValue& obj, const char* key, uint64_t max = std::numeric_limits<uint64_t>::max()) const {
    const JsonValue& v = field(obj, key);
    if (!v.is_integer()) wrong_type(key, "an integer", v);
    if (!v.is_unsigned() || v.as_uint64() > max) {
      fail(std::string("field \"") + key + "\" is " + v.dump() + ", outside [0, " + std::to_string(max) + "]");
    }
    return v.as_uint64();
  }
  int64_t get_int(const JsonValue& obj, const char* key, int64_t min = std::numeric_limits<int64_t>::min(),
                  int64_t max = std::numeric_limits<int64_t>::max()) const {
    const JsonValue& v = field(obj, key);
    if (!v.is_integer()) wrong_type(key, "an integer", v);
    const bool in_range = v.is_unsigned() ? v.as_uint64() <= static_cast<uint64_t>(max)
                                                 : v.as_int64() >= min && v.as_int64() <= max;
    if (!in_range) {
      fail(std::string("field \"") + key + "\" is " + v.dump() + ", outside [" + std::to_string(min) + ", " +
           std::to_string(max) + "]");
    }
    return v.as_int64();
  }
  int64_t get_time(const JsonValue& obj, const char* key) const { return get_int(obj, key, 0, kMaxTimeNs - 1); }
  // A span's end, ns_ts + ns_dur: like every time, below 2^50 ns, or it could not be written again.
  int64_t get_end(const JsonValue& args, int64_t start) const {
    const int64_t end = start + get_time(args, "ns_dur");
    if (end >= kMaxTimeNs) {
      fail("the span ends at " + std::to_string(end) + " ns, past the last time a trace can hold (2^50 ns)");
    }
    return end;
  }
  const std::string& get_string(const JsonValue& obj, const char* key) const {
    const JsonValue& v = field(obj, key);
    if (!v.is_string()) wrong_type(key, "a string", v);
    return v.text();
  }
  bool get_bool(const JsonValue& obj, const char* key) const {
    const JsonValue& v = field(obj, key);
    if (!v.is_boolean()) wrong_type(key, "true or false", v);
    return v.boolean();
  }
  std::vector<std::string> get_strings(const JsonValue& obj, const char* key, size_t max) const {
    const JsonValue& v = field(obj, key);
    if (!v.is_array()) wrong_type(key, "an array of strings", v);
    if (v.size() > max) fail(std::string("field \"") + key + "\" has more than " + std::to_string(max) + " entries");
    std::vector<std::string> out;
    for (const JsonValue& s : v) {
      if (!s.is_string()) wrong_type(key, "an array of strings", v);
      out.push_back(s.text());
    }
    return out;
  }
  void append_ids(const JsonValue& obj, const char* key, std::vector<uint64_t>& out, uint16_t& count) const {
    const JsonValue& v = field(obj, key);
    if (!v.is_array()) wrong_type(key, "an array of var ids", v);
    if (v.size() > std::numeric_limits<uint16_t>::max()) fail(std::string("field \"") + key + "\" has too many var ids");
    for (const JsonValue& id : v) {
      if (!id.is_unsigned()) wrong_type(key, "an array of var ids (unsigned integers)", v);
      out.push_back(id.as_uint64());
    }
    count = static_cast<uint16_t>(v.size());
  }
  std::optional<std::string> get_error(const JsonValue& args) const {
    if (!args.contains("error")) return std::nullopt;
    return get_string(args, "error");
  }
  DeviceKind get_device(const JsonValue& obj) const {
    const std::string& d = get_string(obj, "device");
    if (d == "cpu") return DeviceKind::cpu;
    if (d == "cuda") return DeviceKind::cuda;
    fail("unknown device " + quote(d, '"'));
  }

  // --- streaming ---------------------------------------------------------------

  void read_metadata(const JsonValue& meta) {
    where_ = "otherData";
    if (!meta.is_object() || !meta.contains("asyncscope_version")) fail_plain(kForeign);
    const int64_t version = get_int(meta, "asyncscope_version");
    if (version > kChromeTraceVersion) {
      fail("written by a newer asyncscope (format version " + std::to_string(version) + "; this build reads versions " +
           std::to_string(kOldestChromeTraceVersion) + " to " + std::to_string(kChromeTraceVersion) + ")");
    }
    if (version < kOldestChromeTraceVersion) fail("unknown format version " + std::to_string(version));
    model_.origin_ns = get_int(meta, "origin_ns");
    model_.first_op_id = get_uint(meta, "first_op_id");
    num_ops_ = get_uint(meta, "num_ops", std::numeric_limits<uint32_t>::max());
    if (model_.first_op_id > std::numeric_limits<uint64_t>::max() - num_ops_) {
      fail("first_op_id " + std::to_string(model_.first_op_id) + " + num_ops " + std::to_string(num_ops_) +
           " is past the largest op id");
    }
    model_.dropped = get_uint(meta, "dropped");
    model_.counter_names = get_strings(meta, "counter_names", kMaxCounters);
    model_.names = get_strings(meta, "names", std::numeric_limits<NameId>::max());
    if (meta.contains("source_lines")) stage_source_lines(meta);
    // Version 6: the scopes, in the model's order (op args name theirs by text).
    if (meta.contains("scopes")) {
      for (const std::string& path : get_strings(meta, "scopes", std::numeric_limits<uint32_t>::max())) {
        if (path.empty()) fail("an empty scope in otherData.scopes");
        const size_t before = model_.scopes.size();
        if (model_.intern_scope(path) <= before) fail("scope " + quote(path, '"') + " twice in otherData.scopes");
      }
    }
    // Version 7: what made the run.
    if (meta.contains("run")) read_origin(field(meta, "run"));
    const JsonValue& orphans = field(meta, "errors_without_events");
    if (!orphans.is_array()) wrong_type("errors_without_events", "an array", orphans);
    for (const JsonValue& e : orphans) orphan_errors_.emplace_back(get_uint(e, "op"), get_string(e, "error"));
    meta_seen_ = true;
    where_.clear();
  }

  void read_origin(const JsonValue& run) {
    where_ = "otherData.run";
    RunOrigin& o = model_.origin;
    o.program = get_string(run, "program");
    if (o.program.empty()) fail("field \"program\" is empty");
    const JsonValue& params = field(run, "params");
    if (!params.is_array()) wrong_type("params", "an array of [name, value] pairs", params);
    for (const JsonValue& p : params) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string()) {
        wrong_type("params", "an array of [name, value] pairs", p);
      }
      o.params.emplace_back(p[0].text(), p[1].text());
    }
    const JsonValue& results = field(run, "results");
    if (!results.is_array()) wrong_type("results", "an array", results);
    for (const JsonValue& r : results) {
      const JsonValue& value = field(r, "value");
      if (!value.is_number() && !value.is_null()) wrong_type("value", "a number or null", value);
      const double v = value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.number();
      o.results.push_back(RunOrigin::Row{get_string(r, "key"), get_string(r, "label"), v, get_string(r, "unit")});
    }
    o.notes = get_strings(run, "notes", std::numeric_limits<uint32_t>::max());
    where_ = "otherData";
  }

  // The lines and their executions; figures in source_lines are derived, not read.
  void stage_source_lines(const JsonValue& meta) {
    const JsonValue& lines = field(meta, "source_lines");
    if (!lines.is_array()) wrong_type("source_lines", "an array", lines);
    for (const JsonValue& line : lines) {
      const auto file = static_cast<NameId>(get_uint(line, "file_id", UINT32_MAX));
      check_name(file);
      model_.source_lines.push_back(SourceLine{file, static_cast<uint32_t>(get_uint(line, "line", UINT32_MAX))});
    }
    const JsonValue& points = field(meta, "source_points");
    if (!points.is_array()) wrong_type("source_points", "an array", points);
    model_.source_points.reserve(points.size());
    for (const JsonValue& p : points) {
      if (!p.is_array() || p.size() != 3 || !p[0].is_integer() || !p[1].is_unsigned() ||
          !p[2].is_unsigned()) {
        wrong_type("source_points", "[ns, line, frontend] triples", p);
      }
      const auto t = p[0].as_int64();
      const auto line = p[1].as_uint64();
      if (t < 0 || t >= kMaxTimeNs) fail_plain("a source point's time " + std::to_string(t) + " is out of range");
      if (line >= model_.source_lines.size()) fail_plain("a source point names line " + std::to_string(line) + " of " +
                                                         std::to_string(model_.source_lines.size()));
      model_.source_points.push_back(SourcePoint{t, static_cast<uint32_t>(line),
                                                 static_cast<uint32_t>(std::min<uint64_t>(p[2].as_uint64(), UINT32_MAX))});
    }
  }

  // An op's or wait's source: 1 + its source point, 0 without one.
  uint32_t get_source(const JsonValue& args) const {
    if (!args.contains("source_point")) return 0;
    const uint64_t point = get_uint(args, "source_point", UINT32_MAX);
    if (point >= model_.source_points.size()) {
      fail("source point " + std::to_string(point) + " is not in otherData.source_points");
    }
    return static_cast<uint32_t>(point + 1);
  }

  void stage_event(const JsonValue& e) {
    const size_t index = num_events_++;
    where_ = "event #" + std::to_string(index);
    if (!e.is_object()) fail("expected an object, found " + e.a_type());
    const std::string& ph = get_string(e, "ph");
    where_ += " (ph " + quote(ph, '"') + ")";
    if (ph == "M") {
      if (get_string(e, "name") == "thread_name") stage_lane(e, index);
    } else if (ph == "X") {
      const JsonValue& args = args_of(e);
      // Since format 4 every slice has category "asyncscope" and says what it is in args.event.
      const std::string& cat = get_string(e, "cat") == "asyncscope" ? get_string(args, "event") : get_string(e, "cat");
      const int64_t tid = get_int(e, "tid");
      if (cat == "enqueue") {
        stage_enqueue(args, tid, index);
      } else if (cat == "op" || cat == "launch" || cat == "help") {
        StagedExec x{index, tid, get_uint(args, "id"), get_time(args, "ns_ts"), 0, get_status(args), get_error(args),
                     cat == "launch" ? SpanKind::launch : cat == "help" ? SpanKind::help : SpanKind::execute};
        x.end = get_end(args, x.start);
        x.name = static_cast<NameId>(get_uint(args, "name_id", UINT32_MAX));
        x.device = get_device(args);
        x.device_index = static_cast<uint8_t>(get_uint(args, "device_index", UINT8_MAX));
        execs_.push_back(std::move(x));
      } else if (cat == "sync") {
        stage_sync(args, tid, index);
      } else {
        fail("unexpected X event category " + quote(cat, '"'));
      }
    } else if (ph == "i") {
      const JsonValue& args = args_of(e);
      markers_.push_back(StagedMarker{index, get_int(e, "tid"),
                                      Marker{get_time(args, "ns_ts"), get_int(args, "value"),
                                             static_cast<NameId>(get_uint(args, "name_id", UINT32_MAX)), 0}});
    } else if (ph == "C") {
      counters_.push_back(StagedCounter{index, get_string(e, "name"), get_time(e, "ns_ts"), get_int(args_of(e), "value")});
    } else if (ph != "s" && ph != "f") {  // flow arrows are derived from the model, not read
      fail("unexpected event phase " + quote(ph, '"'));
    }
    where_.clear();
  }

  const JsonValue& args_of(const JsonValue& e) const {
    const JsonValue& args = field(e, "args");
    if (!args.is_object()) wrong_type("args", "an object", args);
    return args;
  }

  OpStatus get_status(const JsonValue& args) const {
    const std::string& s = get_string(args, "status");
    for (OpStatus status : {OpStatus::ok, OpStatus::failed, OpStatus::skipped, OpStatus::cancelled}) {
      if (s == to_string(status)) return status;
    }
    fail("unknown op status " + quote(s, '"'));
  }

  void stage_lane(const JsonValue& e, size_t index) {
    const JsonValue& args = args_of(e);
    StagedLane lane;
    lane.event = index;
    lane.tid = get_int(e, "tid", 1, static_cast<int64_t>(kMaxLaneTid));
    lane.kind = get_string(args, "lane");
    if (lane.kind == "frontend" || lane.kind == "worker") {
      lane.index = get_uint(args, "index", lane.kind == "worker" ? UINT16_MAX : UINT32_MAX);
      lane.name = get_string(args, "name");
    } else if (lane.kind != "counters") {
      fail("unknown lane kind " + quote(lane.kind, '"'));
    }
    if (lane.kind == "worker") {
      lane.device = get_device(args);
      lane.device_index = static_cast<uint8_t>(get_uint(args, "device_index", UINT8_MAX));
      lane.worker = static_cast<uint16_t>(get_uint(args, "worker", UINT16_MAX));
      // Version 1 files have execution lanes only, without this field.
      if (args.contains("span")) {
        const std::string& span = get_string(args, "span");
        if (span == "launch") {
          lane.span = SpanKind::launch;
        } else if (span != "execute") {
          fail("unknown lane span " + quote(span, '"'));
        }
      }
    }
    lanes_.push_back(std::move(lane));
  }

  void stage_enqueue(const JsonValue& args, int64_t tid, size_t index) {
    StagedEnqueue s{index, tid, {}, {}, get_error(args)};
    OpInfo& op = s.op;
    op.id = get_uint(args, "id");
    op.enqueue = get_time(args, "ns_ts");
    op.name = static_cast<NameId>(get_uint(args, "name_id", UINT32_MAX));
    append_ids(args, "reads", s.vars, op.num_reads);
    append_ids(args, "writes", s.vars, op.num_writes);
    op.out_bytes = get_uint(args, "bytes");
    // How long the push took (files before it have none: zero).
    if (args.contains("ns_push")) op.push_ns = static_cast<uint32_t>(get_uint(args, "ns_push", kMaxPushNs));
    op.iteration = static_cast<uint32_t>(get_uint(args, "iteration", UINT32_MAX));
    op.device = get_device(args);
    op.device_index = static_cast<uint8_t>(get_uint(args, "device_index", UINT8_MAX));
    op.internal = get_bool(args, "internal");
    op.source = get_source(args);
    if (args.contains("scope")) op.scope = model_.intern_scope(get_string(args, "scope"));
    enqueues_.push_back(std::move(s));
  }

  void stage_sync(const JsonValue& args, int64_t tid, size_t index) {
    SyncSpan s;
    const std::string& kind = get_string(args, "kind");
    bool known = false;
    for (int k = 0; k < kSyncKindCount && !known; ++k) {
      s.kind = static_cast<SyncKind>(k);
      known = kind == to_string(s.kind);
    }
    if (!known) fail("unknown sync kind " + quote(kind, '"'));
    s.begin = get_time(args, "ns_ts");
    s.end = get_end(args, s.begin);
    s.target = get_uint(args, "target");
    s.last_op = get_uint(args, "last_op");
    s.source = get_source(args);
    syncs_.push_back(StagedSync{index, tid, get_uint(args, "index", UINT32_MAX), s});
  }

  // --- assembly ------------------------------------------------------------------

  void at_event(size_t event) { where_ = "event #" + std::to_string(event); }

  // Lanes of each kind must be numbered 0..n-1, each named once.
  void assemble_lanes() {
    size_t frontends = 0, workers = 0;
    for (const StagedLane& lane : lanes_) {
      frontends += lane.kind == "frontend";
      workers += lane.kind == "worker";
    }
    model_.frontends.resize(frontends);
    model_.workers.resize(workers);
    std::vector<bool> named(frontends + workers, false);
    for (StagedLane& lane : lanes_) {
      at_event(lane.event);
      if (!tid_lane_.emplace(lane.tid, std::pair(lane.kind, static_cast<uint32_t>(lane.index))).second) {
        fail("a second thread_name event for tid " + std::to_string(lane.tid));
      }
      if (lane.kind == "counters") continue;
      const bool worker = lane.kind == "worker";
      if (lane.index >= (worker ? workers : frontends) || named[(worker ? frontends : 0) + lane.index]) {
        fail(quote(lane.kind, '"') + " lane " + std::to_string(lane.index) + " is out of range or named twice");
      }
      named[(worker ? frontends : 0) + lane.index] = true;
      if (worker) {
        model_.workers[lane.index] =
            WorkerLane{std::move(lane.name), lane.device, lane.device_index, lane.worker, lane.span, {}, {}};
      } else {
        model_.frontends[lane.index].name = std::move(lane.name);
      }
    }
  }

  uint32_t lane_of(int64_t tid, const char* kind) const {
    const auto it = tid_lane_.find(tid);
    if (it == tid_lane_.end() || it->second.first != kind) {
      fail("tid " + std::to_string(tid) + " is not a " + kind + " lane");
    }
    return it->second.second;
  }

  OpInfo& op_at(uint64_t id) {
    if (id < model_.first_op_id || id - model_.first_op_id >= model_.ops.size()) {
      fail("op id " + std::to_string(id) + " is outside the trace's ops [" + std::to_string(model_.first_op_id) + ", " +
           std::to_string(model_.first_op_id + model_.ops.size()) + ")");
    }
    return model_.ops[id - model_.first_op_id];
  }

  void check_name(NameId name) const {
    if (name >= model_.names.size()) fail("name id " + std::to_string(name) + " is not in otherData.names");
  }

  void add_error(uint64_t op, std::optional<std::string>& text) {
    if (!text) return;
    if (const auto it = model_.errors.find(op); it != model_.errors.end() && it->second != *text) {
      fail("op " + std::to_string(op) + " has two different error texts");
    }
    model_.errors[op] = std::move(*text);
  }

  void assemble_ops() {
    // Holes (ids never seen) are rare: only where the recorder dropped events.
    const size_t events = enqueues_.size() + execs_.size();
    if (num_ops_ > 4 * events + 1024) {
      fail_plain("otherData.num_ops (" + std::to_string(num_ops_) + ") is far more than the " + std::to_string(events) +
                 " op events in the file");
    }
    model_.ops.resize(num_ops_);
    for (size_t i = 0; i < model_.ops.size(); ++i) model_.ops[i].id = model_.first_op_id + i;
    for (StagedEnqueue& s : enqueues_) {
      at_event(s.event);
      OpInfo& op = op_at(s.op.id);
      if (op.enqueue != kNoTime) fail("op " + std::to_string(s.op.id) + " has a second enqueue event");
      check_name(s.op.name);
      op = s.op;
      op.frontend = lane_of(s.tid, "frontend");
      op.vars_begin = static_cast<uint32_t>(model_.var_ids.size());
      model_.var_ids.insert(model_.var_ids.end(), s.vars.begin(), s.vars.end());
      model_.frontends[op.frontend].enqueues.push_back(static_cast<uint32_t>(op.id - model_.first_op_id));
      add_error(op.id, s.error);
    }
    // A GPU op's two spans may come in either order; the execution's status wins either way.
    for (StagedExec& x : execs_) {
      at_event(x.event);
      OpInfo& op = op_at(x.id);
      if (op.enqueue == kNoTime && !op.known()) {
        op.name = x.name;  // checked with the model's other rules
        op.device = x.device;
        op.device_index = x.device_index;
      }
      const auto lane = static_cast<uint16_t>(lane_of(x.tid, "worker"));
      if (x.span == SpanKind::help) {
        if (model_.workers[lane].launches()) fail("a help span on tid " + std::to_string(x.tid) + ", a launch lane");
        model_.workers[lane].helps.push_back(HelpSpan{static_cast<uint32_t>(x.id - model_.first_op_id), x.start, x.end});
        continue;
      }
      const bool launch = x.span == SpanKind::launch;
      if (model_.workers[lane].span != x.span) {
        fail(std::string(launch ? "a launch" : "an execution") + " span on tid " + std::to_string(x.tid) + ", which is " +
             (launch ? "not a launch lane" : "a launch lane"));
      }
      if (launch) {
        if (op.launch_end != kNoTime) fail("op " + std::to_string(x.id) + " has a second launch event");
        op.launch_start = x.start;
        op.launch_end = x.end;
        op.launch_worker = lane;
        if (!op.executed()) op.status = x.status;
      } else {
        if (op.end != kNoTime) fail("op " + std::to_string(x.id) + " has a second execution event");
        op.start = x.start;
        op.end = x.end;
        op.status = x.status;
        op.worker = lane;
      }
      model_.workers[lane].ops.push_back(static_cast<uint32_t>(x.id - model_.first_op_id));
      add_error(x.id, x.error);
    }
  }

  void assemble_syncs_and_markers() {
    model_.syncs.resize(syncs_.size());
    std::vector<bool> placed(syncs_.size(), false);
    for (StagedSync& s : syncs_) {
      at_event(s.event);
      if (s.index >= syncs_.size() || placed[s.index]) {
        fail("sync index " + std::to_string(s.index) + " is out of range or used twice");
      }
      placed[s.index] = true;
      s.span.frontend = lane_of(s.tid, "frontend");
      model_.syncs[s.index] = s.span;
    }
    // Lanes list their syncs in recording order, which is index order.
    for (uint32_t i = 0; i < model_.syncs.size(); ++i) model_.frontends[model_.syncs[i].frontend].syncs.push_back(i);
    where_ = "otherData.source_points";
    for (uint32_t i = 0; i < model_.source_points.size(); ++i) {
      const uint32_t lane = model_.source_points[i].frontend;
      if (lane >= model_.frontends.size()) fail("frontend " + std::to_string(lane) + " has no lane");
      model_.frontends[lane].sources.push_back(i);
    }
    for (StagedMarker& m : markers_) {
      at_event(m.event);
      check_name(m.marker.name);
      m.marker.frontend = lane_of(m.tid, "frontend");
      model_.markers.push_back(m.marker);
    }
  }

  // Each sample is written as one C event per counter, in counter order.
  void assemble_counters() {
    const size_t n = model_.counter_names.size();
    size_t next = 0;  // the counter expected next within the current sample
    for (const StagedCounter& c : counters_) {
      at_event(c.event);
      const int index = model_.counter_index(c.name);
      if (index < 0) fail("counter " + quote(c.name, '"') + " is not in otherData.counter_names");
      if (static_cast<size_t>(index) != next) fail("counter " + quote(c.name, '"') + " is out of order within its sample");
      if (next == 0) {
        model_.counters.push_back(CounterSample{c.t, {}});
      } else if (c.t != model_.counters.back().t) {
        fail("counter " + quote(c.name, '"') + " has another time than the rest of its sample");
      }
      model_.counters.back().values[index] = c.value;
      next = (next + 1) % n;
    }
    where_.clear();
    if (next != 0) fail_plain("the last counter sample is incomplete");
  }

  TraceModel assemble() {
    assemble_lanes();
    assemble_ops();
    assemble_syncs_and_markers();
    assemble_counters();
    where_ = "otherData.errors_without_events";
    for (auto& [op, text] : orphan_errors_) {
      std::optional<std::string> t = std::move(text);
      add_error(op, t);
    }
    where_.clear();
    if (const std::string why = first_violation(model_); !why.empty()) fail_plain(why);
    return std::move(model_);
  }

  std::string source_;
  std::string where_;  // context for messages: the event or section being read
  bool meta_seen_ = false;
  bool other_seen_ = false;
  bool events_seen_ = false;
  std::vector<JsonValue> early_events_;  // events before otherData: read once it is
  size_t num_events_ = 0;
  uint64_t num_ops_ = 0;
  TraceModel model_;
  std::vector<StagedLane> lanes_;
  std::unordered_map<int64_t, std::pair<std::string, uint32_t>> tid_lane_;  // tid -> (lane kind, index)
  std::vector<StagedEnqueue> enqueues_;
  std::vector<StagedExec> execs_;
  std::vector<StagedSync> syncs_;
  std::vector<StagedMarker> markers_;
  std::vector<StagedCounter> counters_;
  std::vector<std::pair<uint64_t, std::string>> orphan_errors_;
};

}  // namespace

TraceModel parse_chrome_trace(std::string_view json_text, std::string_view source_name) {
  return Importer(source_name).run(json_text);
}

TraceModel parse_chrome_trace(std::istream& in, std::string_view source_name) { return Importer(source_name).run(in); }
}  // namespace asyncscope::trace
