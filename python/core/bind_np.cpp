// MXNet's NumPy interface (`from mxnet import np, npx`), the spelling of the
// current English edition of the chapter: asyncscope.np.ndarray and the np
// and npx functions. NumPy's semantics where MXNet's np follows them: 0-d
// arrays, comparisons giving bool arrays, integer types kept; MXNet's own
// where it differs: float32 by default (np.arange(3), np.array([1, 2])),
// arrays printed as array([0., 1., 2.]) with the type named unless it is
// float32, and every op asynchronous, pushed to the engine.
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "engine/tensor/op_table.h"
#include "python/core/arrays.h"
#include "python/core/bindings.h"
#include "python/core/runtime.h"
#include "python/core/shape_ops.h"
#include "python/core/typed_methods.h"

namespace asyncscope::python {
namespace {

NpArray np_of(NDArray a) { return NpArray{std::move(a)}; }

std::string np_context(Device d) {
  return d.kind == DeviceKind::cpu ? "cpu(0)" : "gpu(" + std::to_string(d.index) + ")";
}

// NumPy's text of the values in array(...), laid out as NumPy lays out its
// repr; the type is named unless it is float32 (MXNet's default) or bool,
// and an array on a GPU names its context.
std::string np_repr(const NpArray& x) {
  const py::array values = to_numpy(x.a, trace::SyncKind::print);
  static py::object array2string = py::module_::import("numpy").attr("array2string");
  std::string text = "array(" +
                     array2string(values, py::arg("separator") = ", ", py::arg("prefix") = "array(",
                                  py::arg("suffix") = ")")
                         .cast<std::string>();
  if (x.a.dtype() != DType::float32 && x.a.dtype() != DType::boolean) text += std::string(", dtype=") + name(x.a.dtype());
  if (x.a.device().kind != DeviceKind::cpu) text += ", ctx=" + np_context(x.a.device());
  return text + ")";
}

std::string np_str(const NpArray& x) {
  const py::array values = to_numpy(x.a, trace::SyncKind::print);
  std::string text = py::str(static_cast<py::handle>(values)).cast<std::string>();
  if (x.a.device().kind != DeviceKind::cpu) text += " @" + np_context(x.a.device());
  return text;
}

NDArray np_reduce(const NDArray& a, Reduction r, py::handle axis, bool keepdims) {
  const std::vector<int> axes = axes_from(axis);
  if (a.dtype() == DType::float32 && (r == Reduction::sum || r == Reduction::mean)) {
    if (axes.empty() && !keepdims) return r == Reduction::sum ? sum(a) : mean(a);
    return r == Reduction::sum ? sum(a, axes, keepdims) : mean(a, axes, keepdims);
  }
  if (r == Reduction::mean && !is_floating(a.dtype())) {
    return reduce(astype(a, DType::float32), r, axes, keepdims);  // MXNet's np: the mean of integers is float32
  }
  return reduce(a, r, axes, keepdims);
}

// np.dot: NumPy's for 0-, 1- and 2-D arrays.
NDArray np_dot(const NDArray& a, const NDArray& b) {
  if (a.shape().ndim() == 0 || b.shape().ndim() == 0) return a * b;
  return matmul_vectors(a, b, "dot");
}

// The 2-norm of everything (Frobenius for a matrix), or along axis.
NDArray np_norm(const NDArray& x, py::handle ord, py::handle axis, bool keepdims) {
  if (!ord.is_none() && !(py::isinstance<py::str>(ord) && py::cast<std::string>(ord) == "fro") &&
      py::cast<double>(ord) != 2.0) {
    throw std::invalid_argument("norm: only the 2-norm (ord=None, 2 or 'fro') is supported");
  }
  const NDArray a = is_floating(x.dtype()) ? x : astype(x, DType::float32);
  if (axis.is_none() && !keepdims) return norm(a);
  return norm(a, axes_from(axis), keepdims);
}

Device np_device(py::handle ctx, const Context& context) { return device_from(ctx, context); }

void bind_ndarray(py::module_& np) {
  py::class_<NpArray> c(np, "ndarray", R"(An n-dimensional array of MXNet's NumPy interface whose every operation is
pushed to the asyncscope engine and returns at once. asnumpy(), item(),
printing and npx.waitall() wait for the work they need.)");
  c.attr("__module__") = "asyncscope.np";
  bind_array_common(c);
  bind_common<NpArray>(c);
  c.def("__matmul__", [](const NpArray& x, const NpArray& y) {
    return push_as<NpArray>(x.a, [&] { return matmul_vectors(x.a, y.a, "matmul"); });
  }, py::is_operator());
  const std::pair<const char*, Comparison> comparisons[] = {
      {"__eq__", Comparison::equal},  {"__ne__", Comparison::not_equal},     {"__gt__", Comparison::greater},
      {"__ge__", Comparison::greater_equal}, {"__lt__", Comparison::less}, {"__le__", Comparison::less_equal}};
  for (const auto& [dunder, cmp] : comparisons) {
    const Comparison k = cmp;
    c.attr(dunder) = py::cpp_function(
        [k](const NpArray& x, py::handle y) {
          return binary_fn(x, y, [k](const NDArray& a, const NDArray& b) { return compare(a, b, k, true); });
        },
        py::is_method(c));
  }
  c.attr("__hash__") = py::module_::import("builtins").attr("object").attr("__hash__");
  c.def("__repr__", &np_repr)
      .def("__str__", &np_str)
      .def_property_readonly("shape", [](const NpArray& x) { return tuple_of(x.a.shape()); })
      .def_property_readonly("size", [](const NpArray& x) { return x.a.size(); })
      .def_property_readonly("dtype", [](const NpArray& x) { return numpy_dtype(x.a.dtype()); })
      .def_property_readonly("ctx", [](const NpArray& x) { return np_context(x.a.device()); })
      .def_property_readonly("context", [](const NpArray& x) { return np_context(x.a.device()); })
      .def_property_readonly("T", [](const NpArray& x) {
        return push_as<NpArray>(x.a, [&] {
          std::vector<int> order(static_cast<size_t>(x.a.shape().ndim()));
          for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(order.size() - 1 - i);
          return x.a.shape().ndim() < 2 ? x.a : permute(x.a, order);
        });
      })
      .def("reshape", [](const NpArray& x, const py::args& args, const py::kwargs& kwargs) {
        const py::object spec = kwargs.contains("newshape") ? py::object(kwargs["newshape"])
                                : args.size() == 1 ? py::object(args[0]) : py::object(args);
        const std::vector<int64_t> dims = dims_from(spec, "reshape");
        return push_as<NpArray>(x.a, [&] { return reshape(x.a, dims); });
      })
      .def("copy", [](const NpArray& x) { return push_as<NpArray>(x.a, [&] { return copy(x.a); }); })
      .def("asnumpy", [](const NpArray& x) { return to_numpy(x.a, trace::SyncKind::to_host); },
           "A NumPy copy of the values (a sync point).")
      .def("item", [](const NpArray& x) -> py::object {
        if (x.a.size() != 1) {
          throw std::invalid_argument("can only convert an array of size 1 to a Python scalar, this one is " +
                                      x.a.shape().to_string());
        }
        return to_numpy(x.a, trace::SyncKind::item).attr("reshape")(py::tuple()).attr("item")();
      }, "The value of a one-element array as a Python number (a sync point).")
      .def("tolist", [](const NpArray& x) { return to_numpy(x.a, trace::SyncKind::to_host).attr("tolist")(); })
      .def("__float__", [](const NpArray& x) {
        if (x.a.size() != 1) throw py::type_error("only size-1 arrays can be converted to Python scalars");
        return static_cast<double>(waiting(x.a.context(), [&] { return x.a.item(); }));
      })
      .def("__int__", [](const NpArray& x) {
        if (x.a.size() != 1) throw py::type_error("only size-1 arrays can be converted to Python scalars");
        return py::int_(to_numpy(x.a, trace::SyncKind::item).attr("reshape")(py::tuple()).attr("item")());
      })
      .def("__bool__", [](const NpArray& x) {
        if (x.a.size() == 0) return false;
        if (x.a.size() != 1) {
          throw std::invalid_argument("The truth value of an ndarray with more than one element is ambiguous.");
        }
        return waiting(x.a.context(), [&] { return x.a.item(); }) != 0.0f;
      })
      .def("wait_to_read", [](const NpArray& x) { waiting(x.a.context(), [&] { x.a.wait_to_read(); }); })
      .def("as_in_ctx", [](py::object self, py::handle ctx) -> py::object {
        const NpArray& x = self.cast<const NpArray&>();
        const Device d = np_device(ctx, x.a.context());
        if (d == x.a.device()) return self;
        return py::cast(push_as<NpArray>(x.a, [&] { return to(x.a, d); }));
      }, py::arg("ctx"))
      .def("attach_grad", [](NpArray& x, const std::string& grad_req) {
        autograd::GradReq req = autograd::GradReq::write;
        if (grad_req == "add") {
          req = autograd::GradReq::add;
        } else if (grad_req == "null") {
          req = autograd::GradReq::null;
        } else if (grad_req != "write") {
          throw std::invalid_argument("attach_grad: grad_req must be 'write', 'add' or 'null', got '" + grad_req + "'");
        }
        PushGuard guard(x.a.context());
        x.a.attach_grad(req);
      }, py::arg("grad_req") = "write")
      .def_property_readonly("grad", [](const NpArray& x) -> py::object {
        if (x.a.grad_req() == autograd::GradReq::null) return py::none();
        return py::cast(np_of(x.a.grad()));
      })
      .def("backward", [](const NpArray& x, const std::optional<NpArray>& out_grad, bool retain_graph, bool) {
        PushGuard guard(x.a.context());
        autograd::backward(x.a, out_grad ? out_grad->a : NDArray(), retain_graph);
      }, py::arg("out_grad") = py::none(), py::arg("retain_graph") = false, py::arg("train_mode") = true)
      .def("detach", [](const NpArray& x) { return np_of(make_view(x.a, x.a.shape())); })
      .def("cumsum", [](const NpArray& x, py::object axis) {
        return push_as<NpArray>(x.a, [&] {
          if (axis.is_none()) return cumsum(reshape(x.a, Shape{x.a.size()}), 0);
          return cumsum(x.a, py::cast<int>(axis));
        });
      }, py::arg("axis") = py::none());
  c.attr("as_in_context") = c.attr("as_in_ctx");
  c.attr("copyto") = py::cpp_function(&copy_to<NpArray>, py::is_method(c), py::arg("other"),
                                       "A copy on the context `other`, or x's values written into the array `other`.");
  const std::pair<const char*, Reduction> reductions[] = {
      {"sum", Reduction::sum}, {"mean", Reduction::mean}, {"max", Reduction::max}, {"min", Reduction::min},
      {"prod", Reduction::prod}, {"argmax", Reduction::argmax}, {"argmin", Reduction::argmin},
      {"all", Reduction::all}, {"any", Reduction::any}};
  for (const auto& [nm, r] : reductions) {
    const Reduction red = r;
    const auto fn = [red](const NpArray& x, py::object axis, bool keepdims) {
      return push_as<NpArray>(x.a, [&] { return np_reduce(x.a, red, axis, keepdims); });
    };
    c.attr(nm) = py::cpp_function(fn, py::is_method(c), py::arg("axis") = py::none(), py::arg("keepdims") = false);
    np.def(nm, fn, py::arg("a"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
  }
}

void bind_np_functions(py::module_& np) {
  np.def("array", [](py::object object, py::object dtype, py::object ctx) {
    const ContextPtr& context = python::context();
    return push_as<NpArray>(*context, [&] {
      return array_from(context, object, dtype_from(dtype), TypeDefaults::mxnet_np, np_device(ctx, *context));
    });
  }, py::arg("object"), py::arg("dtype") = py::none(), py::arg("ctx") = py::none(),
     "An array of the values (float32 for Python numbers and lists, a NumPy array's own type).");
  const auto filled = [&np](const char* nm, double value) {
    np.def(nm, [value](py::object shape, py::object dtype, py::object ctx) {
      const ContextPtr& context = python::context();
      return push_as<NpArray>(*context, [&] {
        return full(context, shape_from(shape, "zeros"), value, dtype_from(dtype).value_or(DType::float32),
                    np_device(ctx, *context));
      });
    }, py::arg("shape"), py::arg("dtype") = py::none(), py::arg("ctx") = py::none());
  };
  filled("zeros", 0.0);
  filled("ones", 1.0);
  filled("empty", 0.0);
  np.def("full", [](py::object shape, double value, py::object dtype, py::object ctx) {
    const ContextPtr& context = python::context();
    return push_as<NpArray>(*context, [&] {
      return full(context, shape_from(shape, "full"), value, dtype_from(dtype).value_or(DType::float32),
                  np_device(ctx, *context));
    });
  }, py::arg("shape"), py::arg("fill_value"), py::arg("dtype") = py::none(), py::arg("ctx") = py::none());
  for (const auto& [nm, value] : {std::pair{"zeros_like", 0.0}, {"ones_like", 1.0}}) {
    const double v = value;
    np.def(nm, [v](const NpArray& like, py::object dtype) {
      return push_as<NpArray>(like.a, [&] {
        return full(like.a.context_ptr(), like.a.shape(), v, dtype_from(dtype).value_or(like.a.dtype()), like.a.device());
      });
    }, py::arg("a"), py::arg("dtype") = py::none());
  }
  np.def("arange", [](py::object start, py::object stop, py::object step, py::object dtype, py::object ctx) {
    if (stop.is_none()) std::swap(start, stop);
    const double a = start.is_none() ? 0.0 : py::cast<double>(start);
    const double b = py::cast<double>(stop);
    const double s = step.is_none() ? 1.0 : py::cast<double>(step);
    const ContextPtr& context = python::context();
    const Device d = np_device(ctx, *context);
    const DType t = dtype_from(dtype).value_or(DType::float32);
    return push_as<NpArray>(*context, [&] {
      if (d.kind == DeviceKind::cpu) return arange(context, a, b, s, t, d);
      return to(arange(context, a, b, s, t, Device::cpu()), d);
    });
  }, py::arg("start"), py::arg("stop") = py::none(), py::arg("step") = py::none(), py::arg("dtype") = py::none(),
     py::arg("ctx") = py::none(), "Evenly spaced values in [start, stop) (float32 unless dtype= says, as MXNet's).");
  const auto arrays_of = [](py::handle seq, const char* op) {
    std::vector<NDArray> arrays;
    for (py::handle h : seq) {
      const NpArray* x = array_of<NpArray>(h);
      if (x == nullptr) throw py::type_error(std::string(op) + "(): every element must be an ndarray");
      arrays.push_back(x->a);
    }
    if (arrays.empty()) throw std::invalid_argument(std::string(op) + ": needs at least one array");
    // One type for all: the promoted one.
    DType t = arrays[0].dtype();
    for (const NDArray& a : arrays) t = promote(t, a.dtype());
    for (NDArray& a : arrays) {
      if (a.dtype() != t) a = astype(a, t);
    }
    return arrays;
  };
  np.def("concatenate", [arrays_of](py::handle seq, int axis) {
    return push_as<NpArray>(*python::context(), [&] { return named_as("concatenate", "concat", [&] {
      return concat(arrays_of(seq, "concatenate"), axis); }); });
  }, py::arg("seq"), py::arg("axis") = 0);
  np.def("stack", [arrays_of](py::handle seq, int axis) {
    return push_as<NpArray>(*python::context(), [&] { return stack(arrays_of(seq, "stack"), axis); });
  }, py::arg("arrays"), py::arg("axis") = 0);
  const auto dot_of = [](const NpArray& a, const NpArray& b) { return push_as<NpArray>(a.a, [&] { return np_dot(a.a, b.a); }); };
  np.def("dot", dot_of, py::arg("a"), py::arg("b"), "NumPy's dot of 0-, 1- and 2-D arrays (BLAS sgemm for the products).");
  py::object cls = np.attr("ndarray");
  cls.attr("dot") = py::cpp_function(dot_of, py::is_method(cls), py::arg("b"), "a.dot(b): np.dot(a, b).");
  np.def("matmul", [](const NpArray& a, const NpArray& b) {
    return push_as<NpArray>(a.a, [&] { return matmul_vectors(a.a, b.a, "matmul"); });
  }, py::arg("a"), py::arg("b"));
  np.def("transpose", [](const NpArray& x, py::object axes) {
    return push_as<NpArray>(x.a, [&] {
      std::vector<int> order;
      if (axes.is_none()) {
        for (int i = x.a.shape().ndim() - 1; i >= 0; --i) order.push_back(i);
      } else {
        order = axes_from(axes);
      }
      return permute(x.a, order);
    });
  }, py::arg("a"), py::arg("axes") = py::none());
  np.def("reshape", [](const NpArray& x, py::object newshape) {
    const std::vector<int64_t> dims = dims_from(newshape, "reshape");
    return push_as<NpArray>(x.a, [&] { return reshape(x.a, dims); });
  }, py::arg("a"), py::arg("newshape"));
  np.def("cumsum", [](const NpArray& x, py::object axis) {
    return push_as<NpArray>(x.a, [&] {
      if (axis.is_none()) return cumsum(reshape(x.a, Shape{x.a.size()}), 0);
      return cumsum(x.a, py::cast<int>(axis));
    });
  }, py::arg("a"), py::arg("axis") = py::none());
  np.def("where", [](const NpArray& cond, const NpArray& a, const NpArray& b) {
    return push_as<NpArray>(cond.a, [&] { return where(cond.a, a.a, b.a); });
  }, py::arg("condition"), py::arg("x"), py::arg("y"));
  np.def("clip", [](const NpArray& x, py::object lo, py::object hi) {
    return push_as<NpArray>(x.a, [&] {
      NDArray out = x.a;
      if (!lo.is_none()) out = maximum(out, scalar_like(x.a, py::cast<double>(lo), py::isinstance<py::float_>(lo)));
      if (!hi.is_none()) out = minimum(out, scalar_like(x.a, py::cast<double>(hi), py::isinstance<py::float_>(hi)));
      return out;
    });
  }, py::arg("a"), py::arg("a_min"), py::arg("a_max"));
  // Comparisons as functions (bool arrays).
  const std::pair<const char*, Comparison> comparisons[] = {
      {"equal", Comparison::equal},   {"not_equal", Comparison::not_equal}, {"greater", Comparison::greater},
      {"greater_equal", Comparison::greater_equal}, {"less", Comparison::less}, {"less_equal", Comparison::less_equal},
      {"logical_and", Comparison::logical_and}, {"logical_or", Comparison::logical_or},
      {"logical_xor", Comparison::logical_xor}};
  for (const auto& [nm, cmp] : comparisons) {
    const Comparison k = cmp;
    np.def(nm, [k](const NpArray& x, py::handle y) {
      return binary_fn(x, y, [k](const NDArray& a, const NDArray& b) { return compare(a, b, k, true); });
    }, py::arg("x1"), py::arg("x2"));
  }
  np.def("floor_divide", [](const NpArray& x, py::handle y) { return binary_fn(x, y, &floor_divide); });
  np.def("mod", [](const NpArray& x, py::handle y) { return binary_fn(x, y, &mod); });
  np.def("linalg_norm", [](const NpArray& x, py::object ord, py::object axis, bool keepdims) {
    if (!ord.is_none() && !py::isinstance<py::str>(ord)) {
      const double p = py::cast<double>(ord);
      if (p != 2.0) {
        const std::vector<int> axes = axes_from(axis);
        if (x.a.shape().ndim() > 1 && axes.size() != 1) {
          throw std::invalid_argument("norm: ord=" + std::string(py::str(ord)) + " is supported for vectors (one axis) only");
        }
        return push_as<NpArray>(x.a, [&] { return pnorm_of(x.a, p, axes, keepdims, "norm"); });
      }
    }
    return push_as<NpArray>(x.a, [&] { return np_norm(x.a, ord, axis, keepdims); });
  }, py::arg("x"), py::arg("ord") = py::none(), py::arg("axis") = py::none(), py::arg("keepdims") = false);
  np.def("random_normal", [](double loc, double scale, py::object size, py::object dtype, py::object ctx) {
    const ContextPtr& context = python::context();
    const Shape shape = size.is_none() ? Shape{} : shape_from(size, "random.normal");
    return push_as<NpArray>(*context, [&] {
      NDArray out = normal(context, shape, static_cast<float>(loc), static_cast<float>(scale), np_device(ctx, *context));
      const std::optional<DType> t = dtype_from(dtype);
      return t && *t != DType::float32 ? astype(out, *t) : out;
    });
  }, py::arg("loc") = 0.0, py::arg("scale") = 1.0, py::arg("size") = py::none(), py::arg("dtype") = py::none(),
     py::arg("ctx") = py::none());
  np.def("random_uniform", [](double low, double high, py::object size, py::object dtype, py::object ctx) {
    const ContextPtr& context = python::context();
    const Shape shape = size.is_none() ? Shape{} : shape_from(size, "random.uniform");
    return push_as<NpArray>(*context, [&] {
      NDArray out = uniform(context, shape, static_cast<float>(low), static_cast<float>(high), np_device(ctx, *context));
      const std::optional<DType> t = dtype_from(dtype);
      return t && *t != DType::float32 ? astype(out, *t) : out;
    });
  }, py::arg("low") = 0.0, py::arg("high") = 1.0, py::arg("size") = py::none(), py::arg("dtype") = py::none(),
     py::arg("ctx") = py::none());
  np.def("waitall", [] {
    const ContextPtr& context = python::context();
    waiting(*context, [&] { context->wait_all(); });
  }, "Blocks until every op pushed so far has finished.");
  // npx's activations.
  np.def("npx_relu", [](const NpArray& x) { return push_as<NpArray>(x.a, [&] { return relu(x.a); }); });
  np.def("npx_sigmoid", [](const NpArray& x) { return push_as<NpArray>(x.a, [&] { return sigmoid(x.a); }); });
  np.def("npx_softmax", [](const NpArray& x, int axis) {
    return push_as<NpArray>(x.a, [&] {
      const int axes[] = {axis};
      const NDArray shifted = x.a - reduce(x.a, Reduction::max, axes, true);
      const NDArray e = exp(shifted);
      return e / sum(e, std::span<const int>(axes), true);
    });
  }, py::arg("data"), py::arg("axis") = -1, "exp(x) / sum(exp(x)) along axis (pushed as its ops).");
}

py::tuple np_tuple(const std::vector<NDArray>& parts) {
  py::tuple t(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) t[i] = wrap(np_of(parts[i]));
  return t;
}

void bind_np_shapes(py::module_& np, py::handle cls_handle) {
  py::object c = py::reinterpret_borrow<py::object>(cls_handle);
  np.def("expand_dims", [](const NpArray& x, int axis) {
    return push_as<NpArray>(x.a, [&] { return unsqueeze_of(x.a, axis, "expand_dims"); });
  }, py::arg("a"), py::arg("axis"));
  const auto squeeze = [](const NpArray& x, py::object axis) {
    return push_as<NpArray>(x.a, [&] {
      std::optional<std::vector<int>> axes;
      if (!axis.is_none()) {
        axes = axes_from(axis);
        for (const int a : *axes) {
          const int k = axis_in(a, x.a.shape().ndim(), "squeeze");
          if (x.a.shape()[k] != 1) {
            throw std::invalid_argument("squeeze: cannot select an axis to squeeze out which has size not equal to one");
          }
        }
      }
      return squeeze_of(x.a, axes, "squeeze");
    });
  };
  np.def("squeeze", squeeze, py::arg("a"), py::arg("axis") = py::none());
  c.attr("squeeze") = py::cpp_function(squeeze, py::is_method(c), py::arg("axis") = py::none());
  c.attr("flatten") = py::cpp_function(
      [](const NpArray& x) { return push_as<NpArray>(x.a, [&] { return copy(reshape(x.a, Shape{x.a.size()})); }); },
      py::is_method(c));
  const auto swap = [](const NpArray& x, int a0, int a1) {
    return push_as<NpArray>(x.a, [&] { return swapaxes_of(x.a, a0, a1, "swapaxes"); });
  };
  np.def("swapaxes", swap, py::arg("a"), py::arg("axis1"), py::arg("axis2"));
  c.attr("swapaxes") = py::cpp_function(swap, py::is_method(c), py::arg("axis1"), py::arg("axis2"));
  np.def("flip", [](const NpArray& x, py::object axis) {
    return push_as<NpArray>(x.a, [&] {
      std::vector<int> axes = axes_from(axis);
      if (axes.empty()) {
        for (int i = 0; i < x.a.shape().ndim(); ++i) axes.push_back(i);
      }
      return flip_of(x.a, axes, "flip");
    });
  }, py::arg("m"), py::arg("axis") = py::none());
  for (const auto& [nm, root] : {std::pair{"std", true}, {"var", false}}) {
    const bool r = root;
    const auto fn = [r, nm](const NpArray& x, py::object axis, double ddof, bool keepdims) {
      const std::vector<int> axes = axes_from(axis);
      return push_as<NpArray>(x.a, [&] {
        const NDArray a = is_floating(x.a.dtype()) ? x.a : astype(x.a, DType::float32);
        return variance_of(a, axes, keepdims, ddof, r, nm);
      });
    };
    np.def(nm, fn, py::arg("a"), py::arg("axis") = py::none(), py::arg("ddof") = 0.0, py::arg("keepdims") = false);
    c.attr(nm) = py::cpp_function(fn, py::is_method(c), py::arg("axis") = py::none(), py::arg("ddof") = 0.0,
                                  py::arg("keepdims") = false);
  }
  np.def("linspace", [](double start, double stop, int64_t num, bool endpoint, py::object dtype, py::object ctx) {
    const ContextPtr& context = python::context();
    return push_as<NpArray>(*context, [&] {
      return linspace_of(context, start, stop, num, endpoint, dtype_from(dtype).value_or(DType::float32),
                         np_device(ctx, *context));
    });
  }, py::arg("start"), py::arg("stop"), py::arg("num") = 50, py::arg("endpoint") = true, py::arg("dtype") = py::none(),
     py::arg("ctx") = py::none());
  np.def("eye", [](int64_t n, py::object m, py::object dtype, py::object ctx) {
    const ContextPtr& context = python::context();
    return push_as<NpArray>(*context, [&] {
      return eye_of(context, n, m.is_none() ? n : py::cast<int64_t>(m), dtype_from(dtype).value_or(DType::float32),
                    np_device(ctx, *context));
    });
  }, py::arg("N"), py::arg("M") = py::none(), py::arg("dtype") = py::none(), py::arg("ctx") = py::none());
  np.def("split", [](const NpArray& x, py::object sections, int axis) {
    const int k = axis_in(axis, x.a.shape().ndim(), "split");
    const int64_t len = x.a.shape()[k];
    std::vector<int64_t> sizes;
    if (PyIndex_Check(sections.ptr())) {
      const int64_t n = py::cast<int64_t>(sections);
      if (n <= 0 || len % n != 0) throw std::invalid_argument("split: array split does not result in an equal division");
      sizes.assign(static_cast<size_t>(n), len / n);
    } else {
      int64_t prev = 0;
      for (py::handle h : sections) {
        const int64_t at = std::min(std::max<int64_t>(py::cast<int64_t>(h), prev), len);
        sizes.push_back(at - prev);
        prev = at;
      }
      sizes.push_back(len - prev);
    }
    PushGuard guard(x.a.context());
    return np_tuple(split_of(x.a, sizes, k, "split"));
  }, py::arg("ary"), py::arg("indices_or_sections"), py::arg("axis") = 0);
  np.def("outer", [](const NpArray& a, const NpArray& b) {
    return push_as<NpArray>(a.a, [&] { return reshape(a.a, Shape{a.a.size(), 1}) * reshape(b.a, Shape{1, b.a.size()}); });
  }, py::arg("a"), py::arg("b"));
  bind_tile_repeat<NpArray>(np, "A", "a");
  np.def("random_permutation", [](py::object x) {
    if (const NpArray* a = array_of<NpArray>(x)) {
      return push_as<NpArray>(a->a, [&] {
        const NDArray perm[] = {randperm(a->a.context_ptr(), a->a.shape().ndim() ? a->a.shape()[0] : 1, a->a.device())};
        return gather(a->a, perm);
      });
    }
    const ContextPtr& context = python::context();
    return push_as<NpArray>(*context, [&] { return randperm(context, py::cast<int64_t>(x), Device::cpu()); });
  }, py::arg("x"));
  np.def("random_choice", [](py::object a, py::object size, bool replace, py::object p) {
    // Indices drawn with multinomial, then a's values picked by them.
    const NpArray* values = array_of<NpArray>(a);
    const ContextPtr& context = values ? values->a.context_ptr() : python::context();
    int64_t n = 0;
    if (values) {
      if (values->a.shape().ndim() != 1) throw py::value_error("a must be 1-dimensional");
      n = values->a.shape()[0];
    } else {
      n = py::cast<int64_t>(a);
    }
    if (n <= 0) throw py::value_error("a must be greater than 0 unless no samples are taken");
    std::vector<int64_t> dims;
    if (!size.is_none()) dims = dims_from(size, "choice");
    int64_t k = 1;
    for (int64_t d : dims) k *= d;
    return push_as<NpArray>(*context, [&] {
      NDArray weights;
      if (p.is_none()) {
        weights = full(context, Shape{n}, 1.0, DType::float64, Device::cpu());
      } else {
        const NpArray* pa = array_of<NpArray>(p);
        weights = pa ? pa->a : array_from(context, p, DType::float64, TypeDefaults::mxnet_np, Device::cpu());
        if (weights.shape().ndim() != 1 || weights.shape()[0] != n) {
          throw py::value_error("p must be 1-dimensional with one probability per element of a");
        }
      }
      if (!replace && k > n) throw py::value_error("Cannot take a larger sample than population when replace=False");
      NDArray idx = multinomial(weights, k, replace);
      NDArray out = idx;
      if (values) {
        const NDArray picks[] = {values->a.device() == Device::cpu() ? idx : to(idx, values->a.device())};
        out = gather(values->a, picks);
      }
      return reshape(out, Shape(dims));
    });
  }, py::arg("a"), py::arg("size") = py::none(), py::arg("replace") = true, py::arg("p") = py::none());
  np.def("random_shuffle", [](py::object self) {
    NpArray& x = self.cast<NpArray&>();
    in_place<NpArray>(self, [&](NDArray& a) {
      if (a.shape().ndim() == 0) return;
      const NDArray perm[] = {randperm(a.context_ptr(), a.shape()[0], a.device())};
      const NDArray shuffled = gather(a, perm);
      Selection whole;
      whole.shape = a.shape();
      for (int i = a.shape().ndim() - 1, stride = 1; i >= 0; --i) {
        whole.strides[i] = stride;
        stride *= static_cast<int>(a.shape()[i]);
      }
      assign(a, whole, shuffled);
    });
    (void)x;
  }, py::arg("x"), "Shuffles x along its first axis, in place (gather, then one assign).");
  c.attr("__reduce__") = py::cpp_function([](const NpArray& x) {
    return py::make_tuple(py::module_::import("asyncscope.np").attr("_rebuild"),
                          py::make_tuple(to_numpy(x.a, trace::SyncKind::to_host)));
  }, py::is_method(c));
  np.def("random_randint", [](int64_t low, py::object high, py::object size, py::object ctx) {
    const ContextPtr& context = python::context();
    const int64_t lo = high.is_none() ? 0 : low;
    const int64_t hi = high.is_none() ? low : py::cast<int64_t>(high);
    const Shape shape = size.is_none() ? Shape{} : shape_from(size, "random.randint");
    return push_as<NpArray>(*context, [&] { return randint_of(context, lo, hi, shape, np_device(ctx, *context)); });
  }, py::arg("low"), py::arg("high") = py::none(), py::arg("size") = py::none(), py::arg("ctx") = py::none());
}

// The elementwise ops of the op table, under their nd names (NumPy's for
// these), as np functions; the one-input ones also as ndarray methods.
void bind_np_table(py::module_& np, py::handle cls) {
  py::list made;
  for (const OpDef& op : op_table()) {
    // The comparison rows give 0/1 in nd; np's comparisons (bool) are bound above.
    const bool comparison = op.operators == "==" || op.operators == "!=" || op.operators == ">" ||
                            op.operators == ">=" || op.operators == "<" || op.operators == "<=";
    if (op.kind == OpKind::binary && op.binary != nullptr && !op.nd.empty() && !comparison) {
      const auto fn = op.binary;
      for (const std::string_view n : frontend_names(op.nd)) {
        const std::string name(n);
        np.def(name.c_str(), [fn](py::handle a, py::handle b) {
          if (const NpArray* x = array_of<NpArray>(a)) return binary_fn(*x, b, fn);
          if (const NpArray* y = array_of<NpArray>(b)) return binary_fn(*y, a, fn, true);
          throw py::type_error("at least one operand must be an ndarray");
        }, py::arg("x1"), py::arg("x2"), std::string(op.doc).c_str());
        made.append(name);
      }
    } else if (op.kind == OpKind::unary && op.unary != nullptr) {
      const auto fn = op.unary;
      for (const std::string_view n : frontend_names(op.nd)) {
        if (n == "erf") continue;  // not a NumPy function (SciPy's special.erf)
        const std::string name(n);
        const auto call = [fn](const NpArray& x) { return push_as<NpArray>(x.a, [&] { return fn(x.a); }); };
        np.def(name.c_str(), call, py::arg("x"), std::string(op.doc).c_str());
        py::setattr(cls, name.c_str(), py::cpp_function(call, py::name(name.c_str()), py::is_method(cls)));
        made.append(name);
      }
    }
  }
  np.attr("__table_ops__") = made;
  py::object abs_fn = np.attr("abs");
  cls.attr("__abs__") = py::cpp_function([abs_fn](py::handle self) { return abs_fn(self); }, py::is_method(cls));
}

}  // namespace

void bind_np(py::module_& m) {
  py::module_ np = m.def_submodule("np", "MXNet's NumPy interface (asyncscope.np and asyncscope.npx re-export it)");
  bind_ndarray(np);
  bind_np_functions(np);
  bind_np_table(np, np.attr("ndarray"));
  bind_np_shapes(np, np.attr("ndarray"));
}

}  // namespace asyncscope::python
