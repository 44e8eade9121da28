#include "engine/base/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace asyncscope {
namespace {

constexpr const char* kDash = "\xE2\x80\x94";  // — (U+2014)
constexpr const char* kTimes = "\xC3\x97";     // × (U+00D7)

// `v` rounded to `digits` significant digits, printed without an exponent and
// without trailing zeros; %e rounds first so 999.96 becomes "1000", not "1000.0".
// Integer digits are never replaced by zeros: 12345.6 is "12346", not "12350".
std::string significant(double v, int digits = 4) {
  if (v == 0) return "0";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
  const double rounded = std::strtod(buf, nullptr);
  const int exp10 = static_cast<int>(std::floor(std::log10(std::fabs(rounded))));
  const int decimals = std::clamp(digits - 1 - exp10, 0, 15);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, decimals == 0 ? v : rounded);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

// Seconds scaled to the largest unit that keeps the number at or above 1.
std::string format_seconds(double seconds) {
  if (seconds == 0) return "0 s";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3e", seconds);  // the scale follows the rounded value
  const double a = std::fabs(std::strtod(buf, nullptr));
  struct Scale {
    double factor;
    const char* suffix;
  };
  static const Scale kScales[] = {{1, " s"}, {1e3, " ms"}, {1e6, " \xC2\xB5s"}, {1e9, " ns"}};  // \xC2\xB5 = µ
  for (const Scale& s : kScales) {
    if (a * s.factor >= 1 - 1e-9 || s.factor == 1e9) return significant(seconds * s.factor) + s.suffix;
  }
  return significant(seconds) + " s";
}

// Three significant digits of a value >= 1 (or 0) and its unit: "1.23 µs", "45.6 ms", "812 ns".
std::string three_digits(double value, const char* suffix) {
  const double a = std::fabs(value);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, suffix);
  return buf;
}

}  // namespace

std::string format_duration(int64_t ns) {
  const double a = std::fabs(static_cast<double>(ns));
  if (a < 999.5) return std::to_string(ns) + " ns";
  // The unit is picked after rounding, so 999.7 µs reads "1.00 ms", not "1000 µs".
  if (a < 999.5e3) return three_digits(static_cast<double>(ns) / 1e3, "\xC2\xB5s");
  if (a < 999.5e6) return three_digits(static_cast<double>(ns) / 1e6, "ms");
  return three_digits(static_cast<double>(ns) / 1e9, "s");
}

std::string format_bytes(int64_t bytes) {
  static constexpr const char* kSuffix[] = {"B", "KB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (std::fabs(value) >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " B";
  return three_digits(value, kSuffix[unit]);
}

std::string format_count(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string format_value(double value, std::string_view unit) {
  if (!std::isfinite(value)) return kDash;
  if (unit == "s") return format_seconds(value);
  if (unit == "us") return format_seconds(value * 1e-6);
  if (unit == "ms") return format_seconds(value * 1e-3);
  if (unit == "ns") return format_seconds(value * 1e-9);
  if (unit == "B" && std::fabs(value) < 9.2e18) return format_bytes(std::llround(value));
  if (unit == "x") return significant(value) + kTimes;
  if (unit == "%") return significant(value) + "%";
  if (unit.empty()) {
    // Counts and checksums are quoted in full; 1e15 is where doubles stop being exact integers.
    if (value == std::floor(value) && std::fabs(value) < 1e15) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f", value);
      return std::string(buf) == "-0" ? "0" : buf;
    }
    return significant(value);
  }
  return significant(value) + " " + std::string(unit);
}

std::string format_change(double value, double first) {
  if (!std::isfinite(value) || !std::isfinite(first) || first == 0) return "";
  const double r = value / first;
  if (r < 0 || std::fabs(r - 1) < 0.01) return "";
  if (r == 0) return "-100%";
  if (r < 0.5 || r >= 10) return std::string(kTimes) + significant(r, 2);
  const double pct = (r - 1) * 100;
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(pct) >= 10 ? "%+.0f%%" : "%+.1f%%", pct);
  return buf;
}

}  // namespace asyncscope
