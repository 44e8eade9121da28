#include "python/core/torch_devices.h"

#include <stdexcept>

#include "engine/cuda/cuda.h"
#include "python/core/bindings.h"
#include "python/core/runtime.h"

namespace asyncscope::python {

py::object torch_attr(const char* name) { return py::module_::import("asyncscope.torch").attr(name); }

std::string torch_device_unusable(Device device, const Context& context) {
  if (device.kind == DeviceKind::cpu) return "";
  if (const int simulated = simulated_gpus(); simulated > 0) {
    if (device.index >= simulated) {
      return "there is no such GPU here (" + std::to_string(simulated) + " simulated)";
    }
    if (context.engine().num_workers(device) == 0) {
      return std::string("this run's engine has no workers for it (") +
             (hosted() ? "run the script with --device cuda" : "call asyncscope.configure(device='cuda') first") + ")";
    }
    return "";
  }
  const cuda::Status& status = cuda::status();
  if (!status.available) return "CUDA is not available here: " + status.reason;
  if (device.index >= status.device_count) {
    return "there is no such GPU here (" + std::to_string(status.device_count) + " found)";
  }
  if (context.engine().num_workers(device) == 0) {
    return std::string("this run's engine has no stream for it (") +
           (hosted() ? "run the script with --device " + to_string(device)
                     : "call asyncscope.configure(device='" + to_string(device) + "') before the first tensor") +
           ")";
  }
  return "";
}

Device torch_device(py::handle spec, const Context& context, const char* op) {
  const Device device = device_from(spec, context);
  if (const std::string why = torch_device_unusable(device, context); !why.empty()) {
    throw std::runtime_error(std::string(op) + ": cannot use " + to_string(device) + ": " + why);
  }
  return device;
}

int torch_cuda_device_count(const Context& context) {
  if (const int simulated = simulated_gpus(); simulated > 0) {
    int count = 0;
    while (count < simulated && torch_device_unusable(Device::cuda(static_cast<uint8_t>(count)), context).empty()) {
      ++count;
    }
    return count;
  }
  const cuda::Status& status = cuda::status();
  int count = 0;
  while (status.available && count < status.device_count && count < 256 &&
         torch_device_unusable(Device::cuda(static_cast<uint8_t>(count)), context).empty()) {
    ++count;
  }
  return count;
}

py::object torch_device_object(Device device) {
  const py::object make = torch_attr("device");
  if (device.kind == DeviceKind::cpu) return make("cpu");
  return make("cuda", static_cast<int>(device.index));
}

}  // namespace asyncscope::python
