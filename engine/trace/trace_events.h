// The one reader of Chrome trace-event documents, for every importer (our
// own exports, Kineto, the JSON Array format, MXNet, any Chrome trace): it
// walks the document on json_reader.h's streaming reader and hands over its
// parts as JsonValues, one at a time, as soon as each is complete:
//   - the document's top-level members (otherData, deviceProperties,
//     distributedInfo, ...), each built as deep as the importer asks, or
//     skipped;
//   - each element of traceEvents (or of a bare array: the JSON Array
//     format), object or not, built as deep as the importer asks, into one
//     value reused from event to event (no allocation once the largest
//     event was read).
// A large file is never held whole: the text a block at a time, and one
// event.
//
// Threading: a call reads one input on the calling thread.
#pragma once

#include <istream>
#include <string>
#include <string_view>

#include "engine/trace/json_value.h"

namespace asyncscope::trace {

// What an importer does with the parts. Throws to stop.
class TraceEventSink {
 public:
  virtual ~TraceEventSink() = default;
  // The document is an object (bare_array false) or a bare array of events.
  virtual void document(bool bare_array) = 0;
  // The document is not a container: it is this scalar.
  virtual void scalar_document(const JsonValue& value) = 0;
  // A top-level key, before its value is read.
  virtual void top_key(const std::string& key) { (void)key; }
  // How deep to build the top-level member `key` (JsonBuilder's depth), or
  // -1 to read past it. Not asked for traceEvents when it is an array.
  virtual int member_depth(const std::string& key) = 0;
  virtual void top_member(const std::string& key, JsonValue& value) = 0;
  // The events array begins (traceEvents', or the bare array's).
  virtual void events_begin() {}
  // How deep to build each event (JsonBuilder's depth).
  virtual int event_depth() { return JsonBuilder::kAll; }
  // One element of the events array; the sink may move from it.
  virtual void event(JsonValue& event) = 0;
  // The end of the events array.
  virtual void events_end() {}
};

// Reads one document. Throws JsonSyntaxError (json_reader.h) on bad JSON;
// whatever the stream's buffer or the sink throws passes through.
void read_trace_events(std::istream& in, TraceEventSink& sink);
void read_trace_events(std::string_view text, TraceEventSink& sink);

}  // namespace asyncscope::trace
