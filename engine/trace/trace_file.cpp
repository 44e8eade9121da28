#include "engine/trace/trace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <streambuf>
#include <vector>

#include "engine/base/quote.h"

namespace asyncscope::trace {

// The file's bytes, inflated when they are gzip data, a block at a time.
class TraceFile::Buffer : public std::streambuf {
 public:
  Buffer(int fd, int64_t max_bytes) : fd_(fd), max_bytes_(max_bytes), text_(kBlock) {}
  ~Buffer() override {
    if (inflating_) inflateEnd(&z_);
    ::close(fd_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // Reads the first bytes of the file to tell gzip from text.
  void start() {
    fill_raw();
    compressed_ = raw_end_ - raw_pos_ >= 2 && static_cast<unsigned char>(raw_[raw_pos_]) == 0x1f &&
                  static_cast<unsigned char>(raw_[raw_pos_ + 1]) == 0x8b;
    if (compressed_) {
      std::memset(&z_, 0, sizeof(z_));
      // 16 + MAX_WBITS: a gzip header and trailer, checked.
      if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) throw TraceReadError("cannot start decompressing (zlib)");
      inflating_ = true;
    }
  }
  bool compressed() const noexcept { return compressed_; }

  std::string_view head(size_t n) {
    // Before anything was consumed: grow the text block until it holds n bytes or the text ends.
    if (gptr() == nullptr) {
      size_t have = 0;
      if (text_.size() < n) text_.resize(n);
      while (have < n) {
        const size_t got = produce(text_.data() + have, text_.size() - have);
        if (got == 0) break;
        have += got;
      }
      setg(text_.data(), text_.data(), text_.data() + have);
    }
    return {gptr(), static_cast<size_t>(std::min<std::ptrdiff_t>(egptr() - gptr(), static_cast<std::ptrdiff_t>(n)))};
  }

 protected:
  int_type underflow() override {
    if (gptr() != nullptr && gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const size_t got = produce(text_.data(), text_.size());
    if (got == 0) return traits_type::eof();
    setg(text_.data(), text_.data(), text_.data() + got);
    return traits_type::to_int_type(text_[0]);
  }

 private:
  static constexpr size_t kBlock = size_t{1} << 16;

  // Raw file bytes into raw_ (which must be used up). Returns false at the end of the file.
  bool fill_raw() {
    ssize_t n = 0;
    do {
      n = ::read(fd_, raw_, sizeof(raw_));
    } while (n < 0 && errno == EINTR);
    // Thrown, not returned as end of input: the parser calls this streambuf
    // directly, and the reason must reach the message.
    if (n < 0) throw TraceReadError(std::strerror(errno));
    raw_pos_ = 0;
    raw_end_ = static_cast<size_t>(n);
    raw_total_ += n;
    if (!compressed_ && raw_total_ > max_bytes_) {
      throw TraceReadError("it grew past " + std::to_string(max_bytes_) + " bytes while it was read");
    }
    return n > 0;
  }

  // Up to `size` bytes of text into `out`; 0 at its end.
  size_t produce(char* out, size_t size) {
    size_t got = compressed_ ? inflate_into(out, size) : copy_into(out, size);
    text_total_ += static_cast<int64_t>(got);
    if (compressed_ && text_total_ > max_bytes_) {
      throw TraceReadError("it decompresses to more than " + std::to_string(max_bytes_) +
                           " bytes, the most a trace may have");
    }
    return got;
  }

  size_t copy_into(char* out, size_t size) {
    if (raw_pos_ == raw_end_ && !fill_raw()) return 0;
    const size_t n = std::min(size, raw_end_ - raw_pos_);
    std::memcpy(out, raw_ + raw_pos_, n);
    raw_pos_ += n;
    return n;
  }

  size_t inflate_into(char* out, size_t size) {
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(size);
    while (z_.avail_out == size) {
      if (raw_pos_ == raw_end_) {
        if (!fill_raw()) {
          if (!member_done_) throw TraceReadError("the gzip data is truncated (the file ends inside it)");
          return 0;
        }
      }
      if (member_done_) {
        // Another gzip member follows (concatenated .gz files are one text).
        if (inflateReset(&z_) != Z_OK) throw TraceReadError("cannot restart decompressing (zlib)");
        member_done_ = false;
      }
      z_.next_in = reinterpret_cast<Bytef*>(raw_ + raw_pos_);
      z_.avail_in = static_cast<uInt>(raw_end_ - raw_pos_);
      const int rc = inflate(&z_, Z_NO_FLUSH);
      raw_pos_ = raw_end_ - z_.avail_in;
      if (rc == Z_STREAM_END) {
        member_done_ = true;
        continue;
      }
      if (rc == Z_BUF_ERROR) continue;  // needs more input
      if (rc != Z_OK) {
        throw TraceReadError(std::string("the gzip data is corrupt (") + (z_.msg != nullptr ? z_.msg : "zlib error") +
                             ")");
      }
    }
    return size - z_.avail_out;
  }

  int fd_;
  int64_t max_bytes_;
  char raw_[kBlock];
  size_t raw_pos_ = 0, raw_end_ = 0;
  int64_t raw_total_ = 0, text_total_ = 0;
  std::vector<char> text_;
  z_stream z_{};
  bool compressed_ = false, inflating_ = false, member_done_ = false;
};

namespace {

const char* special_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

TraceFile::TraceFile(const std::string& path, int64_t max_bytes) : path_(path), stream_(nullptr) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw error(std::strerror(errno));
  buffer_ = std::make_unique<Buffer>(fd, max_bytes);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw error(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw error(std::strerror(EISDIR));
  if (!S_ISREG(st.st_mode)) throw error(std::string("it is ") + special_kind(st.st_mode) + ", not a trace file");
  if (st.st_size > max_bytes) {
    throw error("it is " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
                " bytes a trace file may have");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  try {
    buffer_->start();
  } catch (const TraceReadError& e) {
    throw error(e.what());
  }
  stream_.rdbuf(buffer_.get());
}

TraceFile::~TraceFile() = default;

bool TraceFile::compressed() const noexcept { return buffer_->compressed(); }

std::string_view TraceFile::head(size_t n) { return buffer_->head(n); }

std::runtime_error TraceFile::error(const std::string& why) const {
  return std::runtime_error("cannot read trace " + quote(path_) + ": " + why);
}

}  // namespace asyncscope::trace
