// A streaming JSON reader for large traces: it hands each token to a sink as
// it is read (SAX), a block of the input at a time, never building a tree.
// Written for speed on trace files (hundreds of MB/s where a general
// library's lexer gives about 140 MB/s on this project's machine): strings
// are copied once, numbers keep the text they were written with (a
// timestamp's decimals are exact), nesting is tracked on an explicit stack
// (no recursion, so no depth limit but memory).
//
// It accepts RFC 8259 JSON: one value, surrounded by whitespace. Strings
// are checked for escapes and control characters, not for valid UTF-8
// (bytes pass through; whoever prints them escapes them). An integer that
// does not fit 64 bits is handed over as a real, as JSON libraries do; a
// number past a double's range as an infinite real (where a library would
// refuse the document).
//
// Threading: a call reads one input on the calling thread.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace asyncscope::trace {

// What a reader hands over, in document order. A sink throws to stop.
class JsonSink {
 public:
  virtual ~JsonSink() = default;
  virtual void null() = 0;
  virtual void boolean(bool value) = 0;
  virtual void integer(int64_t value) = 0;
  virtual void unsigned_integer(uint64_t value) = 0;  // above INT64_MAX only
  // A number with a fraction or an exponent (or too large for 64 bits), and its text.
  virtual void real(double value, std::string_view text) = 0;
  // The string's text, unescaped; the sink may take it (move from it).
  virtual void string(std::string& text) = 0;
  virtual void key(std::string& text) = 0;
  virtual void begin_object() = 0;
  virtual void end_object() = 0;
  virtual void begin_array() = 0;
  virtual void end_array() = 0;
};

// Bad JSON: "syntax error at byte N: <what>" (N counts from 0).
struct JsonSyntaxError : std::runtime_error {
  JsonSyntaxError(uint64_t byte, const std::string& what);
  uint64_t byte;
};

// Reads one JSON document from `in` (as its buffer gives bytes, `block`
// bytes at a time) or `text`. Throws JsonSyntaxError on bad JSON; whatever
// the stream's buffer or the sink throws passes through.
void read_json(std::istream& in, JsonSink& sink, size_t block = size_t{1} << 18);
void read_json(std::string_view text, JsonSink& sink);

}  // namespace asyncscope::trace
