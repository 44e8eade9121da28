#include "engine/base/quote.h"

#include <cstdint>
#include <cstdio>

namespace asyncscope {
namespace {

void append_hex(std::string& out, const char* prefix, unsigned value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%s%0*x", prefix, digits, value);
  out += buf;
}

// Length of the valid UTF-8 sequence at text[i] (2..4), or 0 if it is not one
// (stray continuation byte, truncated, overlong, surrogate, past U+10FFFF).
size_t utf8_length(std::string_view text, size_t i, uint32_t& code) {
  const auto byte = [&text](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t n = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    code = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  const uint32_t smallest = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
  if (code < smallest || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return n;
}

// Escapes control characters and invalid UTF-8; with `mark` set, also that
// character and the backslash.
std::string escape(std::string_view text, char mark) {
  std::string out;
  out.reserve(text.size() + 2);
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (mark != 0 && (c == static_cast<unsigned char>(mark) || c == '\\')) {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20 || c == 0x7F) {
        append_hex(out, "\\x", c, 2);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    uint32_t code = 0;
    const size_t n = utf8_length(text, i, code);
    if (n == 0) {
      append_hex(out, "\\x", c, 2);
      ++i;
    } else if (code <= 0x9F) {
      append_hex(out, "\\u", code, 4);
      i += n;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace

std::string quote(std::string_view text, char mark) { return mark + escape(text, mark) + mark; }

std::string escape_controls(std::string_view text) { return escape(text, 0); }

}  // namespace asyncscope
