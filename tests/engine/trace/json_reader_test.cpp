// The trace JSON reader against nlohmann's parser: the same documents
// accepted with the same values (rebuilt from the reader's tokens), the
// same ones refused, whatever the block size the input arrives in.
#include "engine/trace/json_reader.h"

#include <limits>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace asyncscope::trace {
namespace {

using nlohmann::json;

// Rebuilds the document from the tokens.
class Builder final : public JsonSink {
 public:
  json result;
  std::vector<std::string> reals;  // the text of each real, as written

  void null() override { put(nullptr); }
  void boolean(bool v) override { put(v); }
  void integer(int64_t v) override { put(v); }
  void unsigned_integer(uint64_t v) override {
    EXPECT_GT(v, static_cast<uint64_t>(INT64_MAX));
    put(v);
  }
  void real(double v, std::string_view text) override {
    reals.emplace_back(text);
    put(v);
  }
  void string(std::string& s) override { put(s); }
  void key(std::string& k) override { key_ = k; }
  void begin_object() override { open(json::object()); }
  void end_object() override { stack_.pop_back(); }
  void begin_array() override { open(json::array()); }
  void end_array() override { stack_.pop_back(); }

 private:
  void put(json v) {
    if (stack_.empty()) {
      result = std::move(v);
    } else if (stack_.back()->is_array()) {
      stack_.back()->push_back(std::move(v));
    } else {
      (*stack_.back())[key_] = std::move(v);
    }
  }
  void open(json v) {
    if (stack_.empty()) {
      result = std::move(v);
      stack_.push_back(&result);
    } else if (stack_.back()->is_array()) {
      stack_.back()->push_back(std::move(v));
      stack_.push_back(&stack_.back()->back());
    } else {
      json& slot = (*stack_.back())[key_];
      slot = std::move(v);
      stack_.push_back(&slot);
    }
  }
  std::vector<json*> stack_;
  std::string key_;
};

const char* const kValid[] = {
    "0", "-0", "17", "-9223372036854775808", "9223372036854775807", "18446744073709551615", "1.5", "-2.5e-3",
    "123456789012345678901234567890", "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
    "\"\\u00e9\\u20ac\\ud83d\\ude00\"", "\"caf\xc3\xa9\"", "true", "false", "null", "[]", "{}", " [ 1 , 2 ,[3,[]] ] ",
    "{\"a\":{\"b\":[{\"c\":null}]},\"d\":1.25}", "{\"k\":1,\"k\":2}", "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]",
    "\n\t\r {\"ts\":1700000000000000.125,\"dur\":\"3.5\"}\n"};

const char* const kInvalid[] = {"",        " ",          "[",         "]",        "{",         "{\"a\"}",
                                "{\"a\":}", "{\"a\":1,}", "[1,]",      "[1 2]",    "01",        "-",
                                "1.",      ".5",         "1e",        "+1",       "tru",       "nul",
                                "\"abc",   "\"\\x\"",    "\"\\u12\"", "\"a\nb\"", "[1]]",
                                "{} {}",   "{1:2}",      "NaN",       "[\"\\"};

void read_in_blocks(const std::string& text, Builder& b, size_t block) {
  std::istringstream in(text);
  read_json(in, b, block);
}

TEST(JsonReader, AcceptsWhatNlohmannAcceptsWithTheSameValues) {
  for (const char* text : kValid) {
    SCOPED_TRACE(text);
    const json expected = json::parse(text);
    for (const size_t block : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{1} << 18}) {
      Builder b;
      read_in_blocks(text, b, block);
      EXPECT_EQ(b.result, expected) << "block " << block;
    }
    Builder whole;
    read_json(std::string_view(text), whole);
    EXPECT_EQ(whole.result, expected);
  }
}

TEST(JsonReader, RefusesWhatNlohmannRefusesWithTheByte) {
  for (const char* text : kInvalid) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(json::accept(text));
    for (const size_t block : {size_t{1}, size_t{5}, size_t{1} << 18}) {
      Builder b;
      try {
        read_in_blocks(text, b, block);
        ADD_FAILURE() << "accepted in blocks of " << block;
      } catch (const JsonSyntaxError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("syntax error at byte ", 0), 0u) << e.what();
        EXPECT_LE(e.byte, std::string_view(text).size());
      }
    }
  }
}

// Where nlohmann refuses the whole text, a surrogate escape that is not half
// of a pair (Python's json writes "\udcff" for an undecodable byte of a file
// name) reads as U+FFFD, in blocks of any size; pairs still make their code point.
TEST(JsonReader, ALoneSurrogateIsTheReplacementCharacter) {
  const std::string fffd = "\xEF\xBF\xBD";
  const std::pair<const char*, std::string> cases[] = {
      {"[\"op\\udcff\"]", "op" + fffd},
      {"[\"\\ud800\"]", fffd},
      {"[\"\\ud800x\"]", fffd + "x"},
      {"[\"\\ud800\\n\"]", fffd + "\n"},
      {"[\"\\ud800\\u0041\"]", fffd + "A"},
      {"[\"\\ud800\\ud800\\udc00\"]", fffd + "\xF0\x90\x80\x80"},
      {"[\"\\ud83d\\ude00\"]", "\xF0\x9F\x98\x80"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    for (const size_t block : {size_t{1}, size_t{3}, size_t{1} << 18}) {
      Builder b;
      read_in_blocks(text, b, block);
      EXPECT_EQ(b.result[0].get<std::string>(), expected) << "block " << block;
    }
  }
}

TEST(JsonReader, RealsKeepTheTextTheyWereWrittenWith) {
  Builder b;
  read_json(std::string_view("[1700000000000000.125, 2.50, 1e3]"), b);
  EXPECT_EQ(b.reals, (std::vector<std::string>{"1700000000000000.125", "2.50", "1e3"}));
}

// nlohmann refuses a number past a double's range; a trace field holding
// one is out of range all the same, so the reader hands it over as infinite
// and the importer says which field it was.
TEST(JsonReader, ANumberPastADoublesRangeIsInfinite) {
  Builder b;
  read_json(std::string_view("[1E400, -1e999]"), b);
  EXPECT_EQ(b.result[0].get<double>(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(b.result[1].get<double>(), -std::numeric_limits<double>::infinity());
}

TEST(JsonReader, TheByteOfAnErrorCountsAcrossBlocks) {
  const std::string text = "[" + std::string(100, ' ') + "1, x]";
  Builder b;
  try {
    read_in_blocks(text, b, 8);
    ADD_FAILURE();
  } catch (const JsonSyntaxError& e) {
    EXPECT_EQ(e.byte, text.find('x'));
  }
}

}  // namespace
}  // namespace asyncscope::trace
