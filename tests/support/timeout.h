// Test helpers for concurrent code: a deadlock must fail the test, not hang it.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

namespace asyncscope::testing {

inline constexpr auto kDeadlockTimeout = std::chrono::seconds(60);

// Runs body on its own thread. If it has not returned within `limit`, reports
// the test as failed and exits the process (a deadlocked thread cannot be
// stopped). Exceptions from body propagate to the caller.
template <class F>
void run_with_timeout(F body, std::chrono::seconds limit = kDeadlockTimeout) {
  std::packaged_task<void()> task(std::move(body));
  std::future<void> done = task.get_future();
  std::thread runner(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::fprintf(stderr, "FAILED: %s.%s did not finish within %lld s (deadlock?)\n",
                 info ? info->test_suite_name() : "?", info ? info->name() : "?",
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
  runner.join();
  done.get();
}

// Spins until pred() holds or the timeout passes; returns pred().
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(20000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return pred();
    std::this_thread::yield();
  }
  return true;
}

}  // namespace asyncscope::testing
