#include "engine/core/pusher_state.h"

#include <atomic>

namespace asyncscope {
namespace {
std::atomic<uint64_t> next_serial{1};
}  // namespace

uint64_t new_engine_serial() noexcept { return next_serial.fetch_add(1, std::memory_order_relaxed); }

}  // namespace asyncscope
