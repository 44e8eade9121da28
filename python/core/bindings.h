// The pieces the _core module is made of (module.cpp calls each bind_*), and
// the helpers their files share.
// Threading: module creation (once); the helpers as arrays.h.
#pragma once

#include <pybind11/pybind11.h>

#include <span>

#include "engine/tensor/ops.h"

namespace asyncscope::python {

namespace py = pybind11;

void bind_runtime(py::module_& m);
void bind_nd(py::module_& m);
void bind_autograd(py::module_& m);
void bind_nn(py::module_& m);
void bind_torch(py::module_& m);
// After bind_nd and bind_torch: the functions and methods made from the op table.
void bind_ops(py::module_& m);
// After bind_ops: indexing, dtypes and the typed ops of both flavours (bind_types.cpp).
void bind_types(py::module_& m);
// MXNet's NumPy interface: np.ndarray and the np/npx functions (bind_np.cpp).
void bind_np(py::module_& m);
// After bind_np: sort, argsort, topk and take_along_axis in the three editions (bind_sort.cpp).
void bind_sorting(py::module_& m);
// After bind_torch: the factorisations behind torch.linalg (bind_linalg.cpp).
void bind_linalg(py::module_& m);
// After bind_types: the torch edition's random functions on PyTorch's CPU streams (bind_torch_random.cpp).
void bind_torch_random(py::module_& m);
// Last: `axis` / `keepdims` accepted wherever a torch binding takes `dim` /
// `keepdim`, as PyTorch's argument parser accepts them (numpy_names.cpp).
void add_numpy_argument_names(py::module_& torch);

enum class ReduceKind { sum, mean, norm };
NDArray reduce_all(const NDArray& a, ReduceKind kind);
NDArray reduce_along(const NDArray& a, std::span<const int> axes, bool keepdims, ReduceKind kind);

// The device a Python value names: a string ("cpu", "cuda", "cuda:1",
// "gpu(0)"), or an object with device_type and device_id (MXNet's context)
// or type and index (PyTorch's device).
Device device_named(py::handle spec);
// The same, or the context's own device for None.
inline Device device_from(py::handle spec, const Context& context) {
  return spec.is_none() ? context.device() : device_named(spec);
}

}  // namespace asyncscope::python
