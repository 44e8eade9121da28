#include "engine/trace/live_socket.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/base/quote.h"
#include "engine/trace_record/clock.h"
#include "engine/trace/live.h"

namespace asyncscope::trace::live {
namespace {

std::string read_small_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The pid of a name PID.sock, or -1.
int pid_of_socket_name(const std::string& name) {
  if (name.size() < 6 || name.compare(name.size() - 5, 5, ".sock") != 0) return -1;
  const std::string digits = name.substr(0, name.size() - 5);
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return -1;
  return std::atoi(digits.c_str());
}

bool ours(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == ::geteuid();
}

}  // namespace

std::string socket_path(const std::string& directory, int pid) { return directory + "/" + std::to_string(pid) + ".sock"; }

sockaddr_un address_of(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    throw LiveError("asyncscope: the socket path " + quote(path) + " is too long for a Unix socket (at most " +
                    std::to_string(sizeof(addr.sun_path) - 1) + " bytes): set ASYNCSCOPE_LIVE_DIR to a shorter folder");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

uint32_t peer_uid(int fd) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return UINT32_MAX;
  return cred.uid;
}

int connect_to(const std::string& path, int* err) {
  const sockaddr_un addr = address_of(path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    *err = errno;
    ::close(fd);
    return -1;
  }
  *err = 0;
  return fd;
}

ReadResult read_exact(int fd, char* out, size_t bytes, int64_t deadline) {
  size_t got = 0;
  while (got < bytes) {
    const int64_t left_ms = (deadline - now_ns()) / 1'000'000;
    if (left_ms <= 0) return ReadResult::timed_out;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left_ms, INT_MAX)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ReadResult::failed;
    if (r == 0) return ReadResult::timed_out;
    const ssize_t n = ::recv(fd, out + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ReadResult::failed;
    if (n == 0) return ReadResult::closed;
    got += static_cast<size_t>(n);
  }
  return ReadResult::done;
}

bool write_all(int fd, const std::string& bytes, int64_t deadline) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const int64_t left_ms = (deadline - now_ns()) / 1'000'000;
      if (left_ms <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left_ms, INT_MAX)));
      continue;
    }
    return false;
  }
  return true;
}

std::vector<std::pair<int, std::string>> sockets_in(const std::string& directory) {
  std::vector<std::pair<int, std::string>> out;
  DIR* d = ::opendir(directory.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    const int pid = pid_of_socket_name(e->d_name);
    if (pid <= 0) continue;
    const std::string path = directory + "/" + e->d_name;
    if (ours(path)) out.emplace_back(pid, path);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool remove_socket(const std::string& path) { return ours(path) && ::unlink(path.c_str()) == 0; }

LiveHello read_hello(int fd, const std::string& path, std::chrono::milliseconds limit) {
  const int64_t deadline = now_ns() + std::chrono::duration_cast<std::chrono::nanoseconds>(limit).count();
  const std::string where = quote(path);
  const auto failed = [&](ReadResult r, const std::string& what) {
    switch (r) {
      case ReadResult::timed_out:
        return LiveError("asyncscope: " + where + " sent no " + what + " within " + std::to_string(limit.count()) +
                         " ms: it is not answering as an asyncscope publisher does (busy or stopped?)");
      case ReadResult::closed:
        return LiveError("asyncscope: " + where + " closed the connection before its " + what + " was complete");
      default:
        return LiveError("asyncscope: reading the " + what + " of " + where + " failed: " + std::strerror(errno));
    }
  };
  char header[kHeaderBytes];
  if (const ReadResult r = read_exact(fd, header, sizeof(header), deadline); r != ReadResult::done) {
    throw failed(r, "hello");
  }
  const FrameHeader h = get_header(header);
  const Limits limits;
  if ((h.kind != static_cast<uint16_t>(Frame::hello) && h.kind != static_cast<uint16_t>(Frame::refusal)) ||
      h.bytes > limits.max_hello) {
    throw LiveError("asyncscope: " + where + " is not an asyncscope publisher's socket (or one of another version)");
  }
  std::string payload(h.bytes, '\0');
  if (const ReadResult r = read_exact(fd, payload.data(), payload.size(), deadline); r != ReadResult::done) {
    throw failed(r, "hello");
  }
  if (h.kind == static_cast<uint16_t>(Frame::refusal)) throw LiveError(escape_controls(payload));
  try {
    return parse_hello(payload, limits);
  } catch (const ProtocolError& e) {
    throw LiveError("asyncscope: the process behind " + where + ": " + escape_controls(e.what()));
  }
}

bool process_exists(int pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

std::string own_command_line() {
  std::string raw = read_small_file("/proc/self/cmdline");
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  std::replace(raw.begin(), raw.end(), '\0', ' ');
  return raw;
}

std::string default_title() {
  const std::string raw = read_small_file("/proc/self/cmdline");
  std::vector<std::string> args;
  for (size_t start = 0; start < raw.size();) {
    const size_t end = raw.find('\0', start);
    args.push_back(raw.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  const auto base = [](const std::string& path) { return path.substr(path.rfind('/') + 1); };
  if (args.empty()) return "process";
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].size() > 3 && args[i].compare(args[i].size() - 3, 3, ".py") == 0) return base(args[0]) + " " + base(args[i]);
  }
  return base(args[0]);
}

}  // namespace asyncscope::trace::live
