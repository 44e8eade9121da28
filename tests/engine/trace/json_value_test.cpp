#include "engine/trace/json_value.h"

#include <gtest/gtest.h>

#include "engine/trace/json_reader.h"

namespace asyncscope::trace {
namespace {

TEST(JsonValue, KeepsTypesAsWritten) {
  const JsonValue v = parse_json_value(R"({"n":-3,"u":18446744073709551615,"r":1.250,"s":"a\"b","b":true,"z":null})");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.size(), 6u);
  EXPECT_TRUE(v.find("n")->is_integer());
  EXPECT_FALSE(v.find("n")->is_unsigned());
  EXPECT_EQ(v.find("n")->as_int64(), -3);
  EXPECT_TRUE(v.find("u")->is_unsigned());
  EXPECT_EQ(v.find("u")->as_uint64(), UINT64_MAX);
  EXPECT_EQ(v.find("r")->type(), JsonValue::Type::real);
  EXPECT_EQ(v.find("r")->text(), "1.250");  // the digits as written
  EXPECT_DOUBLE_EQ(v.find("r")->number(), 1.25);
  EXPECT_EQ(v.find("s")->text(), "a\"b");
  EXPECT_TRUE(v.find("b")->boolean());
  EXPECT_TRUE(v.find("z")->is_null());
  EXPECT_EQ(v.find("missing"), nullptr);
  EXPECT_EQ(v.find("u")->a_type(), "a number");
  EXPECT_EQ(v.a_type(), "an object");
}

TEST(JsonValue, ARepeatedKeyFindsTheLastAsAJsonLibrarysMapDoes) {
  const JsonValue v = parse_json_value(R"({"a":1,"a":2})");
  EXPECT_EQ(v.find("a")->as_int64(), 2);
}

TEST(JsonValue, DumpsCompactJson) {
  const std::string text = R"({"a":[1,-2,3.50,"x\u000a",{"b":null,"c":false}],"d":{}})";
  EXPECT_EQ(parse_json_value(text).dump(), text);
}

TEST(JsonValue, CopiesAreDeepAndIntegerValuesIncludeWholeReals) {
  JsonValue v = parse_json_value(R"([[1,2],{"k":"v"}])");
  const JsonValue copy = v;
  v = parse_json_value("7");
  EXPECT_EQ(copy.dump(), R"([[1,2],{"k":"v"}])");
  int64_t i = 0;
  EXPECT_TRUE(parse_json_value("2.0").integer_value(i));
  EXPECT_EQ(i, 2);
  EXPECT_FALSE(parse_json_value("2.5").integer_value(i));
  EXPECT_FALSE(parse_json_value("\"2\"").integer_value(i));
}

TEST(JsonValue, BadJsonThrows) {
  EXPECT_THROW(parse_json_value("{\"a\":}"), JsonSyntaxError);
  EXPECT_THROW(parse_json_value("[1,2"), JsonSyntaxError);
}

// A builder told a depth keeps containers down to it and marks deeper ones
// elided, reading past their contents.
TEST(JsonBuilder, ElidesContainersDeeperThanAsked) {
  struct Sink final : JsonSink {
    JsonBuilder b;
    bool complete = false;
    void null() override { complete = b.scalar_null(); }
    void boolean(bool v) override { complete = b.scalar_boolean(v); }
    void integer(int64_t v) override { complete = b.scalar_integer(v); }
    void unsigned_integer(uint64_t v) override { complete = b.scalar_unsigned(v); }
    void real(double v, std::string_view t) override { complete = b.scalar_real(v, t); }
    void string(std::string& t) override { complete = b.scalar_string(t); }
    void key(std::string& t) override { b.key(t); }
    void begin_object() override { b.begin(true); }
    void end_object() override { complete = b.end(); }
    void begin_array() override { b.begin(false); }
    void end_array() override { complete = b.end(); }
  };
  JsonValue v;
  Sink sink;
  sink.b.start(v, 1);
  read_json(R"({"ph":"X","args":{"id":3,"dims":[[1,2],[3]]},"stack":["a"]})", sink);
  EXPECT_TRUE(sink.complete);
  EXPECT_EQ(v.find("ph")->text(), "X");
  const JsonValue& args = *v.find("args");
  EXPECT_FALSE(args.elided());
  EXPECT_EQ(args.find("id")->as_int64(), 3);
  EXPECT_TRUE(args.find("dims")->is_array());
  EXPECT_TRUE(args.find("dims")->elided());
  EXPECT_EQ(args.find("dims")->size(), 0u);
  EXPECT_FALSE(v.find("stack")->elided());

  // Reused for the next value: what the first left is gone.
  sink.b.start(v, 0);
  sink.complete = false;
  read_json(R"({"ph":"B","args":{"x":1}})", sink);
  EXPECT_TRUE(sink.complete);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_TRUE(v.find("args")->elided());
  EXPECT_EQ(v.dump(), R"({"ph":"B","args":{}})");
}

}  // namespace
}  // namespace asyncscope::trace
