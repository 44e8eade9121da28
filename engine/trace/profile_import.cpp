// Import half of profile.h. The document is read by trace_events.h, one
// event at a time (its own fields and its args' scalars, nothing deeper);
// the importer stages the few numbers each event needs and assembles
// lanes, spans, links, memory and counters at the end.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/quote.h"
#include "engine/trace/json_reader.h"
#include "engine/trace/trace_events.h"
#include "engine/trace/profile.h"
#include "engine/trace/trace_file.h"

namespace asyncscope::trace {

const char* to_string(ProfileFormat format) noexcept {
  switch (format) {
    case ProfileFormat::kineto: return "PyTorch profiler (Kineto)";
    case ProfileFormat::kineto_2021: return "PyTorch profiler (Kineto, 2021 format)";
    case ProfileFormat::json_array: return "PyTorch profiler without Kineto (JSON Array format)";
    case ProfileFormat::mxnet: return "MXNet profiler";
    case ProfileFormat::chrome: return "Chrome trace (generic)";
  }
  return "?";
}

const char* key_of(ProfileFormat format) noexcept {
  switch (format) {
    case ProfileFormat::kineto: return "kineto";
    case ProfileFormat::kineto_2021: return "kineto_2021";
    case ProfileFormat::json_array: return "json_array";
    case ProfileFormat::mxnet: return "mxnet";
    case ProfileFormat::chrome: return "chrome";
  }
  return "?";
}

const char* to_string(EventKind kind) noexcept {
  switch (kind) {
    case EventKind::cpu_op: return "cpu_op";
    case EventKind::user_annotation: return "user_annotation";
    case EventKind::python_function: return "python_function";
    case EventKind::runtime: return "runtime";
    case EventKind::driver: return "driver";
    case EventKind::kernel: return "kernel";
    case EventKind::memcpy: return "memcpy";
    case EventKind::memset: return "memset";
    case EventKind::gpu_annotation: return "gpu_annotation";
    case EventKind::gpu_sync: return "gpu_sync";
    case EventKind::profiler: return "profiler";
    case EventKind::other: return "other";
  }
  return "?";
}

std::pair<size_t, size_t> ProfileTrace::lane_spans(uint32_t l) const noexcept {
  if (l + 1 >= lane_begin.size()) return {0, 0};
  return {lane_begin[l], lane_begin[l + 1]};
}

uint64_t ProfileTrace::skipped_count() const noexcept {
  uint64_t n = 0;
  for (const auto& s : skipped) n += s.count;
  return n;
}

namespace {

using namespace std::string_view_literals;

constexpr int64_t kMaxUs = std::numeric_limits<int64_t>::max() / 1000 - 1;

// A JSON scalar as read: which type it had and its value.
struct Scalar {
  enum Type : uint8_t { none, integer, unsigned_integer, real, text, other } type = none;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string s;  // text, or a real's digits as written

  void clear() noexcept { type = none; }
  bool set() const noexcept { return type != none; }
  // An integer value (a real with no fraction counts), or false.
  bool as_int(int64_t& out) const noexcept {
    if (type == integer) return out = i, true;
    if (type == unsigned_integer && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return out = static_cast<int64_t>(u), true;
    }
    if (type == real && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e18) {
      return out = static_cast<int64_t>(d), true;
    }
    return false;
  }
  bool as_number(double& out) const noexcept {
    if (type == integer) return out = static_cast<double>(i), true;
    if (type == unsigned_integer) return out = static_cast<double>(u), true;
    if (type == real) return out = d, true;
    return false;
  }
  // A pid or tid as a key: numbers as their decimal text (a 64-bit unsigned
  // tid stays exact), strings prefixed so "7" and 7 differ.
  std::string key() const {
    switch (type) {
      case integer: return std::to_string(i);
      case unsigned_integer: return std::to_string(u);
      case real: return s;
      case text: return "\"" + s;
      default: return "";
    }
  }
  std::string display() const { return type == text ? s : key(); }
};

// Microseconds written in decimal ("12.345", "-3", "1.5e3") to ns, exactly
// for up to three decimals (rounded past them). False if not a number or out of range.
bool micros_to_ns(std::string_view text, int64_t& ns) {
  size_t p = 0;
  bool negative = false;
  if (p < text.size() && (text[p] == '-' || text[p] == '+')) negative = text[p++] == '-';
  int64_t whole = 0;
  size_t digits = 0;
  while (p < text.size() && text[p] >= '0' && text[p] <= '9') {
    if (whole > kMaxUs / 10) return false;
    whole = whole * 10 + (text[p++] - '0');
    ++digits;
  }
  int64_t frac = 0;
  int frac_digits = 0;
  bool round_up = false;
  if (p < text.size() && text[p] == '.') {
    ++p;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') {
      if (frac_digits < 3) {
        frac = frac * 10 + (text[p] - '0');
        ++frac_digits;
      } else if (frac_digits == 3) {
        round_up = text[p] >= '5';
        ++frac_digits;
      }
      ++p;
      ++digits;
    }
  }
  if (digits == 0) return false;
  if (p != text.size()) {
    // An exponent or anything else: through a double, rounded to the ns.
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || std::fabs(v) > kMaxUs) {
      return false;
    }
    ns = std::llround(v * 1000.0);
    return true;
  }
  while (frac_digits < 3) frac *= 10, ++frac_digits;
  if (whole > kMaxUs) return false;
  int64_t v = whole * 1000 + frac + (round_up ? 1 : 0);
  ns = negative ? -v : v;
  return true;
}

// A time field (ts, dur) to ns: a number of µs, or a string holding one.
bool time_ns(const Scalar& v, int64_t& ns) {
  switch (v.type) {
    case Scalar::integer:
      if (v.i > kMaxUs || v.i < -kMaxUs) return false;
      return ns = v.i * 1000, true;
    case Scalar::unsigned_integer:
      if (v.u > static_cast<uint64_t>(kMaxUs)) return false;
      return ns = static_cast<int64_t>(v.u) * 1000, true;
    case Scalar::real:
    case Scalar::text: return micros_to_ns(v.s, ns);
    default: return false;
  }
}

// The fields of one event that any importer uses.
struct RawEvent {
  Scalar name, cat, ph, pid, tid, ts, dur, id, bp, scope;
  // args
  Scalar correlation, external_id, device_type, device_id, addr, bytes, total_allocated, total_reserved, stream,
      device, arg_name, labels, sort_index;
  std::vector<std::pair<std::string, double>> numeric_args;  // for counters
  bool args_seen = false;

  void clear() {
    for (Scalar* s : {&name, &cat, &ph, &pid, &tid, &ts, &dur, &id, &bp, &scope, &correlation, &external_id,
                      &device_type, &device_id, &addr, &bytes, &total_allocated, &total_reserved, &stream, &device,
                      &arg_name, &labels, &sort_index}) {
      s->clear();
    }
    numeric_args.clear();
    args_seen = false;
  }
};

// A span as staged, before lanes are sorted.
struct StagedSpan {
  int64_t start = 0, dur = 0;
  uint32_t name = 0;
  uint32_t lane = 0;
  EventKind kind = EventKind::other;
  int64_t correlation = kNoCorrelation;
  int64_t external_id = -1;
};

// A B or E event (or an async b/e), paired after reading: events need not be sorted.
struct Edge {
  int64_t t = 0;
  uint64_t order = 0;  // file order, for ties
  uint32_t name = 0;
  bool begin = false;
};

struct StagedFlow {
  int64_t t = 0;
  uint32_t lane = 0;
  bool start = false;  // s, else f (t steps are ignored)
  bool enclosing = false;  // bp "e": binds to the slice enclosing t
};

struct StagedLaneInfo {
  Scalar pid, tid;
  bool has_gpu_kind = false;
};

class Importer final : public TraceEventSink {
 public:
  explicit Importer(std::string_view source) { trace_.source = std::string(source); }

  ProfileTrace run(std::istream& in) {
    return run_parsed([&] { read_trace_events(in, *this); });
  }
  ProfileTrace run(std::string_view text) {
    return run_parsed([&] { read_trace_events(text, *this); });
  }

  // --- the document's parts (trace_events.h) ----------------------------------

  void document(bool bare_array) override { bare_array_ = bare_array; }
  // Not a trace: finish() says so.
  void scalar_document(const JsonValue&) override {}
  void events_begin() override {
    if (!bare_array_ && std::exchange(events_seen_, true)) fail("traceEvents appears twice");
  }
  void top_key(const std::string& key) override {
    if (key == "schemaVersion" || key == "baseTimeNanoseconds" || key == "deviceProperties") kineto_keys_ = true;
  }
  int member_depth(const std::string& key) override {
    // otherData: only its keys (an asyncscope export is told by one).
    return key == "traceEvents" || key == "baseTimeNanoseconds" || key == "otherData" ? 0 : -1;
  }
  void top_member(const std::string& key, JsonValue& value) override {
    if (key == "traceEvents") {
      if (!value.is_object()) fail("traceEvents is not an array");  // an object is read past, as any other key
    } else if (key == "baseTimeNanoseconds") {
      int64_t base = 0;
      if (value.integer_value(base)) base_ns_ = base;
    } else if (key == "otherData" && value.is_object() && value.contains("asyncscope_version")) {
      throw AsyncscopeExport(trace_.source + ": an asyncscope export");
    }
  }
  // Each event's own fields and its args' scalars; what is nested deeper
  // (Input Dims, stacks) is read past.
  int event_depth() override { return 1; }
  void event(JsonValue& e) override {
    if (!e.is_object()) {
      skip("an event that is not an object", "");
      ++event_index_;
      return;
    }
    event_.clear();
    JsonValue* args = nullptr;
    for (size_t i = 0; i < e.size(); ++i) {
      const std::string& k = e.key(i);
      JsonValue& v = e[i];
      if (k.size() == 4 && k == "args"sv) {
        if (v.is_object()) args = &v;
      } else if (v.is_array() || v.is_object()) {
        // An object or array where one of our fields should be is a wrong
        // type; other keys (id2, stack, sf) are not read.
        if (is_event_field(k)) wrong_field_ = k;
      } else {
        event_value(k, v);
      }
    }
    if (args != nullptr) {
      event_.args_seen = true;
      // Counters' values: only a C event needs them.
      const bool counter = event_.ph.type != Scalar::text || event_.ph.s == "C";
      for (size_t i = 0; i < args->size(); ++i) {
        JsonValue& v = (*args)[i];
        if (!v.is_array() && !v.is_object()) arg_value(args->key(i), v, counter);
      }
    }
    stage_event();
    ++event_index_;
  }

 private:
  template <class Read>
  ProfileTrace run_parsed(const Read& read) {
    try {
      read();
    } catch (const JsonSyntaxError& e) {
      fail(std::string("not valid JSON (") + e.what() + ")");
    }
    return finish();
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(escape_controls(trace_.source + ": " + what));
  }

  // A scalar as the staging reads it.
  static void scalar_of(JsonValue& v, Scalar& out) {
    switch (v.type()) {
      case JsonValue::Type::null: out.type = Scalar::none; return;
      case JsonValue::Type::boolean: out.type = Scalar::other; return;
      case JsonValue::Type::negative:
        out.type = Scalar::integer;
        out.i = v.as_int64();
        return;
      case JsonValue::Type::unsigned_integer:
        if (v.as_uint64() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          out.type = Scalar::integer;
          out.i = static_cast<int64_t>(v.as_uint64());
        } else {
          out.type = Scalar::unsigned_integer;
          out.u = v.as_uint64();
        }
        return;
      case JsonValue::Type::real:
        out.type = Scalar::real;
        out.d = v.number();
        out.s.swap(v.text());
        return;
      case JsonValue::Type::string:
        out.type = Scalar::text;
        out.s.swap(v.text());  // the event is read once: its text is taken
        return;
      default: out.type = Scalar::other; return;
    }
  }

  static bool is_event_field(std::string_view k) {
    return k == "name"sv || k == "cat"sv || k == "ph"sv || k == "pid"sv || k == "tid"sv || k == "ts"sv || k == "dur"sv ||
           k == "id"sv || k == "bp"sv || k == "s"sv;
  }

  void event_value(std::string_view k, JsonValue& v) {
    Scalar* slot = nullptr;
    switch (k.size()) {
      case 2:
        if (k == "ph"sv) slot = &event_.ph;
        else if (k == "ts"sv) slot = &event_.ts;
        else if (k == "id"sv) slot = &event_.id;
        else if (k == "bp"sv) slot = &event_.bp;
        break;
      case 3:
        if (k == "pid"sv) slot = &event_.pid;
        else if (k == "tid"sv) slot = &event_.tid;
        else if (k == "cat"sv) slot = &event_.cat;
        else if (k == "dur"sv) slot = &event_.dur;
        break;
      case 4:
        if (k == "name"sv) slot = &event_.name;
        break;
      case 1:
        if (k == "s"sv) slot = &event_.scope;
        break;
      default: break;
    }
    if (slot != nullptr) scalar_of(v, *slot);
  }

  void arg_value(const std::string& k_text, JsonValue& v, bool counter) {
    const std::string_view k = k_text;
    Scalar* slot = nullptr;
    if (k == "correlation"sv) slot = &event_.correlation;
    else if (k == "External id"sv) slot = &event_.external_id;
    else if (k == "Device Type"sv) slot = &event_.device_type;
    else if (k == "Device Id"sv) slot = &event_.device_id;
    else if (k == "Addr"sv) slot = &event_.addr;
    else if (k == "Bytes"sv) slot = &event_.bytes;
    else if (k == "Total Allocated"sv) slot = &event_.total_allocated;
    else if (k == "Total Reserved"sv) slot = &event_.total_reserved;
    else if (k == "stream"sv) slot = &event_.stream;
    else if (k == "device"sv) slot = &event_.device;
    else if (k == "name"sv) slot = &event_.arg_name;
    else if (k == "labels"sv) slot = &event_.labels;
    else if (k == "sort_index"sv) slot = &event_.sort_index;
    if (counter && v.is_number() && event_.numeric_args.size() < 64) event_.numeric_args.emplace_back(k_text, v.number());
    if (slot != nullptr) scalar_of(v, *slot);
  }

  // --- staging -----------------------------------------------------------------

  void skip(const std::string& reason, const std::string& name) {
    for (auto& s : trace_.skipped) {
      if (s.reason == reason) {
        ++s.count;
        return;
      }
    }
    trace_.skipped.push_back(SkippedEvents{reason, 1, event_index_, name});
  }

  uint32_t intern(const std::string& name) {
    const auto [it, added] = name_ids_.try_emplace(name, static_cast<uint32_t>(trace_.names.size()));
    if (added) trace_.names.push_back(name);
    return it->second;
  }

  uint32_t lane_of(const Scalar& pid, const Scalar& tid) {
    std::string key = pid.key();
    key += '\x1f';
    key += tid.key();
    const auto [it, added] = lane_ids_.try_emplace(std::move(key), static_cast<uint32_t>(lanes_.size()));
    if (added) lanes_.push_back(StagedLaneInfo{pid, tid, false});
    return it->second;
  }

  static EventKind kind_of(std::string_view cat) {
    if (cat == "cpu_op" || cat == "Operator" || cat == "operator") return EventKind::cpu_op;
    if (cat == "user_annotation" || cat == "User annotations") return EventKind::user_annotation;
    if (cat == "python_function") return EventKind::python_function;
    if (cat == "cuda_runtime" || cat == "Runtime" || cat == "MXNET_C_API") return EventKind::runtime;
    if (cat == "cuda_driver") return EventKind::driver;
    if (cat == "kernel" || cat == "Kernel") return EventKind::kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::memcpy;
    if (cat == "gpu_memset" || cat == "Memset") return EventKind::memset;
    if (cat == "gpu_user_annotation") return EventKind::gpu_annotation;
    if (cat == "cuda_sync") return EventKind::gpu_sync;
    if (cat == "Trace") return EventKind::profiler;
    return EventKind::other;
  }

  void count_category(std::string_view cat) {
    if (cat == "cpu_op" || cat == "cuda_runtime" || cat == "kernel" || cat == "gpu_memcpy" || cat == "cuda_driver" ||
        cat == "user_annotation" || cat == "cuda_sync" || cat == "gpu_memset") {
      ++kineto_cats_;
    } else if (cat == "Operator" || cat == "Runtime" || cat == "Kernel" || cat == "Memcpy" || cat == "Memset") {
      ++legacy_cats_;
    } else if (cat == "operator" || cat == "MXNET_C_API") {
      ++mxnet_cats_;
    }
  }

  void stage_event() {
    RawEvent& e = event_;
    const std::string name = e.name.type == Scalar::text ? e.name.s : (e.name.set() ? e.name.key() : std::string());
    if (!wrong_field_.empty()) {
      skip(wrong_field_ + " of the wrong type", name);
      wrong_field_.clear();
      return;
    }
    if (e.ph.type != Scalar::text || e.ph.s.empty()) {
      skip(e.ph.set() ? "ph of the wrong type" : "no ph", name);
      return;
    }
    const char ph = e.ph.s.size() == 1 ? e.ph.s[0] : '?';
    if (e.cat.set() && e.cat.type != Scalar::text) {
      skip("cat of the wrong type", name);
      return;
    }
    if (e.name.set() && e.name.type != Scalar::text) {
      skip("name of the wrong type", name);
      return;
    }
    const std::string& cat = e.cat.s;
    if (e.cat.set()) count_category(cat);
    if (ph == 'M') {
      stage_metadata(name);
      return;
    }
    for (const Scalar* id : {&e.pid, &e.tid}) {
      if (id->set() && id->type != Scalar::integer && id->type != Scalar::unsigned_integer &&
          id->type != Scalar::text) {
        skip(std::string(id == &e.pid ? "pid" : "tid") + " of the wrong type", name);
        return;
      }
    }
    int64_t ts = 0;
    if (!e.ts.set()) {
      skip("no ts", name);
      return;
    }
    if (!time_ns(e.ts, ts)) {
      skip(e.ts.type == Scalar::integer || e.ts.type == Scalar::unsigned_integer || e.ts.type == Scalar::real
               ? "ts out of range"
               : "ts not a number",
           name);
      return;
    }
    switch (ph) {
      case 'X': {
        int64_t dur = 0;
        if (!e.dur.set()) return skip("an X event without dur", name);
        if (!time_ns(e.dur, dur)) return skip("dur not a number", name);
        if (dur < 0) return skip("negative dur", name);
        if (ts > std::numeric_limits<int64_t>::max() - dur) return skip("ts out of range", name);
        if (name == "[memory]") return;  // not a span
        stage_span(name, cat, ts, dur);
        return;
      }
      case 'B':
      case 'E':
      case 'b':
      case 'e': stage_edge(ph, name, cat, ts); return;
      case 'i':
      case 'I':
      case 'n':
        if (name == "[memory]") stage_memory(ts, name);
        else note_time(ts);
        return;
      case 'C': stage_counter(name, ts); return;
      case 's':
      case 't':
      case 'f': stage_flow(ph, cat, ts); return;
      default: skip(std::string("ph '") + e.ph.s + "' (not drawn)", name); return;
    }
  }

  void note_time(int64_t t) {
    min_t_ = std::min(min_t_, t);
    max_t_ = std::max(max_t_, t);
  }

  static int64_t int_or(const Scalar& v, int64_t fallback) {
    int64_t x = 0;
    return v.as_int(x) ? x : fallback;
  }

  void stage_span(const std::string& name, const std::string& cat, int64_t ts, int64_t dur) {
    StagedSpan s;
    s.start = ts;
    s.dur = dur;
    s.name = intern(name);
    s.lane = lane_of(event_.pid, event_.tid);
    s.kind = event_.cat.set() ? kind_of(cat) : (bare_array_ ? EventKind::cpu_op : EventKind::other);
    if (event_.correlation.set()) s.correlation = int_or(event_.correlation, kNoCorrelation);
    if (s.correlation < 0) s.correlation = kNoCorrelation;
    if (event_.external_id.set()) s.external_id = int_or(event_.external_id, -1);
    const bool gpu_side = is_gpu_op(s.kind) || s.kind == EventKind::gpu_annotation || s.kind == EventKind::gpu_sync;
    if (gpu_side) {
      StagedLaneInfo& lane = lanes_[s.lane];
      lane.has_gpu_kind = true;
      if (lane_stream_.size() <= s.lane) lane_stream_.resize(s.lane + 1, {-2, -1});
      auto& [stream, device] = lane_stream_[s.lane];
      if (stream == -2) {
        stream = int_or(event_.stream, -2);
        device = int_or(event_.device, -1);
      }
    }
    note_time(ts);
    note_time(ts + dur);
    spans_.push_back(s);
  }

  void stage_edge(char ph, const std::string& name, const std::string& cat, int64_t ts) {
    const bool async = ph == 'b' || ph == 'e';
    std::string key;
    if (async) {
      // Async events pair by (cat, id, name); their lane is their thread.
      key = "a\x1f" + cat + '\x1f' + event_.id.key() + '\x1f' + event_.pid.key() + '\x1f' + event_.tid.key();
      if (ph == 'b' || !name.empty()) key += '\x1f' + name;
    } else {
      key = "s\x1f" + event_.pid.key() + '\x1f' + event_.tid.key();
    }
    const auto [it, added] = edge_groups_.try_emplace(key, edges_.size());
    if (added) {
      edges_.emplace_back();
      edge_info_.push_back(
          EdgeGroup{lane_of(event_.pid, event_.tid), event_.cat.set() ? kind_of(cat) : EventKind::other, async});
    }
    edges_[it->second].push_back(Edge{ts, event_index_, intern(name), ph == 'B' || ph == 'b'});
    note_time(ts);
  }

  void stage_memory(int64_t ts, const std::string& name) {
    ProfileMemoryEvent m;
    m.t = ts;
    m.lane = lane_of(event_.pid, event_.tid);
    int64_t bytes = 0;
    if (!event_.bytes.as_int(bytes)) return skip("a [memory] event without Bytes", name);
    m.bytes = bytes;
    m.device_type = static_cast<int8_t>(std::clamp<int64_t>(int_or(event_.device_type, 0), -1, 100));
    m.device_id = static_cast<int16_t>(std::clamp<int64_t>(int_or(event_.device_id, -1), -1, 30000));
    if (event_.addr.type == Scalar::unsigned_integer) m.addr = event_.addr.u;
    else if (event_.addr.type == Scalar::integer) m.addr = static_cast<uint64_t>(event_.addr.i);
    m.total_allocated = int_or(event_.total_allocated, -1);
    m.total_reserved = int_or(event_.total_reserved, -1);
    note_time(ts);
    trace_.memory.push_back(m);
  }

  void stage_counter(const std::string& name, int64_t ts) {
    if (event_.numeric_args.empty()) return skip("a counter without numeric args", name);
    for (const auto& [key, value] : event_.numeric_args) {
      const std::string series = key == name || name.empty() ? key : name + " " + key;
      const auto [it, added] = counter_ids_.try_emplace(series, trace_.counters.size());
      if (added) trace_.counters.push_back(ProfileCounter{series, {}});
      trace_.counters[it->second].samples.emplace_back(ts, value);
    }
    note_time(ts);
  }

  void stage_flow(char ph, const std::string& cat, int64_t ts) {
    if (ph == 't') return;
    if (cat != "ac2g" && cat != "async_gpu" && cat != "async") return;  // only launch-to-GPU flows link ops
    int64_t id = 0;
    if (!event_.id.as_int(id)) return;
    StagedFlow f;
    f.t = ts;
    f.lane = lane_of(event_.pid, event_.tid);
    f.start = ph == 's';
    f.enclosing = event_.bp.type == Scalar::text && event_.bp.s == "e";
    flows_[id].push_back(f);
  }

  void stage_metadata(const std::string& name) {
    if (name == "process_name" && event_.arg_name.type == Scalar::text) {
      process_names_[event_.pid.key()] = event_.arg_name.s;
    } else if (name == "thread_name" && event_.arg_name.type == Scalar::text) {
      thread_names_[event_.pid.key() + '\x1f' + event_.tid.key()] = event_.arg_name.s;
    } else if (name == "process_labels" && event_.labels.type == Scalar::text) {
      process_labels_[event_.pid.key()] = event_.labels.s;
    }
  }

  // --- assembly -------------------------------------------------------------------

  ProfileTrace finish() {
    if (!bare_array_ && !events_seen_) fail("no traceEvents array: not a trace");
    pair_edges();
    choose_format();
    build_lanes();
    sort_spans();
    link();
    finish_memory_and_counters();
    return std::move(trace_);
  }

  void pair_edges() {
    for (size_t g = 0; g < edges_.size(); ++g) {
      auto& list = edges_[g];
      std::stable_sort(list.begin(), list.end(), [](const Edge& a, const Edge& b) {
        if (a.t != b.t) return a.t < b.t;
        return a.order < b.order;  // at one time, as written (a zero-length span's begin, then its end)
      });
      std::vector<const Edge*> open;
      for (const Edge& e : list) {
        if (e.begin) {
          open.push_back(&e);
          continue;
        }
        if (open.empty()) {
          const uint64_t keep = event_index_;
          event_index_ = e.order;
          skip(edge_info_[g].async ? "an async e without its b" : "an E without its B", trace_.names[e.name]);
          event_index_ = keep;
          continue;
        }
        const Edge* b = open.back();
        open.pop_back();
        StagedSpan s;
        s.start = b->t;
        s.dur = e.t - b->t;
        s.name = b->name;
        s.lane = edge_info_[g].lane;
        s.kind = edge_info_[g].kind;
        // MXNet writes each operator twice: B/E on its thread and an async
        // b/e copy; the copies are kept aside until the format is known.
        if (edge_info_[g].async && s.kind == EventKind::cpu_op) {
          async_ops_.push_back(s);
        } else {
          sync_ops_ += s.kind == EventKind::cpu_op;
          spans_.push_back(s);
        }
      }
      for (const Edge* b : open) {
        const uint64_t keep = event_index_;
        event_index_ = b->order;
        skip(edge_info_[g].async ? "an async b without its e" : "a B without its E", trace_.names[b->name]);
        event_index_ = keep;
      }
    }
    edges_.clear();
  }

  void choose_format() {
    ProfileFormat f = ProfileFormat::chrome;
    if (bare_array_) {
      f = ProfileFormat::json_array;
    } else if (mxnet_cats_ > 0 && mxnet_cats_ >= kineto_cats_ + legacy_cats_) {
      f = ProfileFormat::mxnet;
    } else if (legacy_cats_ > kineto_cats_) {
      f = ProfileFormat::kineto_2021;
    } else if (kineto_cats_ > 0 || kineto_keys_) {
      f = ProfileFormat::kineto;
    }
    trace_.format = f;
    trace_.events = event_index_;
    if (f == ProfileFormat::mxnet && sync_ops_ > 0) {
      if (!async_ops_.empty()) {
        trace_.notes.push_back(std::to_string(async_ops_.size()) +
                               " async operator events repeat the operators' B/E spans: drawn once");
      }
    } else {
      spans_.insert(spans_.end(), async_ops_.begin(), async_ops_.end());
    }
    async_ops_.clear();
  }

  void build_lanes() {
    // Lane order: CPU threads by (pid, tid), then GPU streams by (device, stream).
    struct Key {
      bool gpu;
      int64_t a, b;
      std::string sa, sb;
      uint32_t staged;
    };
    std::vector<Key> keys;
    std::vector<ProfileLane> lanes(lanes_.size());
    for (uint32_t i = 0; i < lanes_.size(); ++i) {
      const StagedLaneInfo& s = lanes_[i];
      ProfileLane& l = lanes[i];
      l.gpu = s.has_gpu_kind;
      const std::string pkey = s.pid.key();
      if (const auto it = process_names_.find(pkey); it != process_names_.end()) l.process = it->second;
      int64_t pid = 0, tid = 0;
      const bool pid_num = s.pid.as_int(pid);
      bool tid_num = s.tid.as_int(tid);
      if (!tid_num && s.tid.type == Scalar::text) {
        // 2021 files: "stream 7".
        std::string_view t = s.tid.s;
        if (t.rfind("stream ", 0) == 0) {
          const auto [end, ec] = std::from_chars(t.data() + 7, t.data() + t.size(), tid);
          tid_num = ec == std::errc();
        }
      }
      if (l.gpu) {
        std::pair<int64_t, int64_t> sd{-2, -1};
        if (i < lane_stream_.size()) sd = lane_stream_[i];
        l.stream = tid_num ? tid : (sd.first != -2 ? sd.first : -1);
        const int64_t dev = pid_num ? pid : sd.second;
        l.device = static_cast<uint32_t>(std::clamp<int64_t>(dev, 0, 1 << 20));
      }
      if (const auto it = thread_names_.find(pkey + '\x1f' + s.tid.key()); it != thread_names_.end()) {
        l.name = it->second;
        while (!l.name.empty() && l.name.back() == ' ') l.name.pop_back();
      }
      if (l.name.empty()) {
        if (l.gpu) {
          l.name = l.stream >= 0 ? "stream " + std::to_string(l.stream) : "device";
        } else {
          l.name = (l.process.empty() ? "" : l.process + " ") + "thread " + s.tid.display();
        }
      }
      if (l.gpu) l.name = "GPU " + std::to_string(l.device) + " " + l.name;
      keys.push_back(Key{l.gpu, l.gpu ? static_cast<int64_t>(l.device) : (pid_num ? pid : 0),
                         l.gpu ? l.stream : (tid_num ? tid : 0), pkey, s.tid.key(), i});
    }
    std::stable_sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
      if (x.gpu != y.gpu) return !x.gpu;
      if (x.a != y.a) return x.a < y.a;
      if (x.sa != y.sa) return x.sa < y.sa;
      if (x.b != y.b) return x.b < y.b;
      return x.sb < y.sb;
    });
    lane_map_.assign(lanes_.size(), 0);
    trace_.lanes.clear();
    for (const Key& k : keys) {
      lane_map_[k.staged] = static_cast<uint32_t>(trace_.lanes.size());
      trace_.lanes.push_back(std::move(lanes[k.staged]));
    }
  }

  void sort_spans() {
    const int64_t origin = spans_.empty() && trace_.memory.empty() && min_t_ == INT64_MAX ? 0 : min_t_;
    trace_.origin_ns = origin + base_ns_;
    trace_.end_ns = max_t_ == INT64_MIN ? 0 : max_t_ - origin;
    origin_ = origin;
    for (StagedSpan& s : spans_) {
      s.lane = lane_map_[s.lane];
      s.start -= origin;
    }
    std::sort(spans_.begin(), spans_.end(), [](const StagedSpan& a, const StagedSpan& b) {
      if (a.lane != b.lane) return a.lane < b.lane;
      if (a.start != b.start) return a.start < b.start;
      return a.dur > b.dur;
    });
    trace_.spans.resize(spans_.size());
    trace_.lane_begin.assign(trace_.lanes.size() + 1, 0);
    for (size_t i = 0; i < spans_.size(); ++i) {
      const StagedSpan& s = spans_[i];
      ProfileSpan& p = trace_.spans[i];
      p.start = s.start;
      p.dur = s.dur;
      p.name = s.name;
      p.lane = s.lane;
      p.kind = s.kind;
      p.correlation = s.correlation;
      p.external_id = s.external_id;
      ++trace_.lane_begin[s.lane + 1];
    }
    spans_.clear();
    spans_.shrink_to_fit();
    for (size_t l = 0; l < trace_.lanes.size(); ++l) trace_.lane_begin[l + 1] += trace_.lane_begin[l];
    assign_rows(trace_);
  }

  void link() {
    std::unordered_map<int64_t, uint32_t> gpu_by_corr;
    for (uint32_t i = 0; i < trace_.spans.size(); ++i) {
      const ProfileSpan& s = trace_.spans[i];
      if (is_gpu_op(s.kind) && s.correlation != kNoCorrelation) gpu_by_corr.emplace(s.correlation, i);
    }
    for (uint32_t i = 0; i < trace_.spans.size(); ++i) {
      ProfileSpan& s = trace_.spans[i];
      if ((s.kind != EventKind::runtime && s.kind != EventKind::driver) || s.correlation == kNoCorrelation) continue;
      const auto it = gpu_by_corr.find(s.correlation);
      if (it == gpu_by_corr.end()) continue;
      ProfileSpan& g = trace_.spans[it->second];
      if (g.link != kNoSpan) continue;
      g.link = i;
      s.link = it->second;
    }
    // Flows where correlation is missing: the launch holds the s, the GPU op the f.
    for (auto& [id, ends] : flows_) {
      const StagedFlow* s = nullptr;
      const StagedFlow* f = nullptr;
      for (const StagedFlow& e : ends) (e.start ? s : f) = &e;
      if (s == nullptr || f == nullptr) continue;
      const uint32_t launch = span_at(lane_map_[s->lane], s->t - origin_, false);
      const uint32_t gpu = span_at(lane_map_[f->lane], f->t - origin_, f->enclosing);
      if (launch == kNoSpan || gpu == kNoSpan) continue;
      ProfileSpan& l = trace_.spans[launch];
      ProfileSpan& g = trace_.spans[gpu];
      if (!is_gpu_op(g.kind) || g.link != kNoSpan || l.link != kNoSpan) continue;
      if (l.kind != EventKind::runtime && l.kind != EventKind::driver) continue;
      g.link = launch;
      l.link = gpu;
      ++trace_.flows_used;
    }
    flows_.clear();
  }

  // The span of a lane starting at t (or, `enclosing`, the innermost holding t).
  uint32_t span_at(uint32_t lane, int64_t t, bool enclosing) const {
    const auto [first, last] = trace_.lane_spans(lane);
    const auto begin = trace_.spans.begin() + static_cast<std::ptrdiff_t>(first);
    const auto end = trace_.spans.begin() + static_cast<std::ptrdiff_t>(last);
    auto it = std::upper_bound(begin, end, t, [](int64_t v, const ProfileSpan& s) { return v < s.start; });
    // The last span starting at or before t; for an exact start, the innermost one there.
    uint32_t found = kNoSpan;
    for (auto p = it; p != begin;) {
      --p;
      if (p->start == t || (enclosing && p->end() >= t)) {
        found = static_cast<uint32_t>(p - trace_.spans.begin());
        break;
      }
      if (!enclosing) break;
      if (t - p->start > int64_t{10'000'000'000}) break;  // not nested that far back
    }
    return found;
  }

  void finish_memory_and_counters() {
    for (ProfileMemoryEvent& m : trace_.memory) {
      m.lane = lane_map_[m.lane];
      m.t -= origin_;
    }
    std::stable_sort(trace_.memory.begin(), trace_.memory.end(),
                     [](const ProfileMemoryEvent& a, const ProfileMemoryEvent& b) { return a.t < b.t; });
    for (ProfileCounter& c : trace_.counters) {
      for (auto& sample : c.samples) sample.first -= origin_;
      std::stable_sort(c.samples.begin(), c.samples.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    bool gpu = false;
    for (const ProfileLane& l : trace_.lanes) gpu = gpu || l.gpu;
    if (trace_.format == ProfileFormat::json_array) {
      trace_.notes.push_back(
          "CPU ops only: this PyTorch was built without Kineto, so its profiler wrote no GPU ops, launches, "
          "memory events or correlations");
    } else if (trace_.format == ProfileFormat::chrome) {
      trace_.notes.push_back("a generic Chrome trace: lanes and spans only (no launches, GPU streams or memory "
                             "events that asyncscope recognises)");
    } else if (trace_.format == ProfileFormat::mxnet) {
      trace_.notes.push_back(
          "MXNet's profiler links no call to the operator it queued: the queue depth is estimated as the "
          "frontend's operator calls not yet matched by an operator start");
    } else if (!gpu) {
      trace_.notes.push_back("no GPU ops: a CPU-only profile (no launches, streams or queue)");
    }
    if (trace_.spans.empty() && trace_.memory.empty() && trace_.counters.empty()) {
      trace_.notes.push_back("no spans, memory events or counters to draw");
    }
  }

  struct EdgeGroup {
    uint32_t lane;
    EventKind kind;
    bool async;
  };

  ProfileTrace trace_;
  RawEvent event_;
  std::string wrong_field_;
  bool bare_array_ = false, events_seen_ = false, kineto_keys_ = false;
  uint64_t event_index_ = 0;
  uint64_t kineto_cats_ = 0, legacy_cats_ = 0, mxnet_cats_ = 0;
  int64_t base_ns_ = 0, origin_ = 0;
  int64_t min_t_ = INT64_MAX, max_t_ = INT64_MIN;
  std::vector<StagedSpan> spans_, async_ops_;
  uint64_t sync_ops_ = 0;
  std::vector<StagedLaneInfo> lanes_;
  std::vector<std::pair<int64_t, int64_t>> lane_stream_;  // staged lane -> (args.stream, args.device)
  std::vector<uint32_t> lane_map_;                        // staged lane -> final lane
  std::unordered_map<std::string, uint32_t> lane_ids_, name_ids_;
  std::unordered_map<std::string, size_t> counter_ids_, edge_groups_;
  std::vector<std::vector<Edge>> edges_;
  std::vector<EdgeGroup> edge_info_;
  std::unordered_map<int64_t, std::vector<StagedFlow>> flows_;
  std::unordered_map<std::string, std::string> process_names_, thread_names_, process_labels_;
};

}  // namespace

ProfileTrace parse_profile(std::istream& in, std::string_view source) { return Importer(source).run(in); }

ProfileTrace parse_profile(std::string_view text, std::string_view source) { return Importer(source).run(text); }

ProfileTrace read_profile(const std::string& path) {
  TraceFile file(path);
  try {
    return parse_profile(file.stream(), quote(path));
  } catch (const TraceReadError& e) {
    throw file.error(e.what());
  }
}

}  // namespace asyncscope::trace
