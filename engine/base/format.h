// How result values read in tables (the CLI's and the app's): four
// significant digits and never an exponent; times scaled to s/ms/µs/ns;
// whole unitless numbers (counts, checksums) in full; NaN and infinities as
// a dash. One formatter, so the terminal and the window quote the same numbers.
// Threading: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace asyncscope {

// value in `unit` ("s", "ms", "us", "ns", "x", "%", "MB", "GFLOP/s", "" ...),
// e.g. 0.1836 "s" -> "183.6 ms", 2.7e-6 "s" -> "2.7 µs", 255.6 "MB" -> "255.6 MB";
// "B" scales bytes in binary units: 512 -> "512 B", 12582912 -> "12 MB".
std::string format_value(double value, std::string_view unit);

// How `value` compares with `first`: "+412%", "-35%", "×0.21", "×20"; "" when
// the change is under 1%, a sign flips, or `first` is 0 or not finite.
std::string format_change(double value, double first);

}  // namespace asyncscope
