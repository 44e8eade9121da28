#include "python/core/torch_creation.h"

#include <string>

#include "python/core/runtime.h"
#include "python/core/shape_ops.h"
#include "python/core/torch_devices.h"

namespace asyncscope::python {

Shape size_from(const py::args& args, const py::kwargs& kwargs, const char* op) {
  if (kwargs.contains("size")) {
    if (!args.empty()) throw py::type_error(std::string(op) + "(): size given both by position and as size=");
    return shape_from(kwargs["size"], op);
  }
  if (args.empty()) throw py::type_error(std::string(op) + "(): missing the size (e.g. " + op + "(2, 3))");
  if (args.size() == 1 && !py::isinstance<py::int_>(args[0])) return shape_from(args[0], op);
  return shape_from(args, op);
}

Device creation_device(const py::kwargs& kwargs, const Context& context, const char* op) {
  py::object device = py::none();
  for (auto [key, value] : kwargs) {
    const std::string k = py::str(key);
    if (k == "device") {
      device = py::reinterpret_borrow<py::object>(value);
    } else if (k != "size" && k != "requires_grad" && k != "dtype" && k != "generator") {
      throw py::type_error(std::string(op) + "() got an unexpected keyword argument '" + k + "'");
    }
  }
  return torch_device(device, context, op);
}

std::optional<DType> dtype_of_kwargs(const py::kwargs& kwargs, const char* op) {
  return kwargs.contains("dtype") ? torch_dtype_from(kwargs["dtype"], op) : std::nullopt;
}

NDArray in_dtype(NDArray a, std::optional<DType> dtype) {
  return dtype && *dtype != a.dtype() ? astype(a, *dtype) : a;
}

void make_leaf(NDArray& a) {
  PushGuard guard(a.context());
  a.attach_grad(autograd::GradReq::accumulate);
}

Tensor with_requires_grad(Tensor t, bool requires_grad) {
  if (requires_grad) make_leaf(t.a);
  return t;
}

bool requires_grad_of(const py::kwargs& kwargs) {
  return kwargs.contains("requires_grad") && py::cast<bool>(kwargs["requires_grad"]);
}

}  // namespace asyncscope::python
