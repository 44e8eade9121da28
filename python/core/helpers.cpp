#include <stdexcept>
#include <string>

#include "python/core/bindings.h"

namespace asyncscope::python {

NDArray reduce_all(const NDArray& a, ReduceKind kind) {
  switch (kind) {
    case ReduceKind::sum: return sum(a);
    case ReduceKind::mean: return mean(a);
    case ReduceKind::norm: return norm(a);
  }
  return NDArray();
}

NDArray reduce_along(const NDArray& a, std::span<const int> axes, bool keepdims, ReduceKind kind) {
  switch (kind) {
    case ReduceKind::sum: return sum(a, axes, keepdims);
    case ReduceKind::mean: return mean(a, axes, keepdims);
    case ReduceKind::norm: return norm(a, axes, keepdims);
  }
  return NDArray();
}

namespace {

Device named_device(const std::string& type, int index, const std::string& spec) {
  if (type == "cpu") return Device::cpu();
  if (type == "cuda" || type == "gpu") {
    if (index < 0 || index > 255) throw std::invalid_argument("device " + spec + ": index out of range");
    return Device::cuda(static_cast<uint8_t>(index));
  }
  throw std::invalid_argument("unknown device '" + spec + "' (cpu, cuda, cuda:N, gpu(N))");
}

}  // namespace

Device device_named(py::handle spec) {
  if (py::isinstance<py::str>(spec)) {
    const std::string s = spec.cast<std::string>();
    std::string type = s;
    int index = 0;
    if (const auto colon = s.find(':'); colon != std::string::npos) {
      type = s.substr(0, colon);
      index = std::stoi(s.substr(colon + 1));
    } else if (const auto paren = s.find('('); paren != std::string::npos && s.back() == ')') {
      type = s.substr(0, paren);
      index = std::stoi(s.substr(paren + 1, s.size() - paren - 2));
    }
    return named_device(type, index, s);
  }
  if (py::hasattr(spec, "device_type")) {
    return named_device(spec.attr("device_type").cast<std::string>(), spec.attr("device_id").cast<int>(),
                        std::string(py::str(spec)));
  }
  if (py::hasattr(spec, "type") && py::hasattr(spec, "index")) {
    const py::object index = spec.attr("index");
    return named_device(spec.attr("type").cast<std::string>(), index.is_none() ? 0 : index.cast<int>(),
                        std::string(py::str(spec)));
  }
  throw py::type_error("a device is a string such as 'cpu' or 'cuda:0', or a device object");
}

}  // namespace asyncscope::python
