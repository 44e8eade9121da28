// The MXNet edition's arrays: asyncscope.ndarray.NDArray and the nd
// functions, with MXNet 1.x's semantics where they differ from the C++ API:
// whole-array reductions have shape (1,), asscalar() gives a numpy.float32,
// printing shows NumPy's text of the values and <NDArray 2x3 @cpu(0)>.
#include <pybind11/stl.h>

#include "python/core/arrays.h"
#include "python/core/typed_methods.h"
#include "python/core/bindings.h"
#include "python/core/runtime.h"

namespace asyncscope::python {
namespace {

MxArray mx(NDArray a) { return MxArray{std::move(a)}; }

// MXNet has no 0-d arrays: a reduction to one value has shape (1,).
NDArray no_scalar(NDArray a) { return a.shape().ndim() == 0 ? reshape(a, Shape{1}) : a; }

std::string mx_context(Device d) {
  return d.kind == DeviceKind::cpu ? "cpu(0)" : "gpu(" + std::to_string(d.index) + ")";
}

std::string mx_repr(const MxArray& x) {
  const py::array values = to_numpy(x.a, trace::SyncKind::print);
  return "\n" + py::str(static_cast<py::handle>(values)).cast<std::string>() + "\n<NDArray " + x.a.shape().to_string() + " @" +
         mx_context(x.a.device()) + ">";
}

NDArray reduce(const NDArray& a, py::handle axis, bool keepdims, ReduceKind kind) {
  return pushing(a, [&] {
    if (axis.is_none() && !keepdims) return no_scalar(reduce_all(a, kind));
    const std::vector<int> axes = axes_from(axis);
    return no_scalar(reduce_along(a, axes, keepdims, kind));
  });
}

// reshape(2, 3), reshape((2, 3)) or reshape(shape=(2, 3)); -1 is inferred.
NDArray reshaped(const NDArray& a, const py::args& args, const py::kwargs& kwargs) {
  py::object spec;
  if (kwargs.contains("shape")) {
    spec = kwargs["shape"];
  } else if (args.size() == 1) {
    spec = args[0];
  } else {
    spec = args;
  }
  const std::vector<int64_t> dims = dims_from(spec, "reshape");
  return pushing(a, [&] { return reshape(a, dims); });
}

PyObject* wait_to_read_method(PyObject* self, PyObject*) noexcept {
  return called_from_python([self]() -> PyObject* {
    const MxArray* x = array_of<MxArray>(self);
    if (x == nullptr) throw py::type_error("wait_to_read() needs an NDArray");
    waiting(x->a.context(), [x] { x->a.wait_to_read(); });
    Py_RETURN_NONE;
  });
}

}  // namespace

void bind_nd(py::module_& m) {
  py::module_ nd = m.def_submodule("nd", "the MXNet edition's ndarray functions (asyncscope.ndarray re-exports them)");
  py::class_<MxArray> c(nd, "NDArray", R"(An n-dimensional float32 array whose every operation is pushed to the
asyncscope engine and returns at once; the work runs on the engine's
workers. wait_to_read(), asnumpy(), asscalar() and printing wait for exactly
the work the array depends on; nd.waitall() waits for everything.)");
  c.attr("__module__") = "asyncscope.ndarray";
  bind_array_common(c);
  c.def("as_in_context", [](py::object self, py::handle ctx) -> py::object {
     const MxArray& x = self.cast<const MxArray&>();
     const Device d = device_from(ctx, x.a.context());
     if (d == x.a.device()) return self;
     return py::cast(push_as<MxArray>(x.a, [&] { return to(x.a, d); }));
   }, py::arg("context"), "This array on that device: itself if it is there, else a copy (pushed).");
  c.attr("as_in_ctx") = c.attr("as_in_context");
  c.def("copyto", &copy_to<MxArray>, py::arg("other"),
        "A copy on a device (copyto(mx.gpu(1))), or x's values written into an array of its shape.");
  c.def_property_readonly("shape", [](const MxArray& x) { return tuple_of(x.a.shape()); })
      .def_property_readonly("size", [](const MxArray& x) { return x.a.size(); })
      .def("attach_grad", [](MxArray& x, const std::string& grad_req) {
        autograd::GradReq req = autograd::GradReq::write;
        if (grad_req == "add") {
          req = autograd::GradReq::add;
        } else if (grad_req == "null") {
          req = autograd::GradReq::null;
        } else if (grad_req != "write") {
          throw std::invalid_argument("attach_grad: grad_req must be 'write', 'add' or 'null', got '" + grad_req + "'");
        }
        PushGuard guard(x.a.context());  // the gradient's zeros are pushed
        x.a.attach_grad(req);
      }, py::arg("grad_req") = "write")
      .def_property_readonly("grad", [](const MxArray& x) -> py::object {
        if (x.a.grad_req() == autograd::GradReq::null) return py::none();
        return py::cast(mx(x.a.grad()));
      });
  // wait_to_read is a plain CPython method (METH_NOARGS): a loop that waits
  // every iteration calls it as often as it pushes, and pybind11's
  // dispatcher would add a noticeable share to a one-element push and wait.
  static PyMethodDef wait_to_read_def = {
      "wait_to_read", reinterpret_cast<PyCFunction>(&wait_to_read_method), METH_NOARGS,
      "Blocks until every op pushed so far that writes this array has finished."};
  c.attr("wait_to_read") = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(c.ptr()), &wait_to_read_def));
  c.def("asnumpy", [](const MxArray& x) { return to_numpy(x.a, trace::SyncKind::to_host); },
           "A NumPy copy of the values (a sync point).")
      .def("asscalar", [](const MxArray& x) {
        if (x.a.size() != 1) {
          throw std::invalid_argument("The current array is not a scalar: its shape is " + x.a.shape().to_string());
        }
        const float v = waiting(x.a.context(), [&] { return x.a.item(); });
        return py::module_::import("numpy").attr("float32")(v);
      }, "The value of a one-element array as a numpy.float32 (a sync point).")
      .def("__bool__", [](const MxArray& x) {
        // MXNet's rule: an empty array is False, one element is its value,
        // more are ambiguous (so `a in list_of_arrays`, which compares with
        // ==, fails loudly instead of matching any array).
        if (x.a.size() == 0) return false;
        if (x.a.size() != 1) {
          throw std::invalid_argument("The truth value of an NDArray with multiple elements is ambiguous.");
        }
        return waiting(x.a.context(), [&] { return x.a.item(); }) != 0.0f;
      })
      .def("__repr__", &mx_repr)
      .def("__str__", &mx_repr)
      .def_property_readonly("context", [](const MxArray& x) { return mx_context(x.a.device()); })
      .def_property_readonly("dtype", [](const MxArray& x) {
        return py::module_::import("numpy").attr(x.a.dtype() == DType::boolean ? "bool_" : name(x.a.dtype()));
      })
      .def_property_readonly("T", [](const MxArray& x) { return mx(pushing(x.a, [&] { return transpose(x.a); })); })
      .def("reshape", [](const MxArray& x, const py::args& args, const py::kwargs& kwargs) {
        return mx(reshaped(x.a, args, kwargs));
      })
      .def("copy", [](const MxArray& x) { return mx(pushing(x.a, [&] { return copy(x.a); })); })
      .def("sum", [](const MxArray& x, py::object axis, bool keepdims) {
        return mx(reduce(x.a, axis, keepdims, ReduceKind::sum));
      }, py::arg("axis") = py::none(), py::arg("keepdims") = false)
      .def("mean", [](const MxArray& x, py::object axis, bool keepdims) {
        return mx(reduce(x.a, axis, keepdims, ReduceKind::mean));
      }, py::arg("axis") = py::none(), py::arg("keepdims") = false)
      .def("norm", [](const MxArray& x, py::object axis, bool keepdims) {
        return mx(reduce(x.a, axis, keepdims, ReduceKind::norm));
      }, py::arg("axis") = py::none(), py::arg("keepdims") = false)
      .def("backward", [](const MxArray& x, const std::optional<MxArray>& out_grad, bool retain_graph, bool) {
        PushGuard guard(x.a.context());
        autograd::backward(x.a, out_grad ? out_grad->a : NDArray(), retain_graph);
      }, py::arg("out_grad") = py::none(), py::arg("retain_graph") = false, py::arg("train_mode") = true,
         "Pushes the gradient ops of this array (ones as the head gradient) into its leaves' .grad.");

  using Fill = NDArray (*)(const ContextPtr&, const Shape&, Device);
  const auto creation = [&nd](const char* name, Fill fill, const char* doc) {
    nd.def(name, [fill, name](py::object shape, py::object ctx, py::object dtype) {
      const ContextPtr& context = python::context();
      PushGuard guard(*context);
      const std::optional<DType> t = dtype_from(dtype);
      const Shape s = shape_from(shape, name);
      const Device d = device_from(ctx, *context);
      if (t && *t != DType::float32) return mx(full(context, s, fill == static_cast<Fill>(&ones) ? 1.0 : 0.0, *t, d));
      return mx(fill(context, s, d));
    }, py::arg("shape"), py::arg("ctx") = py::none(), py::arg("dtype") = py::none(), doc);
  };
  creation("ones", &ones, "An array of ones (pushed; returns at once).");
  creation("zeros", &zeros, "An array of zeros (pushed; returns at once).");
  for (const auto& [name, fill] : {std::pair<const char*, Fill>{"zeros_like", &zeros}, {"ones_like", &ones}}) {
    nd.def(name, [fill](const MxArray& like) {
      return mx(pushing(like.a, [&] { return fill(like.a.context_ptr(), like.a.shape(), like.a.device()); }));
    }, py::arg("data"), "An array of like's shape and context (pushed; returns at once).");
  }
  // concat(*arrays, dim=1) and stack(*arrays, axis=0), as MXNet's.
  const auto arrays_of = [](const py::args& args, const char* op) {
    std::vector<NDArray> arrays;
    for (py::handle h : args) {
      const MxArray* x = array_of<MxArray>(h);
      if (x == nullptr) {
        throw py::type_error(std::string(op) + "(): every argument must be an NDArray, got " +
                             std::string(py::str(py::type::of(h).attr("__name__"))));
      }
      arrays.push_back(x->a);
    }
    if (arrays.empty()) throw std::invalid_argument(std::string(op) + ": needs at least one array");
    return arrays;
  };
  nd.def("concat", [arrays_of](const py::args& args, int dim) {
    const std::vector<NDArray> arrays = arrays_of(args, "concat");
    return mx(pushing(arrays[0], [&] { return concat(arrays, dim); }));
  }, py::kw_only(), py::arg("dim") = 1, "The arrays joined along dim (pushed; returns at once).");
  nd.def("stack", [arrays_of](const py::args& args, int axis) {
    const std::vector<NDArray> arrays = arrays_of(args, "stack");
    return mx(pushing(arrays[0], [&] { return stack(arrays, axis); }));
  }, py::kw_only(), py::arg("axis") = 0, "The arrays stacked along a new axis (pushed; returns at once).");
  nd.def("slice_axis", [](const MxArray& x, int axis, int64_t begin, py::object end) {
    const int a = axis < 0 ? axis + x.a.shape().ndim() : axis;
    const int64_t len = a >= 0 && a < x.a.shape().ndim() ? x.a.shape()[a] : 0;
    int64_t e = end.is_none() ? len : py::cast<int64_t>(end);
    int64_t b = begin;
    if (b < 0) b += len;  // MXNet's negative indices count from the end
    if (e < 0) e += len;
    return mx(pushing(x.a, [&] { return slice_axis(x.a, axis, b, e); }));
  }, py::arg("data"), py::arg("axis"), py::arg("begin"), py::arg("end"),
     "The range [begin, end) of one axis (a copy; end None: to the end).");
  nd.def("full", [](py::object shape, double value, py::object ctx, py::object dtype) {
    const ContextPtr& context = python::context();
    PushGuard guard(*context);
    return mx(full(context, shape_from(shape, "full"), value, dtype_from(dtype).value_or(DType::float32),
                   device_from(ctx, *context)));
  }, py::arg("shape"), py::arg("val"), py::arg("ctx") = py::none(), py::arg("dtype") = py::none());
  nd.def("array", [](py::object source, py::object ctx, py::object dtype) {
    const ContextPtr& context = python::context();
    const std::optional<DType> t = dtype_from(dtype);
    PushGuard guard(*context);
    return mx(array_from(context, source, t, TypeDefaults::mxnet_nd, device_from(ctx, *context)));
  }, py::arg("source_array"), py::arg("ctx") = py::none(), py::arg("dtype") = py::none(),
     "An array with the values of a NumPy array, a list or a number (float32 unless dtype= says).");
  nd.def("random_uniform", [](float low, float high, py::object shape, py::object ctx) {
    const ContextPtr& context = python::context();
    PushGuard guard(*context);
    return mx(uniform(context, shape_from(shape, "random.uniform"), low, high, device_from(ctx, *context)));
  }, py::arg("low") = 0.0f, py::arg("high") = 1.0f, py::arg("shape") = py::make_tuple(1), py::arg("ctx") = py::none());
  nd.def("random_normal", [](float loc, float scale, py::object shape, py::object ctx) {
    const ContextPtr& context = python::context();
    PushGuard guard(*context);
    return mx(normal(context, shape_from(shape, "random.normal"), loc, scale, device_from(ctx, *context)));
  }, py::arg("loc") = 0.0f, py::arg("scale") = 1.0f, py::arg("shape") = py::make_tuple(1), py::arg("ctx") = py::none());
  nd.def("dot", [](const MxArray& a, const MxArray& b, bool ta, bool tb) {
    return mx(pushing(a.a, [&] { return dot(a.a, b.a, ta, tb); }));
  }, py::arg("lhs"), py::arg("rhs"), py::arg("transpose_a") = false, py::arg("transpose_b") = false,
     "Matrix product of 2-D arrays (BLAS sgemm, cuBLAS on a GPU).");
  nd.def("waitall", [] {
    const ContextPtr& context = python::context();
    waiting(*context, [&] { context->wait_all(); });
  }, "Blocks until every op pushed so far has finished.");
  for (const auto& [name, kind] : {std::pair{"sum", ReduceKind::sum}, {"mean", ReduceKind::mean}, {"norm", ReduceKind::norm}}) {
    nd.def(name, [kind](const MxArray& x, py::object axis, bool keepdims) { return mx(reduce(x.a, axis, keepdims, kind)); },
           py::arg("data"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
  }
  nd.def("transpose", [](const MxArray& x) { return mx(pushing(x.a, [&] { return transpose(x.a); })); });
  nd.def("reshape", [](const MxArray& x, py::object shape) {
    py::args args = py::make_tuple(shape);
    return mx(reshaped(x.a, args, py::kwargs()));
  }, py::arg("data"), py::arg("shape"));
  nd.def("broadcast_to", [](const MxArray& x, py::object shape) {
    return mx(pushing(x.a, [&] { return broadcast_to(x.a, shape_from(shape, "broadcast_to")); }));
  }, py::arg("data"), py::arg("shape"));
}

}  // namespace asyncscope::python
