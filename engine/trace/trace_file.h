// Opening a trace file for reading, for every importer: which files are read
// at all (regular files under a size cap; a FIFO or a device is refused
// before a byte is read), gzip decompressed as the parser asks for bytes
// (recognised by its magic bytes, not by the name), and the cap applied to
// the bytes the parser sees, so a small .gz that inflates past it (a
// decompression bomb) is refused with one line instead of filling memory.
// The text is never held whole: a block of the file and a block of its
// decompressed text at a time.
//
// Threading: a TraceFile is used by one thread at a time.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace asyncscope::trace {

// The largest trace an importer opens: 2 GiB of text (decompressed), about 3
// million ops of our own exports. A bigger file is refused before it is read.
inline constexpr int64_t kMaxTraceFileBytes = int64_t{2} << 30;

// Why reading failed part way (a disk error, corrupt or truncated gzip data,
// more text than the cap): an importer reports it as such, not as bad JSON.
struct TraceReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class TraceFile {
 public:
  // Opens `path`. Throws std::runtime_error "cannot read trace 'PATH':
  // <reason>" for a missing or unreadable file, a folder, a FIFO, a device or
  // a socket, or a file over `max_bytes`.
  explicit TraceFile(const std::string& path, int64_t max_bytes = kMaxTraceFileBytes);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  const std::string& path() const noexcept { return path_; }
  // The file is gzip data (decompressed as it is read).
  bool compressed() const noexcept;
  // Up to `n` bytes of the text's start, without consuming them: for telling
  // formats apart by content. Throws TraceReadError as reading does.
  std::string_view head(size_t n);
  // The text, for a parser. Its reads throw TraceReadError with the reason.
  std::istream& stream() noexcept { return stream_; }
  // "cannot read trace 'PATH': <why>", as the constructor words its errors.
  std::runtime_error error(const std::string& why) const;

 private:
  class Buffer;
  std::string path_;
  std::unique_ptr<Buffer> buffer_;
  std::istream stream_;
};

}  // namespace asyncscope::trace
