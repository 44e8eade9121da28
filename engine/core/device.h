// Device: where an op runs and where an array's storage lives.
// Threading: plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// A device named as the frameworks name it: "cpu", "cuda", "cuda:N",
// MXNet's "gpu" and "gpu(N)", with "cpu:0" and "cpu(0)" for the CPU.
// `index` is -1 when the name gives none ("cuda"). std::invalid_argument
// for anything else, saying what a device name looks like.
struct DeviceName {
  DeviceKind kind = DeviceKind::cpu;
  int index = -1;
  // The device, the first of its kind when the name gave no index.
  Device device() const noexcept { return {kind, static_cast<uint8_t>(index < 0 ? 0 : index)}; }
};
DeviceName parse_device_name(std::string_view name);

}  // namespace asyncscope
