// What both flavours gain from dtypes and strided selections: indexing
// (x[i], x[1:3, ::2], x[..., None], and assignment through them), Python's
// // and %, astype; and each framework's own spelling of them: PyTorch's
// bool comparisons, logical operators on bool tensors, .float()/.long()/
// .int()/.bool()/.double()/.type(), torch.arange, cumsum, max/min/argmax/
// argmin/prod/all/any, where and clamp; MXNet's nd.arange, dtype and
// argmax/argmin (float32 indices, as MXNet gives them) and max/min/prod.
//
// Indexing copies: x[1:3] is a new array with the selected values (pushed
// as a `take` op), and x[1:3] = v is one `assign` op writing x's var in
// place, so the timeline shows both and the engine orders them with every
// other op on x.
#include <pybind11/stl.h>

#include <optional>
#include <tuple>
#include <string>

#include "python/core/arrays.h"
#include "python/core/bindings.h"
#include "python/core/runtime.h"
#include "python/core/shape_ops.h"
#include "python/core/torch_devices.h"
#include "python/core/typed_methods.h"

namespace asyncscope::python {

// x[key] as a strided selection of x's elements: ints (negative from the
// end), slices with any step, None (a new axis of 1) and one Ellipsis.
// IndexError for an index out of range, too many indices, or an index of
// another kind (integer-array and boolean-mask indexing are not supported).
Selection selection_from(py::handle key, const Shape& shape) {
  py::tuple items = py::isinstance<py::tuple>(key) ? py::reinterpret_borrow<py::tuple>(key) : py::make_tuple(key);
  int consuming = 0;
  bool ellipsis = false;
  for (py::handle k : items) {
    if (k.is(py::ellipsis())) {
      if (ellipsis) throw py::index_error("an index can only have a single ellipsis ('...')");
      ellipsis = true;
    } else if (!k.is_none()) {
      ++consuming;
    }
  }
  if (consuming > shape.ndim()) {
    throw py::index_error("too many indices for array: array is " + std::to_string(shape.ndim()) +
                          "-dimensional, but " + std::to_string(consuming) + " were indexed");
  }
  int64_t strides[Shape::kMaxDims];
  for (int i = shape.ndim() - 1; i >= 0; --i) strides[i] = i == shape.ndim() - 1 ? 1 : strides[i + 1] * shape[i + 1];
  Selection sel;
  std::vector<int64_t> dims;
  std::vector<int64_t> out_strides;
  int dim = 0;
  const auto whole_dim = [&] {
    dims.push_back(shape[dim]);
    out_strides.push_back(strides[dim]);
    ++dim;
  };
  for (py::handle k : items) {
    if (k.is(py::ellipsis())) {
      for (int n = shape.ndim() - dim - (consuming - dim); n > 0; --n) whole_dim();
      consuming = shape.ndim();  // what follows indexes the last dimensions
      continue;
    }
    if (k.is_none()) {
      dims.push_back(1);
      out_strides.push_back(0);
      continue;
    }
    if (PySlice_Check(k.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(k.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      const Py_ssize_t n = PySlice_AdjustIndices(static_cast<Py_ssize_t>(shape[dim]), &start, &stop, step);
      dims.push_back(n);
      out_strides.push_back(strides[dim] * step);
      if (n > 0) sel.offset += start * strides[dim];
      ++dim;
      continue;
    }
    if (PyIndex_Check(k.ptr()) && !PyBool_Check(k.ptr())) {
      int64_t i = py::cast<int64_t>(py::reinterpret_steal<py::object>(PyNumber_Index(k.ptr())));
      const int64_t size = shape[dim];
      if (i < -size || i >= size) {
        throw py::index_error("index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(dim) +
                              " with size " + std::to_string(size));
      }
      if (i < 0) i += size;
      sel.offset += i * strides[dim];
      ++dim;
      continue;
    }
    throw py::index_error("only integers, slices (':'), ellipsis ('...') and None are valid indices here "
                          "(integer-array and boolean-mask indexing are not supported), got " +
                          std::string(py::str(py::type::of(k).attr("__name__"))));
  }
  while (dim < shape.ndim()) whole_dim();
  if (dims.size() > static_cast<size_t>(Shape::kMaxDims)) {
    throw py::index_error("the result would have " + std::to_string(dims.size()) + " dimensions, more than the " +
                          std::to_string(Shape::kMaxDims) + " an array may have");
  }
  sel.shape = Shape(std::span<const int64_t>(dims));
  for (size_t i = 0; i < out_strides.size(); ++i) sel.strides[i] = out_strides[i];
  return sel;
}

namespace {

// PyTorch's legacy type name of a dtype (x.type()).
const char* tensor_type_name(DType t) {
  switch (t) {
    case DType::float32: return "FloatTensor";
    case DType::float64: return "DoubleTensor";
    case DType::int32: return "IntTensor";
    case DType::int64: return "LongTensor";
    case DType::uint8: return "ByteTensor";
    case DType::boolean: return "BoolTensor";
  }
  return "Tensor";
}

// ---- PyTorch ----------------------------------------------------------------

// A reduction with PyTorch's signature: over everything (0-d) or along dim.
Tensor torch_reduce(const Tensor& x, Reduction r, py::handle dim_given, bool keepdim) {
  const py::object dim = torch_dims(dim_given);
  // PyTorch: max() and min() of an empty tensor are RuntimeError (argmax and
  // argmin, like every reduction along an empty dim, IndexError).
  if (dim.is_none() && x.a.size() == 0 && (r == Reduction::max || r == Reduction::min)) {
    throw std::runtime_error(std::string(r == Reduction::max ? "max" : "min") +
                             "(): expected a reduction dim to be given for an empty tensor (numel() == 0): name "
                             "the dim");
  }
  return push_as<Tensor>(x.a, [&] {
    // A 0-d tensor takes dim 0 or -1 (PyTorch's rule): the whole tensor.
    const bool scalar_dim = x.a.shape().ndim() == 0 && !dim.is_none() && PyIndex_Check(dim.ptr()) &&
                            (py::cast<int64_t>(dim) == 0 || py::cast<int64_t>(dim) == -1);
    if (dim.is_none() || scalar_dim) {
      NDArray out = reduce(x.a, r, {}, false);
      return keepdim ? reshape(out, Shape(std::vector<int64_t>(static_cast<size_t>(x.a.shape().ndim()), 1))) : out;
    }
    const std::vector<int> axes = axes_from(dim);
    return reduce(x.a, r, axes, keepdim);
  });
}

// all and any: bool, but uint8 for a uint8 tensor (PyTorch's rule).
Tensor torch_logical_reduce(const Tensor& x, Reduction r, py::handle dim, bool keepdim) {
  Tensor out = torch_reduce(x, r, dim, keepdim);
  if (x.a.dtype() != DType::uint8) return out;
  return push_as<Tensor>(out.a, [&] { return astype(out.a, DType::uint8); });
}

// max(x), max(x, dim) -> (values, indices), max(x, other) -> maximum.
py::object torch_extremum(const Tensor& x, py::object dim, bool keepdim, bool larger) {
  if (const Tensor* other = dim.is_none() ? nullptr : array_of<Tensor>(dim)) {
    return wrap(push_as<Tensor>(x.a, [&] { return larger ? maximum(x.a, other->a) : minimum(x.a, other->a); }));
  }
  const Reduction value = larger ? Reduction::max : Reduction::min;
  if (dim.is_none()) return wrap(torch_reduce(x, value, dim, keepdim));
  Tensor values = torch_reduce(x, value, dim, keepdim);
  Tensor indices = torch_reduce(x, larger ? Reduction::argmax : Reduction::argmin, dim, keepdim);
  return torch_attr(larger ? "_max_result" : "_min_result")(values, indices);
}

Tensor torch_arange(py::object start, py::object end, py::object step, const py::kwargs& kwargs) {
  if (end.is_none()) std::swap(start, end);
  const std::optional<PyNumber> a = start.is_none() ? PyNumber{0.0, false} : python_number(start);
  const std::optional<PyNumber> b = python_number(end);
  const std::optional<PyNumber> s = python_number(step);
  if (!a || !b || !s) throw py::type_error("arange(): start, end and step must be numbers");
  std::optional<DType> dtype;
  py::object device = py::none();
  bool requires_grad = false;
  for (auto [key, value] : kwargs) {
    const std::string k = py::str(key);
    if (k == "dtype") {
      dtype = torch_dtype_from(value, "arange");
    } else if (k == "device") {
      device = py::reinterpret_borrow<py::object>(value);
    } else if (k == "requires_grad") {
      requires_grad = py::cast<bool>(value);
    } else {
      throw py::type_error("arange() got an unexpected keyword argument '" + k + "'");
    }
  }
  // PyTorch: int64 when every bound is an int, else the default float type.
  const DType t = dtype.value_or(a->is_float || b->is_float || s->is_float ? DType::float32 : DType::int64);
  const ContextPtr& context = python::context();
  const Device d = torch_device(device, *context, "arange");
  if (s->value == 0) throw std::runtime_error("arange(): step must be nonzero");
  if ((s->value > 0 && b->value < a->value) || (s->value < 0 && b->value > a->value)) {
    throw std::runtime_error("arange(): upper bound and larger bound inconsistent with step sign");
  }
  Tensor out = push_as<Tensor>(*context, [&] {
    if (d.kind == DeviceKind::cpu) return arange(context, a->value, b->value, s->value, t, d);
    return to(arange(context, a->value, b->value, s->value, t, Device::cpu()), d);
  });
  if (requires_grad) {
    PushGuard guard(out.a.context());
    out.a.attach_grad(autograd::GradReq::accumulate);
  }
  return out;
}

void bind_torch_types(py::module_& t) {
  py::object c = t.attr("Tensor");
  bind_common<Tensor>(c);
  // Comparisons give bool tensors; == and != with anything else are False/True.
  const std::pair<const char*, Comparison> comparisons[] = {
      {"__eq__", Comparison::equal},  {"__ne__", Comparison::not_equal},     {"__gt__", Comparison::greater},
      {"__ge__", Comparison::greater_equal}, {"__lt__", Comparison::less}, {"__le__", Comparison::less_equal}};
  for (const auto& [dunder, cmp] : comparisons) {
    const Comparison k = cmp;
    c.attr(dunder) = py::cpp_function(
        [k](const Tensor& x, py::handle y) {
          return binary_fn(x, y, [k](const NDArray& a, const NDArray& b) { return compare(a, b, k, true); });
        },
        py::is_method(c));
  }
  c.attr("__hash__") = py::module_::import("builtins").attr("object").attr("__hash__");
  const std::pair<const char*, Comparison> logical[] = {
      {"__and__", Comparison::logical_and}, {"__or__", Comparison::logical_or}, {"__xor__", Comparison::logical_xor},
      {"__rand__", Comparison::logical_and}, {"__ror__", Comparison::logical_or}, {"__rxor__", Comparison::logical_xor}};
  for (const auto& [dunder, cmp] : logical) {
    const Comparison k = cmp;
    c.attr(dunder) = py::cpp_function(
        [k](const Tensor& x, py::handle y) {
          if (x.a.dtype() != DType::boolean) {
            throw std::runtime_error("bitwise operators are supported on bool tensors only here, got " +
                                     std::string(name(x.a.dtype())));
          }
          return binary_fn(x, y, [k](const NDArray& a, const NDArray& b) { return compare(a, b, k, true); });
        },
        py::is_method(c));
  }
  c.attr("__invert__") = py::cpp_function(
      [](const Tensor& x) {
        if (x.a.dtype() != DType::boolean) throw std::runtime_error("~ is supported on bool tensors only here");
        return push_as<Tensor>(x.a, [&] { return logical_not(x.a, true); });
      },
      py::is_method(c));
  c.attr("logical_not") = c.attr("__invert__");
  for (const auto& [method, dtype] : {std::pair{"float", DType::float32}, {"double", DType::float64},
                                     {"long", DType::int64}, {"int", DType::int32}, {"bool", DType::boolean}}) {
    const DType target = dtype;
    c.attr(method) = py::cpp_function(
        [target](py::object self) -> py::object {
          const Tensor& x = self.cast<const Tensor&>();
          if (x.a.dtype() == target) return self;
          return wrap(push_as<Tensor>(x.a, [&] { return astype(x.a, target); }));
        },
        py::is_method(c));
  }
  c.attr("type") = py::cpp_function(
      [](py::object self, py::object dtype) -> py::object {
        const Tensor& x = self.cast<const Tensor&>();
        if (dtype.is_none()) return py::str(std::string("torch.") + tensor_type_name(x.a.dtype()));
        const DType target = *torch_dtype_from(dtype, "type");
        if (x.a.dtype() == target) return self;
        return wrap(push_as<Tensor>(x.a, [&] { return astype(x.a, target); }));
      },
      py::is_method(c), py::arg("dtype") = py::none());
  c.attr("is_floating_point") = py::cpp_function([](const Tensor& x) { return is_floating(x.a.dtype()); },
                                                 py::is_method(c));
  c.attr("cumsum") = py::cpp_function(
      [](const Tensor& x, int dim, py::object axis) {
        if (!axis.is_none()) dim = py::cast<int>(axis);
        return push_as<Tensor>(x.a, [&] { return cumsum(x.a, dim); });
      },
      py::is_method(c), py::arg("dim") = 0, py::arg("axis") = py::none());
  t.def("cumsum", [](const Tensor& x, int dim) { return push_as<Tensor>(x.a, [&] { return cumsum(x.a, dim); }); },
        py::arg("input"), py::arg("dim"), "Running sums along dim (integers as int64).");
  for (const auto& [nm, larger] : {std::pair{"max", true}, {"min", false}}) {
    const bool l = larger;
    const auto fn = [l](const Tensor& x, py::object dim, bool keepdim) { return torch_extremum(x, dim, keepdim, l); };
    c.attr(nm) = py::cpp_function(fn, py::is_method(c), py::arg("dim") = py::none(), py::arg("keepdim") = false);
    t.def(nm, fn, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  }
  const std::pair<const char*, Reduction> reductions[] = {
      {"argmax", Reduction::argmax}, {"argmin", Reduction::argmin}, {"prod", Reduction::prod},
      {"all", Reduction::all},       {"any", Reduction::any},       {"amax", Reduction::max},
      {"amin", Reduction::min}};
  for (const auto& [nm, r] : reductions) {
    const Reduction red = r;
    const auto fn = [red](const Tensor& x, py::object dim, bool keepdim) {
      if ((red == Reduction::argmax || red == Reduction::argmin) && x.a.dtype() == DType::boolean && x.a.size() > 0) {
        throw std::runtime_error(std::string(red == Reduction::argmax ? "argmax" : "argmin") +
                                 ": not implemented for bool tensors (PyTorch has no kernel for them either)");
      }
      return red == Reduction::all || red == Reduction::any ? torch_logical_reduce(x, red, dim, keepdim)
                                                            : torch_reduce(x, red, dim, keepdim);
    };
    c.attr(nm) = py::cpp_function(fn, py::is_method(c), py::arg("dim") = py::none(), py::arg("keepdim") = false);
    t.def(nm, fn, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  }
  t.def("arange", &torch_arange, py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1,
        "arange(end) or arange(start, end, step=1): evenly spaced values (int64 for int bounds, else float32).");
  t.def("where", [](const Tensor& cond, py::handle a, py::handle b) {
    return push_as<Tensor>(cond.a, [&] {
      const auto side = [&](py::handle v) {
        if (const Tensor* x = array_of<Tensor>(v)) return x->a;
        const std::optional<PyNumber> n = python_number(v);
        if (!n) throw py::type_error("where(): expected tensors or numbers");
        return full(cond.a.context_ptr(), Shape{}, n->value, n->is_float ? DType::float32 : DType::int64, cond.a.device());
      };
      return where(cond.a, side(a), side(b));
    });
  }, py::arg("condition"), py::arg("input"), py::arg("other"), "input where condition holds, else other.");
  const auto clamp = [](const Tensor& x, py::object lo, py::object hi) {
    return push_as<Tensor>(x.a, [&] {
      NDArray out = x.a;
      const auto bound = [&](py::handle v) {
        if (const Tensor* b = array_of<Tensor>(v)) return b->a;
        const std::optional<PyNumber> n = python_number(v);
        if (!n) throw py::type_error("clamp(): min and max must be numbers or tensors");
        return scalar_like(x.a, n->value, n->is_float);
      };
      if (lo.is_none() && hi.is_none()) throw std::runtime_error("clamp(): at least one of min and max must be given");
      if (!lo.is_none()) out = maximum(out, bound(lo));
      if (!hi.is_none()) out = minimum(out, bound(hi));
      return out;
    });
  };
  for (const char* nm : {"clamp", "clip"}) {
    t.def(nm, clamp, py::arg("input"), py::arg("min") = py::none(), py::arg("max") = py::none());
    c.attr(nm) = py::cpp_function(clamp, py::is_method(c), py::arg("min") = py::none(), py::arg("max") = py::none());
  }
  t.def("from_numpy", [](py::array a) {
    const ContextPtr& context = python::context();
    return push_as<Tensor>(*context, [&] { return array_from(context, a, std::nullopt, TypeDefaults::torch, Device::cpu()); });
  }, py::arg("ndarray"), "A tensor with a copy of the NumPy array's values and its type (PyTorch shares the memory).");
  t.def("as_tensor", [](py::object data, py::object dtype, py::object device) {
    if (const Tensor* x = array_of<Tensor>(data); x != nullptr && dtype.is_none() && device.is_none()) return *x;
    const ContextPtr& context = python::context();
    const Device d = torch_device(device, *context, "as_tensor");
    return push_as<Tensor>(*context, [&] {
      return array_from(context, data, torch_dtype_from(dtype, "as_tensor"), TypeDefaults::torch, d);
    });
  }, py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none());
}

// dims given as f(1, 2), f((1, 2)) or f([1, 2]).
std::vector<int> int_list(const py::args& args, const char* op) {
  const py::object spec = args.size() == 1 && !PyIndex_Check(args[0].ptr()) ? py::object(args[0]) : py::object(args);
  std::vector<int> out;
  for (const int64_t d : dims_from(spec, op)) out.push_back(static_cast<int>(d));
  return out;
}

py::tuple tensors_tuple(const std::vector<NDArray>& parts) {
  py::tuple t(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) t[i] = wrap(Tensor{parts[i]});
  return t;
}

// x's parts along axis k, as PyTorch's split and chunk give them: recorded
// for autograd when x needs a gradient (each part a slice_axis), and a
// RuntimeError for sizes that do not add up.
py::tuple torch_split(const Tensor& x, const std::vector<int64_t>& sizes, int k, const char* op) {
  [[maybe_unused]] GradScope<Tensor> grad;
  PushGuard guard(x.a.context());
  try {
    return tensors_tuple(split_of(x.a, sizes, k, op));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

// torch.split's sizes: one size (the last part may be shorter) or a list.
std::vector<int64_t> split_sizes(py::handle spec, int64_t length, const char* op) {
  std::vector<int64_t> sizes;
  if (PyIndex_Check(spec.ptr())) {
    const int64_t n = py::cast<int64_t>(spec);
    if (n <= 0) throw std::runtime_error(std::string(op) + ": split_size must be positive");
    for (int64_t b = 0; b < length; b += n) sizes.push_back(std::min(n, length - b));
  } else {
    for (py::handle h : spec) sizes.push_back(py::cast<int64_t>(h));
  }
  return sizes;
}

void bind_torch_shapes(py::module_& t) {
  py::object c = t.attr("Tensor");
  const auto method = [&c, &t](const char* nm, auto fn, auto... extra) {
    c.attr(nm) = py::cpp_function(fn, py::is_method(c), extra...);
  };
  const auto both = [&c, &t](const char* nm, auto fn, auto... extra) {
    c.attr(nm) = py::cpp_function(fn, py::is_method(c), extra...);
    t.def(nm, fn, py::arg("input"), extra...);
  };
  both("unsqueeze", [](const Tensor& x, int dim) { return push_as<Tensor>(x.a, [&] { return unsqueeze_of(x.a, dim, "unsqueeze"); }); },
       py::arg("dim"));
  both("squeeze", [](const Tensor& x, py::object dim) {
    return push_as<Tensor>(x.a, [&] {
      std::optional<std::vector<int>> axes;
      if (!dim.is_none()) axes = axes_from(dim);
      return squeeze_of(x.a, axes, "squeeze");
    });
  }, py::arg("dim") = py::none());
  both("flatten", [](const Tensor& x, int start, int end) {
    return push_as<Tensor>(x.a, [&] { return flatten_of(x.a, start, end, "flatten"); });
  }, py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  method("view", [](const Tensor& x, const py::args& args) {
    const py::object spec = args.size() == 1 && !py::isinstance<py::int_>(args[0]) ? py::object(args[0]) : py::object(args);
    const std::vector<int64_t> dims = dims_from(spec, "view");
    return push_as<Tensor>(x.a, [&] { return reshape(x.a, dims); });
  });
  method("permute", [](const Tensor& x, const py::args& dims) {
    const std::vector<int> order = int_list(dims, "permute");
    return push_as<Tensor>(x.a, [&] { return permute(x.a, order); });
  });
  t.def("permute", [](const Tensor& x, py::object dims) {
    const py::object given = torch_dims(dims);
    const std::vector<int> order = given.is_none() ? std::vector<int>{} : axes_from(given);
    return push_as<Tensor>(x.a, [&] { return permute(x.a, order); });
  }, py::arg("input"), py::arg("dims"));
  for (const char* nm : {"transpose", "swapaxes"}) {
    both(nm, [nm](const Tensor& x, int d0, int d1) { return push_as<Tensor>(x.a, [&] { return swapaxes_of(x.a, d0, d1, nm); }); },
         py::arg("dim0"), py::arg("dim1"));
  }
  method("t", [](const Tensor& x) {
    if (x.a.shape().ndim() > 2) throw std::runtime_error("t() expects a tensor with <= 2 dimensions, got " + std::to_string(x.a.shape().ndim()));
    return push_as<Tensor>(x.a, [&] { return x.a.shape().ndim() < 2 ? x.a : swapaxes_of(x.a, 0, 1, "t"); });
  });
  both("flip", [](const Tensor& x, py::object dims) {
    if (torch_dims(dims).is_none()) return push_as<Tensor>(x.a, [&] { return copy(x.a); });  // flip(()): a copy
    const std::vector<int> axes = axes_from(dims);
    return push_as<Tensor>(x.a, [&] { return flip_of(x.a, axes, "flip"); });
  }, py::arg("dims"));
  method("expand", [](const Tensor& x, const py::args& args) {
    const py::object spec = args.size() == 1 && !py::isinstance<py::int_>(args[0]) ? py::object(args[0]) : py::object(args);
    std::vector<int64_t> dims = dims_from(spec, "expand");
    const Shape& s = x.a.shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      const int k = static_cast<int>(i) - static_cast<int>(dims.size()) + s.ndim();
      if (dims[i] == -1) {
        if (k < 0) throw std::runtime_error("expand: -1 is not allowed in a leading, new dimension");
        dims[i] = s[k];
      }
    }
    return push_as<Tensor>(x.a, [&] { return broadcast_to(x.a, Shape(std::span<const int64_t>(dims))); });
  });
  for (const auto& [nm, root] : {std::pair{"std", true}, {"var", false}}) {
    const bool r = root;
    both(nm, [r, nm](const Tensor& x, py::object dim, py::object unbiased, bool keepdim, py::object correction) {
      double ddof = unbiased.is_none() || py::cast<bool>(unbiased) ? 1.0 : 0.0;
      if (!correction.is_none()) ddof = py::cast<double>(correction);
      const std::vector<int> axes = axes_from(dim);
      return push_as<Tensor>(x.a, [&] { return variance_of(x.a, axes, keepdim, ddof, r, nm); });
    }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false,
       py::arg("correction") = py::none());
  }
  for (const auto& [nm, lg] : {std::pair{"softmax", false}, {"log_softmax", true}}) {
    const bool l = lg;
    // dtype= casts the input first; a 0-d tensor (dim 0 or -1) is its own softmax of one element.
    both(nm, [l, nm](const Tensor& x, int dim, py::object dtype) {
      const std::optional<DType> to = torch_dtype_from(dtype, nm);
      return push_as<Tensor>(x.a, [&] {
        const NDArray in = to && *to != x.a.dtype() ? astype(x.a, *to) : x.a;
        if (in.shape().ndim() == 0 && (dim == 0 || dim == -1)) {
          return reshape(softmax_of(reshape(in, Shape{1}), 0, l, nm), Shape{});
        }
        return softmax_of(in, dim, l, nm);
      });
    }, py::arg("dim"), py::arg("dtype") = py::none());
  }
  both("split", [](const Tensor& x, py::object size, int dim) {
    const int k = axis_in(dim, x.a.shape().ndim(), "split");
    const std::vector<int64_t> sizes = split_sizes(size, x.a.shape()[k], "split");
    return torch_split(x, sizes, k, "split");
  }, py::arg("split_size_or_sections"), py::arg("dim") = 0);
  both("chunk", [](const Tensor& x, int64_t chunks, int dim) {
    if (chunks <= 0) throw std::runtime_error("chunk: chunks must be positive");
    const int k = axis_in(dim, x.a.shape().ndim(), "chunk");
    const int64_t len = x.a.shape()[k];
    const int64_t each = (len + chunks - 1) / chunks;
    const std::vector<int64_t> sizes = split_sizes(py::int_(std::max<int64_t>(each, 1)), len, "chunk");
    return torch_split(x, sizes, k, "chunk");
  }, py::arg("chunks"), py::arg("dim") = 0);
  t.def("outer", [](const Tensor& a, const Tensor& b) {
    return push_as<Tensor>(a.a, [&] {
      return reshape(a.a, Shape{a.a.size(), 1}) * reshape(b.a, Shape{1, b.a.size()});
    });
  }, py::arg("input"), py::arg("vec2"));
  t.def("linspace", [](double start, double end, int64_t steps, const py::kwargs& kwargs) {
    const ContextPtr& context = python::context();
    const std::optional<DType> dtype = kwargs.contains("dtype") ? torch_dtype_from(kwargs["dtype"], "linspace") : std::nullopt;
    const Device d = torch_device(kwargs.contains("device") ? py::object(kwargs["device"]) : py::none(), *context, "linspace");
    return push_as<Tensor>(*context, [&] { return linspace_of(context, start, end, steps, true, dtype.value_or(DType::float32), d); });
  }, py::arg("start"), py::arg("end"), py::arg("steps"));
  t.def("eye", [](int64_t n, py::object m, const py::kwargs& kwargs) {
    const ContextPtr& context = python::context();
    const std::optional<DType> dtype = kwargs.contains("dtype") ? torch_dtype_from(kwargs["dtype"], "eye") : std::nullopt;
    const Device d = torch_device(kwargs.contains("device") ? py::object(kwargs["device"]) : py::none(), *context, "eye");
    return push_as<Tensor>(*context, [&] {
      return eye_of(context, n, m.is_none() ? n : py::cast<int64_t>(m), dtype.value_or(DType::float32), d);
    });
  }, py::arg("n"), py::arg("m") = py::none());
  c.attr("repeat") = py::cpp_function([](const Tensor& x, const py::args& args) {
    const py::object spec = args.size() == 1 && !PyIndex_Check(args[0].ptr()) ? py::object(args[0]) : py::object(args);
    const std::vector<int64_t> reps = dims_from(spec, "repeat");
    if (reps.size() < static_cast<size_t>(x.a.shape().ndim())) {
      throw std::runtime_error("repeat: the number of repeat dims cannot be smaller than the tensor's dimensions");
    }
    return push_as<Tensor>(x.a, [&] { return tile_of(x.a, reps, "repeat"); });
  }, py::is_method(c));
  const auto tile = [](const Tensor& x, py::object dims) {
    const std::vector<int64_t> reps = dims_from(dims, "tile");
    return push_as<Tensor>(x.a, [&] { return tile_of(x.a, reps, "tile"); });
  };
  t.def("tile", tile, py::arg("input"), py::arg("dims"));
  c.attr("tile") = py::cpp_function(tile, py::is_method(c), py::arg("dims"));
  const auto interleave = [](const Tensor& x, int64_t repeats, py::object dim) {
    std::optional<int> axis;
    if (!dim.is_none()) axis = py::cast<int>(dim);
    return push_as<Tensor>(x.a, [&] { return repeat_of(x.a, repeats, axis, "repeat_interleave"); });
  };
  t.def("repeat_interleave", interleave, py::arg("input"), py::arg("repeats"), py::arg("dim") = py::none());
  c.attr("repeat_interleave") = py::cpp_function(interleave, py::is_method(c), py::arg("repeats"), py::arg("dim") = py::none());
  t.def("bmm", [](const Tensor& a, const Tensor& b) { return push_as<Tensor>(a.a, [&] { return bmm_of(a.a, b.a, "bmm"); }); },
        py::arg("input"), py::arg("mat2"), "Batched matrix product of (B, n, m) and (B, m, p) tensors (one batch_dot op).");
  // Pickling: the values, rebuilt by torch.tensor (on the CPU, without autograd).
  c.attr("__reduce__") = py::cpp_function([](const Tensor& x) {
    return py::make_tuple(torch_attr("_rebuild"), py::make_tuple(to_numpy(x.a, trace::SyncKind::to_host)));
  }, py::is_method(c));
}

// ---- MXNet's nd -------------------------------------------------------------

NDArray nd_arange(py::object start, py::object stop, double step, py::object repeat, py::object ctx, py::object dtype) {
  if (!repeat.is_none() && py::cast<int>(repeat) != 1) throw std::invalid_argument("arange: repeat is not supported");
  if (stop.is_none()) std::swap(start, stop);
  const double a = start.is_none() ? 0.0 : py::cast<double>(start);
  const double b = py::cast<double>(stop);
  const ContextPtr& context = python::context();
  const Device d = device_from(ctx, *context);
  const DType t = dtype_from(dtype).value_or(DType::float32);
  if (d.kind == DeviceKind::cpu) return arange(context, a, b, step, t, d);
  return to(arange(context, a, b, step, t, Device::cpu()), d);
}

// MXNet's reductions to one value have shape (1,); argmax/argmin give float32 indices.
MxArray nd_reduce(const MxArray& x, Reduction r, py::object axis, bool keepdims) {
  return push_as<MxArray>(x.a, [&] {
    const std::vector<int> axes = axes_from(axis);
    NDArray out = reduce(x.a, r, axes, keepdims);
    if (r == Reduction::argmax || r == Reduction::argmin) out = astype(out, DType::float32);
    return out.shape().ndim() == 0 ? reshape(out, Shape{1}) : out;
  });
}

void bind_nd_shapes(py::module_& nd) {
  const auto mx_push = [](const NDArray& like, auto f) { return push_as<MxArray>(like, f); };
  nd.def("expand_dims", [mx_push](const MxArray& x, int axis) {
    return mx_push(x.a, [&] { return unsqueeze_of(x.a, axis, "expand_dims"); });
  }, py::arg("data"), py::arg("axis"));
  nd.def("squeeze", [mx_push](const MxArray& x, py::object axis) {
    return mx_push(x.a, [&] {
      std::optional<std::vector<int>> axes;
      if (!axis.is_none()) axes = axes_from(axis);
      NDArray out = squeeze_of(x.a, axes, "squeeze");
      return out.shape().ndim() == 0 ? reshape(out, Shape{1}) : out;  // MXNet has no 0-d arrays
    });
  }, py::arg("data"), py::arg("axis") = py::none());
  nd.def("swapaxes", [mx_push](const MxArray& x, int d1, int d2) {
    return mx_push(x.a, [&] { return swapaxes_of(x.a, d1, d2, "swapaxes"); });
  }, py::arg("data"), py::arg("dim1") = 0, py::arg("dim2") = 0);
  nd.def("flip", [mx_push](const MxArray& x, py::object axis) {
    const std::vector<int> axes = axes_from(axis);
    return mx_push(x.a, [&] { return flip_of(x.a, axes, "flip"); });
  }, py::arg("data"), py::arg("axis"));
  nd.def("split", [](const MxArray& x, int64_t num_outputs, int axis, bool squeeze_axis) {
    const int k = axis_in(axis, x.a.shape().ndim(), "split");
    const int64_t len = x.a.shape()[k];
    if (num_outputs <= 0 || len % num_outputs != 0) {
      throw std::invalid_argument("split: axis " + std::to_string(k) + " of length " + std::to_string(len) +
                                  " does not split into " + std::to_string(num_outputs) + " equal parts");
    }
    PushGuard guard(x.a.context());
    std::vector<NDArray> parts = split_of(x.a, std::vector<int64_t>(static_cast<size_t>(num_outputs), len / num_outputs), k, "split");
    py::list out;
    for (NDArray& p : parts) out.append(wrap(MxArray{squeeze_axis && len / num_outputs == 1 ? squeeze_of(p, std::vector<int>{k}, "split") : p}));
    return out;
  }, py::arg("data"), py::arg("num_outputs"), py::arg("axis") = 1, py::arg("squeeze_axis") = false);
  nd.def("linspace", [](double start, double stop, int64_t num, bool endpoint, py::object ctx, py::object dtype) {
    const ContextPtr& context = python::context();
    return push_as<MxArray>(*context, [&] {
      return linspace_of(context, start, stop, num, endpoint, dtype_from(dtype).value_or(DType::float32),
                         device_from(ctx, *context));
    });
  }, py::arg("start"), py::arg("stop"), py::arg("num"), py::arg("endpoint") = true, py::arg("ctx") = py::none(),
     py::arg("dtype") = py::none());
  nd.def("eye", [](int64_t n, int64_t m, py::object ctx, py::object dtype) {
    const ContextPtr& context = python::context();
    return push_as<MxArray>(*context, [&] {
      return eye_of(context, n, m == 0 ? n : m, dtype_from(dtype).value_or(DType::float32), device_from(ctx, *context));
    });
  }, py::arg("N"), py::arg("M") = 0, py::arg("ctx") = py::none(), py::arg("dtype") = py::none());
  nd.def("random_randint", [](int64_t low, int64_t high, py::object shape, py::object ctx) {
    const ContextPtr& context = python::context();
    return push_as<MxArray>(*context, [&] {
      return randint_of(context, low, high, shape_from(shape, "random.randint"), device_from(ctx, *context));
    });
  }, py::arg("low"), py::arg("high"), py::arg("shape") = py::make_tuple(1), py::arg("ctx") = py::none());
}

void bind_nd_more(py::module_& nd) {
  nd.def("batch_dot", [](const MxArray& a, const MxArray& b, bool transpose_a, bool transpose_b) {
    return push_as<MxArray>(a.a, [&] { return batch_dot(a.a, b.a, transpose_a, transpose_b); });
  }, py::arg("lhs"), py::arg("rhs"), py::arg("transpose_a") = false, py::arg("transpose_b") = false,
     "Batched matrix product of (B, n, m) and (B, m, p) arrays, either transposed (no copy): one op.");
  bind_tile_repeat<MxArray>(nd, "data", "data");
  nd.def("random_multinomial", [](const MxArray& data, py::object shape, bool get_prob, py::object dtype) {
    if (get_prob) throw py::value_error("multinomial: get_prob=True is not supported");
    // shape: the samples per row (an int or a tuple, appended to the rows' shape).
    std::vector<int64_t> dims;
    if (!shape.is_none()) dims = dims_from(shape, "multinomial");
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    const DType t = dtype.is_none() ? DType::int32 : *dtype_from(dtype);
    return push_as<MxArray>(data.a, [&] {
      NDArray out = astype(multinomial(data.a, shape.is_none() ? 1 : n, true), t);
      std::vector<int64_t> full;
      if (data.a.shape().ndim() == 2) full.push_back(data.a.shape()[0]);
      full.insert(full.end(), dims.begin(), dims.end());
      if (full.empty()) full.push_back(1);
      return reshape(out, Shape(full));
    });
  }, py::arg("data"), py::arg("shape") = py::none(), py::arg("get_prob") = false, py::arg("dtype") = py::none());
  nd.def("random_shuffle", [](const MxArray& x) {
    return push_as<MxArray>(x.a, [&] {
      const NDArray perm[] = {randperm(x.a.context_ptr(), x.a.shape().ndim() ? x.a.shape()[0] : 1, x.a.device())};
      return gather(x.a, perm);
    });
  }, py::arg("data"));
  py::object c = nd.attr("NDArray");
  c.attr("__reduce__") = py::cpp_function([](const MxArray& x) {
    return py::make_tuple(py::module_::import("asyncscope.ndarray").attr("_rebuild"),
                          py::make_tuple(to_numpy(x.a, trace::SyncKind::to_host)));
  }, py::is_method(c));
}

void bind_nd_types(py::module_& nd) {
  bind_nd_shapes(nd);
  bind_nd_more(nd);
  py::object c = nd.attr("NDArray");
  bind_common<MxArray>(c);
  nd.def("arange", [](py::object start, py::object stop, double step, py::object repeat, py::object ctx, py::object dtype) {
    return push_as<MxArray>(*python::context(), [&] { return nd_arange(start, stop, step, repeat, ctx, dtype); });
  }, py::arg("start"), py::arg("stop") = py::none(), py::arg("step") = 1.0, py::arg("repeat") = py::none(),
     py::arg("ctx") = py::none(), py::arg("dtype") = py::none(),
     "Evenly spaced values in [start, stop) (float32 unless dtype= says).");
  const std::pair<const char*, Reduction> reductions[] = {
      {"argmax", Reduction::argmax}, {"argmin", Reduction::argmin}, {"max", Reduction::max},
      {"min", Reduction::min},       {"prod", Reduction::prod}};
  for (const auto& [nm, r] : reductions) {
    const Reduction red = r;
    const auto fn = [red](const MxArray& x, py::object axis, bool keepdims) { return nd_reduce(x, red, axis, keepdims); };
    c.attr(nm) = py::cpp_function(fn, py::is_method(c), py::arg("axis") = py::none(), py::arg("keepdims") = false);
    nd.def(nm, fn, py::arg("data"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
  }
}

}  // namespace

void bind_types(py::module_& m) {
  py::module_ torch = m.attr("torch");
  py::module_ nd = m.attr("nd");
  bind_torch_types(torch);
  bind_torch_shapes(torch);
  bind_nd_types(nd);
}

}  // namespace asyncscope::python
