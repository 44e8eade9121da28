// The Python array types. Each flavour (MXNet's NDArray, PyTorch's Tensor) is
// a thin C++ wrapper around an NDArray, so that an op keeps the flavour of
// its operands (an nd op returns an NDArray, a torch op a Tensor), while the
// ops, autograd and the engine underneath are the one C++ vocabulary of
// engine/tensor. bind_array_common adds to a flavour's class what both
// flavours share (operators, shape, autograd); each flavour's file adds the
// rest (printing, reductions' shapes, conversions).
//
// Every call that may block releases the GIL: a large copy to the host for
// its whole call, a wait and a push held by the in-flight bound when they
// stop spinning and sleep. Python objects are read with the GIL held, and op
// functions never call into Python.
//
// Threading: Python threads holding the GIL (pybind11 takes care of it).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/wait_slot.h"
#include "engine/tensor/ops.h"
#include "python/core/errors.h"
#include "python/core/runtime.h"
#include "python/core/source.h"
#include "python/core/torch_grad_mode.h"

namespace asyncscope::python {

namespace py = pybind11;

template <class Tag>
struct PyArray {
  NDArray a;
};
struct MxTag {};
struct TorchTag {};
struct NpTag {};
using MxArray = PyArray<MxTag>;
using Tensor = PyArray<TorchTag>;
using NpArray = PyArray<NpTag>;  // MXNet's NumPy interface (bind_np.cpp)

// Dimensions from an int (n -> [n]) or a sequence of ints (anything with
// __index__), unchecked but for int64's range; TypeError/ValueError otherwise.
std::vector<int64_t> dims_from(py::handle obj, const char* what);
// A shape from the same; ValueError/TypeError for what Shape refuses.
Shape shape_from(py::handle obj, const char* what);
py::tuple tuple_of(const Shape& shape);
// Axes from None (every axis), an int, or a sequence of ints.
std::vector<int> axes_from(py::handle obj);
// dim as the PyTorch edition reads it: None stays None, and so does an empty
// tuple or list (PyTorch 1.13 reduces over every dim for dim=()).
py::object torch_dims(py::handle dim);
// Values for from_host from anything numpy.asarray takes, and their shape.
std::vector<float> values_from(py::handle obj, Shape& shape);
// A NumPy copy of the values, of the array's dtype; the wait releases the GIL.
py::array to_numpy(const NDArray& a, trace::SyncKind kind);

// A Python number (int, float, bool, or a NumPy scalar): its value, and
// whether it is a float (an int or a bool is not).
struct PyNumber {
  double value;
  bool is_float;
  bool is_bool = false;
};
std::optional<PyNumber> python_number(py::handle v);
// A 0-d array of the number for an op with `like` (scalar_like's type; a
// Python bool beside a bool array stays bool).
inline NDArray scalar_of(const NDArray& like, const PyNumber& n) {
  if (n.is_bool && like.dtype() == DType::boolean) {
    return full(like.context_ptr(), Shape{}, n.value, DType::boolean, like.device());
  }
  return scalar_like(like, n.value, n.is_float);
}

// PyTorch's rule for a 0-d tensor beside a dimensioned one of the same kind
// (both integer, both floating): the dimensioned one's type wins
// (uint8 tensor % int64 0-d tensor is uint8; float32 + float64 0-d is
// float32), where plain promotion would widen. The 0-d one is cast. Not for
// true division, which computes integers as floats from their own values.
template <class T>
void align_zero_d(NDArray& a, NDArray& b, bool true_division = false) {
  if constexpr (std::is_same_v<T, Tensor>) {
    if (true_division && !is_floating(a.dtype()) && !is_floating(b.dtype())) return;
    const auto kind = [](DType t) { return t == DType::boolean ? 0 : is_floating(t) ? 2 : 1; };
    if (a.dtype() == b.dtype()) return;
    const bool a0 = a.shape().ndim() == 0, b0 = b.shape().ndim() == 0;
    if (a0 == b0 || kind(a.dtype()) != kind(b.dtype())) return;
    if (a0) {
      a = astype(a, b.dtype());
    } else {
      b = astype(b, a.dtype());
    }
  }
}
// The dtype a Python value names: a torch dtype (torch.int64), a NumPy
// dtype or type (numpy.float32, 'int32', int, float, bool); nothing for
// None. TypeError for anything else, ValueError for a type the engine lacks.
std::optional<DType> dtype_from(py::handle spec);
// The same for the PyTorch edition, which takes torch dtypes only (as
// PyTorch does): TypeError naming `op` for anything else.
std::optional<DType> torch_dtype_from(py::handle spec, const char* op);
// The NumPy dtype of a DType.
py::dtype numpy_dtype(DType t);
// Each framework's default type for values given without a dtype: MXNet's
// nd makes float32 of everything; PyTorch makes float32 of Python floats,
// int64 of ints, bool of bools, and keeps a NumPy array's type; MXNet's np
// makes float32 of Python numbers, bool of bools, and keeps a NumPy array's
// integer type (float64 becomes float32).
enum class TypeDefaults { mxnet_nd, torch, mxnet_np };
// The matrix product as NumPy's matmul for 1-D and 2-D arrays (through dot,
// BLAS sgemm): a 1-D operand is a row on the left, a column on the right,
// and its dimension is dropped from the result. std::invalid_argument
// naming `op` for other shapes.
NDArray matmul_vectors(const NDArray& a, const NDArray& b, const char* op);
// x[key] as a strided selection of an array of `shape`'s elements: ints
// (negative from the end), slices with any step, None (a new axis of 1) and
// one Ellipsis. IndexError for an index out of range, too many indices, or
// an index of another kind (bind_types.cpp).
Selection selection_from(py::handle key, const Shape& shape);
// A new array of the values of `obj` (a number, nested lists, a NumPy
// array, or an array of either flavour), pushed on `device`.
NDArray array_from(const ContextPtr& ctx, py::handle obj, std::optional<DType> dtype, TypeDefaults defaults,
                   Device device);

// How often a sleeping wait of a Python thread wakes to look for Ctrl+C and
// a stop: a Ctrl+C delivered to the waiting thread wakes it at once; one
// delivered to another thread, and a stop, are seen within this.
inline constexpr int64_t kWaitPollNs = 50'000'000;

// Notes which thread is the interpreter's main thread, where Python runs
// signal handlers (GilSleepHook looks for Ctrl+C there only). Called when
// the module is made.
void note_python_main_thread();

// A Python thread's sleep in a wait (see SleepHook): releases the GIL while
// the thread sleeps (unless the caller released it already) and takes it
// back when the thread wakes; every kWaitPollNs it gives the wait up if the
// run was stopped or if Python has a signal to handle on this thread (the
// main one) whose handler raised (KeyboardInterrupt). The engine then throws
// WaitInterrupted, which the module's translator turns into that exception
// (or KeyboardInterrupt for a stop).
class GilSleepHook final : public SleepHook {
 public:
  explicit GilSleepHook(const Context& ctx, bool holds_gil = true) noexcept : ctx_(ctx), holds_gil_(holds_gil) {}
  void before_sleep() noexcept override {
    if (holds_gil_) saved_ = PyEval_SaveThread();
  }
  void after_sleep() noexcept override {
    if (!holds_gil_) return;
    // Taking the GIL while the interpreter finalizes ends the thread by
    // unwinding it, through this noexcept function: abort. Park instead.
    if (exiting_elsewhere()) park_for_exit();
    PyEval_RestoreThread(saved_);
  }
  int64_t poll_every_ns() const noexcept override { return kWaitPollNs; }
  bool interrupted() noexcept override;
  // The signal handler raised while the wait ended anyway: the exception is
  // set, and the caller raises it (error_already_set) instead of returning.
  bool raised() const noexcept { return raised_; }

 private:
  const Context& ctx_;
  const bool holds_gil_;
  bool raised_ = false;
  PyThreadState* saved_ = nullptr;
};

// Around every call into the core that pushes: records the script line it
// came from (note_source) and, when the engine may block the push (an
// in-flight bound), lets the push release the GIL while it sleeps, as a wait
// does. The call keeps the GIL otherwise: a binding reads its Python
// arguments (a shape, a device) inside the guard's scope.
class PushGuard {
 public:
  explicit PushGuard(const Context& ctx) : hook_(ctx) {
    if (exiting_elsewhere()) park_for_exit();  // a daemon thread at exit pushes nothing more
    refuse_in_fork();
    note_source(ctx);
    if (ctx.engine().max_inflight() > 0) sleep_.emplace(hook_);
  }

 private:
  GilSleepHook hook_;
  std::optional<ScopedSleepHook> sleep_;
};

// Runs f (a push) on arrays of one context with PushGuard around it.
template <class F>
NDArray pushing(const NDArray& like, F&& f) {
  PushGuard guard(like.context());
  return f();
}

// What a flavour's ops do about autograd around each push. MXNet's: nothing,
// so recording is what autograd.record() and pause() made it. PyTorch's:
// record whenever its grad mode is on.
template <class T>
struct GradScope {};
template <>
struct GradScope<Tensor> : TorchGradScope {};

// Runs f (a push) as an op of flavour T in ctx (a creation op), or on arrays
// of like's context, and gives its result T's type.
// The PyTorch edition raises RuntimeError where the engine's op refuses its
// arguments (std::invalid_argument, ValueError in the MXNet editions), as
// PyTorch does for shapes, types and devices that do not fit.
template <class T, class F>
T push_as(const Context& ctx, F&& f) {
  [[maybe_unused]] GradScope<T> grad;
  PushGuard guard(ctx);
  if constexpr (std::is_same_v<T, Tensor>) {
    try {
      return T{f()};
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
  } else {
    return T{f()};
  }
}
template <class T, class F>
T push_as(const NDArray& like, F&& f) {
  return push_as<T>(like.context(), std::forward<F>(f));
}

// A wait (f) on work of ctx's engine: records the script line it came from,
// then waits, keeping the GIL while the wait spins and releasing it only if
// the wait sleeps. Most waits in a loop end within a few microseconds, and
// releasing and taking back the GIL around each cost about 5% of a
// one-element push and wait. Ctrl+C and a stop end the wait (GilSleepHook).
template <class F>
auto waiting(const Context& ctx, F&& f) {
  refuse_in_fork();
  note_source(ctx);
  GilSleepHook hook(ctx);
  ScopedSleepHook scope(hook);
  if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
    f();
    if (hook.raised()) throw py::error_already_set();
  } else {
    auto result = f();
    if (hook.raised()) throw py::error_already_set();
    return result;
  }
}

// Arrays of at least this many elements are copied to the host without the GIL.
inline constexpr int64_t kCopyOffGilElements = int64_t{1} << 18;

// A wait followed by a copy of the values (f): records the script line it
// came from, then runs f with the GIL released, the copy of a large array
// included; Ctrl+C and a stop end the wait as in waiting().
template <class F>
auto waiting_to_copy(const Context& ctx, F&& f) {
  refuse_in_fork();
  note_source(ctx);
  GilSleepHook hook(ctx, /*holds_gil=*/false);
  ScopedSleepHook scope(hook);
  auto result = [&] {
    py::gil_scoped_release release;
    auto r = f();
    if (exiting_elsewhere()) park_for_exit();  // as GilSleepHook::after_sleep
    return r;
  }();
  if (hook.raised()) throw py::error_already_set();
  return result;
}

// f() (a push) for a frontend function whose engine op has another name:
// an argument error names the function the script called ("mm: inner
// dimensions differ ...", not "dot: ...").
template <class F>
auto named_as(std::string_view function, std::string_view op, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    const std::string_view what = e.what();
    if (what.size() > op.size() && what.starts_with(op) && what[op.size()] == ':') {
      throw std::invalid_argument(std::string(function) + std::string(what.substr(op.size())));
    }
    throw;
  }
}

// An in-place update of the array behind a Python object (the object stays the same).
template <class T, class F>
void in_place(py::object self, F&& f) {
  auto& x = self.cast<T&>();
  [[maybe_unused]] GradScope<T> grad;
  PushGuard guard(x.a.context());
  if constexpr (std::is_same_v<T, Tensor>) {
    try {
      f(x.a);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());  // PyTorch's exception (see push_as)
    }
  } else {
    f(x.a);
  }
}

// A Python number as a float, or nothing for anything else (NumPy scalars
// and one-element arrays convert as float() converts them). Whether float()
// applies is read from the type's nb_float slot (which a class defining
// __float__ also fills), not by looking the name up: that lookup is a
// sizeable share of `y + np.float32(1)` on a one-element array.
inline std::optional<float> number_of(py::handle v) {
  PyObject* o = v.ptr();
  if (PyFloat_CheckExact(o)) return static_cast<float>(PyFloat_AS_DOUBLE(o));
  const PyNumberMethods* const number = Py_TYPE(o)->tp_as_number;
  if (PyLong_Check(o) || PyFloat_Check(o) || (number != nullptr && number->nb_float != nullptr)) {
    const double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return std::nullopt;
    }
    return static_cast<float>(d);
  }
  return std::nullopt;
}

// pybind11's record of the class bound for T, looked up once. pybind11 finds
// it by hashing the C++ type's name in two maps (the module's, then the
// process's) each time it checks or converts an object, several times per
// operator call otherwise. Never null once the class is bound (a lookup
// before that is not kept).
template <class T>
const py::detail::type_info* bound_type() {
  static const py::detail::type_info* info = nullptr;
  if (info == nullptr) info = py::detail::get_type_info(typeid(T), /*throw_if_missing=*/true);
  return info;
}

// A new Python object owning `value`, what py::cast(std::move(value)) makes.
template <class T>
py::object wrap(T&& value) {
  static_assert(!std::is_reference_v<T>);
  const auto move = [](const void* p) -> void* { return new T(std::move(*static_cast<T*>(const_cast<void*>(p)))); };
  return py::reinterpret_steal<py::object>(py::detail::type_caster_generic::cast(
      &value, py::return_value_policy::move, py::handle(), bound_type<T>(), nullptr, move));
}

// y as a T (an instance of T's class or of a subclass), or null. What
// isinstance<T>(y) and cast<const T&>() do, with the lookups above.
template <class T>
const T* array_of(py::handle y) {
  PyTypeObject* const type = bound_type<T>()->type;
  if (Py_TYPE(y.ptr()) == type) {
    auto* inst = reinterpret_cast<py::detail::instance*>(y.ptr());
    if (const void* v = inst->get_value_and_holder(bound_type<T>()).value_ptr()) return static_cast<const T*>(v);
  }
  if (!PyType_IsSubtype(Py_TYPE(y.ptr()), type)) return nullptr;
  return &y.cast<const T&>();  // a subclass, or not initialised (the cast raises as before)
}

// A NumPy array as the other operand of an arithmetic operator: PyTorch
// takes it (torch.ones(2) + np.ones(2) is a tensor), so the PyTorch edition
// pushes its values as a tensor on x's device; MXNet's NDArray refuses it
// with a TypeError naming the type (the class's __array_ufunc__ = None keeps
// NumPy from taking the operation over when the array is on the left).
template <class T>
std::optional<NDArray> numpy_operand(const NDArray& x, py::handle y) {
  if (!py::isinstance<py::array>(y)) return std::nullopt;
  if constexpr (std::is_same_v<T, Tensor>) {
    Shape shape;
    std::vector<float> values = values_from(y, shape);
    PushGuard guard(x.context());
    return from_host(x.context_ptr(), shape, std::move(values), x.device());
  } else {
    throw py::type_error("an NDArray and a numpy.ndarray cannot be combined: make the NumPy array an NDArray "
                         "first (nd.array(a))");
  }
}

// x OP y for y an array of x's flavour or a number; NotImplemented otherwise
// (so Python tries y's reflected operator, then raises TypeError). Op is the
// operator's function object (std::plus<> and the like), which NDArray's
// operators serve with an array or a float on either side.
// PyTorch refuses what NumPy's rules would compute: subtraction with a bool
// operand (a tensor or a Python bool).
template <class T, class Op>
void check_torch_operands(const NDArray& x, py::handle y) {
  if constexpr (std::is_same_v<T, Tensor> && std::is_same_v<Op, std::minus<>>) {
    const T* other = array_of<T>(y);
    if (x.dtype() == DType::boolean || PyBool_Check(y.ptr()) || (other != nullptr && other->a.dtype() == DType::boolean)) {
      throw std::runtime_error("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                               "to invert a mask, use the `~` or `logical_not()` operator instead.");
    }
  }
}

template <class T, class Op>
py::object binary_op(const T& x, py::handle y) {
  check_torch_operands<T, Op>(x.a, y);
  if (const T* other = array_of<T>(y)) {
    return wrap(push_as<T>(x.a, [&] {
      NDArray a = x.a, b = other->a;
      align_zero_d<T>(a, b, std::is_same_v<Op, std::divides<>>);
      return Op{}(a, b);
    }));
  }
  if (x.a.dtype() != DType::float32) [[unlikely]] {
    if (std::optional<PyNumber> n = python_number(y)) {
      // True division computes integers as floats: the number is one too
      // (uint8 / -3 divides by -3.0, not by -3 stored as uint8).
      if constexpr (std::is_same_v<Op, std::divides<>>) n->is_float = true;
      return wrap(push_as<T>(x.a, [&] { return Op{}(x.a, scalar_of(x.a, *n)); }));
    }
  }
  if (const std::optional<float> s = number_of(y)) {
    return wrap(push_as<T>(x.a, [&] { return Op{}(x.a, *s); }));
  }
  if (const std::optional<NDArray> other = numpy_operand<T>(x.a, y)) {
    return wrap(push_as<T>(x.a, [&] { return Op{}(x.a, *other); }));
  }
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

// y OP x for a number y, an array (a subclass's reflected method is asked
// first), or, in the PyTorch edition, a NumPy array.
template <class T, class Op>
py::object reflected_op(const T& x, py::handle y) {
  check_torch_operands<T, Op>(x.a, y);
  // y is an array too: Python asks a subclass's reflected method first (a
  // Tensor + a Parameter), and a one-element y must not be read as a number.
  if (const T* other = array_of<T>(y)) {
    return wrap(push_as<T>(x.a, [&] {
      NDArray a = other->a, b = x.a;
      align_zero_d<T>(a, b, std::is_same_v<Op, std::divides<>>);
      return Op{}(a, b);
    }));
  }
  if (x.a.dtype() != DType::float32) [[unlikely]] {
    if (std::optional<PyNumber> n = python_number(y)) {
      if constexpr (std::is_same_v<Op, std::divides<>>) n->is_float = true;  // as in binary_op
      return wrap(push_as<T>(x.a, [&] { return Op{}(scalar_of(x.a, *n), x.a); }));
    }
  }
  if (const std::optional<float> s = number_of(y)) {
    return wrap(push_as<T>(x.a, [&] { return Op{}(*s, x.a); }));
  }
  if (const std::optional<NDArray> other = numpy_operand<T>(x.a, y)) {
    return wrap(push_as<T>(x.a, [&] { return Op{}(*other, x.a); }));
  }
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

// CPython's number slot for OP on T's class: a OP b where a or b (or both)
// is a T. Python calls it for `x + 1` directly, where the __add__ that
// pybind11 binds is reached through CPython's generic slot, a lookup of
// __add__ and pybind11's dispatcher (argument vectors allocated per call,
// the self argument's type looked up by name), a sizeable share of a
// one-element op from Python. Same semantics as __add__ and __radd__.
template <class T, class Op>
PyObject* number_slot(PyObject* a, PyObject* b) noexcept {
  return called_from_python([a, b]() -> PyObject* {
    if (const T* x = array_of<T>(a)) return binary_op<T, Op>(*x, b).release().ptr();
    if (const T* x = array_of<T>(b)) return reflected_op<T, Op>(*x, a).release().ptr();
    Py_RETURN_NOTIMPLEMENTED;
  });
}

// The in-place updates, for an array or a number on the right.
struct AddInPlace {
  void operator()(NDArray& a, const auto& b) const { a += b; }
};
struct SubInPlace {
  void operator()(NDArray& a, const auto& b) const { a -= b; }
};
struct MulInPlace {
  void operator()(NDArray& a, const auto& b) const { a *= b; }
};
struct DivInPlace {
  void operator()(NDArray& a, const auto& b) const { a /= b; }
};

// x OP= y in place, as MXNet and PyTorch do it: the array behind x is
// updated and x stays the same object (y = x; x += 1 changes y too), for y
// an array of x's flavour (broadcast to x's shape) or a number.
// NotImplemented otherwise, so that Python falls back to x = x OP y.
// PyTorch refuses an in-place op whose input is another view of part of
// the elements it writes (x += x[0], x[1:] = x[:-1]); NumPy and MXNet read
// such an input first (the engine copies it), so only the PyTorch edition
// refuses it, with PyTorch's message. `dest` is the written part of self
// (all of it when null); as in PyTorch, a strided part is not checked.
template <class T>
void check_overlap(const NDArray& self, const NDArray& input, const Selection* dest = nullptr) {
  if constexpr (std::is_same_v<T, Tensor>) {
    const detail::Chunk* s = self.chunk();
    const detail::Chunk* i = input.chunk();
    if (s->storage() != i->storage() || s->strided || i->strided) return;
    const int64_t item = static_cast<int64_t>(item_size(s->dtype));
    int64_t lo = static_cast<int64_t>(s->offset) / item, n = s->shape.size();
    if (dest != nullptr) {
      int64_t stride = 1;
      for (int d = dest->shape.ndim() - 1; d >= 0; --d) {
        if (dest->shape[d] != 1 && dest->strides[d] != stride) return;
        stride *= dest->shape[d];
      }
      lo += dest->offset;
      n = dest->shape.size();
    }
    const int64_t in_lo = static_cast<int64_t>(i->offset) / item, in_n = i->shape.size();
    if (n == 0 || in_n == 0 || in_lo >= lo + n || lo >= in_lo + in_n || (lo == in_lo && n == in_n)) return;
    throw std::runtime_error("unsupported operation: some elements of the input tensor and the written-to tensor "
                             "refer to a single memory location. Please clone() the tensor before performing the "
                             "operation.");
  }
}

template <class T, class Update>
py::object in_place_op(py::object self, py::handle y) {
  if (const T* other = array_of<T>(y)) {
    const NDArray b = other->a;  // a handle: y may be self
    check_overlap<T>(self.cast<const T&>().a, b);
    in_place<T>(self, [&b](NDArray& a) { Update{}(a, b); });
    return self;
  }
  if (self.cast<const T&>().a.dtype() != DType::float32) [[unlikely]] {
    if (const std::optional<PyNumber> n = python_number(y)) {
      in_place<T>(self, [&n](NDArray& a) { Update{}(a, scalar_of(a, *n)); });
      return self;
    }
  }
  if (const std::optional<float> s = number_of(y)) {
    in_place<T>(self, [s](NDArray& a) { Update{}(a, *s); });
    return self;
  }
  if (const std::optional<NDArray> other = numpy_operand<T>(self.cast<const T&>().a, y)) {
    in_place<T>(self, [&other](NDArray& a) { Update{}(a, *other); });
    return self;
  }
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

// What both flavours' classes have: arithmetic with arrays and Python numbers
// on either side, unary minus, in-place updates, ndim and len(). Shape, size
// and autograd differ between the frameworks: each flavour's file binds them.
template <class T>
void bind_array_common(py::class_<T>& c) {
  // One overload per operator, sorting its operand itself: with an array
  // overload and a number overload, pybind11 would first try `x + 1`'s 1 as
  // an array, and that failed load costs an AttributeError inside pybind11
  // every time (a large share of a tiny op's time from Python).
  c.def("__add__", &binary_op<T, std::plus<>>, py::is_operator())
      .def("__radd__", &reflected_op<T, std::plus<>>, py::is_operator())
      .def("__sub__", &binary_op<T, std::minus<>>, py::is_operator())
      .def("__rsub__", &reflected_op<T, std::minus<>>, py::is_operator())
      .def("__mul__", &binary_op<T, std::multiplies<>>, py::is_operator())
      .def("__rmul__", &reflected_op<T, std::multiplies<>>, py::is_operator())
      .def("__truediv__", &binary_op<T, std::divides<>>, py::is_operator())
      .def("__rtruediv__", &reflected_op<T, std::divides<>>, py::is_operator())
      .def("__neg__", [](const T& x) { return push_as<T>(x.a, [&] { return -x.a; }); })
      .def("__pow__", [](const T& x, py::handle p) -> py::object {
        // An array first: a one-element one would pass for a number (it has __float__).
        if (const T* e = array_of<T>(p)) {
          return wrap(push_as<T>(x.a, [&] {
            NDArray a = x.a, b = e->a;
            align_zero_d<T>(a, b);
            return pow(a, b);
          }));
        }
        // x ** 2 is square (one op); another number is a 0-d array of it.
        if (x.a.dtype() != DType::float32) {
          if (const std::optional<PyNumber> n = python_number(p)) {
            if constexpr (std::is_same_v<T, Tensor>) {
              if (!is_floating(x.a.dtype()) && !n->is_float && n->value < 0) {
                throw std::runtime_error("Integers to negative integer powers are not allowed.");
              }
            }
            return wrap(push_as<T>(x.a, [&] { return pow(x.a, scalar_of(x.a, *n)); }));
          }
        }
        if (const std::optional<float> s = number_of(p)) {
          if (*s == 2.0f) return wrap(push_as<T>(x.a, [&] { return square(x.a); }));
          return wrap(push_as<T>(x.a, [&] { return pow(x.a, full(x.a.context_ptr(), Shape{}, *s, x.a.device())); }));
        }
        return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      }, py::is_operator())
      .def("__rpow__", [](const T& x, py::handle base) -> py::object {
        if (const T* other = array_of<T>(base)) {  // an array's subclass asked first (Tensor ** Parameter)
          return wrap(push_as<T>(x.a, [&] {
            NDArray a = other->a, b = x.a;
            align_zero_d<T>(a, b, false);
            return pow(a, b);
          }));
        }
        if (x.a.dtype() != DType::float32) {
          if (const std::optional<PyNumber> n = python_number(base)) {
            return wrap(push_as<T>(x.a, [&] { return pow(scalar_of(x.a, *n), x.a); }));
          }
        }
        if (const std::optional<float> s = number_of(base)) {
          return wrap(push_as<T>(x.a, [&] { return pow(full(x.a.context_ptr(), Shape{}, *s, x.a.device()), x.a); }));
        }
        return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      }, py::is_operator())
      .def("__iadd__", &in_place_op<T, AddInPlace>, py::is_operator())
      .def("__isub__", &in_place_op<T, SubInPlace>, py::is_operator())
      .def("__imul__", &in_place_op<T, MulInPlace>, py::is_operator())
      .def("__itruediv__", &in_place_op<T, DivInPlace>, py::is_operator())
      .def_property_readonly("ndim", [](const T& x) { return x.a.shape().ndim(); })
      .def("__len__", [](const T& x) {
        if (x.a.shape().ndim() == 0) throw py::type_error("len() of a 0-d array");
        return x.a.shape()[0];
      });
  // NumPy's operators give the operation back to the class (see numpy_operand).
  c.attr("__array_ufunc__") = py::none();
  // Over the generic slots that defining __add__ and the rest gave the class
  // (binding any of those names again would put the generic one back).
  PyNumberMethods* number = reinterpret_cast<PyTypeObject*>(c.ptr())->tp_as_number;
  number->nb_add = &number_slot<T, std::plus<>>;
  number->nb_subtract = &number_slot<T, std::minus<>>;
  number->nb_multiply = &number_slot<T, std::multiplies<>>;
  number->nb_true_divide = &number_slot<T, std::divides<>>;
  PyType_Modified(reinterpret_cast<PyTypeObject*>(c.ptr()));
}

}  // namespace asyncscope::python
