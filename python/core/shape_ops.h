// The shape and creation functions every flavour spells its own way
// (unsqueeze/expand_dims, squeeze, flatten, flip, swapaxes, linspace, eye,
// std/var, softmax, split), written once on the engine's ops: views where the
// values keep their order (reshape), strided copies otherwise (take,
// permute), and compositions of pushed ops for the rest (each one on the
// timeline). std::invalid_argument names the function for a bad axis.
// Threading: Python threads holding the GIL, inside a push guard.
#pragma once

#include <optional>
#include <vector>

#include "engine/tensor/ops.h"

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

}  // namespace asyncscope::python
