// The benchmarks' view of the process's memory: a field of /proc/self/status
// (VmRSS, VmHWM) and a reset of the kernel's peak-RSS mark, for peak_rss_MB.
// Threading: any thread (the kernel's answer is the whole process's).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace asyncscope::bench {

// A /proc/self/status field in kB ("VmHWM"), or -1.
inline int64_t status_kb(const char* field) {
  std::ifstream f("/proc/self/status");
  const std::string key = std::string(field) + ":";
  for (std::string line; std::getline(f, line);) {
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(key.size()));
  }
  return -1;
}

// Resets the kernel's peak-RSS mark (VmHWM) to the current RSS.
inline void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

}  // namespace asyncscope::bench
