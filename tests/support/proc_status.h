// A field of /proc/self/status (VmRSS in kB, Threads, ...): what tests of
// many run/stop cycles watch for leaks of memory and threads.
// Threading: any thread.
#pragma once

#include <fstream>
#include <string>

namespace asyncscope::testing {

// The field's leading number, or -1 if the field is missing.
inline long status_field(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(key.size()));
  }
  return -1;
}

}  // namespace asyncscope::testing
