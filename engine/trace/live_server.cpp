// LiveServer: a recorder published on a Unix socket (live.h), the
// publisher's side of live_protocol.h.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "engine/trace_record/clock.h"
#include "engine/trace/live.h"
#include "engine/trace/live_socket.h"
#include "engine/trace_record/names.h"

namespace asyncscope::trace {
namespace {

using live::Frame;

// Entries per log per round, so a viewer that attaches late catches up in
// bounded steps (a round of one thread is at most about 2 MB).
constexpr size_t kRoundEntries = size_t{1} << 14;
// After an accept that failed for want of resources (no descriptors left),
// the listening socket is left alone this long instead of polled at once.
constexpr int64_t kAcceptBackoffNs = 200'000'000;

std::string errno_text(int err) { return std::strerror(err); }

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += n;
    out.push_back('\0');
  }
  return out;
}

// Entries [from, to) of a log as one frame, its indices counted from `base`.
template <class T, class Encode>
void append_log(std::string& out, Frame kind, uint32_t thread, const ChunkedLog<T>& log, size_t base, size_t from,
                size_t to, const Encode& encode) {
  if (to <= from) return;
  const size_t header_at = out.size();
  live::put_header(out, live::FrameHeader{static_cast<uint16_t>(kind), thread, from - base,
                                          static_cast<uint32_t>(to - from), 0});
  const size_t payload_at = out.size();
  log.for_each_run(from, to, [&](const T* first, size_t n) {
    for (size_t i = 0; i < n; ++i) encode(out, first[i]);
  });
  // The payload's size, now known, into its header's last field.
  const uint32_t bytes = static_cast<uint32_t>(out.size() - payload_at);
  for (int i = 0; i < 4; ++i) out[header_at + live::kHeaderBytes - 4 + i] = static_cast<char>(bytes >> (8 * i));
}

// The first index of `log` from which on `keep(entry)` holds, scanning back
// from its end (the logs' times grow, so what is kept is a suffix).
template <class T, class Keep>
size_t suffix_start(const ChunkedLog<T>& log, size_t size, const Keep& keep) {
  size_t i = size;
  while (i > 0 && keep(log[i - 1])) --i;
  return i;
}

}  // namespace

struct LiveServer::Viewer {
  struct Cursor {
    size_t enqueues = 0, vars = 0, execs = 0, syncs = 0, markers = 0, sources = 0, scopes = 0;
  };
  int fd = -1;
  int64_t accepted_ns = 0;
  bool streaming = false;  // asked for the events (a listing only reads the hello)
  bool closed = false;
  std::string request;  // bytes of its request so far
  std::string pending;  // frames not yet sent, from `sent` on
  size_t sent = 0;
  size_t names = 0, counter_names = 0, counters = 0, counters_base = 0, errors = 0, threads_sent = 0;
  uint64_t dropped = 0;
  bool behind = false;  // the last round left events for the next (a round's bound)
  std::vector<Cursor> cursors;  // by thread index: what was sent of each log
  std::vector<Cursor> bases;    // by thread index: where each log's stream began

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
  path_ = live::socket_path(dir, owner_);
  const sockaddr_un addr = live::address_of(path_);
  // Sockets left by processes that ended without removing theirs (killed):
  // this pid's, and any whose process is gone; only this user's sockets.
  for (const auto& [pid, path] : live::sockets_in(dir)) {
    if (pid == owner_ || !live::process_exists(pid)) live::remove_socket(path);
  }
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) throw LiveError("asyncscope: cannot make a socket to publish on: " + errno_text(errno));
  if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0 || ::chmod(path_.c_str(), 0600) != 0 ||
      ::listen(listen_fd_, 16) != 0) {
    const int err = errno;
    ::close(listen_fd_);
    live::remove_socket(path_);
    throw LiveError("asyncscope: cannot publish on " + path_ + ": " + errno_text(err));
  }
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    const int err = errno;
    ::close(listen_fd_);
    live::remove_socket(path_);
    throw LiveError("asyncscope: cannot publish: eventfd: " + errno_text(err));
  }

  char cwd[4096] = "";
  if (::getcwd(cwd, sizeof(cwd)) == nullptr) cwd[0] = '\0';
  LiveHello hello;
  hello.pid = static_cast<int>(owner_);
  hello.uid = ::geteuid();
  hello.title = options_.title.empty() ? live::default_title() : options_.title;
  hello.command = live::own_command_line();
  hello.cwd = cwd;
  hello.started_unix_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  hello.origin_ns = recorder_->origin_ns();
  hello.first_op_id = recorder_->first_op_id();
  hello.counters = recorder_->counter_names();
  live::put_frame(hello_, Frame::hello, 0, 0, 0, live::hello_json(hello));
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

void LiveServer::accept_viewers(int64_t now) {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      // Out of descriptors or memory: the connection stays queued and the
      // socket readable, so trying again at once would spin; wait a while.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        accept_paused_until_ = now + kAcceptBackoffNs;
      }
      return;  // EAGAIN: none left
    }
    const auto refuse = [&](const std::string& why) {
      std::string frame;
      live::put_frame(frame, Frame::refusal, 0, 0, 0, why);
      [[maybe_unused]] const ssize_t n = ::send(fd, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      ::close(fd);
      refused_.fetch_add(1, std::memory_order_relaxed);
    };
    const uint32_t uid = live::peer_uid(fd);
    if (uid != ::geteuid()) {
      refuse("asyncscope: refused: process " + std::to_string(owner_) + " publishes its trace to its own user only (uid " +
             std::to_string(::geteuid()) + "); this viewer runs as uid " + std::to_string(uid));
      continue;
    }
    if (list_.size() >= kMaxConnections) {
      refuse("asyncscope: refused: process " + std::to_string(owner_) + " has " + std::to_string(list_.size()) +
             " viewers connected already, the most it keeps; detach one and try again");
      continue;
    }
    auto viewer = std::make_unique<Viewer>();
    viewer->fd = fd;
    viewer->accepted_ns = now;
    viewer->pending = hello_;
    list_.push_back(std::move(viewer));
  }
}

void LiveServer::read_request(Viewer& v) {
  char buffer[64];
  const ssize_t n = ::recv(v.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    v.closed = true;  // gone (a listing that read the hello), or broken
    return;
  }
  if (v.streaming) return;  // nothing else is asked of a viewer: ignored
  v.request.append(buffer, static_cast<size_t>(n));
  if (v.request.size() < live::kHeaderBytes) return;
  const live::FrameHeader h = live::get_header(v.request.data());
  if (h.kind != static_cast<uint16_t>(Frame::request) || h.bytes != 0 || v.request.size() != live::kHeaderBytes) {
    v.closed = true;  // not a viewer of this protocol
    return;
  }
  start_stream(v, static_cast<int64_t>(h.first));
}

void LiveServer::start_stream(Viewer& v, int64_t from_ns) {
  v.streaming = true;
  const int64_t from = std::max(from_ns, recorder_->origin_ns());
  const bool all = from_ns <= recorder_->origin_ns();
  uint64_t first_op = UINT64_MAX;
  const std::vector<const ThreadBuffer*> threads = recorder_->threads();
  for (const ThreadBuffer* t : threads) {
    Viewer::Cursor c;
    if (!all) {
      c.enqueues = suffix_start(t->enqueues, t->enqueues.size(), [&](const EnqueueEvent& e) { return e.t >= from; });
      c.syncs = suffix_start(t->syncs, t->syncs.size(), [&](const SyncEvent& e) { return e.end >= from; });
      c.execs = suffix_start(t->execs, t->execs.size(), [&](const ExecEvent& e) { return e.end >= from; });
      c.markers = suffix_start(t->markers, t->markers.size(), [&](const MarkerEvent& e) { return e.t >= from; });
      // The line the thread was on when the stream starts comes with it.
      c.sources = suffix_start(t->sources, t->sources.size(), [&](const SourceEvent& e) { return e.t >= from; });
      if (c.sources > 0) --c.sources;
      // And the scopes it was in: from the last moment it was in none.
      const size_t scopes_after = suffix_start(t->scopes, t->scopes.size(), [&](const ScopeEvent& e) { return e.t >= from; });
      size_t depth = 0;
      for (size_t i = 0; i < scopes_after; ++i) {
        if (depth == 0) c.scopes = i;
        depth = t->scopes[i].enter != 0 ? depth + 1 : (depth > 0 ? depth - 1 : 0);
      }
      if (depth == 0) c.scopes = scopes_after;
      // Var ids of the enqueues sent: from the first that has them out of line.
      c.vars = t->vars.size();
      for (size_t i = c.enqueues; i < t->enqueues.size(); ++i) {
        const EnqueueEvent& e = t->enqueues[i];
        if (size_t{e.num_reads} + e.num_writes > static_cast<size_t>(kInlineVarIds)) {
          c.vars = std::min<size_t>(c.vars, e.vars_offset);
          break;
        }
      }
    }
    if (c.enqueues < t->enqueues.size()) first_op = std::min(first_op, t->enqueues[c.enqueues].op);
    v.cursors.push_back(c);
    v.bases.push_back(c);
  }
  if (!all) {
    const ChunkedLog<CounterSample>& counters = recorder_->counter_log();
    v.counters = suffix_start(counters, counters.size(), [&](const CounterSample& s) { return s.t >= from; });
    if (v.counters > 0) --v.counters;  // the values the stream starts with
    v.counters_base = v.counters;
  }
  if (all || first_op == UINT64_MAX) first_op = all ? recorder_->first_op_id() : first_op;
  if (first_op == UINT64_MAX) {
    // Nothing enqueued since `from`: the stream's ops start after the last one enqueued.
    first_op = recorder_->first_op_id();
    for (const ThreadBuffer* t : threads) {
      if (const size_t n = t->enqueues.size(); n > 0) first_op = std::max(first_op, t->enqueues[n - 1].op + 1);
    }
  }
  std::string from_bytes;
  for (int i = 0; i < 8; ++i) from_bytes.push_back(static_cast<char>(static_cast<uint64_t>(from) >> (8 * i)));
  live::put_frame(v.pending, Frame::start, 0, first_op, 0, from_bytes);
}

bool LiveServer::fill_round(Viewer& v) {
  std::string& out = v.pending;
  const size_t before = out.size();
  v.behind = false;
  // Names first: the events below may use names interned just before them.
  if (const size_t n = name_count(); n > v.names) {
    const std::vector<std::string> names = names_from(v.names);
    live::put_frame(out, Frame::names, 0, v.names, static_cast<uint32_t>(names.size()), joined(names));
    v.names += names.size();
  }
  if (const std::vector<std::string> names = recorder_->counter_names(); names.size() != v.counter_names) {
    live::put_frame(out, Frame::counter_names, 0, 0, static_cast<uint32_t>(names.size()), joined(names));
    v.counter_names = names.size();
  }
  const std::vector<const ThreadBuffer*> threads = recorder_->threads();
  while (v.threads_sent < threads.size()) {
    const ThreadBuffer& t = *threads[v.threads_sent];
    live::put_frame(out, Frame::thread, t.index, 0, 0, t.name);
    if (v.cursors.size() <= t.index) {
      v.cursors.resize(t.index + 1);  // registered after the request: all of it
      v.bases.resize(t.index + 1);
    }
    ++v.threads_sent;
  }
  for (const ThreadBuffer* t : threads) {
    Viewer::Cursor& c = v.cursors[t->index];
    const Viewer::Cursor& base = v.bases[t->index];
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

    const uint32_t thread = t->index;
    const uint64_t vars_base = base.vars;
    append_log(out, Frame::sources, thread, t->sources, base.sources, c.sources, source_end,
               [](std::string& o, const SourceEvent& e) { live::encode(o, e); });
    append_log(out, Frame::scopes, thread, t->scopes, base.scopes, c.scopes, scope_end,
               [](std::string& o, const ScopeEvent& e) { live::encode(o, e); });
    append_log(out, Frame::vars, thread, t->vars, base.vars, c.vars, vars_end,
               [](std::string& o, uint64_t id) { live::encode(o, id); });
    append_log(out, Frame::enqueues, thread, t->enqueues, base.enqueues, c.enqueues, enqueue_end,
               [vars_base](std::string& o, const EnqueueEvent& e) { live::encode(o, e, vars_base); });
    append_log(out, Frame::syncs, thread, t->syncs, base.syncs, c.syncs, sync_end,
               [](std::string& o, const SyncEvent& e) { live::encode(o, e); });
    append_log(out, Frame::markers, thread, t->markers, base.markers, c.markers, marker_end,
               [](std::string& o, const MarkerEvent& e) { live::encode(o, e); });
    append_log(out, Frame::execs, thread, t->execs, base.execs, c.execs, exec_end,
               [](std::string& o, const ExecEvent& e) { live::encode(o, e); });
    c = Viewer::Cursor{enqueue_end, vars_end, exec_end, sync_end, marker_end, source_end, scope_end};
  }
  const ChunkedLog<CounterSample>& counters = recorder_->counter_log();
  const size_t counter_end = std::min(counters.size(), v.counters + kRoundEntries);
  append_log(out, Frame::counters, 0, counters, v.counters_base, v.counters, counter_end,
             [](std::string& o, const CounterSample& e) { live::encode(o, e); });
  v.behind |= counter_end < counters.size();
  v.counters = counter_end;
  for (const auto& [op, text] : recorder_->errors(v.errors)) {
    live::put_frame(out, Frame::error, 0, op, 0, text);
    ++v.errors;
  }
  if (const uint64_t dropped = recorder_->dropped(); dropped != v.dropped) {
    live::put_frame(out, Frame::status, 0, dropped, 0, {});
    v.dropped = dropped;
  }
  return out.size() != before;
}

void LiveServer::serve() {
  const int64_t round_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.round).count();
  const int64_t request_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.request_deadline).count();
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
    const bool due = finishing || now >= next_round;
    for (auto& v : list_) {
      // A viewer behind (one attached late to a long run) gets the next round as soon as it took the last.
      if (v->streaming && !v->closed && v->unsent() < kMaxPendingBytes && (due || v->behind)) fill_round(*v);
      // A connection that never asks (a stuck or hostile client) is not kept.
      if (!v->streaming && !v->closed && now - v->accepted_ns > request_ns) {
        v->closed = true;
        refused_.fetch_add(1, std::memory_order_relaxed);
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
            live::put_frame(v->pending, Frame::end, 0, 0, 0, end_reason_);
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
    const bool accepting = !finishing && now >= accept_paused_until_;
    fds.push_back({listen_fd_, static_cast<short>(accepting ? POLLIN : 0), 0});
    bool following = false, catching_up = false, asking = false;
    for (const auto& v : list_) {
      fds.push_back({v->fd, static_cast<short>(POLLIN | (v->unsent() > 0 ? POLLOUT : 0)), 0});
      following |= v->streaming;
      asking |= !v->streaming;
      catching_up |= v->streaming && v->behind && v->unsent() < kMaxPendingBytes;
    }
    int64_t timeout_ms = -1;  // nobody follows: sleep until a viewer comes (publishing costs the program nothing)
    const auto at_most = [&timeout_ms](int64_t ms) {
      ms = std::max<int64_t>(ms, 0);
      timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
    };
    if (catching_up) at_most(0);
    if (finishing) at_most(5);
    if (following) at_most((next_round - now_ns()) / 1'000'000 + 1);
    if (asking) at_most(request_ns / 1'000'000 / 10);
    if (!finishing && !accepting) at_most((accept_paused_until_ - now) / 1'000'000 + 1);
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(timeout_ms, 1000))) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      uint64_t value = 0;
      [[maybe_unused]] const ssize_t r = ::read(wake_fd_, &value, sizeof(value));
    }
    if (fds[1].revents & POLLIN) accept_viewers(now_ns());
    for (size_t i = 2; i < fds.size() && i - 2 < list_.size(); ++i) {
      Viewer& v = *list_[i - 2];
      if (fds[i].fd != v.fd) continue;  // accepted just now: polled next time
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_request(v);
    }
  }
  for (auto& v : list_) ::close(v->fd);
  list_.clear();
  ::close(listen_fd_);
  listen_fd_ = -1;
  live::remove_socket(path_);
}

}  // namespace asyncscope::trace
