#include "engine/trace/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace asyncscope::trace {
namespace {

// The length of the UTF-8 sequence starting at s[i] if it is valid, else 0.
size_t utf8_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t j) { return static_cast<unsigned char>(s[j]); };
  const unsigned char c = byte(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t j = 1; j < n; ++j) {
    if ((byte(i + j) & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (byte(i + j) & 0x3F);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void append_escaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0;  // start of the bytes copied as they are
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const size_t n = utf8_length(s, i); n > 0) {
        i += n;
        continue;
      }
    }
    out.append(s.data() + run, i - run);
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        if (c < 0x20) {
          out.append("\\u00");
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.append("\xEF\xBF\xBD");  // not UTF-8: U+FFFD
        }
    }
    run = ++i;
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

// The shortest digits that read back as d, laid out as nlohmann lays them
// out: fixed notation for decimal exponents from -4 to 15 (integers with
// ".0"), else d.ddde+XX with at least two exponent digits.
void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out.append("null");  // JSON has no NaN or infinity
    return;
  }
  if (d == 0) {
    out.append(std::signbit(d) ? "-0.0" : "0.0");
    return;
  }
  char sci[64];
  const auto [end, ec] = std::to_chars(sci, sci + sizeof(sci), d, std::chars_format::scientific);
  (void)ec;
  // "-d.ddde+XX": the digits and the exponent.
  const char* p = sci;
  if (*p == '-') {
    out.push_back('-');
    ++p;
  }
  char digits[32];
  int k = 0;
  for (; p < end && *p != 'e'; ++p) {
    if (*p != '.') digits[k++] = *p;
  }
  int exponent = 0;  // after the 'e': a sign, then digits up to `end` (to_chars ends no string)
  const char* e = p + 1;
  const bool negative = e < end && *e == '-';
  if (e < end && (*e == '-' || *e == '+')) ++e;
  std::from_chars(e, end, exponent);
  if (negative) exponent = -exponent;
  const int n = exponent + 1;  // where the decimal point goes, counted from the first digit
  constexpr int kMinExp = -4, kMaxExp = 15;
  if (k <= n && n <= kMaxExp) {
    out.append(digits, static_cast<size_t>(k));
    out.append(static_cast<size_t>(n - k), '0');
    out.append(".0");
  } else if (0 < n && n <= kMaxExp) {
    out.append(digits, static_cast<size_t>(n));
    out.push_back('.');
    out.append(digits + n, static_cast<size_t>(k - n));
  } else if (kMinExp < n && n <= 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-n), '0');
    out.append(digits, static_cast<size_t>(k));
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out.append(digits + 1, static_cast<size_t>(k - 1));
    }
    const int e = n - 1;
    out.push_back('e');
    out.push_back(e < 0 ? '-' : '+');
    const int magnitude = std::abs(e);
    if (magnitude < 10) out.push_back('0');
    char exp[8];
    const auto [exp_end, exp_ec] = std::to_chars(exp, exp + sizeof(exp), magnitude);
    (void)exp_ec;
    out.append(exp, static_cast<size_t>(exp_end - exp));
  }
}

}  // namespace

std::string json_string(std::string_view s) {
  std::string out;
  append_escaped(out, s);
  return out;
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  buffer_.push_back('{');
  first_.push_back(1);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  buffer_.push_back('}');
  first_.pop_back();
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  buffer_.push_back('[');
  first_.push_back(1);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  buffer_.push_back(']');
  first_.pop_back();
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  buffer_.push_back('"');
  buffer_.append(k);  // a key of the format's own: nothing to escape
  buffer_.append("\":", 2);
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  append_escaped(buffer_, s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  separate();
  buffer_.append(b ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  separate();
  append_double(buffer_, d);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t i) {
  separate();
  char text[24];
  const auto [end, ec] = std::to_chars(text, text + sizeof(text), i);
  (void)ec;
  buffer_.append(text, static_cast<size_t>(end - text));
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t i) {
  separate();
  char text[24];
  const auto [end, ec] = std::to_chars(text, text + sizeof(text), i);
  (void)ec;
  buffer_.append(text, static_cast<size_t>(end - text));
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  buffer_.append("null");
  return *this;
}

JsonWriter& JsonWriter::raw_value(std::string_view json) {
  separate();
  buffer_.append(json);
  maybe_flush();
  return *this;
}

void JsonWriter::flush() {
  if (buffer_.empty()) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

}  // namespace asyncscope::trace
