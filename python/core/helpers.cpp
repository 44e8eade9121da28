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

Device device_named(py::handle spec) {
  if (py::isinstance<py::str>(spec)) return parse_device_name(spec.cast<std::string>()).device();
  // MXNet's context (device_type, device_id) or PyTorch's device (type, index).
  const bool mxnet = py::hasattr(spec, "device_type") && py::hasattr(spec, "device_id");
  if (mxnet || (py::hasattr(spec, "type") && py::hasattr(spec, "index"))) {
    const py::object type = spec.attr(mxnet ? "device_type" : "type");
    const py::object index = spec.attr(mxnet ? "device_id" : "index");
    std::string name = py::str(type).cast<std::string>();
    if (!index.is_none()) name += ":" + py::str(index).cast<std::string>();
    return parse_device_name(name).device();
  }
  throw py::type_error("a device is a string such as 'cpu' or 'cuda:0', or a device object");
}

}  // namespace asyncscope::python
