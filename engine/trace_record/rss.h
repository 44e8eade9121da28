// Resident set size of this process, read from /proc/self/statm through a
// file descriptor kept open (one pread per sample, no open/close churn).
// Threading: one RssReader per thread (read() is not synchronised).
#pragma once

#include <cstdint>

namespace asyncscope::trace {

class RssReader {
 public:
  RssReader();
  ~RssReader();
  RssReader(const RssReader&) = delete;
  RssReader& operator=(const RssReader&) = delete;

  // Current RSS in bytes; -1 if /proc is unavailable.
  int64_t read() const;

 private:
  int fd_ = -1;
  int64_t page_size_ = 4096;
};

}  // namespace asyncscope::trace
