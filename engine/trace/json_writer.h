// A streaming JSON writer for traces of millions of events (the export's
// counterpart of json_reader.h): values go straight into a buffer flushed
// to an ostream, with no tree and no allocation per value, about ten times
// the speed of building each event as a nlohmann::json and dumping it.
//
// Numbers: integers as they are; doubles in the shortest form that reads
// back to the same double (std::to_chars), as nlohmann writes them ("2.5",
// "2000.0", "1e-05"), so files compare with those written before. Strings:
// '"', '\\' and control characters escaped (\n \t ... or \u00XX), UTF-8 kept,
// and a byte that is not valid UTF-8 written as U+FFFD: an exception text
// from a foreign library cannot make the file unreadable.
//
// Keys are written in the order the caller gives; callers write them sorted,
// as nlohmann's objects do, so files stay comparable.
//
// Threading: one writer per thread; not copyable.
#pragma once

#include <cstdint>
#include <exception>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace asyncscope::trace {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) { buffer_.reserve(kFlushAt + 4096); }
  // Hands on what is left, unless an exception is unwinding the writer (a
  // stream that failed: writing more would only throw again). A failure
  // here shows in the stream's state; call flush() to have it thrown.
  ~JsonWriter() noexcept {
    if (std::uncaught_exceptions() > 0) return;
    try {
      flush();
    } catch (...) {
    }
  }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The next member's key (inside an object): a name of the format's own,
  // plain ASCII without quotes or backslashes, written as it is.
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double d);
  JsonWriter& value(int64_t i);
  JsonWriter& value(uint64_t i);
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(unsigned i) { return value(static_cast<uint64_t>(i)); }
  JsonWriter& null();
  // Text that is JSON already (a document made elsewhere), as one value.
  JsonWriter& raw_value(std::string_view json);
  // Text between values, outside the writer's structure ("\n").
  void raw(std::string_view text) { buffer_.append(text); }

  // key(k).value(v).
  template <class T>
  JsonWriter& member(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  // Hands what is buffered to the stream (also done when the buffer fills).
  void flush();

 private:
  static constexpr size_t kFlushAt = size_t{1} << 16;
  // A comma before a value that is not its container's first.
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (first_.back() == 0) buffer_.push_back(',');
      first_.back() = 0;
    }
  }
  void maybe_flush() {
    if (buffer_.size() >= kFlushAt) flush();
  }

  std::ostream& out_;
  std::string buffer_;
  std::vector<char> first_;  // per open container: no value written yet (1)
  bool after_key_ = false;
};

// A string escaped and quoted as JsonWriter writes it.
std::string json_string(std::string_view s);

}  // namespace asyncscope::trace
