#include "engine/core/futex.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace asyncscope {
namespace {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free,
              "the futex word is the atomic's own storage");

uint32_t* address(const std::atomic<uint32_t>& word) noexcept {
  return reinterpret_cast<uint32_t*>(const_cast<std::atomic<uint32_t>*>(&word));
}

}  // namespace

void futex_wait(const std::atomic<uint32_t>& word, uint32_t expected, int64_t timeout_ns) noexcept {
  timespec limit{};
  timespec* limit_ptr = nullptr;
  if (timeout_ns >= 0) {
    limit.tv_sec = static_cast<time_t>(timeout_ns / 1'000'000'000);
    limit.tv_nsec = static_cast<long>(timeout_ns % 1'000'000'000);
    limit_ptr = &limit;
  }
  // A relative timeout; EAGAIN (the word changed), EINTR and ETIMEDOUT all
  // send the caller back to look at the word.
  ::syscall(SYS_futex, address(word), FUTEX_WAIT_PRIVATE, expected, limit_ptr, nullptr, 0);
}

void futex_wake(const std::atomic<uint32_t>& word, int count) noexcept {
  ::syscall(SYS_futex, address(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

}  // namespace asyncscope
