#include "engine/trace/live.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/trace/chrome_trace.h"
#include "engine/trace_record/clock.h"
#include "engine/trace/model.h"
#include "engine/trace_record/names.h"

namespace asyncscope::trace {
namespace {

using namespace std::chrono_literals;

// A private folder (0700, ours) for the sockets of one test.
struct TempDir {
  TempDir() {
    char templ[] = "/tmp/asyncscope-live-test-XXXXXX";
    const char* made = ::mkdtemp(templ);
    EXPECT_NE(made, nullptr);
    path = made != nullptr ? made : "";
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

// Records what a frontend and a worker of a traced run record: pushes (some
// with more var ids than fit inline), the lines that pushed them, waits,
// markers, executions, counter samples and an error.
void record_run(Recorder& rec, uint64_t first_op, int ops, int line_base) {
  const NameId add = intern("live_test_add");
  const NameId concat = intern("live_test_concat_" + std::to_string(line_base));
  const NameId file = intern("/tmp/live_test_script_" + std::to_string(line_base) + ".py");
  ThreadBuffer& frontend = rec.local();
  rec.enter_scope(intern("live_test_net"));  // the scopes of a network's layers
  for (int i = 0; i < ops; ++i) {
    const uint64_t op = first_op + static_cast<uint64_t>(i);
    if (i % 20 == 5) rec.enter_scope(intern("live_test_layer"));
    if (i % 20 == 15) rec.leave_scope();
    if (i % 3 == 0) rec.record_source(file, static_cast<uint32_t>(line_base + i % 7));
    EnqueueEvent e;
    e.op = op;
    e.t = now_ns();
    e.name = i % 5 == 0 ? concat : add;
    e.out_bytes = 4096;
    e.push_ns = 300;
    e.iteration = static_cast<uint32_t>(i / 10);
    if (i % 5 == 0) {
      e.num_reads = 4;
      e.num_writes = 1;
      e.vars_offset = frontend.vars.size();
      for (uint64_t v = 0; v < 5; ++v) frontend.vars.append(1000 + op * 8 + v);
    } else {
      e.num_reads = 2;
      e.num_writes = 1;
      e.inline_vars[0] = op;
      e.inline_vars[1] = op + 1;
      e.inline_vars[2] = op + 2;
    }
    frontend.enqueues.append(e);
    if (i % 50 == 49) {
      const int64_t begin = now_ns();
      rec.record_sync(SyncEvent{begin, begin + 1000, op + 2, op, SyncKind::wait_to_read});
    }
    if (i % 100 == 0) rec.record_marker(intern("live_test_iteration"), i);
  }
  if (ops % 20 > 5 && ops % 20 <= 15) rec.leave_scope();
  rec.leave_scope();
  std::thread worker([&] {
    set_thread_name("CPU worker 0");
    for (int i = 0; i < ops; ++i) {
      const int64_t start = now_ns();
      rec.record_exec(ExecEvent{first_op + static_cast<uint64_t>(i), start, start + 500, 0, DeviceKind::cpu, 0,
                                i == 7 ? OpStatus::failed : OpStatus::ok, SpanKind::execute});
    }
  });
  worker.join();
  rec.record_error(first_op + 7, "live_test: the op failed");
  for (int i = 0; i < 20; ++i) {
    CounterSample s;
    s.t = now_ns();
    s.values[0] = i * 100;
    s.values[1] = i;
    rec.counter_log().append(s);
  }
}

std::string exported(const Recorder& rec) { return to_chrome_trace_json(snapshot(rec)); }

// Every entry of every log, and the errors: what a viewer's copy must have as many of.
size_t entries(const Recorder& rec) {
  size_t n = rec.counter_log().size() + rec.errors().size();
  for (const ThreadBuffer* t : rec.threads()) {
    n += t->enqueues.size() + t->vars.size() + t->execs.size() + t->syncs.size() + t->markers.size() + t->sources.size() +
         t->scopes.size();
  }
  return n;
}

// Waits until the viewer has as many entries as the program (counting is
// cheap), then (if `exact`) checks that its copy exports exactly as the
// program's does.
bool arrives(const Recorder& program, const LiveClient& client, std::chrono::milliseconds limit = 20s,
             bool exact = true) {
  const size_t want = entries(program);
  const auto until = std::chrono::steady_clock::now() + limit;
  while (entries(*client.recorder()) < want && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(entries(*client.recorder()), want) << "the viewer never got every event";
  if (!exact) return entries(*client.recorder()) == want;
  const bool same = exported(*client.recorder()) == exported(program);
  EXPECT_TRUE(same) << "the viewer's trace differs from the program's";
  return same;
}

TEST(LiveDirectory, IsMadePrivateAndRefusedWhenNot) {
  TempDir base;
  const std::string dir = base.path + "/live";
  ::setenv("ASYNCSCOPE_LIVE_DIR", dir.c_str(), 1);
  EXPECT_EQ(publish_directory(true), dir);
  struct stat st{};
  ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(st.st_uid, ::geteuid());

  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  try {
    publish_directory(true);
    ADD_FAILURE() << "a folder open to others was used";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("open to other users (mode 0755)"), std::string::npos) << e.what();
  }
  Recorder rec;
  EXPECT_THROW(LiveServer(std::shared_ptr<const Recorder>(&rec, [](const Recorder*) {}), {}), LiveError);

  // A link to a private folder is refused too (whoever made the link chose where it points).
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  const std::string link = base.path + "/link";
  ASSERT_EQ(::symlink(dir.c_str(), link.c_str()), 0);
  ::setenv("ASYNCSCOPE_LIVE_DIR", link.c_str(), 1);
  EXPECT_THROW(publish_directory(true), LiveError);
  ::unsetenv("ASYNCSCOPE_LIVE_DIR");
}

TEST(LiveDirectory, DefaultsToTheRuntimeDirectoryOrAFolderOfTheUserUnderTmp) {
  TempDir runtime;
  const char* old = std::getenv("XDG_RUNTIME_DIR");
  const std::string saved = old != nullptr ? old : "";
  ::unsetenv("ASYNCSCOPE_LIVE_DIR");
  ::setenv("XDG_RUNTIME_DIR", runtime.path.c_str(), 1);
  EXPECT_EQ(publish_directory(true), runtime.path + "/asyncscope");
  ::unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(publish_directory(false), "/tmp/asyncscope-" + std::to_string(::geteuid()));
  if (!saved.empty()) ::setenv("XDG_RUNTIME_DIR", saved.c_str(), 1);
}

TEST(Live, AViewerGetsTheProgramsTraceAsItGrows) {
  TempDir dir;
  auto program = std::make_shared<Recorder>();
  program->set_first_op_id(1);
  program->set_counter_names({"live_test_bytes", "live_test_queue"});
  LiveServer server(program, {dir.path, "live test", 5ms});
  EXPECT_EQ(server.path(), dir.path + "/" + std::to_string(::getpid()) + ".sock");
  struct stat st{};
  ASSERT_EQ(::stat(server.path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  record_run(*program, 1, 400, 10);
  LiveClient client(::getpid(), dir.path);
  EXPECT_EQ(client.hello().pid, ::getpid());
  EXPECT_EQ(client.hello().title, "live test");
  EXPECT_EQ(client.hello().origin_ns, program->origin_ns());
  EXPECT_EQ(client.recorder()->origin_ns(), program->origin_ns());
  EXPECT_TRUE(arrives(*program, client));

  // More, recorded while the viewer follows: the same again.
  record_run(*program, 401, 700, 40);
  EXPECT_TRUE(arrives(*program, client));
  const TraceModel model = snapshot(*client.recorder());
  EXPECT_EQ(model.ops.size(), 1100u);
  EXPECT_EQ(model.errors.size(), 2u);
  ASSERT_GE(model.source_lines.size(), 2u);
  EXPECT_EQ(model.names[model.source_lines[0].file], "/tmp/live_test_script_10.py");
  EXPECT_EQ(model.scopes, (std::vector<std::string>{"live_test_net", "live_test_net > live_test_layer"}));
  EXPECT_EQ(client.state(), LiveClient::State::streaming);
  EXPECT_EQ(server.viewers(), 1u);

  server.finish(2s, "the test ended");
  ASSERT_TRUE(client.wait_for_end(5s));
  EXPECT_EQ(client.state(), LiveClient::State::ended);
  EXPECT_NE(client.message().find("the test ended"), std::string::npos) << client.message();
  EXPECT_FALSE(std::filesystem::exists(server.path())) << "the socket stays after the program ended";
}

TEST(Live, AViewerThatAttachesLateCatchesUpInBoundedRounds) {
  TempDir dir;
  auto program = std::make_shared<Recorder>();
  // Far more than a round (16,384 entries per log): the sources must still
  // cover exactly the pushes of each round, so every op keeps its line.
  record_run(*program, 1, 40'000, 100);
  LiveServer server(program, {dir.path, "", 20ms});
  LiveClient client(::getpid(), dir.path);
  EXPECT_TRUE(arrives(*program, client, 60s, false));
  const TraceModel mine = snapshot(*program), theirs = snapshot(*client.recorder());
  ASSERT_EQ(mine.ops.size(), theirs.ops.size());
  for (size_t i = 0; i < mine.ops.size(); ++i) {
    const OpInfo &a = mine.ops[i], &b = theirs.ops[i];
    ASSERT_EQ(mine.source_text(a.source), theirs.source_text(b.source)) << "op " << i;
    ASSERT_EQ(mine.scope_text(a.scope), theirs.scope_text(b.scope)) << "op " << i;
    ASSERT_EQ(std::make_tuple(a.enqueue, a.start, a.end, a.num_reads, a.num_writes),
              std::make_tuple(b.enqueue, b.start, b.end, b.num_reads, b.num_writes)) << "op " << i;
    ASSERT_TRUE(std::equal(mine.reads_of(a), mine.reads_of(a) + a.num_reads + a.num_writes, theirs.reads_of(b)))
        << "op " << i;
  }
  ASSERT_EQ(mine.syncs.size(), theirs.syncs.size());
  for (size_t i = 0; i < mine.syncs.size(); ++i) {
    ASSERT_EQ(mine.source_text(mine.syncs[i].source), theirs.source_text(theirs.syncs[i].source)) << "wait " << i;
  }
}

TEST(Live, ThePublishersDroppedEventsReachTheViewer) {
  TempDir dir;
  Recorder::Options small;
  small.max_events_per_thread = 4096;
  auto program = std::make_shared<Recorder>(small);
  record_run(*program, 1, 5000, 1);
  ASSERT_GT(program->dropped(), 0u);
  LiveServer server(program, {dir.path, "", 5ms});
  LiveClient client(::getpid(), dir.path);
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (client.dropped() != program->dropped() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(client.dropped(), program->dropped());
  EXPECT_EQ(client.recorder()->dropped(), program->dropped());
}

TEST(Live, AViewerThatReadsNothingNeitherBlocksTheProgramNorItsEnd) {
  TempDir dir;
  auto program = std::make_shared<Recorder>();
  LiveServer server(program, {dir.path, "", 1ms});
  // A viewer that asks for the events and never reads one.
  const std::string path = server.path();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::send(fd, "S", 1, 0), 1);
  record_run(*program, 1, 200'000, 1);  // about 20 MB of events: far more than a socket holds
  std::this_thread::sleep_for(100ms);
  // What was sent is what the socket took, not the trace: the rest waits in the recorder.
  EXPECT_LT(server.bytes_sent(), uint64_t{12} << 20);
  const auto t0 = std::chrono::steady_clock::now();
  server.finish(300ms, "the test ended");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s) << "finish waited for a viewer that reads nothing";
  EXPECT_FALSE(std::filesystem::exists(path));
  ::close(fd);
}

TEST(Live, ListingShowsPublishersAndRemovesStaleSockets) {
  TempDir dir;
  auto program = std::make_shared<Recorder>();
  LiveServer server(program, {dir.path, "listed", 5ms});
  // A socket nobody listens on, as a killed process leaves behind.
  const std::string stale = dir.path + "/999999.sock";
  {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, stale.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    ::close(fd);
  }
  std::vector<std::string> removed;
  const std::vector<Publisher> found = list_publishers(dir.path, &removed);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].hello.pid, ::getpid());
  EXPECT_EQ(found[0].hello.title, "listed");
  EXPECT_EQ(removed, std::vector<std::string>{stale});
  EXPECT_FALSE(std::filesystem::exists(stale));

  try {
    LiveClient client(999998, dir.path);
    ADD_FAILURE() << "attached to nobody";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("process 999998 does not publish its trace"), std::string::npos) << e.what();
  }
}

// Not a test of its own (disabled): the publishing process of the test
// below, which starts this binary again with this test alone (a fresh
// process, so no thread is forked) and kills it.
TEST(LivePublisherProcess, DISABLED_PublishesUntilKilled) {
  const char* dir = std::getenv("ASYNCSCOPE_LIVE_TEST_PUBLISH");
  const char* ready = std::getenv("ASYNCSCOPE_LIVE_TEST_READY_FD");
  if (dir == nullptr || ready == nullptr) GTEST_SKIP() << "run by Live.AProcessKilledWhileAViewerFollows...";
  auto program = std::make_shared<Recorder>();
  LiveServer server(program, {dir, "doomed", 5ms});
  record_run(*program, 1, 100, 1);
  [[maybe_unused]] const ssize_t w = ::write(std::atoi(ready), "r", 1);
  for (;;) ::pause();
}

TEST(Live, AProcessKilledWhileAViewerFollowsIsLostAndItsSocketCleaned) {
  TempDir dir;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string filter = "--gtest_filter=LivePublisherProcess.DISABLED_PublishesUntilKilled";
  const std::string dir_env = "ASYNCSCOPE_LIVE_TEST_PUBLISH=" + dir.path;
  const std::string fd_env = "ASYNCSCOPE_LIVE_TEST_READY_FD=" + std::to_string(ready[1]);
  std::vector<std::string> env_strings = {dir_env, fd_env};
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string self_arg = self, filter_arg = filter, brief = "--gtest_brief=1", disabled = "--gtest_also_run_disabled_tests";
  char* argv[] = {self_arg.data(), filter_arg.data(), disabled.data(), brief.data(), nullptr};
  pid_t child = 0;
  ASSERT_EQ(::posix_spawn(&child, self.c_str(), nullptr, nullptr, argv, envp.data()), 0);
  ::close(ready[1]);  // a child that dies early ends the read below
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "the publishing process did not start";
  ::close(ready[0]);
  {
    LiveClient client(child, dir.path);
    EXPECT_EQ(client.hello().title, "doomed");
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ASSERT_TRUE(client.wait_for_end(5s));
    EXPECT_EQ(client.state(), LiveClient::State::lost);
    EXPECT_NE(client.message().find("without saying it ended"), std::string::npos) << client.message();
  }
  const std::string path = dir.path + "/" + std::to_string(child) + ".sock";
  EXPECT_TRUE(std::filesystem::exists(path));
  try {
    LiveClient again(child, dir.path);
    ADD_FAILURE() << "attached to a process that is gone";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("no longer publishes"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Another user: made when the tests run as root (as CI does).
uid_t other_user(std::string* why) {
  if (::geteuid() != 0) {
    *why = "needs root to act as another user (run the tests as root, as CI does)";
    return 0;
  }
  constexpr const char* kName = "asyncscope-peer";
  if (::getpwnam(kName) == nullptr) {
    const std::string cmd = std::string("useradd --system --no-create-home --shell /usr/sbin/nologin ") + kName +
                            " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0 || ::getpwnam(kName) == nullptr) {
      *why = "could not create the user asyncscope-peer (useradd)";
      return 0;
    }
  }
  return ::getpwnam(kName)->pw_uid;
}

// In a child running as `uid`: connects to `path` and returns what it got:
// "connect: <errno text>", or the first frame's payload.
std::string connect_as(uid_t uid, const std::string& path) {
  int out[2];
  if (::pipe(out) != 0) return "pipe";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(out[0]);
    char result[1024] = "";
    if (::setgid(uid) != 0 || ::setuid(uid) != 0) {
      std::strcpy(result, "setuid failed");
    } else {
      const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        std::snprintf(result, sizeof(result), "connect: %s", std::strerror(errno));
      } else {
        char frame[24 + 1000] = {};
        size_t got = 0;
        ssize_t n = 0;
        while (got < sizeof(frame) && (n = ::read(fd, frame + got, sizeof(frame) - got)) > 0) got += static_cast<size_t>(n);
        if (got > 24) std::memcpy(result, frame + 24, std::min<size_t>(got - 24, sizeof(result) - 1));
      }
    }
    [[maybe_unused]] const ssize_t w = ::write(out[1], result, std::strlen(result));
    ::_exit(0);
  }
  ::close(out[1]);
  std::string got;
  char buffer[256];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof(buffer))) > 0;) got.append(buffer, static_cast<size_t>(n));
  ::close(out[0]);
  ::waitpid(child, nullptr, 0);
  return got;
}

TEST(LiveSecurity, AnotherUserCannotAttach) {
  std::string why;
  const uid_t other = other_user(&why);
  if (other == 0) GTEST_SKIP() << why;
  TempDir dir;
  auto program = std::make_shared<Recorder>();
  LiveServer server(program, {dir.path, "private", 5ms});
  // The folder (0700) keeps the other user out.
  EXPECT_EQ(connect_as(other, server.path()), "connect: Permission denied");
  // So does the socket (0600), where the folder would let them through.
  TempDir open;
  ASSERT_EQ(::chmod(open.path.c_str(), 0755), 0);
  const std::string link = open.path + "/published.sock";
  ASSERT_EQ(::link(server.path().c_str(), link.c_str()), 0);
  EXPECT_EQ(connect_as(other, link), "connect: Permission denied");
  // And where both would (a careless chmod), the server checks who connected.
  ASSERT_EQ(::chmod(link.c_str(), 0666), 0);
  const std::string refusal = connect_as(other, link);
  EXPECT_NE(refusal.find("refused"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("uid " + std::to_string(other)), std::string::npos) << refusal;
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (server.refused() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(server.refused(), 1u);
}

TEST(LiveSecurity, AFolderOfAnotherUserIsRefused) {
  std::string why;
  const uid_t other = other_user(&why);
  if (other == 0) GTEST_SKIP() << why;
  TempDir base;
  const std::string dir = base.path + "/theirs";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chown(dir.c_str(), other, other), 0);
  ::setenv("ASYNCSCOPE_LIVE_DIR", dir.c_str(), 1);
  try {
    publish_directory(true);
    ADD_FAILURE() << "another user's folder was used";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to uid " + std::to_string(other)), std::string::npos) << e.what();
  }
  EXPECT_THROW(list_publishers(), LiveError);
  ::unsetenv("ASYNCSCOPE_LIVE_DIR");
}

TEST(LiveSecurity, AViewerRefusesASocketServedByAnotherUser) {
  std::string why;
  const uid_t other = other_user(&why);
  if (other == 0) GTEST_SKIP() << why;
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path.c_str(), 0777), 0);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Another user poses as a publisher (its socket where a viewer looks).
    if (::setgid(other) != 0 || ::setuid(other) != 0) ::_exit(1);
    const std::string path = dir.path + "/" + std::to_string(::getpid()) + ".sock";
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::chmod(path.c_str(), 0777) != 0 ||
        ::listen(fd, 4) != 0) {
      ::_exit(1);
    }
    [[maybe_unused]] const ssize_t w = ::write(ready[1], "r", 1);
    for (;;) ::pause();
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  // The socket is another user's file: not even connected to.
  try {
    LiveClient client(child, dir.path);
    ADD_FAILURE() << "attached to another user's socket";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("is not a socket of this user"), std::string::npos) << e.what();
  }
  // Made ours (root can), it is still served by the other user: the peer's credentials say so.
  const std::string path = dir.path + "/" + std::to_string(child) + ".sock";
  ASSERT_EQ(::lchown(path.c_str(), ::geteuid(), ::getegid()), 0);
  try {
    LiveClient client(child, dir.path);
    ADD_FAILURE() << "attached to a socket another user serves";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("served by uid " + std::to_string(other)), std::string::npos) << e.what();
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
}

}  // namespace
}  // namespace asyncscope::trace
