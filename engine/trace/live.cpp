#include "engine/trace/live.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

#include "engine/trace/clock.h"
#include "engine/trace/names.h"

namespace asyncscope::trace {
namespace {

// Every frame: this header, then `bytes` of payload. Log frames carry
// `count` entries of one log of thread `thread`, from entry `first` on, as
// the recorder holds them (both ends are this build on one machine: the
// hello names the entries' sizes, and a viewer refuses others).
enum FrameKind : uint32_t {
  kHello = 1,     // payload: JSON (LiveHello, protocol, entry sizes)
  kRefusal,       // payload: why the viewer is refused; the server closes
  kNames,         // first: the first name id; count names, each ended by '\0'
  kThread,        // thread: its index; payload: its name
  kEnqueues,
  kVars,
  kExecs,
  kSyncs,
  kMarkers,
  kSources,
  kCounters,      // count samples from `first` on
  kCounterNames,  // payload: names, each ended by '\0'
  kError,         // first: the op; payload: the text
  kStatus,        // first: events the program's recorder dropped so far
  kEnd,           // payload: why the stream ends; the server closes
  kScopes,
};

struct FrameHeader {
  uint32_t kind = 0;
  uint32_t thread = 0;
  uint64_t first = 0;
  uint32_t count = 0;
  uint32_t bytes = 0;
};
static_assert(sizeof(FrameHeader) == 24);

// Entries per log per round, so a viewer that attaches late catches up in
// bounded steps (a round of one thread is at most about 2 MB).
constexpr size_t kRoundEntries = size_t{1} << 14;
// A payload larger than this is a broken stream.
constexpr uint32_t kMaxPayload = uint32_t{64} << 20;

void append_frame(std::string& out, FrameKind kind, uint32_t thread, uint64_t first, uint32_t count,
                  const void* data, size_t bytes) {
  FrameHeader h;
  h.kind = kind;
  h.thread = thread;
  h.first = first;
  h.count = count;
  h.bytes = static_cast<uint32_t>(bytes);
  out.append(reinterpret_cast<const char*>(&h), sizeof(h));
  if (bytes > 0) out.append(static_cast<const char*>(data), bytes);
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += n;
    out.push_back('\0');
  }
  return out;
}

std::vector<std::string> split_names(const char* data, size_t bytes) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (data[i] == '\0') {
      out.emplace_back(data + start, i - start);
      start = i + 1;
    }
  }
  return out;
}

// Entries [from, to) of a log, as one frame.
template <class T>
void append_log(std::string& out, FrameKind kind, uint32_t thread, const ChunkedLog<T>& log, size_t from, size_t to) {
  if (to <= from) return;
  FrameHeader h;
  h.kind = kind;
  h.thread = thread;
  h.first = from;
  h.count = static_cast<uint32_t>(to - from);
  h.bytes = static_cast<uint32_t>((to - from) * sizeof(T));
  out.append(reinterpret_cast<const char*>(&h), sizeof(h));
  log.for_each_run(from, to, [&out](const T* first, size_t n) {
    out.append(reinterpret_cast<const char*>(first), n * sizeof(T));
  });
}

std::string errno_text(int err) { return std::strerror(err); }

std::string read_small_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string own_command_line() {
  std::string raw = read_small_file("/proc/self/cmdline");
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  std::replace(raw.begin(), raw.end(), '\0', ' ');
  return raw;
}

// The program's name and its script's ("python3 train.py", "asyncscope
// train.py"), from the command line; the process's name without a script.
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

std::string socket_path(const std::string& directory, int pid) { return directory + "/" + std::to_string(pid) + ".sock"; }

sockaddr_un address_of(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    throw LiveError("asyncscope: the socket path " + path + " is too long for a Unix socket (at most " +
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

// Connects to a publisher's socket; the errno on failure (fd -1).
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

// Reads exactly `bytes` from a blocking socket within `deadline` (steady ns); false on EOF, error or time-out.
bool read_exact(int fd, char* out, size_t bytes, int64_t deadline) {
  size_t got = 0;
  while (got < bytes) {
    const int64_t left_ms = (deadline - now_ns()) / 1'000'000;
    if (left_ms <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left_ms, INT_MAX)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    const ssize_t n = ::recv(fd, out + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

nlohmann::json entry_sizes() {
  return {{"enqueue", sizeof(EnqueueEvent)}, {"exec", sizeof(ExecEvent)},     {"sync", sizeof(SyncEvent)},
          {"marker", sizeof(MarkerEvent)},   {"source", sizeof(SourceEvent)}, {"counter", sizeof(CounterSample)},
          {"scope", sizeof(ScopeEvent)}};
}

// Reads a publisher's first frame: its hello, or its refusal (thrown).
LiveHello read_hello(int fd, const std::string& path, std::chrono::milliseconds limit) {
  const int64_t deadline = now_ns() + std::chrono::duration_cast<std::chrono::nanoseconds>(limit).count();
  FrameHeader h;
  if (!read_exact(fd, reinterpret_cast<char*>(&h), sizeof(h), deadline)) {
    throw LiveError("asyncscope: " + path + " did not answer as an asyncscope publisher does (no hello within " +
                    std::to_string(limit.count()) + " ms)");
  }
  if ((h.kind != kHello && h.kind != kRefusal) || h.bytes > (1u << 20)) {
    throw LiveError("asyncscope: " + path + " is not an asyncscope publisher's socket");
  }
  std::string payload(h.bytes, '\0');
  if (!read_exact(fd, payload.data(), payload.size(), deadline)) {
    throw LiveError("asyncscope: " + path + " closed before its hello was complete");
  }
  if (h.kind == kRefusal) throw LiveError(payload);
  LiveHello hello;
  try {
    const nlohmann::json j = nlohmann::json::parse(payload);
    const int protocol = j.at("protocol").get<int>();
    if (protocol != kLiveProtocol || j.at("entries") != entry_sizes()) {
      throw LiveError("asyncscope: the process behind " + path + " speaks live protocol " + std::to_string(protocol) +
                      " with other entry sizes than this viewer (protocol " + std::to_string(kLiveProtocol) +
                      "): attach with the asyncscope it was built with");
    }
    hello.pid = j.at("pid").get<int>();
    hello.uid = j.at("uid").get<uint32_t>();
    hello.title = j.at("title").get<std::string>();
    hello.command = j.at("command").get<std::string>();
    hello.cwd = j.at("cwd").get<std::string>();
    hello.started_unix_ms = j.at("started_unix_ms").get<int64_t>();
    hello.origin_ns = j.at("origin_ns").get<int64_t>();
    hello.first_op_id = j.at("first_op_id").get<uint64_t>();
    hello.counters = j.at("counters").get<std::vector<std::string>>();
  } catch (const LiveError&) {
    throw;
  } catch (const std::exception& e) {
    throw LiveError("asyncscope: " + path + " sent a hello this viewer cannot read (" + e.what() + ")");
  }
  return hello;
}

bool process_exists(int pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// The pid of a socket named PID.sock, or -1.
int pid_of_socket_name(const std::string& name) {
  if (name.size() < 6 || name.compare(name.size() - 5, 5, ".sock") != 0) return -1;
  const std::string digits = name.substr(0, name.size() - 5);
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return -1;
  return std::atoi(digits.c_str());
}

std::vector<std::pair<int, std::string>> sockets_in(const std::string& directory) {
  std::vector<std::pair<int, std::string>> out;
  DIR* d = ::opendir(directory.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    const int pid = pid_of_socket_name(e->d_name);
    if (pid > 0) out.emplace_back(pid, directory + "/" + e->d_name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
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

// ---------------------------------------------------------------- server

struct LiveServer::Viewer {
  struct Cursor {
    size_t enqueues = 0, vars = 0, execs = 0, syncs = 0, markers = 0, sources = 0, scopes = 0;
  };
  int fd = -1;
  bool streaming = false;  // asked for the events (a listing only reads the hello)
  bool closed = false;
  std::string pending;  // frames not yet sent, from `sent` on
  size_t sent = 0;
  size_t names = 0, counter_names = 0, counters = 0, errors = 0;
  uint64_t dropped = 0;
  bool behind = false;  // the last round left events for the next (a round's bound)
  std::vector<Cursor> cursors;  // by thread index: what was sent of each log

  size_t unsent() const { return pending.size() - sent; }
};

LiveServer::LiveServer(std::shared_ptr<const Recorder> recorder, Options options)
    : recorder_(std::move(recorder)), options_(std::move(options)), owner_(::getpid()) {
  const std::string dir = options_.directory.empty() ? publish_directory(true) : options_.directory;
  if (!options_.directory.empty()) {
    struct stat st{};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
      throw LiveError("asyncscope: " + dir + " is not a private directory of this user (mode 0700): refusing to publish there");
    }
  }
  path_ = socket_path(dir, owner_);
  const sockaddr_un addr = address_of(path_);
  // Sockets left by processes that ended without removing theirs (killed): this pid's, and any whose process is gone.
  for (const auto& [pid, path] : sockets_in(dir)) {
    if (pid == owner_ || !process_exists(pid)) ::unlink(path.c_str());
  }
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) throw LiveError("asyncscope: cannot make a socket to publish on: " + errno_text(errno));
  if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0 || ::chmod(path_.c_str(), 0600) != 0 ||
      ::listen(listen_fd_, 16) != 0) {
    const int err = errno;
    ::close(listen_fd_);
    ::unlink(path_.c_str());
    throw LiveError("asyncscope: cannot publish on " + path_ + ": " + errno_text(err));
  }
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    const int err = errno;
    ::close(listen_fd_);
    ::unlink(path_.c_str());
    throw LiveError("asyncscope: cannot publish: eventfd: " + errno_text(err));
  }

  char cwd[4096] = "";
  if (::getcwd(cwd, sizeof(cwd)) == nullptr) cwd[0] = '\0';
  std::string title = options_.title;
  if (title.empty()) title = default_title();
  const nlohmann::json hello = {
      {"protocol", kLiveProtocol},
      {"entries", entry_sizes()},
      {"pid", static_cast<int>(owner_)},
      {"uid", ::geteuid()},
      {"title", title},
      {"command", own_command_line()},
      {"cwd", std::string(cwd)},
      {"started_unix_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count()},
      {"origin_ns", recorder_->origin_ns()},
      {"first_op_id", recorder_->first_op_id()},
      {"counters", recorder_->counter_names()},
  };
  const std::string text = hello.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  append_frame(hello_, kHello, 0, 0, 0, text.data(), text.size());
  thread_ = std::thread([this] {
    set_thread_name("asyncscope live");
    serve();
  });
}

LiveServer::~LiveServer() {
  if (::getpid() != owner_) {
    // A forked child's copy: the thread is its parent's. Leave it all be.
    thread_.detach();
    return;
  }
  finish(std::chrono::milliseconds(0), "the program stopped publishing");
}

void LiveServer::finish(std::chrono::milliseconds limit, const std::string& reason) {
  if (::getpid() != owner_) return;
  std::lock_guard lock(finish_mutex_);
  if (finished_) return;
  finished_ = true;
  end_reason_ = reason;
  deadline_ns_.store(now_ns() + std::chrono::duration_cast<std::chrono::nanoseconds>(limit).count(),
                     std::memory_order_relaxed);
  finishing_.store(true, std::memory_order_release);
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t w = ::write(wake_fd_, &one, sizeof(one));
  if (thread_.joinable()) thread_.join();
  ::close(wake_fd_);
  wake_fd_ = -1;
}

void LiveServer::accept_viewers() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN: none left; anything else: try again on the next poll
    }
    const uint32_t uid = peer_uid(fd);
    if (uid != ::geteuid()) {
      const std::string why = "asyncscope: refused: process " + std::to_string(owner_) +
                              " publishes its trace to its own user only (uid " + std::to_string(::geteuid()) +
                              "); this viewer runs as uid " + std::to_string(uid);
      std::string frame;
      append_frame(frame, kRefusal, 0, 0, 0, why.data(), why.size());
      [[maybe_unused]] const ssize_t n = ::send(fd, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      ::close(fd);
      refused_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    auto viewer = std::make_unique<Viewer>();
    viewer->fd = fd;
    viewer->pending = hello_;
    list_.push_back(std::move(viewer));
  }
}

bool LiveServer::fill_round(Viewer& v) {
  std::string& out = v.pending;
  const size_t before = out.size();
  v.behind = false;
  // Names first: the events below may use names interned just before them.
  if (const size_t n = name_count(); n > v.names) {
    const std::vector<std::string> names = names_from(v.names);
    const std::string text = joined(names);
    append_frame(out, kNames, 0, v.names, static_cast<uint32_t>(names.size()), text.data(), text.size());
    v.names += names.size();
  }
  if (const std::vector<std::string> names = recorder_->counter_names(); names.size() != v.counter_names) {
    const std::string text = joined(names);
    append_frame(out, kCounterNames, 0, 0, static_cast<uint32_t>(names.size()), text.data(), text.size());
    v.counter_names = names.size();
  }
  const std::vector<const ThreadBuffer*> threads = recorder_->threads();
  while (v.cursors.size() < threads.size()) {
    const ThreadBuffer& t = *threads[v.cursors.size()];
    append_frame(out, kThread, t.index, 0, 0, t.name.data(), t.name.size());
    v.cursors.emplace_back();
  }
  for (const ThreadBuffer* t : threads) {
    Viewer::Cursor& c = v.cursors[t->index];
    // As a reader loads them: enqueues and waits before the sources and
    // var ids they need (which are appended first), so those are all there.
    const size_t num_enqueues = t->enqueues.size(), num_syncs = t->syncs.size();
    const size_t num_sources = t->sources.size(), num_vars = t->vars.size(), num_scopes = t->scopes.size();
    const size_t num_markers = t->markers.size(), num_execs = t->execs.size();
    // A round takes at most kRoundEntries enqueues and waits of the thread:
    // everything of it before `cut`, the time of the first left for the next
    // round, so the sources sent cover exactly the enqueues and waits sent.
    int64_t cut = INT64_MAX;
    if (num_enqueues - c.enqueues > kRoundEntries) cut = std::min(cut, t->enqueues[c.enqueues + kRoundEntries].t);
    if (num_syncs - c.syncs > kRoundEntries) cut = std::min(cut, t->syncs[c.syncs + kRoundEntries].begin);
    size_t enqueue_end = c.enqueues, sync_end = c.syncs;
    while (enqueue_end < num_enqueues && t->enqueues[enqueue_end].t < cut) ++enqueue_end;
    while (sync_end < num_syncs && t->syncs[sync_end].begin < cut) ++sync_end;
    if (cut != INT64_MAX && enqueue_end == c.enqueues && sync_end == c.syncs) {
      // More than a round's worth at one instant: take them all.
      cut = INT64_MAX;
      enqueue_end = num_enqueues;
      sync_end = num_syncs;
    }
    size_t source_end = c.sources, marker_end = c.markers, scope_end = c.scopes;
    while (source_end < num_sources && t->sources[source_end].t < cut) ++source_end;
    while (scope_end < num_scopes && t->scopes[scope_end].t < cut) ++scope_end;
    while (marker_end < num_markers && t->markers[marker_end].t < cut) ++marker_end;
    size_t vars_end = c.vars;
    for (size_t i = c.enqueues; i < enqueue_end; ++i) {
      const EnqueueEvent& e = t->enqueues[i];
      const size_t ids = size_t{e.num_reads} + e.num_writes;
      if (ids > static_cast<size_t>(kInlineVarIds)) vars_end = std::max<size_t>(vars_end, e.vars_offset + ids);
    }
    vars_end = std::min(vars_end, num_vars);
    const size_t exec_end = std::min(num_execs, c.execs + kRoundEntries);
    v.behind |= cut != INT64_MAX || exec_end < num_execs;

    append_log(out, kSources, t->index, t->sources, c.sources, source_end);
    append_log(out, kScopes, t->index, t->scopes, c.scopes, scope_end);
    append_log(out, kVars, t->index, t->vars, c.vars, vars_end);
    append_log(out, kEnqueues, t->index, t->enqueues, c.enqueues, enqueue_end);
    append_log(out, kSyncs, t->index, t->syncs, c.syncs, sync_end);
    append_log(out, kMarkers, t->index, t->markers, c.markers, marker_end);
    append_log(out, kExecs, t->index, t->execs, c.execs, exec_end);
    c = Viewer::Cursor{enqueue_end, vars_end, exec_end, sync_end, marker_end, source_end, scope_end};
  }
  const ChunkedLog<CounterSample>& counters = recorder_->counter_log();
  const size_t counter_end = std::min(counters.size(), v.counters + kRoundEntries);
  append_log(out, kCounters, 0, counters, v.counters, counter_end);
  v.behind |= counter_end < counters.size();
  v.counters = counter_end;
  for (const auto& [op, text] : recorder_->errors(v.errors)) {
    append_frame(out, kError, 0, op, 0, text.data(), text.size());
    ++v.errors;
  }
  if (const uint64_t dropped = recorder_->dropped(); dropped != v.dropped) {
    append_frame(out, kStatus, 0, dropped, 0, nullptr, 0);
    v.dropped = dropped;
  }
  return out.size() != before;
}

void LiveServer::serve() {
  const int64_t round_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.round).count();
  int64_t next_round = 0;
  std::vector<pollfd> fds;
  const auto flush = [this](Viewer& v) {
    while (!v.closed && v.unsent() > 0) {
      const ssize_t n = ::send(v.fd, v.pending.data() + v.sent, v.unsent(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) {
        v.sent += static_cast<size_t>(n);
        bytes_sent_.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        break;
      } else {
        v.closed = true;  // the viewer went away
      }
    }
    if (v.unsent() == 0) {
      v.pending.clear();
      v.sent = 0;
    } else if (v.sent > (size_t{1} << 20)) {
      v.pending.erase(0, v.sent);
      v.sent = 0;
    }
  };

  for (;;) {
    const bool finishing = finishing_.load(std::memory_order_acquire);
    const int64_t now = now_ns();
    bool any_new = false;
    const bool due = finishing || now >= next_round;
    for (auto& v : list_) {
      // A viewer behind (one attached late to a long run) gets the next round as soon as it took the last.
      if (v->streaming && !v->closed && v->unsent() < kMaxPendingBytes && (due || v->behind)) {
        any_new |= fill_round(*v);
      }
    }
    if (due) next_round = now + round_ns;
    for (auto& v : list_) flush(*v);

    if (finishing) {
      // Done once every viewer has all there was at its last round (a
      // recorder still growing, as a counter sampler makes it, is no reason to wait).
      bool done = true;
      for (const auto& v : list_) {
        if (v->streaming && !v->closed && (v->unsent() > 0 || v->behind)) done = false;
      }
      if (done || now >= deadline_ns_.load(std::memory_order_relaxed)) {
        // The end, after what was sent: the socket may still be full of it,
        // so it gets a moment (the deadline's rest, at least 200 ms) to drain.
        const int64_t until = std::max(deadline_ns_.load(std::memory_order_relaxed), now + 200'000'000);
        for (auto& v : list_) {
          if (!v->closed && v->streaming) {
            append_frame(v->pending, kEnd, 0, 0, 0, end_reason_.data(), end_reason_.size());
            flush(*v);
            while (!v->closed && v->unsent() > 0 && now_ns() < until) {
              pollfd p{v->fd, POLLOUT, 0};
              if (::poll(&p, 1, 10) > 0 && (p.revents & (POLLHUP | POLLERR)) != 0) break;
              flush(*v);
            }
          }
          ::close(v->fd);
        }
        list_.clear();
        viewers_.store(0, std::memory_order_relaxed);
        break;
      }
    }
    // Viewers that went away.
    for (auto& v : list_) {
      if (v->closed) {
        ::close(v->fd);
        v.reset();
      }
    }
    std::erase(list_, nullptr);
    viewers_.store(static_cast<size_t>(std::count_if(list_.begin(), list_.end(), [](const auto& v) { return v->streaming; })),
                   std::memory_order_relaxed);

    fds.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    fds.push_back({listen_fd_, static_cast<short>(finishing ? 0 : POLLIN), 0});
    bool following = false, catching_up = false;
    for (const auto& v : list_) {
      fds.push_back({v->fd, static_cast<short>(POLLIN | (v->unsent() > 0 ? POLLOUT : 0)), 0});
      following |= v->streaming;
      catching_up |= v->streaming && v->behind && v->unsent() < kMaxPendingBytes;
    }
    int timeout_ms = -1;  // nobody follows: sleep until a viewer comes (publishing costs the program nothing)
    if (catching_up) {
      timeout_ms = 0;
    } else if (finishing) {
      timeout_ms = 5;
    } else if (following) {
      timeout_ms = static_cast<int>(std::clamp<int64_t>((next_round - now_ns()) / 1'000'000 + 1, 1, 1000));
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      uint64_t value = 0;
      [[maybe_unused]] const ssize_t r = ::read(wake_fd_, &value, sizeof(value));
    }
    if (fds[1].revents & POLLIN) accept_viewers();
    for (size_t i = 2; i < fds.size() && i - 2 < list_.size(); ++i) {
      Viewer& v = *list_[i - 2];
      if (fds[i].fd != v.fd) continue;  // accepted just now: polled next time
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buffer[64];
        const ssize_t n = ::recv(v.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
        if (n > 0) {
          if (std::memchr(buffer, 'S', static_cast<size_t>(n)) != nullptr) v.streaming = true;
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          v.closed = true;
        }
      }
    }
  }
  for (auto& v : list_) ::close(v->fd);
  list_.clear();
  ::close(listen_fd_);
  listen_fd_ = -1;
  ::unlink(path_.c_str());
}

// ---------------------------------------------------------------- viewers

std::vector<Publisher> list_publishers(const std::string& directory, std::vector<std::string>* removed) {
  const std::string dir = directory.empty() ? publish_directory(false) : directory;
  std::vector<Publisher> out;
  for (const auto& [pid, path] : sockets_in(dir)) {
    int err = 0;
    const int fd = connect_to(path, &err);
    if (fd < 0) {
      if (err == ECONNREFUSED) {  // nobody listens: its process ended without removing it
        ::unlink(path.c_str());
        if (removed != nullptr) removed->push_back(path);
      }
      continue;
    }
    try {
      if (peer_uid(fd) == ::geteuid()) out.push_back(Publisher{path, read_hello(fd, path, std::chrono::milliseconds(1000))});
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

namespace {

// Connects to process `pid`'s socket in `directory`, checks that it is this
// user's and reads its hello; *fd is the open connection. Throws LiveError.
LiveHello connect_publisher(int pid, const std::string& directory, int* fd) {
  const std::string dir = directory.empty() ? publish_directory(false) : directory;
  const std::string path = socket_path(dir, pid);
  const std::string how = "start it with ASYNCSCOPE_SERVE=1, or call asyncscope.serve() in it";
  int err = 0;
  *fd = connect_to(path, &err);
  if (*fd < 0) {
    if (err == ENOENT) {
      throw LiveError("asyncscope: process " + std::to_string(pid) + " does not publish its trace (no " + path + "): " + how);
    }
    if (err == ECONNREFUSED) {
      ::unlink(path.c_str());
      throw LiveError("asyncscope: process " + std::to_string(pid) +
                      " no longer publishes (it ended without removing its socket, which was removed now)");
    }
    throw LiveError("asyncscope: cannot attach to process " + std::to_string(pid) + " at " + path + ": " + errno_text(err));
  }
  try {
    if (const uint32_t uid = peer_uid(*fd); uid != ::geteuid()) {
      throw LiveError("asyncscope: refusing " + path + ": it is served by uid " + std::to_string(uid) +
                      ", not by this user (uid " + std::to_string(::geteuid()) + ")");
    }
    return read_hello(*fd, path, std::chrono::milliseconds(3000));
  } catch (...) {
    ::close(*fd);
    *fd = -1;
    throw;
  }
}

}  // namespace

LiveHello probe_publisher(int pid, const std::string& directory) {
  int fd = -1;
  LiveHello hello = connect_publisher(pid, directory, &fd);
  ::close(fd);
  return hello;
}

LiveClient::LiveClient(int pid, const std::string& directory) {
  hello_ = connect_publisher(pid, directory, &fd_);
  try {
    const char start = 'S';
    if (::send(fd_, &start, 1, MSG_NOSIGNAL) != 1) {
      throw LiveError("asyncscope: process " + std::to_string(pid) + " closed the connection: " + errno_text(errno));
    }
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd_ < 0) throw LiveError("asyncscope: cannot attach: eventfd: " + errno_text(errno));
  } catch (...) {
    ::close(fd_);
    throw;
  }
  Recorder::Options options;
  options.origin_ns = hello_.origin_ns;
  recorder_ = std::make_shared<Recorder>(options);
  recorder_->set_first_op_id(hello_.first_op_id);
  recorder_->set_counter_names(hello_.counters);
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
    message_ = std::move(message);
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
  std::string buffer;
  size_t parsed = 0;
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
    bytes_.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    buffer.append(chunk.data(), static_cast<size_t>(n));
    try {
      while (buffer.size() - parsed >= sizeof(FrameHeader)) {
        FrameHeader h;
        std::memcpy(&h, buffer.data() + parsed, sizeof(h));
        if (h.bytes > kMaxPayload) throw LiveError("a frame of " + std::to_string(h.bytes) + " bytes");
        if (buffer.size() - parsed < sizeof(h) + h.bytes) break;
        handle_frame(h.kind, h.thread, h.first, h.count, buffer.data() + parsed + sizeof(h), h.bytes);
        parsed += sizeof(h) + h.bytes;
        if (state() != State::streaming) return;  // the end frame
      }
    } catch (const std::exception& e) {
      end(State::lost, who + " sent a stream this viewer cannot read (" + e.what() + ")");
      return;
    }
    buffer.erase(0, parsed);
    parsed = 0;
  }
}

namespace {

// Appends a frame's entries to `log`, each first passed through `translate`
// (in the frame's own bytes; null: as they are).
template <class T, class Translate = std::nullptr_t>
void append_entries(ChunkedLog<T>& log, uint64_t first, uint32_t count, char* data, size_t bytes,
                    const Translate& translate = nullptr) {
  if (bytes != size_t{count} * sizeof(T)) throw LiveError("a log frame whose size does not match its entries");
  if (first != log.size() + log.dropped()) throw LiveError("a gap in a log (entry " + std::to_string(first) + ")");
  if constexpr (!std::is_same_v<Translate, std::nullptr_t>) {
    for (uint32_t i = 0; i < count; ++i) {
      T e;
      std::memcpy(&e, data + size_t{i} * sizeof(T), sizeof(T));
      translate(e);
      std::memcpy(data + size_t{i} * sizeof(T), &e, sizeof(T));
    }
  }
  log.append_bytes(data, count);
}

}  // namespace

void LiveClient::handle_frame(uint32_t kind, uint32_t thread, uint64_t first, uint32_t count, char* payload,
                              size_t bytes) {
  const auto local = [this](NameId remote) { return remote < names_.size() ? names_[remote] : NameId{0}; };
  const auto buffer = [&]() -> ThreadBuffer& {
    if (thread >= threads_.size()) throw LiveError("events of thread " + std::to_string(thread) + " before its name");
    return *threads_[thread];
  };
  switch (kind) {
    case kNames: {
      if (first != names_.size()) throw LiveError("names out of order");
      for (const std::string& name : split_names(payload, bytes)) names_.push_back(intern(name));
      break;
    }
    case kCounterNames:
      recorder_->set_counter_names(split_names(payload, bytes));
      break;
    case kThread:
      if (thread != threads_.size()) throw LiveError("threads out of order");
      threads_.push_back(&recorder_->add_thread(std::string(payload, bytes)));
      break;
    case kEnqueues:
      append_entries(buffer().enqueues, first, count, payload, bytes, [&](EnqueueEvent& e) { e.name = local(e.name); });
      break;
    case kVars:
      append_entries(buffer().vars, first, count, payload, bytes);
      break;
    case kExecs:
      append_entries(buffer().execs, first, count, payload, bytes);
      break;
    case kSyncs:
      append_entries(buffer().syncs, first, count, payload, bytes);
      break;
    case kMarkers:
      append_entries(buffer().markers, first, count, payload, bytes, [&](MarkerEvent& e) { e.name = local(e.name); });
      break;
    case kSources:
      append_entries(buffer().sources, first, count, payload, bytes, [&](SourceEvent& e) { e.file = local(e.file); });
      break;
    case kScopes:
      append_entries(buffer().scopes, first, count, payload, bytes, [&](ScopeEvent& e) { e.name = local(e.name); });
      break;
    case kCounters:
      append_entries(recorder_->counter_log(), first, count, payload, bytes);
      break;
    case kError:
      recorder_->record_error(first, std::string(payload, bytes));
      break;
    case kStatus:
      dropped_.store(first, std::memory_order_relaxed);
      recorder_->set_dropped_elsewhere(first);
      break;
    case kEnd:
      end(State::ended, "process " + std::to_string(hello_.pid) + " ended: " + std::string(payload, bytes));
      break;
    default:
      break;  // a kind this viewer does not know: skipped
  }
}

}  // namespace asyncscope::trace
