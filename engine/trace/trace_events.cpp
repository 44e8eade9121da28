#include "engine/trace/trace_events.h"

#include <utility>

#include "engine/trace/json_reader.h"

namespace asyncscope::trace {
namespace {

// json_reader's tokens to the parts of a trace-event document.
class Walker final : public JsonSink {
 public:
  explicit Walker(TraceEventSink& sink) : sink_(sink) {}

  void null() override {
    if (at_part()) b_.scalar_null();
    finish_scalar();
  }
  void boolean(bool v) override {
    if (at_part()) b_.scalar_boolean(v);
    finish_scalar();
  }
  void integer(int64_t v) override {
    if (at_part()) b_.scalar_integer(v);
    finish_scalar();
  }
  void unsigned_integer(uint64_t v) override {
    if (at_part()) b_.scalar_unsigned(v);
    finish_scalar();
  }
  void real(double v, std::string_view text) override {
    if (at_part()) b_.scalar_real(v, text);
    finish_scalar();
  }
  void string(std::string& text) override {
    if (at_part()) b_.scalar_string(text);
    finish_scalar();
  }
  void key(std::string& text) override {
    if (state_ == State::top) {
      key_.swap(text);
      sink_.top_key(key_);
    } else if (state_ == State::part) {
      b_.key(text);
    }
  }
  void begin_object() override { begin(true); }
  void begin_array() override { begin(false); }
  void end_object() override { end(); }
  void end_array() override { end(); }

 private:
  enum class State : uint8_t {
    start,   // before the document
    top,     // in the document's object, between members
    events,  // in the events array, between events
    part,    // building a member or an event
    skip,    // reading past a member
    done,    // after the document
  };

  // Before a scalar at the top level or in the events array: starts its part.
  bool at_part() {
    switch (state_) {
      case State::start:
        b_.start(scratch_);
        return true;
      case State::top:
        start_member();
        if (state_ == State::skip) state_ = State::top;  // a scalar read past is whole
        return state_ == State::part;
      case State::events: start_event(); return true;
      case State::part: return true;
      default: return false;
    }
  }
  void finish_scalar() {
    if (state_ == State::part && !b_.building()) part_done();
    else if (state_ == State::start) {
      state_ = State::done;
      sink_.scalar_document(scratch_);
    }
  }

  void start_member() {
    const int depth = sink_.member_depth(key_);
    if (depth < 0) {
      state_ = State::skip;
      skip_depth_ = 0;
      return;
    }
    b_.start(scratch_, depth);
    state_ = State::part;
    in_event_ = false;
  }
  void start_event() {
    b_.start(event_, sink_.event_depth());
    state_ = State::part;
    in_event_ = true;
  }
  void part_done() {
    if (in_event_) {
      state_ = events_back_;
      sink_.event(event_);
    } else {
      state_ = State::top;
      sink_.top_member(key_, scratch_);
    }
  }

  void begin(bool object) {
    switch (state_) {
      case State::start:
        sink_.document(!object);
        state_ = object ? State::top : State::events;
        events_back_ = State::events;
        bare_ = !object;
        if (bare_) sink_.events_begin();
        return;
      case State::top:
        if (key_ == "traceEvents" && !object) {
          state_ = State::events;
          events_back_ = State::events;
          sink_.events_begin();
          return;
        }
        start_member();
        if (state_ == State::skip) {
          skip_depth_ = 1;
          return;
        }
        b_.begin(object);
        return;
      case State::events:
        start_event();
        b_.begin(object);
        return;
      case State::part: b_.begin(object); return;
      case State::skip: ++skip_depth_; return;
      case State::done: return;
    }
  }

  void end() {
    switch (state_) {
      case State::part:
        if (b_.end()) part_done();
        return;
      case State::skip:
        if (--skip_depth_ == 0) state_ = State::top;
        return;
      case State::events:
        sink_.events_end();
        state_ = bare_ ? State::done : State::top;
        return;
      case State::top: state_ = State::done; return;
      default: return;
    }
  }

  TraceEventSink& sink_;
  JsonBuilder b_;
  JsonValue scratch_;  // a top-level member (or a scalar document)
  JsonValue event_;    // the event being read, reused
  std::string key_;    // the current top-level key
  State state_ = State::start;
  State events_back_ = State::events;
  bool in_event_ = false;
  bool bare_ = false;
  int skip_depth_ = 0;
};

}  // namespace

void read_trace_events(std::istream& in, TraceEventSink& sink) {
  Walker walker(sink);
  read_json(in, walker);
}

void read_trace_events(std::string_view text, TraceEventSink& sink) {
  Walker walker(sink);
  read_json(text, walker);
}

}  // namespace asyncscope::trace
