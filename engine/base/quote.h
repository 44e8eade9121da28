// User-supplied text (paths, option values, strings read from a trace) made
// safe to print inside a one-line message: a newline, an ESC sequence or any
// other control character in it can neither break the line nor drive the
// terminal. The one place that escapes such text, for the CLI, the app and
// the trace importer.
// Threading: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace asyncscope {

// `text` between `mark` characters, escaped: the mark and the backslash get
// a backslash; \n, \r, \t as such; other C0 controls and DEL as \xNN; C1
// controls (U+0080..U+009F, which some terminals obey) as \u00NN; a byte that
// is not part of valid UTF-8 as \xNN. Other UTF-8 text (é, µ) is kept.
// quote("a\nb") == "'a\\nb'". (Not named quoted: std::quoted would win by ADL.)
std::string quote(std::string_view text, char mark = '\'');

// The same escapes without the quotes, leaving quotes and backslashes alone:
// for a whole message that may hold text from elsewhere (a library's error),
// so nothing unescaped reaches the terminal. Idempotent on its own output.
std::string escape_controls(std::string_view text);

}  // namespace asyncscope
