#include "python/core/arrays.h"

#include <cstring>
#include <stdexcept>

namespace asyncscope::python {

Shape shape_from(py::handle obj, const char* what) {
  std::vector<int64_t> dims;
  if (py::isinstance<py::int_>(obj)) {
    dims.push_back(obj.cast<int64_t>());
  } else if (py::isinstance<py::sequence>(obj) && !py::isinstance<py::str>(obj)) {
    for (py::handle d : obj) {
      if (!py::isinstance<py::int_>(d)) {
        throw py::type_error(std::string(what) + ": a shape holds ints, got " +
                             std::string(py::str(py::type::of(d).attr("__name__"))));
      }
      dims.push_back(d.cast<int64_t>());
    }
  } else {
    throw py::type_error(std::string(what) + ": a shape is an int or a tuple of ints, got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  try {
    return Shape(std::span<const int64_t>(dims));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(what) + ": " + e.what());
  }
}

py::tuple tuple_of(const Shape& shape) {
  py::tuple t(static_cast<size_t>(shape.ndim()));
  for (int i = 0; i < shape.ndim(); ++i) t[static_cast<size_t>(i)] = py::int_(shape[i]);
  return t;
}

std::vector<int> axes_from(py::handle obj) {
  std::vector<int> axes;
  if (obj.is_none()) return axes;
  if (py::isinstance<py::int_>(obj)) {
    axes.push_back(obj.cast<int>());
    return axes;
  }
  for (py::handle a : obj) axes.push_back(a.cast<int>());
  if (axes.empty()) throw std::invalid_argument("axis: an empty tuple of axes");
  return axes;
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

py::array to_numpy(const NDArray& a, trace::SyncKind kind) {
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
