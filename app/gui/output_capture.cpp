#include "app/gui/output_capture.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <iostream>

namespace asyncscope::app {
namespace {

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the original descriptor is gone (closed terminal): the sink still has it
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// The saved originals of descriptors 1 and 2 while a capture is in force (-1: none).
std::atomic<int> g_uncaptured[2] = {-1, -1};

void flush_streams() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
}

}  // namespace

OutputCapture::OutputCapture(Sink sink) : sink_(std::move(sink)) {
  if (::pipe2(wake_, O_CLOEXEC) != 0) {
    wake_[0] = wake_[1] = -1;
    return;
  }
  flush_streams();
  for (int i = 0; i < 2; ++i) {
    Stream& s = streams_[i];
    s.target = i + 1;
    int pipe[2];
    if (::pipe2(pipe, O_CLOEXEC) != 0) continue;
    s.saved = ::fcntl(s.target, F_DUPFD_CLOEXEC, 3);
    if (s.saved < 0 || ::dup2(pipe[1], s.target) < 0) {
      if (s.saved >= 0) ::close(s.saved);
      s.saved = -1;
      ::close(pipe[0]);
      ::close(pipe[1]);
      continue;
    }
    ::close(pipe[1]);  // the descriptor itself now holds the writing end
    s.read = pipe[0];
    g_uncaptured[i].store(s.saved);
  }
  thread_ = std::thread([this] { pump(); });
}

OutputCapture::~OutputCapture() {
  if (!thread_.joinable()) return;
  flush_streams();
  // The descriptors back first: what is written from here on goes straight out.
  for (Stream& s : streams_) {
    if (s.saved >= 0) ::dup2(s.saved, s.target);
  }
  g_uncaptured[0].store(-1);
  g_uncaptured[1].store(-1);
  const char byte = 0;
  [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);
  thread_.join();
  for (Stream& s : streams_) {
    if (s.saved >= 0) ::close(s.saved);
    if (s.read >= 0) ::close(s.read);
  }
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void OutputCapture::write_uncaptured(int fd, std::string_view text) noexcept {
  const int saved = fd == 1 || fd == 2 ? g_uncaptured[fd - 1].load() : -1;
  write_all(saved >= 0 ? saved : fd, text.data(), text.size());
}

bool OutputCapture::forward(Stream& s) {
  char buffer[4096];
  const ssize_t n = ::read(s.read, buffer, sizeof(buffer));
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  write_all(s.saved, buffer, static_cast<size_t>(n));
  sink_(std::string_view(buffer, static_cast<size_t>(n)), s.target == 2);
  return true;
}

void OutputCapture::pump() {
  bool open[2] = {streams_[0].read >= 0, streams_[1].read >= 0};
  for (;;) {
    pollfd fds[3] = {{wake_[0], POLLIN, 0}, {streams_[0].read, POLLIN, 0}, {streams_[1].read, POLLIN, 0}};
    for (int i = 0; i < 2; ++i) {
      if (!open[i]) fds[i + 1].fd = -1;
    }
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (open[i] && (fds[i + 1].revents & (POLLIN | POLLHUP)) != 0) open[i] = forward(streams_[i]);
    }
    if ((fds[0].revents & POLLIN) != 0) {
      // Finishing: what is in the pipes now, without waiting for a writer
      // (a child process may hold a copy of the writing end).
      for (int i = 0; i < 2; ++i) {
        if (!open[i]) continue;
        ::fcntl(streams_[i].read, F_SETFL, O_NONBLOCK);
        while (forward(streams_[i])) {
        }
      }
      return;
    }
  }
}

}  // namespace asyncscope::app
