// The shape and creation functions every flavour spells its own way
// (unsqueeze/expand_dims, squeeze, flatten, flip, swapaxes, linspace, eye,
// std/var, softmax, split), written once on the engine's ops: views where the
// values keep their order (reshape), strided copies otherwise (take,
// permute), and compositions of pushed ops for the rest (each one on the
// timeline). std::invalid_argument names the function for a bad axis.
// Threading: Python threads holding the GIL (the functions inside a push guard).
#pragma once

#include <optional>
#include <vector>

#include "engine/tensor/ops.h"
#include "python/core/arrays.h"

namespace asyncscope::python {

// An axis in [-ndim, ndim), as NumPy takes it; std::invalid_argument naming `op` otherwise.
int axis_in(int axis, int ndim, const char* op);

// a with a new axis of 1 at `axis` (in [-ndim-1, ndim]): a view.
NDArray unsqueeze_of(const NDArray& a, int axis, const char* op);
// a without its axes of 1 (all of them, or those given; an axis given that is not 1 stays, as in PyTorch).
NDArray squeeze_of(const NDArray& a, const std::optional<std::vector<int>>& axes, const char* op);
// The axes [start, end] merged into one: a view.
NDArray flatten_of(const NDArray& a, int start, int end, const char* op);
// a reversed along `axes`: a copy.
NDArray flip_of(const NDArray& a, const std::vector<int>& axes, const char* op);
// a with two axes swapped: a copy.
NDArray swapaxes_of(const NDArray& a, int a0, int a1, const char* op);
// num values from start to stop (stop included when `endpoint`), of `dtype`.
NDArray linspace_of(const ContextPtr& ctx, double start, double stop, int64_t num, bool endpoint, DType dtype,
                    Device device);
// The n x m identity-like matrix (ones on the diagonal), of `dtype`.
NDArray eye_of(const ContextPtr& ctx, int64_t n, int64_t m, DType dtype, Device device);
// The variance (std: its square root) along axes (empty: all), dividing by N - ddof.
NDArray variance_of(const NDArray& a, const std::vector<int>& axes, bool keepdims, double ddof, bool root,
                    const char* op);
// exp(a) / sum(exp(a)) along axis (log_softmax: its log, computed stably).
NDArray softmax_of(const NDArray& a, int axis, bool log, const char* op);
// a cut along axis into parts of the given sizes (which sum to its length).
std::vector<NDArray> split_of(const NDArray& a, const std::vector<int64_t>& sizes, int axis, const char* op);
// Integers uniform in [low, high), int64 (from the seeded uniform fill, floored).
NDArray randint_of(const ContextPtr& ctx, int64_t low, int64_t high, const Shape& shape, Device device);

// The p-norm along axes (empty: all): p = 2 the engine's norm; 1 the sum of
// magnitudes; infinity (-infinity) the largest (smallest) magnitude; 0 the
// count of non-zeros; another p (sum |a|^p)^(1/p).
NDArray pnorm_of(const NDArray& a, double p, const std::vector<int>& axes, bool keepdims, const char* op);
// a repeated reps[i] times along each axis (NumPy's tile, PyTorch's repeat):
// reps longer than a's dimensions add leading axes.
NDArray tile_of(const NDArray& a, const std::vector<int64_t>& reps, const char* op);
// Each element repeated n times along axis (every axis flattened first when
// none): NumPy's repeat, PyTorch's repeat_interleave.
NDArray repeat_of(const NDArray& a, int64_t n, std::optional<int> axis, const char* op);
// The batched matrix product of (B, n, m) and (B, m, p) arrays (batch_dot: one op), the shapes checked with `op`.
NDArray bmm_of(const NDArray& a, const NDArray& b, const char* op);

// NumPy's tile(A, reps) and repeat(a, repeats, axis=None) as functions of
// module m for flavour T (the first argument named as the framework names it).
template <class T>
void bind_tile_repeat(py::module_& m, const char* tile_arg, const char* repeat_arg) {
  m.def("tile", [](const T& x, py::object reps) {
    const std::vector<int64_t> r = dims_from(reps, "tile");
    return push_as<T>(x.a, [&] { return tile_of(x.a, r, "tile"); });
  }, py::arg(tile_arg), py::arg("reps"));
  m.def("repeat", [](const T& x, int64_t repeats, py::object axis) {
    std::optional<int> a;
    if (!axis.is_none()) a = py::cast<int>(axis);
    return push_as<T>(x.a, [&] { return repeat_of(x.a, repeats, a, "repeat"); });
  }, py::arg(repeat_arg), py::arg("repeats"), py::arg("axis") = py::none());
}

}  // namespace asyncscope::python
