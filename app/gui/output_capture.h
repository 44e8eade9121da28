// OutputCapture: while it lives, what the process writes to its standard
// output and error descriptors (1 and 2) also reaches a sink, the run's
// console: a script's C extensions, faulthandler and os.write bypass
// sys.stdout, and the app shows the console in a window, not a terminal.
// Each descriptor is pointed at a pipe that a thread reads; every chunk is
// written on to the original descriptor (a terminal still sees it) and
// handed to the sink.
//
// The app's own writes to stderr while it lives reach the sink too.
//
// Threading: construct and destroy on one thread, one capture at a time;
// the sink is called on the capture's thread.
#pragma once

#include <functional>
#include <string_view>
#include <thread>

namespace asyncscope::app {

class OutputCapture {
 public:
  using Sink = std::function<void(std::string_view text, bool error)>;

  // Never throws: without the pipes (no descriptors left) nothing is captured.
  explicit OutputCapture(Sink sink);
  // Flushes the C and C++ streams, puts the descriptors back, and hands on
  // what was written before; returns without waiting for a child process
  // that kept a copy of a pipe.
  ~OutputCapture();
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

  // Writes `text` to descriptor `fd` (1 or 2) as it was before the capture
  // in force, if any: for what must reach the terminal before the process
  // ends at once (std::_Exit), without waiting for the capture's thread.
  // Any thread.
  static void write_uncaptured(int fd, std::string_view text) noexcept;

 private:
  struct Stream {
    int target = -1;  // 1 or 2
    int saved = -1;   // the original descriptor, duplicated
    int read = -1;    // the pipe's reading end
  };
  void pump();
  bool forward(Stream& stream);

  Sink sink_;
  Stream streams_[2];
  int wake_[2] = {-1, -1};  // the destructor's "finish" to the thread
  std::thread thread_;
};

}  // namespace asyncscope::app
