// Reading a trace file for chrome_trace.h's import: which files are read at
// all (regular files under the size cap; a FIFO or a device is refused
// before a byte is read), and the file's bytes handed to the parser as it
// asks for them, so the text is never held whole.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <istream>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "engine/base/quote.h"
#include "engine/trace/chrome_trace.h"

namespace asyncscope::trace {
namespace {

// Why a read of the trace file failed part way (a disk error, a file that
// grew past the cap while it was read): reported as such, not as bad JSON.
struct ReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The file's bytes for the JSON parser, a block at a time, at most `limit` of
// them. Owns the descriptor.
class FdReader : public std::streambuf {
 public:
  FdReader(int fd, int64_t limit) : fd_(fd), left_(limit) {}
  ~FdReader() override { ::close(fd_); }
  FdReader(const FdReader&) = delete;
  FdReader& operator=(const FdReader&) = delete;

 protected:
  int_type underflow() override {
    ssize_t n = 0;
    do {
      n = ::read(fd_, buffer_, sizeof(buffer_));
    } while (n < 0 && errno == EINTR);
    // Thrown, not returned as end of input: the parser calls this streambuf
    // directly, and the reason must reach the message.
    if (n < 0) throw ReadError(std::strerror(errno));
    if (n == 0) return traits_type::eof();
    left_ -= n;
    if (left_ < 0) throw ReadError("it grew past " + std::to_string(kMaxTraceFileBytes) + " bytes while it was read");
    setg(buffer_, buffer_, buffer_ + n);
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  int fd_;
  int64_t left_;
  char buffer_[1 << 16];
};

const char* special_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

TraceModel read_chrome_trace(const std::string& path) {
  const auto fail = [&path](const std::string& why) {
    return std::runtime_error("cannot read trace " + quote(path) + ": " + why);
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw fail(std::strerror(errno));
  FdReader reader(fd, kMaxTraceFileBytes);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw fail(std::strerror(EISDIR));
  if (!S_ISREG(st.st_mode)) throw fail(std::string("it is ") + special_kind(st.st_mode) + ", not a trace file");
  if (st.st_size > kMaxTraceFileBytes) {
    throw fail("it is " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(kMaxTraceFileBytes) +
               " bytes a trace file may have");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::istream in(&reader);
  try {
    return parse_chrome_trace(in, quote(path));
  } catch (const ReadError& e) {
    throw fail(e.what());
  }
}

}  // namespace asyncscope::trace
