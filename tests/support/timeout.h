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

// How much slower than a plain build this one runs: $ASYNCSCOPE_TEST_TIME_SCALE
// (the sanitizer presets set 2: their checks, not the program's work, take
// the rest), 1 otherwise. A bound on how promptly something happens is
// multiplied by it; the ordering and counts a test checks never are.
inline double time_scale() {
  const char* text = std::getenv("ASYNCSCOPE_TEST_TIME_SCALE");
  const double scale = text != nullptr ? std::atof(text) : 1.0;
  return scale >= 1.0 ? scale : 1.0;
}
template <class Rep, class Period>
std::chrono::milliseconds scaled(std::chrono::duration<Rep, Period> bound) {
  return std::chrono::milliseconds(static_cast<int64_t>(
      std::chrono::duration<double, std::milli>(bound).count() * time_scale()));
}

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
