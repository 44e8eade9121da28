// What viewers cannot do to a publisher, and what a publisher cannot do to
// a viewer, over real sockets: connections that never ask are closed, there
// are at most kMaxConnections, accept errors are backed off instead of
// spun on, only this user's sockets are ever removed; a viewer that asks
// for the stream from an instant gets what was recorded from then on (with
// the line and the scopes its first ops were pushed in), a hello that never
// comes and words that would drive a terminal are said plainly.
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "engine/trace_record/clock.h"
#include "engine/trace/live.h"
#include "engine/trace/live_socket.h"
#include "engine/trace/model.h"
#include "engine/trace_record/names.h"

namespace asyncscope::trace {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    char templ[] = "/tmp/asyncscope-live-server-XXXXXX";
    const char* made = ::mkdtemp(templ);
    EXPECT_NE(made, nullptr);
    path = made != nullptr ? made : "";
  }
  ~TempDir() { fs::remove_all(path); }
  std::string path;
};

int connect_path(const std::string& path) {
  int err = 0;
  return live::connect_to(path, &err);
}

// Reads until the other side closes or `limit` passes; whether it closed.
bool closed_within(int fd, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  char buffer[4096];
  while (std::chrono::steady_clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n == 0) return true;
    if (n < 0 && errno != EINTR && errno != EAGAIN) return true;
  }
  return false;
}

TEST(LiveServer, AConnectionThatNeverAsksIsClosed) {
  TempDir dir;
  auto rec = std::make_shared<Recorder>();
  LiveServer::Options options;
  options.directory = dir.path;
  options.request_deadline = 300ms;
  LiveServer server(rec, options);
  const int fd = connect_path(server.path());
  ASSERT_GE(fd, 0);
  EXPECT_NO_THROW(live::read_hello(fd, server.path(), 3000ms));
  EXPECT_TRUE(closed_within(fd, 10s)) << "kept a connection that never asked";
  ::close(fd);
  EXPECT_GE(server.refused(), 1u);
  // A viewer that asks in time is served.
  LiveClient client(::getpid(), dir.path);
  EXPECT_EQ(client.state(), LiveClient::State::streaming);
}

TEST(LiveServer, AtMostSoManyConnectionsAreKept) {
  TempDir dir;
  auto rec = std::make_shared<Recorder>();
  LiveServer::Options options;
  options.directory = dir.path;
  LiveServer server(rec, options);
  std::vector<int> fds;
  for (size_t i = 0; i < kMaxConnections; ++i) {
    fds.push_back(connect_path(server.path()));
    ASSERT_GE(fds.back(), 0);
    EXPECT_NO_THROW(live::read_hello(fds.back(), server.path(), 3000ms)) << i;
  }
  const int extra = connect_path(server.path());
  ASSERT_GE(extra, 0);
  try {
    live::read_hello(extra, server.path(), 3000ms);
    ADD_FAILURE() << "connection " << kMaxConnections + 1 << " was kept";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("viewers connected already"), std::string::npos) << e.what();
  }
  ::close(extra);
  for (const int fd : fds) ::close(fd);
}

// The stat file of this process's thread named `name`, opened (-1 if none).
int thread_stat(const std::string& name) {
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    // Read with read(2): this runs beside descriptor limits and the sanitizers' checks of iostreams.
    char text[64] = {};
    const int fd = ::open((task.path() / "comm").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    const ssize_t got = ::read(fd, text, sizeof(text) - 1);
    ::close(fd);
    std::string n(text, got > 0 ? static_cast<size_t>(got) : 0);
    if (!n.empty() && n.back() == '\n') n.pop_back();
    if (n == name) return ::open((task.path() / "stat").c_str(), O_RDONLY | O_CLOEXEC);
  }
  return -1;
}

// Its CPU time in seconds, read again from the open file (no new descriptor needed).
double cpu_s(int stat_fd) {
  char buffer[1024];
  const ssize_t n = ::pread(stat_fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return -1;
  buffer[n] = '\0';
  // Fields 14 and 15 (utime, stime) after the command's closing parenthesis, counted from field 3.
  const char* at = std::strrchr(buffer, ')');
  if (at == nullptr) return -1;
  at += 2;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && *at != '\0'; ++i) {
    char* end = nullptr;
    const long value = std::strtol(at, &end, 10);
    if (i == 14) utime = value;
    if (i == 15) stime = value;
    const char* space = std::strchr(at, ' ');
    if (space == nullptr) break;
    at = space + 1;
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// With no descriptor left for accept (EMFILE), the pending connection keeps
// the socket readable: the server must back off, not spin on it.
TEST(LiveServer, AcceptErrorsAreBackedOffNotSpunOn) {
  TempDir dir;
  auto rec = std::make_shared<Recorder>();
  LiveServer::Options options;
  options.directory = dir.path;
  LiveServer server(rec, options);
  const int client = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(client, 0);
  int stat_fd = -1;  // the server's thread names itself once it runs
  for (int i = 0; i < 200 && stat_fd < 0; ++i, std::this_thread::sleep_for(5ms)) stat_fd = thread_stat("asyncscope live");
  ASSERT_GE(stat_fd, 0) << "no server thread found";
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  // Every descriptor taken: dup until the limit, lowered to what is open now.
  int highest = std::max(client, stat_fd);
  for (int fd = 0; fd < 4096; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0) highest = std::max(highest, fd);
  }
  rlimit low = saved;
  low.rlim_cur = static_cast<rlim_t>(highest + 1);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> fillers;
  for (int fd; (fd = ::dup(0)) >= 0;) fillers.push_back(fd);
  const sockaddr_un addr = live::address_of(server.path());
  ASSERT_EQ(::connect(client, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
  std::this_thread::sleep_for(200ms);
  const double before = cpu_s(stat_fd);
  std::this_thread::sleep_for(2s);
  const double used = cpu_s(stat_fd) - before;
  for (const int fd : fillers) ::close(fd);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  ::close(stat_fd);
  ASSERT_GE(before, 0);
  EXPECT_LT(used, 0.3) << "the server spun on accept for " << used << " s of CPU in 2 s";
  // Descriptors free again: the connection that waited is served.
  EXPECT_NO_THROW(live::read_hello(client, server.path(), 5000ms));
  ::close(client);
}

// Only this user's sockets are stale sockets: a regular file, a link and a
// folder named like one stay, whoever made them, and are not reported.
TEST(LiveServer, StaleCleanupRemovesOnlySocketsOfThisUser) {
  TempDir dir;
  const std::string file = dir.path + "/999999901.sock", link = dir.path + "/999999902.sock";
  const std::string folder = dir.path + "/999999903.sock", stale = dir.path + "/999999904.sock";
  std::ofstream(file) << "not a socket";
  fs::create_symlink(file, link);
  fs::create_directory(folder);
  {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    const sockaddr_un addr = live::address_of(stale);
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
    ::close(fd);  // bound, never listened on, not removed: a killed publisher's
  }
  std::vector<std::string> removed;
  EXPECT_TRUE(list_publishers(dir.path, &removed).empty());
  EXPECT_EQ(removed, std::vector<std::string>{stale});
  EXPECT_TRUE(fs::exists(file));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_directory(folder));
  auto rec = std::make_shared<Recorder>();
  LiveServer::Options options;
  options.directory = dir.path;
  { LiveServer server(rec, options); }  // a publisher's cleanup at its start
  EXPECT_TRUE(fs::exists(file));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_directory(folder));
  try {
    LiveClient client(999999902, dir.path);
    ADD_FAILURE() << "attached through a link";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("is not a socket of this user"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_symlink(link));
}

// A viewer asking from an instant gets the ops enqueued from then on, their
// var ids (those out of line too), the line and the scope the first of them
// were pushed in, and none of what came before.
TEST(LiveServer, AStreamFromAnInstantHoldsWhatCameAfterIt) {
  TempDir dir;
  auto rec = std::make_shared<Recorder>();
  const NameId op = intern("live_window_op"), file = intern("/tmp/live_window.py"), layer = intern("live_window_layer");
  ThreadBuffer& t = rec->local();
  const auto push = [&](uint64_t id, bool wide) {
    EnqueueEvent e;
    e.op = id;
    e.t = now_ns();
    e.name = op;
    if (wide) {
      e.num_reads = 4;
      e.num_writes = 1;
      e.vars_offset = t.vars.size();
      for (uint64_t v = 0; v < 5; ++v) t.vars.append(id * 10 + v);
    } else {
      e.num_reads = 1;
      e.num_writes = 1;
      e.inline_vars[0] = id * 10;
      e.inline_vars[1] = id * 10 + 1;
    }
    t.enqueues.append(e);
  };
  rec->record_source(file, 3);
  for (uint64_t id = 1; id <= 100; ++id) push(id, id % 4 == 0);
  rec->record_source(file, 7);
  rec->enter_scope(layer);
  std::this_thread::sleep_for(2ms);
  const int64_t from = now_ns();
  std::this_thread::sleep_for(2ms);
  for (uint64_t id = 101; id <= 150; ++id) push(id, id % 4 == 0);
  rec->leave_scope();
  LiveServer::Options options;
  options.directory = dir.path;
  LiveServer server(rec, options);
  LiveClient::Options viewer;
  viewer.directory = dir.path;
  viewer.from_ns = from;
  LiveClient client(::getpid(), viewer);
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (client.ops_received() < 50 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(client.ops_received(), 50u);
  EXPECT_EQ(client.from_ns(), from);
  client.detach();
  const TraceModel mine = snapshot(*rec);
  const TraceModel seen = snapshot(*client.recorder());
  EXPECT_EQ(seen.first_op_id, 101u);
  size_t known = 0;
  for (const OpInfo& o : seen.ops) {
    if (!o.known()) continue;
    ++known;
    const OpInfo* there = mine.find_op(o.id);
    ASSERT_NE(there, nullptr);
    ASSERT_EQ(o.num_reads + o.num_writes, there->num_reads + there->num_writes) << o.id;
    for (int v = 0; v < o.num_reads + o.num_writes; ++v) EXPECT_EQ(seen.reads_of(o)[v], mine.reads_of(*there)[v]) << o.id;
    EXPECT_EQ(seen.source_text(o.source), "/tmp/live_window.py:7") << o.id;
    EXPECT_EQ(seen.scope_text(o.scope), "live_window_layer") << o.id;
  }
  EXPECT_EQ(known, 50u);
}

// A fake publisher in this process: sends what `talk` says once a viewer connects.
class FakePublisher {
 public:
  FakePublisher(const std::string& dir, int pid, std::function<void(int fd)> talk) {
    path_ = live::socket_path(dir, pid);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_un addr = live::address_of(path_);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    thread_ = std::thread([this, talk] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      talk(c);
      ::close(c);
    });
  }
  ~FakePublisher() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
    ::unlink(path_.c_str());
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::thread thread_;
};

TEST(LiveServer, AHelloThatNeverComesIsSaidSo) {
  TempDir dir;
  FakePublisher silent(dir.path, 424201, [](int fd) {
    char byte;
    ::recv(fd, &byte, 1, 0);  // until the viewer gives up
  });
  try {
    LiveClient client(424201, dir.path);
    ADD_FAILURE();
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("sent no hello within 3000 ms"), std::string::npos) << e.what();
  }
}

TEST(LiveServer, APublishersWordsAreEscapedBeforeAnyoneSeesThem) {
  TempDir dir;
  FakePublisher rude(dir.path, 424202, [](int fd) {
    LiveHello h;
    h.pid = 424202;
    h.uid = ::geteuid();
    h.origin_ns = now_ns();
    std::string out;
    live::put_frame(out, live::Frame::hello, 0, 0, 0, live::hello_json(h));
    char request[live::kHeaderBytes];
    live::write_all(fd, out, now_ns() + 3'000'000'000);
    live::read_exact(fd, request, sizeof(request), now_ns() + 3'000'000'000);
    out.clear();
    std::string from(8, '\0');
    live::put_frame(out, live::Frame::start, 0, 1, 0, from);
    live::put_frame(out, live::Frame::end, 0, 0, 0, "\x1b]0;owned\x07\x1b[2Jbye\n");
    live::write_all(fd, out, now_ns() + 3'000'000'000);
    char byte;
    ::recv(fd, &byte, 1, 0);
  });
  LiveClient client(424202, dir.path);
  ASSERT_TRUE(client.wait_for_end(10s));
  const std::string message = client.message();
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << "a raw escape";
  EXPECT_EQ(message.find('\n'), std::string::npos) << "a raw newline";
  EXPECT_NE(message.find("bye"), std::string::npos) << message;
}

}  // namespace
}  // namespace asyncscope::trace
