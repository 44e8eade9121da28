#include "engine/trace/json_reader.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace asyncscope::trace {

JsonSyntaxError::JsonSyntaxError(uint64_t at, const std::string& what)
    : std::runtime_error("syntax error at byte " + std::to_string(at) + ": " + what), byte(at) {}

namespace {

class Reader {
 public:
  Reader(std::streambuf* in, JsonSink& sink, size_t block) : in_(in), sink_(sink) {
    block_.resize(block == 0 ? 1 : block);
    begin_ = p_ = end_ = block_.data();
  }
  Reader(std::string_view text, JsonSink& sink) : in_(nullptr), sink_(sink) {
    p_ = text.data();
    end_ = text.data() + text.size();
    begin_ = p_;
  }

  void run() {
    enum class State : uint8_t { value, array_first, object_first, object_key, after };
    State state = State::value;
    std::vector<char> stack;  // 'a' or 'o' per open container
    for (;;) {
      const int c = skip_ws();
      switch (state) {
        case State::value:
          if (c < 0) fail("the text ends where a value should be");
          if (c == '{') {
            ++p_;
            sink_.begin_object();
            stack.push_back('o');
            state = State::object_first;
          } else if (c == '[') {
            ++p_;
            sink_.begin_array();
            stack.push_back('a');
            state = State::array_first;
          } else {
            scalar(c);
            state = State::after;
          }
          break;
        case State::array_first:
          if (c == ']') {
            ++p_;
            stack.pop_back();
            sink_.end_array();
            state = State::after;
          } else {
            state = State::value;
          }
          break;
        case State::object_first:
          if (c == '}') {
            ++p_;
            stack.pop_back();
            sink_.end_object();
            state = State::after;
            break;
          }
          [[fallthrough]];
        case State::object_key:
          if (c != '"') fail(c < 0 ? "the text ends where a key should be" : "expected a key (a string), found " + shown(c));
          ++p_;
          read_string(scratch_);
          sink_.key(scratch_);
          if (skip_ws() != ':') fail("expected ':' after a key, found " + shown(peek()));
          ++p_;
          state = State::value;
          break;
        case State::after:
          if (stack.empty()) {
            if (c >= 0) fail("unexpected " + shown(c) + " after the JSON value");
            return;
          }
          if (c == ',') {
            ++p_;
            state = stack.back() == 'a' ? State::value : State::object_key;
          } else if (stack.back() == 'a' && c == ']') {
            ++p_;
            stack.pop_back();
            sink_.end_array();
          } else if (stack.back() == 'o' && c == '}') {
            ++p_;
            stack.pop_back();
            sink_.end_object();
          } else {
            fail(c < 0 ? "the text ends inside " + std::string(stack.back() == 'a' ? "an array" : "an object")
                       : std::string("expected ',' or '") + (stack.back() == 'a' ? ']' : '}') + "', found " + shown(c));
          }
          break;
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw JsonSyntaxError(consumed_ + static_cast<uint64_t>(p_ - begin_), what);
  }
  static std::string shown(int c) {
    if (c < 0) return "the end of the text";
    if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return buf;
  }

  // Makes p_ < end_ unless the input has ended; false then.
  bool more() {
    if (p_ < end_) return true;
    if (in_ == nullptr) return false;
    consumed_ += static_cast<uint64_t>(end_ - begin_);
    const std::streamsize n = in_->sgetn(block_.data(), static_cast<std::streamsize>(block_.size()));
    begin_ = p_ = block_.data();
    end_ = p_ + (n > 0 ? n : 0);
    return n > 0;
  }
  int peek() { return more() ? static_cast<unsigned char>(*p_) : -1; }

  int skip_ws() {
    for (;;) {
      while (p_ < end_) {
        const char c = *p_;
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return static_cast<unsigned char>(c);
        ++p_;
      }
      if (!more()) return -1;
    }
  }

  void literal(const char* word, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (peek() != word[i]) fail(std::string("expected '") + word + "'");
      ++p_;
    }
  }

  void scalar(int c) {
    switch (c) {
      case '"':
        ++p_;
        read_string(scratch_);
        sink_.string(scratch_);
        return;
      case 't': literal("true", 4); return sink_.boolean(true);
      case 'f': literal("false", 5); return sink_.boolean(false);
      case 'n': literal("null", 4); return sink_.null();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        fail("unexpected " + shown(c));
    }
  }

  void number() {
    number_.clear();
    const auto take_digits = [this]() {
      size_t n = 0;
      for (int c = peek(); c >= '0' && c <= '9'; c = peek()) {
        number_.push_back(static_cast<char>(c));
        ++p_;
        ++n;
      }
      return n;
    };
    bool real = false;
    if (peek() == '-') {
      number_.push_back('-');
      ++p_;
    }
    const int first = peek();
    if (first < '0' || first > '9') fail("a '-' without digits");
    if (first == '0') {
      number_.push_back('0');
      ++p_;
      const int next = peek();
      if (next >= '0' && next <= '9') fail("a number with a leading zero");
    } else {
      take_digits();
    }
    if (peek() == '.') {
      real = true;
      number_.push_back('.');
      ++p_;
      if (take_digits() == 0) fail("a '.' without digits after it");
    }
    if (const int e = peek(); e == 'e' || e == 'E') {
      real = true;
      number_.push_back('e');
      ++p_;
      if (const int sign = peek(); sign == '+' || sign == '-') {
        number_.push_back(static_cast<char>(sign));
        ++p_;
      }
      if (take_digits() == 0) fail("an exponent without digits");
    }
    const char* a = number_.data();
    const char* b = a + number_.size();
    if (!real) {
      if (number_[0] == '-') {
        int64_t v = 0;
        if (std::from_chars(a, b, v).ec == std::errc()) return sink_.integer(v);
      } else {
        uint64_t v = 0;
        if (std::from_chars(a, b, v).ec == std::errc()) {
          if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return sink_.integer(static_cast<int64_t>(v));
          return sink_.unsigned_integer(v);
        }
      }
    }
    double d = 0;
    const auto [end, ec] = std::from_chars(a, b, d);
    if (ec == std::errc::result_out_of_range || !std::isfinite(d)) {
      d = number_[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    } else if (ec != std::errc() || end != b) {
      fail("a number that cannot be read");
    }
    sink_.real(d, number_);
  }

  static int hex(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  uint32_t read_hex4() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = hex(peek());
      if (h < 0) fail("a \\u escape without four hex digits");
      v = v * 16 + static_cast<uint32_t>(h);
      ++p_;
    }
    return v;
  }
  static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // After the opening quote: the string's text, unescaped, into `out`.
  void read_string(std::string& out) {
    out.clear();
    for (;;) {
      const char* start = p_;
      while (p_ < end_) {
        const unsigned char c = static_cast<unsigned char>(*p_);
        if (c == '"' || c == '\\' || c < 0x20) break;
        ++p_;
      }
      out.append(start, static_cast<size_t>(p_ - start));
      if (p_ == end_) {
        if (!more()) fail("the text ends inside a string");
        continue;
      }
      const char c = *p_;
      if (c == '"') {
        ++p_;
        return;
      }
      if (c != '\\') fail("a control character (" + shown(static_cast<unsigned char>(c)) + ") inside a string");
      ++p_;
      const int e = peek();
      if (e < 0) fail("the text ends inside a string");
      ++p_;
      escape(out, e);
    }
  }

  // The escape \e (the backslash and e read). A surrogate that is not half
  // of a pair (Python's json writes such escapes for undecodable bytes of a
  // file name, "\udcff") becomes U+FFFD, as decoders replace what they cannot
  // represent: one such name must not make the whole trace unreadable.
  void escape(std::string& out, int e) {
    switch (e) {
      case '"': out.push_back('"'); return;
      case '\\': out.push_back('\\'); return;
      case '/': out.push_back('/'); return;
      case 'b': out.push_back('\b'); return;
      case 'f': out.push_back('\f'); return;
      case 'n': out.push_back('\n'); return;
      case 'r': out.push_back('\r'); return;
      case 't': out.push_back('\t'); return;
      case 'u': break;
      default:
        --p_;
        fail("an unknown escape \\" + std::string(1, static_cast<char>(e)));
    }
    constexpr uint32_t kReplacement = 0xFFFD;
    uint32_t cp = read_hex4();
    while (cp >= 0xD800 && cp <= 0xDBFF) {
      if (peek() != '\\') {
        cp = kReplacement;  // a high half, then anything but an escape
        break;
      }
      ++p_;
      const int next = peek();
      if (next < 0) fail("the text ends inside a string");
      ++p_;
      if (next != 'u') {
        put_utf8(out, kReplacement);
        escape(out, next);
        return;
      }
      const uint32_t low = read_hex4();
      if (low >= 0xDC00 && low <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        break;
      }
      put_utf8(out, kReplacement);  // a high half, then another escape: that one on its own
      cp = low;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF) cp = kReplacement;  // a low half alone
    put_utf8(out, cp);
  }

  std::streambuf* in_;
  JsonSink& sink_;
  std::vector<char> block_;
  const char* begin_ = nullptr;  // the current block's start
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  uint64_t consumed_ = 0;  // bytes of the blocks before this one
  std::string scratch_, number_;
};

}  // namespace

void read_json(std::istream& in, JsonSink& sink, size_t block) {
  Reader r(in.rdbuf(), sink, block);
  r.run();
}

void read_json(std::string_view text, JsonSink& sink) {
  Reader r(text, sink);
  r.run();
}

}  // namespace asyncscope::trace
