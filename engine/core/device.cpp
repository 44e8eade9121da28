#include "engine/core/device.h"

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

namespace asyncscope {
namespace {

// The index of "cuda:N" or "gpu(N)": decimal digits only, within a device's range.
int index_of(std::string_view digits, std::string_view name) {
  int index = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
    throw std::invalid_argument("device '" + std::string(name) + "': the index must be a number (cuda:0, gpu(1))");
  }
  if (index < 0 || index > 255) {
    throw std::invalid_argument("device '" + std::string(name) + "': index out of range (0-255)");
  }
  return index;
}

// -1 until read; then the number, fixed.
std::atomic<int> g_simulated{-1};
int g_requested = -1;  // set_simulated_gpus before the first read (under g_mutex)
std::mutex g_mutex;

int from_environment() {
  const char* text = std::getenv("ASYNCSCOPE_SIMULATED_GPUS");
  if (text == nullptr || *text == '\0') return 0;
  int n = -1;
  const std::string_view v(text);
  const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (error != std::errc() || end != v.data() + v.size() || n < 0 || n > kMaxSimulatedGpus) {
    throw std::invalid_argument("ASYNCSCOPE_SIMULATED_GPUS must be a number from 0 to " +
                                std::to_string(kMaxSimulatedGpus) + ", got '" + std::string(v) + "'");
  }
  return n;
}

}  // namespace

int simulated_gpus() {
  const int n = g_simulated.load(std::memory_order_acquire);
  if (n >= 0) [[likely]] return n;
  std::lock_guard lock(g_mutex);
  if (g_simulated.load(std::memory_order_relaxed) < 0) {
    g_simulated.store(g_requested >= 0 ? g_requested : from_environment(), std::memory_order_release);
  }
  return g_simulated.load(std::memory_order_relaxed);
}

void set_simulated_gpus(int n) {
  if (n < 0 || n > kMaxSimulatedGpus) {
    throw std::invalid_argument("simulated GPUs: a number from 0 to " + std::to_string(kMaxSimulatedGpus) +
                                ", got " + std::to_string(n));
  }
  std::lock_guard lock(g_mutex);
  const int fixed = g_simulated.load(std::memory_order_relaxed);
  if (fixed >= 0 && fixed != n) {
    throw std::logic_error("simulated GPUs: already " + std::to_string(fixed) +
                           " in this process (set the number before the first run)");
  }
  g_requested = n;
}

std::string to_string(Device device) {
  return device.kind == DeviceKind::cpu ? std::string("cpu") : "cuda:" + std::to_string(device.index);
}

DeviceName parse_device_name(std::string_view name) {
  std::string_view type = name;
  int index = -1;
  if (const size_t colon = name.find(':'); colon != std::string_view::npos) {
    type = name.substr(0, colon);
    index = index_of(name.substr(colon + 1), name);
  } else if (const size_t paren = name.find('('); paren != std::string_view::npos && name.back() == ')') {
    type = name.substr(0, paren);
    index = index_of(name.substr(paren + 1, name.size() - paren - 2), name);
  }
  if (type == "cpu") {
    if (index > 0) throw std::invalid_argument("device '" + std::string(name) + "': there is one CPU device, cpu:0");
    return {DeviceKind::cpu, index};
  }
  if (type == "cuda" || type == "gpu") return {DeviceKind::cuda, index};
  throw std::invalid_argument("unknown device '" + std::string(name) + "' (cpu, cuda, cuda:N, gpu(N))");
}

}  // namespace asyncscope
