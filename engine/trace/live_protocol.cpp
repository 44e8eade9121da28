#include "engine/trace/live_protocol.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "engine/base/quote.h"
#include "engine/trace/json_value.h"
#include "engine/trace/json_writer.h"
#include "engine/trace_record/names.h"

namespace asyncscope::trace::live {
namespace {

// Times a publisher sends stay this close to its origin, so that no
// difference a reader takes (t - origin, end - start) can overflow.
constexpr int64_t kMaxTimeOffset = int64_t{1} << 61;

void put8(std::string& out, uint8_t v) { out.push_back(static_cast<char>(v)); }
void put16(std::string& out, uint16_t v) {
  for (int i = 0; i < 2; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void put64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void puti64(std::string& out, int64_t v) { put64(out, static_cast<uint64_t>(v)); }

// Reads fields in order from a payload whose size was checked beforehand.
class Fields {
 public:
  explicit Fields(const char* data) : p_(reinterpret_cast<const unsigned char*>(data)) {}
  uint8_t u8() { return *p_++; }
  uint16_t u16() { return static_cast<uint16_t>(take(2)); }
  uint32_t u32() { return static_cast<uint32_t>(take(4)); }
  uint64_t u64() { return take(8); }
  int64_t i64() { return static_cast<int64_t>(take(8)); }

 private:
  uint64_t take(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t{p_[i]} << (8 * i);
    p_ += n;
    return v;
  }
  const unsigned char* p_;
};

// Wire sizes of the entries, field by field as encode() writes them.
constexpr size_t kEnqueueBytes = 8 + 8 + 8 + 4 + 4 + 4 + 2 + 2 + 1 + 1 + 1 + 8 * kInlineVarIds;  // 67
constexpr size_t kExecBytes = 8 + 8 + 8 + 2 + 1 + 1 + 1 + 1;                                      // 30
constexpr size_t kSyncBytes = 8 + 8 + 8 + 8 + 1;                                                  // 33
constexpr size_t kMarkerBytes = 8 + 8 + 4;
constexpr size_t kSourceBytes = 8 + 4 + 4;
constexpr size_t kScopeBytes = 8 + 4 + 1;
constexpr size_t kCounterBytes = 8 + 8 * kMaxCounters;

const char* kind_name(uint16_t kind) {
  switch (static_cast<Frame>(kind)) {
    case Frame::hello: return "hello";
    case Frame::refusal: return "refusal";
    case Frame::request: return "request";
    case Frame::start: return "start";
    case Frame::names: return "names";
    case Frame::thread: return "thread";
    case Frame::enqueues: return "enqueues";
    case Frame::vars: return "var ids";
    case Frame::execs: return "executions";
    case Frame::syncs: return "waits";
    case Frame::markers: return "markers";
    case Frame::sources: return "source lines";
    case Frame::scopes: return "scopes";
    case Frame::counters: return "counters";
    case Frame::counter_names: return "counter names";
    case Frame::error: return "error";
    case Frame::status: return "status";
    case Frame::end: return "end";
  }
  return "unknown";
}

std::vector<std::string> split_names(const char* data, size_t bytes) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (data[i] == '\0') {
      out.emplace_back(data + start, i - start);
      start = i + 1;
    }
  }
  if (start != bytes) throw ProtocolError("a list of names whose last is not ended");
  return out;
}

}  // namespace

void put_header(std::string& out, const FrameHeader& h) {
  put16(out, h.kind);
  put16(out, 0);
  put32(out, h.thread);
  put64(out, h.first);
  put32(out, h.count);
  put32(out, h.bytes);
}

FrameHeader get_header(const char* data) noexcept {
  Fields f(data);
  FrameHeader h;
  h.kind = f.u16();
  f.u16();
  h.thread = f.u32();
  h.first = f.u64();
  h.count = f.u32();
  h.bytes = f.u32();
  return h;
}

void put_frame(std::string& out, Frame kind, uint32_t thread, uint64_t first, uint32_t count, std::string_view payload) {
  put_header(out, FrameHeader{static_cast<uint16_t>(kind), thread, first, count, static_cast<uint32_t>(payload.size())});
  out.append(payload);
}

size_t entry_bytes(Frame kind) noexcept {
  switch (kind) {
    case Frame::enqueues: return kEnqueueBytes;
    case Frame::vars: return 8;
    case Frame::execs: return kExecBytes;
    case Frame::syncs: return kSyncBytes;
    case Frame::markers: return kMarkerBytes;
    case Frame::sources: return kSourceBytes;
    case Frame::scopes: return kScopeBytes;
    case Frame::counters: return kCounterBytes;
    default: return 0;
  }
}

void encode(std::string& out, const EnqueueEvent& e, uint64_t vars_base) {
  put64(out, e.op);
  puti64(out, e.t);
  put64(out, e.out_bytes);
  put32(out, static_cast<uint32_t>(e.push_ns));
  put32(out, e.iteration);
  put32(out, e.name);
  put16(out, e.num_reads);
  put16(out, e.num_writes);
  put8(out, static_cast<uint8_t>(e.device));
  put8(out, e.device_index);
  put8(out, e.internal);
  const size_t ids = size_t{e.num_reads} + e.num_writes;
  for (int i = 0; i < kInlineVarIds; ++i) {
    if (ids <= static_cast<size_t>(kInlineVarIds)) {
      put64(out, e.inline_vars[i]);
    } else {
      put64(out, i == 0 ? e.vars_offset - std::min(vars_base, e.vars_offset) : 0);
    }
  }
}

void encode(std::string& out, uint64_t var_id) { put64(out, var_id); }

void encode(std::string& out, const ExecEvent& e) {
  put64(out, e.op);
  puti64(out, e.start);
  puti64(out, e.end);
  put16(out, e.worker);
  put8(out, static_cast<uint8_t>(e.device));
  put8(out, e.device_index);
  put8(out, static_cast<uint8_t>(e.status));
  put8(out, static_cast<uint8_t>(e.span));
}

void encode(std::string& out, const SyncEvent& e) {
  puti64(out, e.begin);
  puti64(out, e.end);
  put64(out, e.target);
  put64(out, e.last_op);
  put8(out, static_cast<uint8_t>(e.kind));
}

void encode(std::string& out, const MarkerEvent& e) {
  puti64(out, e.t);
  puti64(out, e.value);
  put32(out, e.name);
}

void encode(std::string& out, const SourceEvent& e) {
  puti64(out, e.t);
  put32(out, e.file);
  put32(out, e.line);
}

void encode(std::string& out, const ScopeEvent& e) {
  puti64(out, e.t);
  put32(out, e.name);
  put8(out, e.enter != 0 ? 1 : 0);
}

void encode(std::string& out, const CounterSample& e) {
  puti64(out, e.t);
  for (const int64_t v : e.values) puti64(out, v);
}

std::string hello_json(const LiveHello& h) {
  std::ostringstream text;
  {
    JsonWriter w(text);
    w.begin_object();
    w.member("command", h.command);
    w.key("counters").begin_array();
    for (const std::string& c : h.counters) w.value(c);
    w.end_array();
    w.member("cwd", h.cwd).member("first_op_id", h.first_op_id).member("origin_ns", h.origin_ns);
    w.member("pid", h.pid).member("protocol", kProtocol).member("started_unix_ms", h.started_unix_ms);
    w.member("title", h.title).member("uid", h.uid);
    w.end_object();
  }
  return text.str();
}

LiveHello parse_hello(std::string_view payload, const Limits& limits) {
  if (payload.size() > limits.max_hello) throw ProtocolError("a hello of " + std::to_string(payload.size()) + " bytes");
  JsonValue j;
  try {
    j = parse_json_value(payload);
  } catch (const std::exception&) {
    throw ProtocolError("a hello that is not JSON");
  }
  const auto field = [&](const char* name) -> const JsonValue& {
    const JsonValue* v = j.is_object() ? j.find(name) : nullptr;
    if (v == nullptr) throw ProtocolError(std::string("a hello without \"") + name + "\"");
    return *v;
  };
  const JsonValue& protocol = field("protocol");
  if (!protocol.is_integer() || protocol.as_int64() != kProtocol) {
    throw ProtocolError("it speaks live protocol " + protocol.dump() + ", this viewer protocol " +
                        std::to_string(kProtocol) + ": attach with the asyncscope it was built with");
  }
  const auto wrong_type = [] { return ProtocolError("a hello with a field of the wrong type"); };
  const auto integer = [&](const char* name, int64_t min, int64_t max) {
    const JsonValue& v = field(name);
    if (!v.is_integer() || (v.is_unsigned() && v.as_uint64() > static_cast<uint64_t>(max)) || v.as_int64() < min) {
      throw wrong_type();
    }
    return v.as_int64();
  };
  const auto text = [&](const char* name) {
    const JsonValue& v = field(name);
    if (!v.is_string()) throw wrong_type();
    return v.text();
  };
  LiveHello h;
  h.pid = static_cast<int>(integer("pid", INT32_MIN, INT32_MAX));
  h.uid = static_cast<uint32_t>(integer("uid", 0, UINT32_MAX));
  h.title = text("title");
  h.command = text("command");
  h.cwd = text("cwd");
  h.started_unix_ms = integer("started_unix_ms", INT64_MIN, INT64_MAX);
  h.origin_ns = integer("origin_ns", INT64_MIN, INT64_MAX);
  const JsonValue& first = field("first_op_id");
  if (!first.is_unsigned()) throw wrong_type();
  h.first_op_id = first.as_uint64();
  const JsonValue& counters = field("counters");
  if (!counters.is_array()) throw wrong_type();
  for (const JsonValue& c : counters) {
    if (!c.is_string()) throw wrong_type();
    h.counters.push_back(c.text());
  }
  if (h.pid <= 0) throw ProtocolError("a hello with pid " + std::to_string(h.pid));
  for (const std::string* text : {&h.title, &h.command, &h.cwd}) {
    if (text->size() > limits.max_name_length) throw ProtocolError("a hello with a text of " + std::to_string(text->size()) + " bytes");
  }
  if (h.counters.size() > static_cast<size_t>(kMaxCounters)) {
    throw ProtocolError("a hello with " + std::to_string(h.counters.size()) + " counters (at most " +
                        std::to_string(kMaxCounters) + ")");
  }
  for (const std::string& c : h.counters) {
    if (c.size() > 256) throw ProtocolError("a hello with a counter name of " + std::to_string(c.size()) + " bytes");
  }
  if (h.origin_ns < -kMaxTimeOffset || h.origin_ns > kMaxTimeOffset) throw ProtocolError("a hello with origin_ns out of range");
  if (h.first_op_id > (uint64_t{1} << 62)) throw ProtocolError("a hello with first_op_id out of range");
  return h;
}

// ------------------------------------------------------------------ decoder

StreamDecoder::StreamDecoder(const LiveHello& hello, Limits limits)
    : hello_(hello), limits_(limits), first_op_(hello.first_op_id) {
  Recorder::Options options;
  options.origin_ns = hello_.origin_ns;
  recorder_ = std::make_shared<Recorder>(options);
  recorder_->set_first_op_id(hello_.first_op_id);
  recorder_->set_counter_names(hello_.counters);
  from_ns_ = hello_.origin_ns;
}

void StreamDecoder::feed(const char* data, size_t n) {
  if (failed_ || ended_ || full_) return;
  bytes_ += n;
  try {
    if (bytes_ > limits_.max_bytes) {
      throw ProtocolError("more than " + std::to_string(limits_.max_bytes >> 20) + " MB received, this viewer's limit");
    }
    pending_.append(data, n);
    size_t at = 0;
    while (!ended_ && !full_ && pending_.size() - at >= kHeaderBytes) {
      const FrameHeader h = get_header(pending_.data() + at);
      if (h.bytes > limits_.max_payload) {
        throw ProtocolError(std::string("a ") + kind_name(h.kind) + " frame of " + std::to_string(h.bytes) + " bytes");
      }
      if (pending_.size() - at < kHeaderBytes + h.bytes) break;
      apply(h, pending_.data() + at + kHeaderBytes);
      at += kHeaderBytes + h.bytes;
    }
    pending_.erase(0, at);
  } catch (...) {
    failed_ = true;
    pending_.clear();
    throw;
  }
}

void StreamDecoder::check_time(int64_t t, const char* what) const {
  if (t < hello_.origin_ns - kMaxTimeOffset || t > hello_.origin_ns + kMaxTimeOffset) {
    throw ProtocolError(std::string(what) + " at a time out of range (" + std::to_string(t) + " ns)");
  }
}

void StreamDecoder::check_op(uint64_t op, const char* what) const {
  // Op ids are dense from the start frame's first id: one far beyond what
  // was enqueued would make a reader index (and allocate) that far.
  if (op < first_op_) return;  // before the stream: readers skip it
  if (op - first_op_ > enqueued_ + limits_.max_ops_ahead) {
    throw ProtocolError(std::string(what) + " of op " + std::to_string(op) + ", far beyond the " +
                        std::to_string(enqueued_) + " ops enqueued so far");
  }
}

void StreamDecoder::check_name(NameId name, const char* what) const {
  if (name != 0 && name >= names_.size()) {
    throw ProtocolError(std::string(what) + " with name " + std::to_string(name) + " before that name was sent");
  }
}

StreamDecoder::Thread& StreamDecoder::thread(uint32_t index) {
  if (index >= threads_.size()) throw ProtocolError("events of thread " + std::to_string(index) + " before its name");
  return threads_[index];
}

void StreamDecoder::names(const FrameHeader& h, const char* payload) {
  if (h.first != names_.size()) throw ProtocolError("names out of order");
  const std::vector<std::string> list = split_names(payload, h.bytes);
  if (list.size() != h.count) throw ProtocolError("a names frame whose count does not match its names");
  if (names_.size() + list.size() > limits_.max_names) {
    throw ProtocolError("more than " + std::to_string(limits_.max_names) + " names, this viewer's limit");
  }
  for (const std::string& name : list) {
    if (name.size() > limits_.max_name_length) throw ProtocolError("a name of " + std::to_string(name.size()) + " bytes");
    name_bytes_ += name.size();
    if (name_bytes_ > limits_.max_name_bytes) {
      throw ProtocolError("more than " + std::to_string(limits_.max_name_bytes >> 20) + " MB of names, this viewer's limit");
    }
    names_.push_back(intern(name));
    name_lengths_.push_back(name.size());
  }
}

void StreamDecoder::apply(const FrameHeader& h, const char* payload) {
  const Frame kind = static_cast<Frame>(h.kind);
  const size_t size = entry_bytes(kind);
  if (size > 0 && h.bytes != size_t{h.count} * size) {
    throw ProtocolError(std::string("a ") + kind_name(h.kind) + " frame whose size does not match its " +
                        std::to_string(h.count) + " entries");
  }
  if (!started_ && kind != Frame::start && kind != Frame::end && kind != Frame::refusal) {
    throw ProtocolError(std::string("a ") + kind_name(h.kind) + " frame before the start");
  }
  const auto local = [this](NameId remote) { return remote == 0 ? NameId{0} : names_[remote]; };
  // A log frame continues its log exactly where the last one ended.
  const auto contiguous = [&](uint64_t& received) {
    if (h.first != received) {
      throw ProtocolError(std::string("a gap in the ") + kind_name(h.kind) + " of thread " + std::to_string(h.thread) +
                          " (entry " + std::to_string(h.first) + ", expected " + std::to_string(received) + ")");
    }
    received += h.count;
  };
  Fields f(payload);
  switch (kind) {
    case Frame::start: {
      if (started_) throw ProtocolError("a second start frame");
      if (h.bytes != 8) throw ProtocolError("a start frame of " + std::to_string(h.bytes) + " bytes");
      if (h.first < hello_.first_op_id || h.first - hello_.first_op_id > (uint64_t{1} << 62)) {
        throw ProtocolError("a start frame with first op " + std::to_string(h.first));
      }
      from_ns_ = f.i64();
      check_time(from_ns_, "a start frame");
      first_op_ = h.first;
      recorder_->set_first_op_id(first_op_);
      started_ = true;
      break;
    }
    case Frame::names:
      names(h, payload);
      break;
    case Frame::counter_names: {
      std::vector<std::string> list = split_names(payload, h.bytes);
      if (list.size() > static_cast<size_t>(kMaxCounters)) throw ProtocolError("more than " + std::to_string(kMaxCounters) + " counters");
      for (const std::string& c : list) {
        if (c.size() > 256) throw ProtocolError("a counter name of " + std::to_string(c.size()) + " bytes");
      }
      recorder_->set_counter_names(std::move(list));
      break;
    }
    case Frame::thread: {
      if (h.thread != threads_.size()) throw ProtocolError("threads out of order");
      if (threads_.size() >= limits_.max_threads) {
        throw ProtocolError("more than " + std::to_string(limits_.max_threads) + " threads, this viewer's limit");
      }
      if (h.bytes > limits_.max_name_length) throw ProtocolError("a thread name of " + std::to_string(h.bytes) + " bytes");
      threads_.emplace_back().buffer = &recorder_->add_thread(std::string(payload, h.bytes));
      break;
    }
    case Frame::enqueues: {
      Thread& t = thread(h.thread);
      contiguous(t.enqueues);
      std::vector<EnqueueEvent> entries(h.count);
      for (EnqueueEvent& e : entries) {
        e.op = f.u64();
        e.t = f.i64();
        const uint64_t out_bytes = f.u64();
        const uint32_t push_ns = f.u32();
        e.iteration = f.u32();
        e.name = f.u32();
        e.num_reads = f.u16();
        e.num_writes = f.u16();
        const uint8_t device = f.u8();
        e.device_index = f.u8();
        const uint8_t internal = f.u8();
        uint64_t vars[kInlineVarIds];
        for (uint64_t& v : vars) v = f.u64();
        if (out_bytes > kMaxEnqueueOutBytes || push_ns > kMaxPushNs) throw ProtocolError("an enqueue with a field out of range");
        if (device > 1) throw ProtocolError("an enqueue on device kind " + std::to_string(device));
        if (internal > 1) throw ProtocolError("an enqueue whose internal flag is " + std::to_string(internal));
        e.out_bytes = out_bytes;
        e.push_ns = push_ns;
        e.device = static_cast<DeviceKind>(device);
        e.internal = internal;
        check_time(e.t, "an enqueue");
        check_op(e.op, "an enqueue");
        check_name(e.name, "an enqueue");
        e.name = local(e.name);
        const uint64_t ids = uint64_t{e.num_reads} + e.num_writes;
        if (ids <= static_cast<uint64_t>(kInlineVarIds)) {
          std::copy(vars, vars + kInlineVarIds, e.inline_vars);
        } else {
          // The var log holds them already (sent first): offset and count within it.
          if (vars[0] > t.vars || ids > t.vars - vars[0]) {
            throw ProtocolError("an enqueue whose " + std::to_string(ids) + " var ids at " + std::to_string(vars[0]) +
                                " lie beyond the " + std::to_string(t.vars) + " received");
          }
          e.vars_offset = vars[0];
        }
      }
      // At the bound, the frame's first ops up to it are kept and the stream stops.
      size_t keep = entries.size();
      if (limits_.max_ops > 0 && enqueued_ + keep >= limits_.max_ops) {
        keep = static_cast<size_t>(limits_.max_ops - std::min(enqueued_, limits_.max_ops));
        full_ = true;
      }
      t.buffer->enqueues.append_bytes(entries.data(), keep);
      enqueued_ += keep;
      break;
    }
    case Frame::vars: {
      Thread& t = thread(h.thread);
      contiguous(t.vars);
      std::vector<uint64_t> entries(h.count);
      for (uint64_t& v : entries) v = f.u64();
      t.buffer->vars.append_bytes(entries.data(), entries.size());
      break;
    }
    case Frame::execs: {
      Thread& t = thread(h.thread);
      contiguous(t.execs);
      std::vector<ExecEvent> entries(h.count);
      for (ExecEvent& e : entries) {
        e.op = f.u64();
        e.start = f.i64();
        e.end = f.i64();
        e.worker = f.u16();
        const uint8_t device = f.u8();
        e.device_index = f.u8();
        const uint8_t status = f.u8();
        const uint8_t span = f.u8();
        if (device > 1) throw ProtocolError("an execution on device kind " + std::to_string(device));
        if (status > static_cast<uint8_t>(OpStatus::cancelled)) throw ProtocolError("an execution with status " + std::to_string(status));
        if (span > static_cast<uint8_t>(SpanKind::help)) throw ProtocolError("an execution span of kind " + std::to_string(span));
        e.device = static_cast<DeviceKind>(device);
        e.status = static_cast<OpStatus>(status);
        e.span = static_cast<SpanKind>(span);
        check_time(e.start, "an execution");
        check_time(e.end, "an execution");
        if (e.end < e.start) throw ProtocolError("an execution that ends before it starts");
        check_op(e.op, "an execution");
        // A help span draws on the lane of its helper's execute spans.
        const uint8_t lane_span = e.span == SpanKind::launch ? 0 : 1;
        if (lanes_.emplace(device, e.device_index, e.worker, lane_span).second && lanes_.size() > limits_.max_lanes) {
          throw ProtocolError("more than " + std::to_string(limits_.max_lanes) + " worker lanes, this viewer's limit");
        }
      }
      t.buffer->execs.append_bytes(entries.data(), entries.size());
      break;
    }
    case Frame::syncs: {
      Thread& t = thread(h.thread);
      contiguous(t.syncs);
      std::vector<SyncEvent> entries(h.count);
      for (SyncEvent& e : entries) {
        e.begin = f.i64();
        e.end = f.i64();
        e.target = f.u64();
        e.last_op = f.u64();
        const uint8_t sync_kind = f.u8();
        if (sync_kind >= kSyncKindCount) throw ProtocolError("a wait of kind " + std::to_string(sync_kind));
        e.kind = static_cast<SyncKind>(sync_kind);
        check_time(e.begin, "a wait");
        check_time(e.end, "a wait");
        if (e.end < e.begin) throw ProtocolError("a wait that ends before it begins");
        check_op(e.last_op, "a wait after");
      }
      t.buffer->syncs.append_bytes(entries.data(), entries.size());
      break;
    }
    case Frame::markers: {
      Thread& t = thread(h.thread);
      contiguous(t.markers);
      std::vector<MarkerEvent> entries(h.count);
      for (MarkerEvent& e : entries) {
        e.t = f.i64();
        e.value = f.i64();
        e.name = f.u32();
        check_time(e.t, "a marker");
        check_name(e.name, "a marker");
        e.name = local(e.name);
      }
      t.buffer->markers.append_bytes(entries.data(), entries.size());
      break;
    }
    case Frame::sources: {
      Thread& t = thread(h.thread);
      contiguous(t.sources);
      std::vector<SourceEvent> entries(h.count);
      for (SourceEvent& e : entries) {
        e.t = f.i64();
        e.file = f.u32();
        e.line = f.u32();
        check_time(e.t, "a source line");
        check_name(e.file, "a source line");
        e.file = local(e.file);
      }
      t.buffer->sources.append_bytes(entries.data(), entries.size());
      break;
    }
    case Frame::scopes: {
      Thread& t = thread(h.thread);
      contiguous(t.scopes);
      std::vector<ScopeEvent> entries(h.count);
      for (ScopeEvent& e : entries) {
        e.t = f.i64();
        e.name = f.u32();
        const uint8_t enter = f.u8();
        if (enter > 1) throw ProtocolError("a scope event whose enter flag is " + std::to_string(enter));
        e.enter = enter;
        check_time(e.t, "a scope");
        check_name(e.name, "a scope");
        // A reader spells out the nesting at every scope event: bounded, so that costs bounded time.
        if (enter != 0) {
          const size_t length = e.name < name_lengths_.size() ? name_lengths_[e.name] : 0;
          t.scope_lengths.push_back(length);
          t.scope_bytes += length;
          if (t.scope_lengths.size() > limits_.max_scope_depth || t.scope_bytes > limits_.max_name_length) {
            throw ProtocolError("scopes nested deeper than this viewer's limit (" +
                                std::to_string(limits_.max_scope_depth) + ")");
          }
        } else if (!t.scope_lengths.empty()) {
          t.scope_bytes -= t.scope_lengths.back();
          t.scope_lengths.pop_back();
        }
        e.name = local(e.name);
      }
      t.buffer->scopes.append_bytes(entries.data(), entries.size());
      break;
    }
    case Frame::counters: {
      if (h.first != counters_) throw ProtocolError("a gap in the counters (sample " + std::to_string(h.first) + ")");
      counters_ += h.count;
      std::vector<CounterSample> entries(h.count);
      for (CounterSample& e : entries) {
        e.t = f.i64();
        for (int64_t& v : e.values) v = f.i64();
        check_time(e.t, "a counter sample");
      }
      recorder_->counter_log().append_bytes(entries.data(), entries.size());
      break;
    }
    case Frame::error: {
      check_op(h.first, "an error");
      error_bytes_ += h.bytes;
      if (h.bytes > limits_.max_name_length || error_bytes_ > limits_.max_error_bytes) {
        throw ProtocolError("more error text than this viewer's limit");
      }
      recorder_->record_error(h.first, std::string(payload, h.bytes));
      break;
    }
    case Frame::status:
      dropped_ = h.first;
      recorder_->set_dropped_elsewhere(h.first);
      break;
    case Frame::end:
      if (h.bytes > limits_.max_name_length) throw ProtocolError("an end frame of " + std::to_string(h.bytes) + " bytes");
      end_reason_.assign(payload, h.bytes);
      ended_ = true;
      break;
    case Frame::refusal:  // the publisher's words: never raw into a message
      throw ProtocolError(escape_controls(std::string_view(payload, std::min<size_t>(h.bytes, limits_.max_name_length))));
    case Frame::hello:
    case Frame::request:
      throw ProtocolError(std::string("a ") + kind_name(h.kind) + " frame in the stream");
    default:
      throw ProtocolError("a frame of unknown kind " + std::to_string(h.kind));
  }
}

}  // namespace asyncscope::trace::live
