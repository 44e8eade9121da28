#include "engine/base/quote.h"

#include <gtest/gtest.h>

#include <string>

namespace asyncscope {
namespace {

TEST(Quote, PlainTextIsQuotedAsIs) {
  EXPECT_EQ(quote("run.json"), "'run.json'");
  EXPECT_EQ(quote(""), "''");
  EXPECT_EQ(quote("µs × é"), "'µs × é'");  // valid UTF-8 is kept
}

TEST(Quote, QuoteAndBackslashAreEscaped) {
  EXPECT_EQ(quote("it's"), "'it\\'s'");
  EXPECT_EQ(quote("a\\b"), "'a\\\\b'");
  EXPECT_EQ(quote("say \"x\"", '"'), "\"say \\\"x\\\"\"");
  EXPECT_EQ(quote("it's", '"'), "\"it's\"");
}

TEST(Quote, ControlCharactersCannotReachTheTerminal) {
  EXPECT_EQ(quote("a\nb\rc\td"), "'a\\nb\\rc\\td'");
  EXPECT_EQ(quote("\x1b[2J\x1b]0;title\x07"), "'\\x1b[2J\\x1b]0;title\\x07'");
  EXPECT_EQ(quote(std::string("nul\0here", 8)), "'nul\\x00here'");
  EXPECT_EQ(quote("del\x7f"), "'del\\x7f'");
  // C1 controls, as UTF-8 (U+009B is a CSI in some terminals).
  EXPECT_EQ(quote("\xc2\x9b" "31m"), "'\\u009b31m'");
  EXPECT_EQ(quote("\xc2\x85"), "'\\u0085'");
}

TEST(Quote, InvalidUtf8BytesAreEscapedOneByOne) {
  EXPECT_EQ(quote("\xff\xfe"), "'\\xff\\xfe'");
  EXPECT_EQ(quote("\x9b" "1m"), "'\\x9b1m'");        // a bare C1 byte
  EXPECT_EQ(quote("\xc3"), "'\\xc3'");               // truncated sequence
  EXPECT_EQ(quote("\xc0\xaf"), "'\\xc0\\xaf'");      // overlong '/'
  EXPECT_EQ(quote("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");  // a surrogate
  EXPECT_EQ(quote("\xf0\x9f\x98\x80"), "'\xf0\x9f\x98\x80'");  // U+1F600 is fine
}

TEST(Quote, EscapeControlsLeavesQuotesAndBackslashesAlone) {
  EXPECT_EQ(escape_controls("bad 'x\\y'\n\x1b[31m"), "bad 'x\\y'\\n\\x1b[31m");
  const std::string once = escape_controls("a\nb\x1b\xff\xc2\x9b");
  EXPECT_EQ(escape_controls(once), once);
  for (const char c : once) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 && u < 0x7f) << once;
  }
}

}  // namespace
}  // namespace asyncscope
