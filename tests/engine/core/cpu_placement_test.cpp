// Where threads run: current_cpu(), move_to_another_cpu(), and the threaded
// engine's worker leaving the CPU of a waiter it signals there. Each test
// sets the affinity of threads it made (or of its own thread) and puts it
// back; they need two CPUs the process may use and skip with a reason
// otherwise. What is checked holds on a loaded machine: which CPU a thread
// is allowed on and ends up on, never how fast.
#include "engine/core/cpu_placement.h"

#include <gtest/gtest.h>

#if defined(__linux__)
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::run_with_timeout;

#if defined(__linux__)

cpu_set_t affinity_of(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(tid, sizeof set, &set), 0);
  return set;
}

void set_affinity(pid_t tid, const cpu_set_t& set) { ASSERT_EQ(sched_setaffinity(tid, sizeof set, &set), 0); }

cpu_set_t only(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return set;
}

// The first two CPUs this thread may run on, or {-1, -1}.
std::pair<int, int> two_allowed_cpus() {
  const cpu_set_t allowed = affinity_of(0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (cpus.size() < 2) return {-1, -1};
  return {cpus[0], cpus[1]};
}

std::set<pid_t> threads_named(const std::string& name) {
  std::set<pid_t> tids;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string line;
    std::getline(comm, line);
    if (line == name) tids.insert(static_cast<pid_t>(std::stoi(entry->d_name)));
  }
  closedir(dir);
  return tids;
}

TEST(CpuPlacement, CurrentCpuIsOneThisThreadMayRunOn) {
  const int cpu = current_cpu();
  ASSERT_GE(cpu, 0);
  const cpu_set_t allowed = affinity_of(0);
  EXPECT_TRUE(CPU_ISSET(cpu, &allowed)) << "cpu " << cpu;
}

TEST(CpuPlacement, MoveLeavesTheCpuAndKeepsTheMask) {
  const auto [first, second] = two_allowed_cpus();
  if (first < 0) GTEST_SKIP() << "needs two CPUs this process may run on";
  std::thread([first = first] {
    const cpu_set_t allowed = affinity_of(0);
    // Onto `first` (narrowing moves the thread there), then the mask back.
    set_affinity(0, only(first));
    ASSERT_EQ(current_cpu(), first);
    set_affinity(0, allowed);
    ASSERT_TRUE(move_to_another_cpu());
    EXPECT_NE(current_cpu(), first);
    const cpu_set_t after = affinity_of(0);
    EXPECT_TRUE(CPU_EQUAL(&after, &allowed)) << "the mask was not restored";
  }).join();
}

TEST(CpuPlacement, NoMoveWhenTheMaskAllowsOneCpu) {
  const int cpu = current_cpu();
  ASSERT_GE(cpu, 0);
  std::thread([cpu] {
    set_affinity(0, only(cpu));
    EXPECT_FALSE(move_to_another_cpu());
    EXPECT_EQ(current_cpu(), cpu);
    const cpu_set_t after = affinity_of(0);
    const cpu_set_t one = only(cpu);
    EXPECT_TRUE(CPU_EQUAL(&after, &one)) << "the mask changed";
  }).join();
}

TEST(CpuPlacement, BusyOtherProcessesLeaveNoCpuFree) {
  const cpu_set_t allowed = affinity_of(0);
  const int cpus = CPU_COUNT(&allowed);
  if (cpus > 32) GTEST_SKIP() << "too many CPUs to fill with test processes";
  // More spinning processes than CPUs: none is free for even one thread.
  std::vector<pid_t> children;
  for (int i = 0; i <= cpus; ++i) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (;;) asm volatile("" ::: "memory");  // spins until killed
    }
    children.push_back(child);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const bool free = cpus_free_for(1);
  for (pid_t child : children) kill(child, SIGKILL);
  for (pid_t child : children) waitpid(child, nullptr, 0);
  EXPECT_FALSE(free) << cpus + 1 << " spinning processes on " << cpus << " CPUs left one free";
}

TEST(CpuPlacement, OurOwnSpinningThreadsAreNotCounted) {
  // Threads of ours that spin are left out: they give way (ours yield).
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  for (int i = 0; i < 3; ++i) {
    spinners.emplace_back([&stop] {
      while (!stop.load(std::memory_order_relaxed)) std::this_thread::yield();
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Another process may hold CPUs meanwhile (a loaded machine): then the
  // answer is not ours to check. Only an idle rest of the system says.
  const auto free_within_half_a_second = [] {
    for (int i = 0; i < 50; ++i) {
      if (cpus_free_for(1)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  };
  const bool free_for_one = free_within_half_a_second();
  stop = true;
  for (auto& t : spinners) t.join();
  // Other processes (a parallel test run) held the CPUs throughout: the same
  // look without our spinners tells that apart from counting them.
  if (!free_for_one && !free_within_half_a_second()) {
    GTEST_SKIP() << "other processes kept the CPUs busy for a second";
  }
  EXPECT_TRUE(free_for_one) << "our own 3 spinning threads counted as other processes' load";
}

// The stuck state the engine breaks: the frontend and its worker on one CPU,
// handing ops back and forth. The frontend (this test's thread) is pinned to
// `first` for the whole test; the worker is put on `first` too and then
// allowed everywhere again, where the kernel leaves it. Its next signal to
// the waiter on its own CPU makes it move.
TEST(CpuPlacement, WorkerLeavesTheCpuOfTheWaiterItSignals) {
  const auto [first, second] = two_allowed_cpus();
  if (first < 0) GTEST_SKIP() << "needs two CPUs this process may run on";
  run_with_timeout([first = first] {
    const cpu_set_t allowed = affinity_of(0);
    const std::set<pid_t> before = threads_named("CPU worker 0");
    EngineOptions options;
    options.cpu_workers = 1;
    std::shared_ptr<Engine> engine = make_engine(options);
    Var* var = engine->new_var();
    const auto round_trip = [&] {
      engine->push([](const RunContext&) {}, {}, {var}, OpMeta("tiny"));
      engine->wait_for_var(var);
    };
    round_trip();  // the worker names itself when it starts: it has now
    pid_t worker = 0;
    for (pid_t tid : threads_named("CPU worker 0")) {
      if (!before.contains(tid)) worker = tid;
    }
    ASSERT_NE(worker, 0) << "the worker thread was not found by its name";
    set_affinity(0, only(first));  // this thread, the frontend: for the whole test
    // A few tries: the kernel may move the worker itself before it looks, and
    // the worker stays while other processes keep the CPUs busy (it looks
    // once per millisecond at most, hence the pauses).
    uint64_t moves = 0;
    int busy = 0;
    int attempt = 0;
    for (; attempt < 20 && moves == 0; ++attempt) {
      if (!cpus_free_for(2)) ++busy;
      set_affinity(worker, only(first));
      round_trip();  // the worker has run since: it is on `first` now
      set_affinity(worker, allowed);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      for (int i = 0; i < 50; ++i) round_trip();
      moves = engine->stats().cpu_moves;
    }
    if (moves == 0 && busy == attempt) {
      GTEST_SKIP() << "other processes kept the CPUs busy at all " << attempt << " tries: nowhere to move";
    }
    EXPECT_GE(moves, 1u) << "the worker never left the waiter's CPU";
    // The last round trip's signal may have started another move, which
    // restores the mask when it ends: the mask is looked at until then.
    cpu_set_t worker_mask = affinity_of(worker);
    const auto give_up = std::chrono::steady_clock::now() + testing::scaled(std::chrono::seconds(2));
    while (!CPU_EQUAL(&worker_mask, &allowed) && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      worker_mask = affinity_of(worker);
    }
    EXPECT_TRUE(CPU_EQUAL(&worker_mask, &allowed)) << "the worker's mask was not restored";
    engine->delete_var(var);
    engine->wait_all();
    set_affinity(0, allowed);
  });
}

#else

TEST(CpuPlacement, NotLinux) { GTEST_SKIP() << "CPU placement is implemented for Linux only"; }

#endif

}  // namespace
}  // namespace asyncscope
