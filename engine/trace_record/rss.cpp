#include "engine/trace_record/rss.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace asyncscope::trace {

RssReader::RssReader() : fd_(::open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) {
  if (const long p = ::sysconf(_SC_PAGESIZE); p > 0) page_size_ = p;
}

RssReader::~RssReader() {
  if (fd_ >= 0) ::close(fd_);
}

int64_t RssReader::read() const {
  if (fd_ < 0) return -1;
  char buf[128];
  const ssize_t n = ::pread(fd_, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return -1;
  buf[n] = '\0';
  // statm: "size resident shared text lib data dt", in pages.
  char* end = nullptr;
  std::strtoll(buf, &end, 10);
  const long long resident = std::strtoll(end, nullptr, 10);
  return resident * page_size_;
}

}  // namespace asyncscope::trace
