#include "python/core/arrays.h"

#include <algorithm>
#include <vector>

#include "python/core/shape_ops.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace asyncscope::python {

namespace {

// A dimension from a Python int (or anything with __index__); one past
// int64's range is a ValueError naming it, not pybind11's cast error.
int64_t dim_of(py::handle d, const char* what) {
  if (!PyIndex_Check(d.ptr())) {
    throw py::type_error(std::string(what) + ": a shape holds ints, got " +
                         std::string(py::str(py::type::of(d).attr("__name__"))));
  }
  const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(d.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0) {
    throw std::invalid_argument(std::string(what) + ": the dimension " + std::string(py::str(index)) +
                                " is more than any array can hold");
  }
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

}  // namespace

std::vector<int64_t> dims_from(py::handle obj, const char* what) {
  std::vector<int64_t> dims;
  if (PyIndex_Check(obj.ptr())) {
    dims.push_back(dim_of(obj, what));
  } else if (py::isinstance<py::sequence>(obj) && !py::isinstance<py::str>(obj)) {
    for (py::handle d : obj) dims.push_back(dim_of(d, what));
  } else {
    throw py::type_error(std::string(what) + ": a shape is an int or a tuple of ints, got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  return dims;
}

Shape shape_from(py::handle obj, const char* what) {
  const std::vector<int64_t> dims = dims_from(obj, what);
  try {
    return Shape(std::span<const int64_t>(dims));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(what) + ": " + e.what());
  }
}

namespace {

// The ident of the interpreter's main thread, the only one that runs
// Python's signal handlers (read without the GIL, so kept here).
std::atomic<unsigned long> python_main_thread{0};

}  // namespace

void note_python_main_thread() {
  python_main_thread.store(py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>());
}

bool GilSleepHook::interrupted() noexcept {
  if (ctx_.stopped()) return true;
  // Elsewhere PyErr_CheckSignals would take the GIL to do nothing.
  if (PyThread_get_thread_ident() != python_main_thread.load(std::memory_order_relaxed)) return false;
  // A handler may wait itself: on a slot of its own, not the one this wait sleeps on.
  const ScopedSpareWaitSlot spare;
  PyGILState_STATE state{};
  if (holds_gil_) {
    PyEval_RestoreThread(saved_);
  } else {
    state = PyGILState_Ensure();
  }
  raised_ = PyErr_CheckSignals() != 0;
  if (holds_gil_) {
    saved_ = PyEval_SaveThread();
  } else {
    PyGILState_Release(state);
  }
  return raised_;
}

py::tuple tuple_of(const Shape& shape) {
  py::tuple t(static_cast<size_t>(shape.ndim()));
  for (int i = 0; i < shape.ndim(); ++i) t[static_cast<size_t>(i)] = py::int_(shape[i]);
  return t;
}

std::vector<int> axes_from(py::handle obj) {
  std::vector<int> axes;
  if (obj.is_none()) return axes;
  for (const int64_t a : dims_from(obj, "axis")) {
    // The op checks the axis against the array; only int's range is checked here.
    if (a < std::numeric_limits<int>::min() || a > std::numeric_limits<int>::max()) {
      throw std::invalid_argument("axis " + std::to_string(a) + " is out of range");
    }
    axes.push_back(static_cast<int>(a));
  }
  if (axes.empty()) throw std::invalid_argument("axis: an empty tuple of axes");
  return axes;
}

py::object torch_dims(py::handle dim) {
  if ((py::isinstance<py::tuple>(dim) || py::isinstance<py::list>(dim)) && py::len(dim) == 0) return py::none();
  return py::reinterpret_borrow<py::object>(dim);
}

std::vector<float> values_from(py::handle obj, Shape& shape) {
  const auto arr = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(obj);
  if (!arr) throw py::type_error("cannot make an array of this value (needs numbers, a list of them, or a NumPy array)");
  std::vector<int64_t> dims(arr.shape(), arr.shape() + arr.ndim());
  shape = Shape(std::span<const int64_t>(dims));
  std::vector<float> values(static_cast<size_t>(arr.size()));
  if (!values.empty()) std::memcpy(values.data(), arr.data(), values.size() * sizeof(float));
  return values;
}

namespace {

// matmul with a batch: the matrices are the last two dimensions, the ones
// before them broadcast (NumPy's rule). A 2-D right operand is one product of
// all the left's rows; otherwise one batch_dot of the broadcast batches.
NDArray batched_matmul(const NDArray& left, const NDArray& right, const NDArray& a, const NDArray& b, const char* op) {
  const Shape& l = left.shape();
  const Shape& r = right.shape();
  const int nl = l.ndim(), nr = r.ndim();
  const int64_t n = l[nl - 2], k = l[nl - 1], p = r[nr - 1];
  if (k != r[nr - 2]) {
    throw std::invalid_argument(std::string(op) + ": shapes " + a.shape().to_string() + " and " + b.shape().to_string() +
                                " cannot be multiplied (" + std::to_string(k) + " and " + std::to_string(r[nr - 2]) +
                                " differ)");
  }
  if (nr == 2) {
    std::vector<int64_t> dims(l.begin(), l.end());
    dims.back() = p;
    int64_t rows = 1;
    for (int i = 0; i < nl - 1; ++i) rows *= l[i];
    return reshape(named_as(op, "dot", [&] { return dot(reshape(left, Shape{rows, k}), right); }),
                   Shape(std::span<const int64_t>(dims)));
  }
  // The batch dimensions, broadcast from the right.
  const int batch_dims = std::max(nl, nr) - 2;
  std::vector<int64_t> batch(static_cast<size_t>(batch_dims), 1);
  for (int i = 0; i < batch_dims; ++i) {
    const int li = nl - 3 - i, ri = nr - 3 - i;
    const int64_t dl = li >= 0 ? l[li] : 1, dr = ri >= 0 ? r[ri] : 1;
    if (dl != dr && dl != 1 && dr != 1) {
      throw std::invalid_argument(std::string(op) + ": the batch dimensions of " + a.shape().to_string() + " and " +
                                  b.shape().to_string() + " do not broadcast");
    }
    batch[static_cast<size_t>(batch_dims - 1 - i)] = std::max(dl, dr);
  }
  int64_t count = 1;
  for (const int64_t d : batch) count *= d;
  std::vector<int64_t> left_dims = batch, right_dims = batch, out_dims = batch;
  left_dims.insert(left_dims.end(), {n, k});
  right_dims.insert(right_dims.end(), {k, p});
  out_dims.insert(out_dims.end(), {n, p});
  const NDArray l3 = reshape(broadcast_to(left, Shape(std::span<const int64_t>(left_dims))), Shape{count, n, k});
  const NDArray r3 = reshape(broadcast_to(right, Shape(std::span<const int64_t>(right_dims))), Shape{count, k, p});
  return reshape(bmm_of(l3, r3, op), Shape(std::span<const int64_t>(out_dims)));
}

}  // namespace

// NumPy's (and PyTorch's) matmul (through dot, BLAS sgemm): a 1-D operand is
// a row on the left, a column on the right, and its dimension is dropped from
// the result; beyond 2-D, the last two dimensions are the matrices and the
// ones before them a batch that broadcasts.
NDArray matmul_vectors(const NDArray& a, const NDArray& b, const char* op) {
  const int na = a.shape().ndim(), nb = b.shape().ndim();
  if (na < 1 || nb < 1) {
    throw std::invalid_argument(std::string(op) + ": both arguments need at least 1 dimension, got " +
                                a.shape().to_string() + " and " + b.shape().to_string());
  }
  if (na > 2 || nb > 2) {
    const NDArray left = na == 1 ? reshape(a, Shape{1, a.shape()[0]}) : a;
    const NDArray right = nb == 1 ? reshape(b, Shape{b.shape()[0], 1}) : b;
    NDArray out = batched_matmul(left, right, a, b, op);
    // A 1-D operand's dimension is dropped: the rows of a left one, the columns of a right one.
    std::vector<int64_t> dims(out.shape().begin(), out.shape().end());
    if (nb == 1) dims.erase(dims.end() - 1);
    if (na == 1) dims.erase(dims.end() - (nb == 1 ? 1 : 2));
    return reshape(out, Shape(std::span<const int64_t>(dims)));
  }
  const NDArray left = na == 1 ? reshape(a, Shape{1, a.shape()[0]}) : a;
  const NDArray right = nb == 1 ? reshape(b, Shape{b.shape()[0], 1}) : b;
  if (left.shape()[1] != right.shape()[0]) {
    throw std::invalid_argument(std::string(op) + ": shapes " + a.shape().to_string() + " and " + b.shape().to_string() +
                             " cannot be multiplied (" + std::to_string(left.shape()[1]) + " and " +
                             std::to_string(right.shape()[0]) + " differ)");
  }
  NDArray out = named_as(op, "dot", [&] { return dot(left, right); });
  if (na == 1 && nb == 1) return reshape(out, Shape{});
  if (na == 1) return reshape(out, Shape{right.shape()[1]});
  if (nb == 1) return reshape(out, Shape{left.shape()[0]});
  return out;
}

py::dtype numpy_dtype(DType t) { return py::dtype(std::string(name(t))); }

std::optional<PyNumber> python_number(py::handle v) {
  PyObject* o = v.ptr();
  if (PyBool_Check(o)) return PyNumber{o == Py_True ? 1.0 : 0.0, false, true};
  if (PyLong_Check(o)) {
    const double d = PyLong_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return PyNumber{d, false};
  }
  if (PyFloat_Check(o)) return PyNumber{PyFloat_AS_DOUBLE(o), true};
  // NumPy scalars: an integer or bool type is not a float.
  static py::object generic = py::module_::import("numpy").attr("generic");
  if (PyObject_IsInstance(o, generic.ptr()) == 1) {
    const char kind = py::dtype::from_args(v.attr("dtype")).kind();
    if (kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f') {
      return PyNumber{py::cast<double>(v.attr("__float__")()), kind == 'f', kind == 'b'};
    }
  }
  return std::nullopt;
}

std::optional<DType> dtype_from(py::handle spec) {
  if (spec.is_none()) return std::nullopt;
  if (py::hasattr(spec, "_asyncscope_dtype")) return dtype_named(py::cast<std::string>(spec.attr("_asyncscope_dtype")));
  if (py::isinstance<py::str>(spec)) return dtype_named(py::cast<std::string>(spec));
  py::object dt;
  try {
    dt = py::module_::import("numpy").attr("dtype")(spec);
  } catch (const py::error_already_set&) {
    throw py::type_error("dtype: expected a dtype (such as 'float32' or numpy.int64), got " +
                         std::string(py::str(spec)));
  }
  return dtype_named(py::cast<std::string>(dt.attr("name")));
}

std::optional<DType> torch_dtype_from(py::handle spec, const char* op) {
  if (spec.is_none()) return std::nullopt;
  if (!py::hasattr(spec, "_asyncscope_dtype")) {
    throw py::type_error(std::string(op) + "(): argument 'dtype' must be torch.dtype, not " +
                         std::string(py::str(py::type::of(spec).attr("__name__"))));
  }
  return dtype_named(py::cast<std::string>(spec.attr("_asyncscope_dtype")));
}

NDArray array_from(const ContextPtr& ctx, py::handle obj, std::optional<DType> dtype, TypeDefaults defaults,
                   Device device) {
  py::module_ np = py::module_::import("numpy");
  py::object arr;
  if (py::hasattr(obj, "asnumpy")) {
    arr = obj.attr("asnumpy")();
  } else if (py::hasattr(obj, "numpy") && py::hasattr(obj, "requires_grad")) {
    arr = obj.attr("detach")().attr("cpu")().attr("numpy")();
  } else {
    arr = np.attr("asarray")(obj);
  }
  const bool from_numpy = py::isinstance<py::array>(obj) || py::isinstance(obj, np.attr("generic"));
  const char kind = py::dtype::from_args(arr.attr("dtype")).kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    throw py::type_error("cannot make an array of this value (needs numbers, a list of them, or a NumPy array; got "
                         "values of NumPy type " + std::string(py::str(arr.attr("dtype"))) + ")");
  }
  DType t;
  if (dtype) {
    t = *dtype;
  } else if (defaults == TypeDefaults::mxnet_nd) {
    t = DType::float32;
  } else if (kind == 'f') {
    const std::string n = py::cast<std::string>(arr.attr("dtype").attr("name"));
    t = from_numpy && defaults == TypeDefaults::torch && n == "float64" ? DType::float64 : DType::float32;
  } else if (kind == 'b') {
    t = DType::boolean;
  } else if (defaults == TypeDefaults::mxnet_np && !from_numpy) {
    t = DType::float32;  // MXNet's np.array of Python numbers
  } else {
    const std::string n = py::cast<std::string>(arr.attr("dtype").attr("name"));
    t = from_numpy && (n == "int32" || n == "uint8") ? dtype_named(n) : DType::int64;
  }
  const py::array typed = np.attr("asarray")(arr, numpy_dtype(t), "C");
  std::vector<int64_t> dims(typed.shape(), typed.shape() + typed.ndim());
  const Shape shape{std::span<const int64_t>(dims)};
  std::vector<std::byte> bytes(static_cast<size_t>(typed.nbytes()));
  if (!bytes.empty()) std::memcpy(bytes.data(), typed.data(), bytes.size());
  return from_host_bytes(ctx, shape, t, std::move(bytes), device);
}

py::array to_numpy(const NDArray& a, trace::SyncKind kind) {
  if (a.dtype() != DType::float32) {
    const auto copy = [&] { return a.to_host_bytes(kind); };
    std::vector<std::byte> bytes = a.size() >= kCopyOffGilElements ? waiting_to_copy(a.context(), copy)
                                                                   : waiting(a.context(), copy);
    std::vector<py::ssize_t> dims(a.shape().begin(), a.shape().end());
    py::array out(numpy_dtype(a.dtype()), dims);
    if (!bytes.empty()) std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
    return out;
  }
  // A large copy runs without the GIL; a small one keeps it, as a wait does.
  const auto copy = [&] { return a.to_host(kind); };
  std::vector<float> values = a.size() >= kCopyOffGilElements ? waiting_to_copy(a.context(), copy)
                                                              : waiting(a.context(), copy);
  std::vector<py::ssize_t> dims(a.shape().begin(), a.shape().end());
  py::array_t<float> out(dims);
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(float));
  return out;
}

}  // namespace asyncscope::python
