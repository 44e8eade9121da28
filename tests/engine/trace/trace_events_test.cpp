#include "engine/trace/trace_events.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/trace/json_reader.h"

namespace asyncscope::trace {
namespace {

// Writes down every part it is handed, as text.
struct Recording final : TraceEventSink {
  std::vector<std::string> parts;
  int depth = JsonBuilder::kAll;
  int member = JsonBuilder::kAll;

  void document(bool bare_array) override { parts.push_back(bare_array ? "bare array" : "object"); }
  void scalar_document(const JsonValue& v) override { parts.push_back("scalar " + v.dump()); }
  void top_key(const std::string& key) override { parts.push_back("key " + key); }
  int member_depth(const std::string& key) override { return key == "skipped" ? -1 : member; }
  void top_member(const std::string& key, JsonValue& v) override { parts.push_back(key + " = " + v.dump()); }
  int event_depth() override { return depth; }
  void event(JsonValue& e) override { parts.push_back("event " + e.dump()); }
  void events_end() override { parts.push_back("end"); }
};

std::vector<std::string> parts_of(std::string_view text, int depth = JsonBuilder::kAll, int member = JsonBuilder::kAll) {
  Recording r;
  r.depth = depth;
  r.member = member;
  read_trace_events(text, r);
  return r.parts;
}

using Parts = std::vector<std::string>;

TEST(TraceEvents, AnObjectsMembersAndEventsComeInDocumentOrder) {
  EXPECT_EQ(parts_of(R"({"otherData":{"v":1},"traceEvents":[{"ph":"X"},3,[1]],"skipped":{"a":[1]},"after":"x"})"),
            (Parts{"object", "key otherData", "otherData = {\"v\":1}", "key traceEvents", "event {\"ph\":\"X\"}",
                   "event 3", "event [1]", "end", "key skipped", "key after", "after = \"x\""}));
}

TEST(TraceEvents, ABareArrayIsItsEvents) {
  EXPECT_EQ(parts_of(R"([{"ph":"B","ts":1.5},{"ph":"E"}])"),
            (Parts{"bare array", "event {\"ph\":\"B\",\"ts\":1.5}", "event {\"ph\":\"E\"}", "end"}));
  EXPECT_EQ(parts_of("[]"), (Parts{"bare array", "end"}));
}

TEST(TraceEvents, AScalarDocumentAndATraceEventsThatIsNoArray) {
  EXPECT_EQ(parts_of("42"), (Parts{"scalar 42"}));
  EXPECT_EQ(parts_of(R"({"traceEvents":{"a":1}})"), (Parts{"object", "key traceEvents", "traceEvents = {\"a\":1}"}));
  EXPECT_EQ(parts_of(R"({"traceEvents":"x"})"), (Parts{"object", "key traceEvents", "traceEvents = \"x\""}));
}

TEST(TraceEvents, EventsAndMembersAreBuiltAsDeepAsAsked) {
  EXPECT_EQ(parts_of(R"({"traceEvents":[{"args":{"dims":[[1]],"id":2}}],"otherData":{"a":{"b":1},"c":2}})", 1, 0),
            (Parts{"object", "key traceEvents", "event {\"args\":{\"dims\":[],\"id\":2}}", "end", "key otherData",
                   "otherData = {\"a\":{},\"c\":2}"}));
}

TEST(TraceEvents, BadJsonThrowsFromTheReader) {
  Recording r;
  EXPECT_THROW(read_trace_events(R"({"traceEvents":[{"ph":"X"},)", r), JsonSyntaxError);
}

}  // namespace
}  // namespace asyncscope::trace
