// Device: where an op runs and where an array's storage lives.
// Threading: plain value type.
#pragma once

#include <cstdint>
#include <string>

#include "engine/trace/events.h"

namespace asyncscope {

using DeviceKind = trace::DeviceKind;

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  uint8_t index = 0;

  static constexpr Device cpu() noexcept { return {DeviceKind::cpu, 0}; }
  static constexpr Device cuda(uint8_t index = 0) noexcept { return {DeviceKind::cuda, index}; }
  friend constexpr bool operator==(Device, Device) = default;
};

// "cpu" or "cuda:0".
std::string to_string(Device device);

}  // namespace asyncscope
