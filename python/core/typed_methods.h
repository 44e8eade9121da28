// Methods every array flavour has for dtypes and indexing, as templates
// over the flavour (python/core/arrays.h): x[key], x[key] = value, // and %,
// astype; and binary_fn, the operator glue for ops without a C++ operator.
// Threading: Python threads holding the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <tuple>
#include <type_traits>

#include "python/core/arrays.h"
#include "python/core/bindings.h"

namespace asyncscope::python {

template <class T>
constexpr bool kTorch = std::is_same_v<T, Tensor>;
// MXNet's nd has no 0-d arrays (x[i] of a vector has shape (1,)).
template <class T>
constexpr bool kNoZeroD = std::is_same_v<T, MxArray>;

// The value assigned by x[key] = value, as an array on x's device: an array
// of x's flavour, a number (of x's type), or anything array_from takes.
template <class T>
NDArray assigned_value(const NDArray& x, py::handle value) {
  if (const T* v = array_of<T>(value)) return v->a;
  if (const std::optional<PyNumber> n = python_number(value)) {
    return full(x.context_ptr(), Shape{}, n->value, x.dtype(), x.device());  // stored as x's type
  }
  return array_from(x.context_ptr(), value, x.dtype(), TypeDefaults::torch, x.device());
}

// An index array of a key: an array of x's flavour (not 0-d), a list, a
// range or a NumPy array; null for an int, a slice, None or Ellipsis.
template <class T>
bool is_index_array(py::handle k) {
  if (const T* a = array_of<T>(k)) return a->a.shape().ndim() > 0;
  return py::isinstance<py::list>(k) || py::isinstance<py::array>(k) ||
         py::isinstance(k, py::module_::import("builtins").attr("range"));
}

// The index arrays of an integer-array or boolean-mask key (NumPy's advanced
// indexing), for the leading axes: the key is one index array, or a tuple of
// slices, then index arrays or ints (ints count as 0-d index arrays beside
// arrays, as in NumPy), then full slices or an Ellipsis. A bool mask becomes
// the indices of its true elements: its values are read first (a sync
// point, as in NumPy and PyTorch: the result's shape depends on them). A
// leading slice becomes the index array of its positions, shaped to
// broadcast on an axis of its own before the index arrays' axes, which is
// where NumPy puts them (x[:, [0, 2]] has x.shape[0] rows of 2). Nothing for
// a basic key; IndexError for another mix.
template <class T>
std::optional<std::vector<NDArray>> index_arrays(const NDArray& x, py::handle key) {
  py::tuple items = py::isinstance<py::tuple>(key) ? py::reinterpret_borrow<py::tuple>(key) : py::make_tuple(key);
  bool any = false;
  for (py::handle k : items) any |= is_index_array<T>(k);
  if (!any) return std::nullopt;
  const Shape& s = x.shape();
  const auto is_full = [](py::handle k) {
    return k.is(py::ellipsis()) || (PySlice_Check(k.ptr()) && py::getattr(k, "start").is_none() &&
                                    py::getattr(k, "stop").is_none() && py::getattr(k, "step").is_none());
  };
  // Leading slices, as (start, step, length) on their axes.
  struct Range {
    Py_ssize_t start, step, length;
  };
  std::vector<Range> ranges;
  size_t i = 0;
  for (; i < items.size() && PySlice_Check(items[i].ptr()); ++i) {
    if (static_cast<int>(i) >= s.ndim()) throw py::index_error("too many indices for array");
    Py_ssize_t start = 0, stop = 0, step = 0;
    if (PySlice_Unpack(items[i].ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
    const Py_ssize_t length = PySlice_AdjustIndices(s[static_cast<int>(i)], &start, &stop, step);
    ranges.push_back({start, step, length});
  }
  std::vector<py::handle> leading;
  for (; i < items.size(); ++i) {
    py::handle k = items[i];
    if (is_index_array<T>(k) || (PyIndex_Check(k.ptr()) && !PyBool_Check(k.ptr())) || array_of<T>(k) != nullptr) {
      leading.push_back(k);
    } else {
      break;
    }
  }
  for (; i < items.size(); ++i) {
    if (!is_full(items[i])) {
      throw py::index_error("index arrays must follow only slices in the key, and be followed only by ':' or '...' "
                            "(other mixes of integer arrays, slices and None are not supported)");
    }
  }
  py::module_ np = py::module_::import("numpy");
  std::vector<NDArray> out;
  for (size_t r = 0; r < ranges.size(); ++r) out.emplace_back();  // filled in below, once the arrays' rank is known
  for (py::handle k : leading) {
    NDArray idx;
    if (const T* a = array_of<T>(k)) {
      idx = a->a;
    } else if (is_index_array<T>(k)) {  // before __index__: a NumPy array has that slot too
      idx = array_from(x.context_ptr(), np.attr("asarray")(k), std::nullopt, TypeDefaults::torch, x.device());
    } else {
      idx = full(x.context_ptr(), Shape{}, static_cast<double>(py::cast<int64_t>(py::reinterpret_steal<py::object>(PyNumber_Index(k.ptr())))),
                 DType::int64, x.device());
    }
    if (idx.dtype() != DType::boolean && !is_integral(idx.dtype()) && idx.size() == 0) {
      idx = astype(idx, DType::int64);  // x[[]]: NumPy reads [] as float64
    }
    if (idx.dtype() == DType::boolean) {
      // The mask's true positions, one index array per mask dimension.
      const int first = static_cast<int>(out.size());
      if (first + idx.shape().ndim() > s.ndim()) throw py::index_error("too many indices for array");
      for (int d = 0; d < idx.shape().ndim(); ++d) {
        if (idx.shape()[d] != s[first + d]) {
          throw py::index_error("boolean index did not match the indexed array along axis " +
                                std::to_string(first + d) + "; the array is " + s.to_string() + ", the index " +
                                idx.shape().to_string());
        }
      }
      const py::array mask = to_numpy(idx, trace::SyncKind::to_host);
      const py::tuple nonzero = mask.attr("nonzero")();
      for (py::handle part : nonzero) {
        out.push_back(array_from(x.context_ptr(), part, DType::int64, TypeDefaults::torch, x.device()));
      }
      continue;
    }
    if (!is_integral(idx.dtype())) {
      throw py::index_error("tensors used as indices must be integer or bool, got " + std::string(name(idx.dtype())));
    }
    out.push_back(idx);
  }
  int rank = 0;
  for (size_t k = ranges.size(); k < out.size(); ++k) rank = std::max(rank, out[k].shape().ndim());
  for (size_t r = 0; r < ranges.size(); ++r) {
    // Axis r of its own: (1, ..., length, ..., 1) before the arrays' rank.
    std::vector<int64_t> dims(ranges.size() + static_cast<size_t>(rank), 1);
    dims[r] = ranges[r].length;
    const Range& g = ranges[r];
    out[r] = reshape(arange(x.context_ptr(), static_cast<double>(g.start),
                            static_cast<double>(g.start + g.step * g.length), static_cast<double>(g.step),
                            DType::int64, x.device()),
                     Shape(dims));
  }
  return out;
}

// Names the backward of a basic index of a torch tensor as PyTorch does:
// after its last step that is not a whole dimension (x[0]: SelectBackward0,
// x[:2]: SliceBackward0, x[None]: UnsqueezeBackward0; x[:]: AliasBackward0).
void name_basic_index(const NDArray& made, py::handle key, const Shape& shape);

template <class T>
py::object getitem(const T& x, py::handle key) {
  std::optional<std::vector<NDArray>> idx;
  {
    PushGuard guard(x.a.context());  // the index arrays are pushed from the script's line
    idx = index_arrays<T>(x.a, key);
  }
  if (idx) return wrap(push_as<T>(x.a, [&] { return gather(x.a, *idx); }));
  const Selection sel = selection_from(key, x.a.shape());
  T made = push_as<T>(x.a, [&] {
    // A view (writes through it reach x), as PyTorch gives for every basic
    // index; MXNet's arrays have no strides, so it gives views of contiguous
    // parts only and copies the rest. A copy while recording a gradient of x.
    NDArray out;
    if (!autograd::should_record({&x.a})) {
      std::optional<NDArray> view = view_of(x.a, sel);
      if (view && (kTorch<T> || !view->chunk()->strided)) out = std::move(*view);
    }
    if (out.is_null()) out = take(x.a, sel);
    // MXNet's nd has no 0-d arrays: x[i] of a vector is a 1-element one.
    if constexpr (kNoZeroD<T>) {
      if (out.shape().ndim() == 0) out = reshape(out, Shape{1});
    }
    return out;
  });
  if constexpr (kTorch<T>) name_basic_index(made.a, key, x.a.shape());
  return wrap(std::move(made));
}

template <class T>
void setitem(py::object self, py::handle key, py::handle value) {
  T& x = self.cast<T&>();
  std::optional<std::vector<NDArray>> idx;
  {
    PushGuard guard(x.a.context());
    idx = index_arrays<T>(x.a, key);
  }
  if (idx) {
    in_place<T>(self, [&](NDArray& a) { scatter(a, *idx, assigned_value<T>(a, value)); });
    return;
  }
  const Selection sel = selection_from(key, x.a.shape());
  in_place<T>(self, [&](NDArray& a) {
    const NDArray v = assigned_value<T>(a, value);
    check_overlap<T>(a, v, &sel);
    assign(a, sel, v);
  });
}

// x OP y for the ops without a C++ operator (floor_divide, mod, the
// comparisons): y an array of x's flavour or a number; NotImplemented otherwise.
template <class T, class F>
py::object binary_fn(const T& x, py::handle y, F f, bool reflected = false) {
  std::optional<NDArray> other;
  if (const T* a = array_of<T>(y)) other = a->a;
  const std::optional<PyNumber> n = other ? std::nullopt : python_number(y);
  if (!other && !n) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return wrap(push_as<T>(x.a, [&] {
    NDArray a = x.a;
    NDArray b = other ? *other : scalar_of(x.a, *n);
    align_zero_d<T>(a, b);
    return reflected ? f(b, a) : f(a, b);
  }));
}

template <class T>
void bind_common(py::handle cls) {
  py::object c = py::reinterpret_borrow<py::object>(cls);
  c.attr("__getitem__") = py::cpp_function(&getitem<T>, py::is_method(c), py::arg("key"));
  c.attr("__setitem__") = py::cpp_function(&setitem<T>, py::is_method(c), py::arg("key"), py::arg("value"));
  using Fn = NDArray (*)(const NDArray&, const NDArray&);
  for (const auto& [dunder, reflected, fn] : {std::tuple<const char*, const char*, Fn>{"__floordiv__", "__rfloordiv__", &floor_divide},
                                              {"__mod__", "__rmod__", &mod}}) {
    const Fn f = fn;
    c.attr(dunder) = py::cpp_function([f](const T& x, py::handle y) { return binary_fn(x, y, f); }, py::is_method(c));
    c.attr(reflected) =
        py::cpp_function([f](const T& x, py::handle y) { return binary_fn(x, y, f, true); }, py::is_method(c));
  }
  c.attr("astype") = py::cpp_function(
      [](py::object self, py::handle dtype, bool copy) -> py::object {
        const T& x = self.cast<const T&>();
        const DType t = *dtype_from(dtype);
        if (t == x.a.dtype() && !copy) return self;
        return wrap(push_as<T>(x.a, [&] { return astype(x.a, t); }));
      },
      py::is_method(c), py::arg("dtype"), py::arg("copy") = true,
      "The values converted to dtype (a new array; as NumPy's astype).");
}

// MXNet's copyto for either flavour: copyto(array) writes x's values into
// that array (same shape) and returns it; copyto(ctx) is a copy on that
// device, even the same one.
template <class T>
py::object copy_to(const T& x, py::handle other) {
  if (py::isinstance<T>(other)) {
    T& target = other.cast<T&>();
    if (!(target.a.shape() == x.a.shape())) {
      throw std::invalid_argument("copyto: the target's shape " + target.a.shape().to_string() + " is not " +
                                  x.a.shape().to_string());
    }
    PushGuard guard(x.a.context());
    Selection all;
    all.shape = target.a.shape();
    for (int d = all.shape.ndim() - 1, stride = 1; d >= 0; --d) {
      all.strides[d] = stride;
      stride *= static_cast<int>(all.shape[d]);
    }
    const NDArray source = x.a.device() == target.a.device() ? x.a : to(x.a, target.a.device());
    assign(target.a, all, source);
    return py::reinterpret_borrow<py::object>(other);
  }
  const Device d = device_from(other, x.a.context());
  return py::cast(push_as<T>(x.a, [&] { return d == x.a.device() ? copy(x.a) : to(x.a, d); }));
}

}  // namespace asyncscope::python
