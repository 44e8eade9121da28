// Sorting in the three editions, on the engine's sort, argsort, topk and
// take_along_axis (engine/tensor/ops.h): PyTorch's sort / argsort / msort /
// topk / take_along_dim (sort and topk give (values, indices) named tuples),
// MXNet nd's sort / argsort / topk (indices as float32 unless dtype= says;
// topk's ret_typ value / indices / both / mask), MXNet np's sort / argsort /
// take_along_axis (axis=None: the flattened array), the ndarray's sort in
// place (as NumPy's), and npx.topk as nd's.
// Threading: module creation (once); the functions on the frontend thread.
#include <string>
#include <utility>

#include "python/core/arrays.h"
#include "python/core/bindings.h"
#include "python/core/torch_devices.h"

namespace asyncscope::python {
namespace {

NDArray flattened(const NDArray& a) { return reshape(a, Shape{a.size()}); }

// a, flattened when axis is None (NumPy's and MXNet's rule), and the axis.
std::pair<NDArray, int> along(const NDArray& a, py::handle axis) {
  if (axis.is_none()) return {flattened(a), 0};
  return {a, py::cast<int>(axis)};
}

// MXNet's topk (nd.topk, npx.topk): the k largest along axis (smallest with
// is_ascend; k < 1: all of them), as ret_typ says: their values, their
// indices as `dtype`, both as a list, or a mask of x's shape with 1 where
// they are.
template <class T>
py::object mxnet_topk(const T& x, py::object axis, int64_t k, const std::string& ret_typ, bool is_ascend,
                      py::object dtype) {
  if (ret_typ != "value" && ret_typ != "indices" && ret_typ != "both" && ret_typ != "mask") {
    throw py::value_error("topk: ret_typ must be 'value', 'indices', 'both' or 'mask', got '" + ret_typ + "'");
  }
  const DType index_type = dtype_from(dtype).value_or(DType::float32);
  const std::pair<NDArray, int> picked = along(x.a, axis);
  const NDArray& a = picked.first;
  const int ax = picked.second;
  const Shape& s = a.shape();
  const int ndim = s.ndim() == 0 ? 1 : s.ndim();
  const int64_t len = s.ndim() == 0 ? 1 : (ax >= -ndim && ax < ndim ? s[ax < 0 ? ax + ndim : ax] : 0);
  const int64_t n = k < 1 ? len : k;
  if (ret_typ == "mask") {
    // An element's place in the order (the inverse permutation) below k.
    T mask = push_as<T>(a, [&] {
      const NDArray place = argsort(argsort(a, ax, !is_ascend), ax);
      return astype(compare(place, scalar_like(place, static_cast<double>(n), false), Comparison::less, false),
                    a.dtype());
    });
    return wrap(std::move(mask));
  }
  Sorted top;
  T values = push_as<T>(a, [&] {
    top = topk(a, n, ax, !is_ascend);
    return top.values;
  });
  if (ret_typ == "value") return wrap(std::move(values));
  T indices = push_as<T>(a, [&] { return astype(top.indices, index_type); });
  if (ret_typ == "indices") return wrap(std::move(indices));
  py::list both;
  both.append(wrap(std::move(values)));
  both.append(wrap(std::move(indices)));
  return both;
}

// PyTorch's IndexError for a dim outside the tensor's (a 0-d one has [-1, 0]).
void check_dim(const NDArray& a, int dim) {
  const int n = a.shape().ndim() == 0 ? 1 : a.shape().ndim();
  if (dim < -n || dim >= n) {
    throw py::index_error("Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                          std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
  }
}

void bind_torch_sorting(py::module_& torch) {
  py::object cls = torch.attr("Tensor");
  const auto sort_fn = [](const Tensor& x, int dim, bool descending, bool /*stable: always*/) {
    check_dim(x.a, dim);
    Sorted s;
    Tensor values = push_as<Tensor>(x.a, [&] {
      s = sort_with_indices(x.a, dim, descending);
      return s.values;
    });
    return torch_attr("_sort_result")(wrap(std::move(values)), wrap(Tensor{s.indices}));
  };
  const auto argsort_fn = [](const Tensor& x, int dim, bool descending, bool /*stable*/) {
    check_dim(x.a, dim);
    return push_as<Tensor>(x.a, [&] { return argsort(x.a, dim, descending); });
  };
  const auto topk_fn = [](const Tensor& x, int64_t k, int dim, bool largest, bool /*sorted: always*/) {
    check_dim(x.a, dim);
    Sorted s;
    Tensor values = push_as<Tensor>(x.a, [&] {
      const Shape& shape = x.a.shape();
      const int ndim = shape.ndim() == 0 ? 1 : shape.ndim();
      if (k < 0 || k > (shape.ndim() == 0 ? 1 : shape[dim < 0 ? dim + ndim : dim])) {
        throw std::runtime_error("selected index k out of range");  // PyTorch's words
      }
      s = topk(x.a, k, dim, largest);
      return s.values;
    });
    return torch_attr("_topk_result")(wrap(std::move(values)), wrap(Tensor{s.indices}));
  };
  const auto take_along_fn = [](const Tensor& x, const Tensor& indices, py::object dim) {
    return push_as<Tensor>(x.a, [&] {
      if (dim.is_none()) return take_along_axis(flattened(x.a), flattened(indices.a), 0);
      check_dim(x.a, py::cast<int>(dim));
      return take_along_axis(x.a, indices.a, py::cast<int>(dim));
    });
  };
  torch.def("sort", sort_fn, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(),
            py::arg("stable") = false,
            "(values, indices): input sorted along dim, stably (equal values keep their order; NaN the largest).");
  cls.attr("sort") = py::cpp_function(sort_fn, py::is_method(cls), py::arg("dim") = -1, py::arg("descending") = false,
                                      py::kw_only(), py::arg("stable") = false);
  torch.def("argsort", argsort_fn, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false,
            py::kw_only(), py::arg("stable") = false, "The indices (int64) that sort input along dim.");
  cls.attr("argsort") = py::cpp_function(argsort_fn, py::is_method(cls), py::arg("dim") = -1,
                                         py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  torch.def("msort", [](const Tensor& x) { return push_as<Tensor>(x.a, [&] { return sort(x.a, 0); }); },
            py::arg("input"), "input sorted along its first dim (the values).");
  cls.attr("msort") = py::cpp_function(
      [](const Tensor& x) { return push_as<Tensor>(x.a, [&] { return sort(x.a, 0); }); }, py::is_method(cls));
  torch.def("topk", topk_fn, py::arg("input"), py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true,
            py::arg("sorted") = true, "(values, indices): the k largest (or smallest) along dim, in that order.");
  cls.attr("topk") = py::cpp_function(topk_fn, py::is_method(cls), py::arg("k"), py::arg("dim") = -1,
                                      py::arg("largest") = true, py::arg("sorted") = true);
  torch.def("take_along_dim", take_along_fn, py::arg("input"), py::arg("indices"), py::arg("dim") = py::none(),
            "input's values at indices along dim, the same place along the others (dim None: both flattened).");
  cls.attr("take_along_dim") = py::cpp_function(take_along_fn, py::is_method(cls), py::arg("indices"),
                                                py::arg("dim") = py::none());
}

void bind_nd_sorting(py::module_& nd) {
  py::object cls = nd.attr("NDArray");
  const auto sort_fn = [](const MxArray& x, py::object axis, bool is_ascend) {
    return push_as<MxArray>(x.a, [&] {
      const auto [a, ax] = along(x.a, axis);
      return sort(a, ax, !is_ascend);
    });
  };
  const auto argsort_fn = [](const MxArray& x, py::object axis, bool is_ascend, py::object dtype) {
    const DType t = dtype_from(dtype).value_or(DType::float32);
    return push_as<MxArray>(x.a, [&] {
      const auto [a, ax] = along(x.a, axis);
      return astype(argsort(a, ax, !is_ascend), t);
    });
  };
  const auto topk_fn = [](const MxArray& x, py::object axis, int64_t k, const std::string& ret_typ, bool is_ascend,
                          py::object dtype) { return mxnet_topk(x, std::move(axis), k, ret_typ, is_ascend, std::move(dtype)); };
  nd.def("sort", sort_fn, py::arg("data"), py::arg("axis") = -1, py::arg("is_ascend") = true,
         "data sorted along axis (None: flattened), ascending unless is_ascend=False.");
  cls.attr("sort") = py::cpp_function(sort_fn, py::is_method(cls), py::arg("axis") = -1, py::arg("is_ascend") = true);
  nd.def("argsort", argsort_fn, py::arg("data"), py::arg("axis") = -1, py::arg("is_ascend") = true,
         py::arg("dtype") = "float32", "The indices that sort data along axis (float32 unless dtype= says).");
  cls.attr("argsort") = py::cpp_function(argsort_fn, py::is_method(cls), py::arg("axis") = -1,
                                         py::arg("is_ascend") = true, py::arg("dtype") = "float32");
  nd.def("topk", topk_fn, py::arg("data"), py::arg("axis") = -1, py::arg("k") = 1, py::arg("ret_typ") = "indices",
         py::arg("is_ascend") = false, py::arg("dtype") = "float32",
         "The k largest along axis (smallest with is_ascend): ret_typ 'indices', 'value', 'both' or 'mask'.");
  cls.attr("topk") = py::cpp_function(topk_fn, py::is_method(cls), py::arg("axis") = -1, py::arg("k") = 1,
                                      py::arg("ret_typ") = "indices", py::arg("is_ascend") = false,
                                      py::arg("dtype") = "float32");
  // Not an nd function of MXNet's: Gluon's window layers pick with it.
  nd.def("_take_along_axis", [](const MxArray& x, const MxArray& indices, int axis) {
    return push_as<MxArray>(x.a, [&] { return take_along_axis(x.a, indices.a, axis); });
  }, py::arg("arr"), py::arg("indices"), py::arg("axis"));
}

void bind_np_sorting(py::module_& np) {
  py::object cls = np.attr("ndarray");
  const auto check = [](py::handle kind, py::handle order) {
    if (!order.is_none()) throw py::value_error("Cannot specify order when the array has no fields.");
    if (!kind.is_none()) {
      const std::string k = py::str(kind);
      if (k != "quicksort" && k != "mergesort" && k != "heapsort" && k != "stable") {
        throw py::value_error("sort kind must be one of 'quick', 'heap', or 'stable' (got '" + k + "')");
      }
    }
  };
  const auto sort_fn = [check](const NpArray& x, py::object axis, py::object kind, py::object order) {
    check(kind, order);
    return push_as<NpArray>(x.a, [&] {
      const auto [a, ax] = along(x.a, axis);
      return sort(a, ax);
    });
  };
  const auto argsort_fn = [check](const NpArray& x, py::object axis, py::object kind, py::object order) {
    check(kind, order);
    return push_as<NpArray>(x.a, [&] {
      const auto [a, ax] = along(x.a, axis);
      return argsort(a, ax);
    });
  };
  np.def("sort", sort_fn, py::arg("a"), py::arg("axis") = -1, py::arg("kind") = py::none(),
         py::arg("order") = py::none(), "A sorted copy of a along axis (None: flattened); stable, NaN last.");
  np.def("argsort", argsort_fn, py::arg("a"), py::arg("axis") = -1, py::arg("kind") = py::none(),
         py::arg("order") = py::none(), "The indices (int64) that sort a along axis (None: flattened).");
  cls.attr("argsort") = py::cpp_function(argsort_fn, py::is_method(cls), py::arg("axis") = -1,
                                         py::arg("kind") = py::none(), py::arg("order") = py::none());
  // NumPy's ndarray.sort sorts in place and returns None.
  cls.attr("sort") = py::cpp_function(
      [sort_fn](py::object self, py::object axis, py::object kind, py::object order) {
        if (axis.is_none()) throw py::value_error("sort: axis must be an integer for an in-place sort");
        const NpArray sorted = sort_fn(self.cast<const NpArray&>(), axis, kind, order);
        self.attr("__setitem__")(py::ellipsis(), py::cast(sorted));
      },
      py::is_method(cls), py::arg("axis") = -1, py::arg("kind") = py::none(), py::arg("order") = py::none());
  np.def("take_along_axis", [](const NpArray& arr, const NpArray& indices, py::object axis) {
    return push_as<NpArray>(arr.a, [&] {
      if (axis.is_none()) return take_along_axis(flattened(arr.a), indices.a, 0);
      return take_along_axis(arr.a, indices.a, py::cast<int>(axis));
    });
  }, py::arg("arr"), py::arg("indices"), py::arg("axis"),
     "arr's values at indices along axis, the same place along the others (axis None: arr flattened).");
  // npx.batch_dot's op (python/asyncscope/npx.py).
  np.def("_batch_dot", [](const NpArray& a, const NpArray& b, bool transpose_a, bool transpose_b) {
    return push_as<NpArray>(a.a, [&] { return batch_dot(a.a, b.a, transpose_a, transpose_b); });
  }, py::arg("a"), py::arg("b"), py::arg("transpose_a") = false, py::arg("transpose_b") = false);
  np.def("topk", [](const NpArray& x, py::object axis, int64_t k, const std::string& ret_typ, bool is_ascend,
                    py::object dtype) { return mxnet_topk(x, std::move(axis), k, ret_typ, is_ascend, std::move(dtype)); },
         py::arg("data"), py::arg("axis") = -1, py::arg("k") = 1, py::arg("ret_typ") = "indices",
         py::arg("is_ascend") = false, py::arg("dtype") = "float32",
         "npx.topk: the k largest along axis (smallest with is_ascend): ret_typ 'indices', 'value', 'both' or "
         "'mask'.");
}

}  // namespace

void bind_sorting(py::module_& m) {
  py::module_ torch = m.attr("torch");
  py::module_ nd = m.attr("nd");
  py::module_ np = m.attr("np");
  bind_torch_sorting(torch);
  bind_nd_sorting(nd);
  bind_np_sorting(np);
}

}  // namespace asyncscope::python
