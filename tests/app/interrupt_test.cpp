// SIGINT and SIGTERM sent to the real executable: during a run, during the
// export of its outputs (blocked writing into a pipe nobody reads), and during
// a script's blocking call. Each time the process stops promptly, exits
// 128 + the signal with one line on stderr, replaces no output and leaves no
// temporary file behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_harness.h"
#include "support/timeout.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The executable in `dir` with `args`, stdout to `out_fd` (or a file), stderr
// to dir/stderr.txt. fork + exec: only async-signal-safe calls in the child.
// `sigint_ignored`: started as a shell starts a background job (SIGINT ignored).
// `quick_exit_check`: under AddressSanitizer, no leak scan at exit (it walks the
// whole heap, seconds for a 600 MB one, after the program's own work is done).
pid_t spawn(const std::string& dir, const std::vector<std::string>& args, int out_fd = -1, bool sigint_ignored = false,
            bool quick_exit_check = false) {
  std::vector<std::string> all = {ASYNCSCOPE_EXE};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment is built before fork: the child may only make async-signal-safe calls.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (quick_exit_check && entry.rfind("ASAN_OPTIONS=", 0) == 0) continue;
    env_text.push_back(entry);
  }
  if (quick_exit_check) {
    const char* asan = std::getenv("ASAN_OPTIONS");
    env_text.push_back(std::string("ASAN_OPTIONS=") + (asan != nullptr ? asan : "") + " detect_leaks=0");
  }
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string out_path = dir + "/stdout.txt", err_path = dir + "/stderr.txt";
  const int out = out_fd >= 0 ? out_fd : ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(99);
    if (sigint_ignored) ::signal(SIGINT, SIG_IGN);  // kept across exec, as a shell's `cmd &`
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(98);
  }
  if (out_fd < 0) ::close(out);
  ::close(err);
  return pid;
}

// The exit status; 1000 + N if the signal N killed it (no cleanup ran);
// -1 if it did not end within `limit` (then it is killed).
int wait_for(pid_t pid, std::chrono::seconds limit) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return -1;
}

std::vector<std::string> temporaries(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp-") != std::string::npos) found.push_back(name);
  }
  return found;
}

std::string folder() {
  const std::string dir = fs::path(testing::scratch("x")).parent_path().string();
  for (const auto& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
  return dir;
}

// One message, the last line of stderr (after any progress lines: stderr is not a terminal here).
void expect_one_line(const std::string& dir, const std::string& fragment) {
  const std::string said = testing::read(dir + "/stderr.txt");
  const size_t at = said.find("asyncscope: ");
  ASSERT_NE(at, std::string::npos) << said;
  EXPECT_EQ(said.find("asyncscope: ", at + 1), std::string::npos) << said;
  EXPECT_EQ(said.find(fragment), at) << said;
  EXPECT_EQ(said.find('\n', at), said.size() - 1) << said;
}

TEST(Interrupt, SigintStopsARunAndWritesNothing) {
  const std::string dir = folder();
  std::ofstream(dir + "/a.json") << "precious";
  // Runs for seconds uninterrupted: still going when the signal comes.
  const pid_t pid = spawn(dir, {"run", "memory-and-sync", "--sync", "item", "--json", "a.json", "--trace", "b.json"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto sent = Clock::now();
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_for(pid, std::chrono::seconds(60)), 130);
  EXPECT_LT(Clock::now() - sent, asyncscope::testing::scaled(std::chrono::seconds(5))) << "the run did not stop promptly";
  expect_one_line(dir, "asyncscope: interrupted by SIGINT: stopped before the end; no output file was written or replaced");
  EXPECT_EQ(testing::read(dir + "/a.json"), "precious");
  EXPECT_FALSE(fs::exists(dir + "/b.json"));
  EXPECT_TRUE(temporaries(dir).empty());
}

// The export blocks writing the trace into a pipe nobody reads, after the
// results JSON was written to its temporary file: SIGTERM then abandons the
// export, removes the temporary file and keeps the old results.
TEST(Interrupt, SigtermDuringTheExportRemovesItsTemporaryFiles) {
  const std::string dir = folder();
  std::ofstream(dir + "/a.json") << "precious";
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  const pid_t pid = spawn(dir, {"run", "sync-vs-async", "--iterations", "2000", "--size", "16", "--json", "a.json",
                                "--trace", "/dev/stdout"},
                          pipe_fds[1]);
  ::close(pipe_fds[1]);
  const auto end = Clock::now() + std::chrono::seconds(60);
  while (temporaries(dir).empty() && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(temporaries(dir).empty()) << "the export never began";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // blocked on the full pipe by now
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_for(pid, std::chrono::seconds(30)), 143);
  ::close(pipe_fds[0]);
  expect_one_line(dir, "asyncscope: interrupted by SIGTERM");
  EXPECT_EQ(testing::read(dir + "/a.json"), "precious");
  EXPECT_TRUE(temporaries(dir).empty()) << temporaries(dir).front();
}

// A script in a blocking call, in a pure-Python loop, in a wait on an op
// that runs for a minute, and in the join of a thread it started: each stops.
TEST(Interrupt, SigintStopsAScriptWhereverItIs) {
  for (const char* body : {"import time\ntime.sleep(120)\n", "while True:\n    pass\n",
                           "from asyncscope import nd\nx = nd.random.uniform(shape=(600, 600))\n"
                           "for i in range(6000):\n    x = nd.dot(x, x) / 600\nx.wait_to_read()\n",
                           "import threading, time\nthreading.Thread(target=time.sleep, args=(120,)).start()\n"}) {
    const std::string dir = folder();
    std::ofstream(dir + "/wait.py") << "print('started', flush=True)\n" << body;
    const pid_t pid = spawn(dir, {"script", "wait.py", "--json", "r.json"});
    const auto end = Clock::now() + std::chrono::seconds(60);
    while (testing::read(dir + "/stdout.txt").empty() && Clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto sent = Clock::now();
    ::kill(pid, SIGINT);
    EXPECT_EQ(wait_for(pid, std::chrono::seconds(30)), 130) << body;
    EXPECT_LT(Clock::now() - sent, asyncscope::testing::scaled(std::chrono::seconds(5))) << body;
    expect_one_line(dir, "asyncscope: interrupted by SIGINT");
    EXPECT_FALSE(fs::exists(dir + "/r.json"));
  }
}

// SIGINT while a large trace (300,000 ops, about 600 MB) is being written:
// the writer stops at its next block instead of formatting the rest.
// Also when started as a background job of a script (`asyncscope ... &`,
// which inherits SIGINT ignored): `kill -INT` is sent on purpose.
class InterruptLargeWrite : public ::testing::TestWithParam<bool> {};

TEST_P(InterruptLargeWrite, SigintDuringALargeTraceWriteEndsItAtOnce) {
  const std::string dir = folder();
  std::ofstream(dir + "/big.py") << "from asyncscope import nd\nx = nd.ones((1,))\n"
                                    "for i in range(300000):\n    x = x + 1\nnd.waitall()\n";
  const pid_t pid = spawn(dir, {"script", "big.py", "--trace", "big.json"}, -1, GetParam(), /*quick_exit_check=*/true);
  // The size of the temporary trace file (0 while there is none).
  const auto written = [&dir]() -> uintmax_t {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.find(".big.json.tmp-") != std::string::npos) {
        const uintmax_t size = fs::file_size(entry.path(), ec);
        return ec ? 0 : size;
      }
    }
    return 0;
  };
  constexpr uintmax_t kStarted = uintmax_t{16} << 20;
  const auto end = Clock::now() + std::chrono::seconds(120);
  while (written() <= kStarted && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const uintmax_t at_signal = written();
  ASSERT_GT(at_signal, kStarted) << "the trace's write never began";
  const auto sent = Clock::now();
  ::kill(pid, SIGINT);
  // The file's growth after the signal, watched until the process ends: a
  // writer that stops at its next block adds at most a few of them, where one
  // that formats the rest adds hundreds of megabytes. This holds however
  // loaded the machine is; the time bound below only catches a hang.
  uintmax_t largest = at_signal;
  int status = -1;
  const auto limit = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < limit) {
    largest = std::max(largest, written());
    int raw = 0;
    if (::waitpid(pid, &raw, WNOHANG) == pid) {
      status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 1000 + WTERMSIG(raw);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (status == -1) status = wait_for(pid, std::chrono::seconds(1));
  EXPECT_EQ(status, 130);
  EXPECT_LT(largest - at_signal, uintmax_t{8} << 20) << "the write went on after the signal";
  EXPECT_LT(Clock::now() - sent, asyncscope::testing::scaled(std::chrono::seconds(10))) << "the process did not end";
  expect_one_line(dir, "asyncscope: interrupted by SIGINT");
  EXPECT_FALSE(fs::exists(dir + "/big.json"));
  EXPECT_TRUE(temporaries(dir).empty());
}

INSTANTIATE_TEST_SUITE_P(Interrupt, InterruptLargeWrite, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "StartedWithSigintIgnored" : "StartedPlainly";
                         });

}  // namespace
}  // namespace asyncscope::app
