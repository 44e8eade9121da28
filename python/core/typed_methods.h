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

template <class T>
py::object getitem(const T& x, py::handle key) {
  const Selection sel = selection_from(key, x.a.shape());
  return wrap(push_as<T>(x.a, [&] {
    NDArray out = take(x.a, sel);
    // MXNet's nd has no 0-d arrays: x[i] of a vector is a 1-element one.
    if constexpr (kNoZeroD<T>) {
      if (out.shape().ndim() == 0) out = reshape(out, Shape{1});
    }
    return out;
  }));
}

template <class T>
void setitem(py::object self, py::handle key, py::handle value) {
  T& x = self.cast<T&>();
  const Selection sel = selection_from(key, x.a.shape());
  in_place<T>(self, [&](NDArray& a) { assign(a, sel, assigned_value<T>(a, value)); });
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

}  // namespace asyncscope::python
