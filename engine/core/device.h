// Device: where an op runs and where an array's storage lives.
// Threading: plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/trace_record/events.h"

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

// Simulated GPUs: with n > 0, the devices cuda:0 .. cuda:n-1 are simulated
// in this process. Their arrays live in host memory and their ops run the
// CPU kernels on worker threads of their own (one pool per device, drawn as
// the device's lanes, "cuda:1 sim worker 0"), so lessons about several devices
// computing at once (and copying between them) run on a machine without
// GPUs; no CUDA device is used then. The number comes from
// set_simulated_gpus(), else ASYNCSCOPE_SIMULATED_GPUS (0 when unset), and
// is fixed at its first read (the first run that asks): an engine decides
// where each op runs by it. At most kMaxSimulatedGpus.
//
// Threading: any thread.
inline constexpr int kMaxSimulatedGpus = 16;
int simulated_gpus();
// std::invalid_argument for n outside 0..kMaxSimulatedGpus; std::logic_error
// if the number was already read as another one (set it before the first run).
void set_simulated_gpus(int n);
// Whether `device` is a simulated GPU.
inline bool simulated(Device device) {
  return device.kind != DeviceKind::cpu && simulated_gpus() > 0;
}

}  // namespace asyncscope
