// How numbers read wherever asyncscope shows them: the CLI's tables, the
// app's panels and tooltips, error messages. One module, so the terminal,
// the window and a message quote the same value the same way.
//   - format_value: result values, four significant digits and never an
//     exponent; times scaled to s/ms/µs/ns; whole unitless numbers (counts,
//     checksums) in full; NaN and infinities as a dash;
//   - format_duration, format_bytes, format_count: a span, a size, a count
//     in a label, three significant digits (sizes in binary units: 1 KB is
//     1024 bytes, as the counters' lanes plot them).
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace asyncscope {

// value in `unit` ("s", "ms", "us", "ns", "x", "%", "MB", "GFLOP/s", "" ...),
// e.g. 0.1836 "s" -> "183.6 ms", 2.7e-6 "s" -> "2.7 µs", 255.6 "MB" -> "255.6 MB";
// "B" scales bytes in binary units: 512 -> "512 B", 12582912 -> "12 MB".
std::string format_value(double value, std::string_view unit);

// A duration with three significant digits: "812 ns", "1.23 µs", "45.6 ms", "2.35 s".
std::string format_duration(int64_t ns);
// Bytes with a binary unit: "512 B", "1.50 KB", "23.4 MB", "1.21 GB".
std::string format_bytes(int64_t bytes);
// A count with thousands separators: "1,234,567".
std::string format_count(uint64_t n);

// How `value` compares with `first`: "+412%", "-35%", "×0.21", "×20"; "" when
// the change is under 1%, a sign flips, or `first` is 0 or not finite.
std::string format_change(double value, double first);

}  // namespace asyncscope
