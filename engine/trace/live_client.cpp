// The viewer's side of live attach (live.h): the folder, the listing, and
// LiveClient, which feeds what arrives to a live::StreamDecoder.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "engine/base/quote.h"
#include "engine/trace_record/clock.h"
#include "engine/trace/live.h"
#include "engine/trace/live_socket.h"

namespace asyncscope::trace {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Connects to process `pid`'s socket in `directory`, checks that it is this
// user's and reads its hello; *fd is the open connection. Throws LiveError.
LiveHello connect_publisher(int pid, const std::string& directory, int* fd) {
  const std::string dir = directory.empty() ? publish_directory(false) : directory;
  const std::string path = live::socket_path(dir, pid);
  const std::string how = "start it with ASYNCSCOPE_SERVE=1, or call asyncscope.serve() in it";
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && (!S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid())) {
    throw LiveError("asyncscope: " + quote(path) + " is not a socket of this user: refusing to attach through it");
  }
  int err = 0;
  *fd = live::connect_to(path, &err);
  if (*fd < 0) {
    if (err == ENOENT) {
      throw LiveError("asyncscope: process " + std::to_string(pid) + " does not publish its trace (no " + path + "): " + how);
    }
    if (err == ECONNREFUSED) {
      const bool removed = live::remove_socket(path);
      throw LiveError("asyncscope: process " + std::to_string(pid) + " no longer publishes (it ended without removing its socket" +
                      (removed ? ", which was removed now)" : ")"));
    }
    throw LiveError("asyncscope: cannot attach to process " + std::to_string(pid) + " at " + path + ": " + errno_text(err));
  }
  try {
    if (const uint32_t uid = live::peer_uid(*fd); uid != ::geteuid()) {
      throw LiveError("asyncscope: refusing " + path + ": it is served by uid " + std::to_string(uid) +
                      ", not by this user (uid " + std::to_string(::geteuid()) + ")");
    }
    return live::read_hello(*fd, path, std::chrono::milliseconds(3000));
  } catch (...) {
    ::close(*fd);
    *fd = -1;
    throw;
  }
}

}  // namespace

std::string publish_directory(bool create) {
  std::string dir;
  if (const char* forced = std::getenv("ASYNCSCOPE_LIVE_DIR"); forced != nullptr && *forced != '\0') {
    dir = forced;
  } else if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg != nullptr && *xdg == '/') {
    struct stat st{};
    if (::stat(xdg, &st) == 0 && S_ISDIR(st.st_mode)) dir = std::string(xdg) + "/asyncscope";
  }
  if (dir.empty()) dir = "/tmp/asyncscope-" + std::to_string(::geteuid());
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (create && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    throw LiveError("asyncscope: cannot make " + dir + " for the live sockets: " + errno_text(errno));
  }
  struct stat st{};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (!create && errno == ENOENT) return dir;
    throw LiveError("asyncscope: cannot use " + dir + " for the live sockets: " + errno_text(errno));
  }
  const char* refusing = ": refusing to publish or attach there";
  if (!S_ISDIR(st.st_mode)) throw LiveError("asyncscope: " + dir + " is not a directory (a link or a file)" + refusing);
  if (st.st_uid != ::geteuid()) {
    throw LiveError("asyncscope: " + dir + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
                    std::to_string(::geteuid()) + ")" + refusing);
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw LiveError("asyncscope: " + dir + " is open to other users (mode " + mode + ")" + refusing +
                    " (it must be 0700: chmod 700 " + dir + ")");
  }
  return dir;
}

std::vector<Publisher> list_publishers(const std::string& directory, std::vector<std::string>* removed) {
  const std::string dir = directory.empty() ? publish_directory(false) : directory;
  std::vector<Publisher> out;
  for (const auto& [pid, path] : live::sockets_in(dir)) {
    int err = 0;
    const int fd = live::connect_to(path, &err);
    if (fd < 0) {
      // Nobody listens: its process ended without removing it.
      if (err == ECONNREFUSED && live::remove_socket(path) && removed != nullptr) removed->push_back(path);
      continue;
    }
    try {
      if (live::peer_uid(fd) == ::geteuid()) {
        out.push_back(Publisher{path, live::read_hello(fd, path, std::chrono::milliseconds(1000))});
      }
    } catch (const LiveError&) {
      // Not ours to show (refused, another version, no answer).
    }
    ::close(fd);
  }
  return out;
}

const char* to_string(LiveClient::State state) noexcept {
  switch (state) {
    case LiveClient::State::streaming: return "streaming";
    case LiveClient::State::ended: return "ended";
    case LiveClient::State::lost: return "lost";
    case LiveClient::State::detached: return "detached";
  }
  return "?";
}

LiveHello probe_publisher(int pid, const std::string& directory) {
  int fd = -1;
  LiveHello hello = connect_publisher(pid, directory, &fd);
  ::close(fd);
  return hello;
}

LiveClient::LiveClient(int pid, const std::string& directory) : LiveClient(pid, Options{directory, 0, {}}) {}

LiveClient::LiveClient(int pid, Options options) {
  hello_ = connect_publisher(pid, options.directory, &fd_);
  try {
    std::string request;
    live::put_frame(request, live::Frame::request, 0, static_cast<uint64_t>(std::max<int64_t>(0, options.from_ns)), 0, {});
    if (!live::write_all(fd_, request, now_ns() + 3'000'000'000)) {
      throw LiveError("asyncscope: process " + std::to_string(pid) + " closed the connection: " + errno_text(errno));
    }
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd_ < 0) throw LiveError("asyncscope: cannot attach: eventfd: " + errno_text(errno));
  } catch (...) {
    ::close(fd_);
    throw;
  }
  decoder_ = std::make_unique<live::StreamDecoder>(hello_, options.limits);
  recorder_ = decoder_->recorder();
  thread_ = std::thread([this] {
    set_thread_name("asyncscope attach");
    receive();
  });
}

LiveClient::~LiveClient() {
  detach();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

std::string LiveClient::message() const {
  std::lock_guard lock(mutex_);
  return message_;
}

void LiveClient::end(State state, std::string message) {
  {
    std::lock_guard lock(mutex_);
    if (state_.load(std::memory_order_relaxed) != State::streaming) return;
    message_ = escape_controls(message);  // words from the other process: never raw to a terminal
  }
  state_.store(state, std::memory_order_release);
}

void LiveClient::detach() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(wake_fd_, &one, sizeof(one));
    thread_.join();
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  end(State::detached, "detached from process " + std::to_string(hello_.pid) + " (it goes on)");
}

bool LiveClient::wait_for_end(std::chrono::milliseconds limit) const {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (state() == State::streaming) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void LiveClient::receive() {
  const std::string who = "process " + std::to_string(hello_.pid);
  std::vector<char> chunk(size_t{1} << 20);
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      end(State::lost, "the connection to " + who + " failed: " + errno_text(errno));
      return;
    }
    if (fds[1].revents & POLLIN) return;  // detach()
    const ssize_t n = ::recv(fd_, chunk.data(), chunk.size(), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      end(State::lost, who + " closed the connection without saying it ended (killed, or crashed?)");
      return;
    }
    try {
      decoder_->feed(chunk.data(), static_cast<size_t>(n));
    } catch (const ProtocolError& e) {
      end(State::lost, who + " sent a stream this viewer cannot read (" + e.what() + "); detached");
      return;
    }
    bytes_.store(decoder_->bytes(), std::memory_order_relaxed);
    dropped_.store(decoder_->dropped(), std::memory_order_relaxed);
    ops_.store(decoder_->ops(), std::memory_order_relaxed);
    if (decoder_->started()) from_ns_.store(decoder_->from_ns(), std::memory_order_release);
    if (decoder_->ended()) {
      end(State::ended, "process " + std::to_string(hello_.pid) + " ended: " + decoder_->end_reason());
      return;
    }
    if (decoder_->full()) {
      end(State::detached, "stopped following process " + std::to_string(hello_.pid) + " at " +
                               std::to_string(decoder_->ops()) + " ops, the most this viewer keeps (it goes on)");
      return;
    }
  }
}

}  // namespace asyncscope::trace
