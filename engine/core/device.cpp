#include "engine/core/device.h"

#include <charconv>
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

}  // namespace

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
