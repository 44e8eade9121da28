// What the torch edition's creation functions share: the size they are given
// (ones(2, 3), ones((2, 3)), ones([2, 3]) or ones(size=(2, 3))), their
// keyword arguments (device=, dtype=, requires_grad=, generator=) and the
// leaf a requires_grad=True result becomes.
// Threading: the Python thread that calls them, holding the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>

#include "python/core/arrays.h"

namespace asyncscope::python {

namespace py = pybind11;

Shape size_from(const py::args& args, const py::kwargs& kwargs, const char* op);
// The device of device= (the context's own without it); any keyword but
// size=, dtype=, requires_grad=, generator= and device= is a TypeError.
Device creation_device(const py::kwargs& kwargs, const Context& context, const char* op);
std::optional<DType> dtype_of_kwargs(const py::kwargs& kwargs, const char* op);
// a in `dtype` when one is given and differs (a float32 creation cast).
NDArray in_dtype(NDArray a, std::optional<DType> dtype);
// A leaf that PyTorch's autograd tracks: its gradient is None until a
// backward, then accumulates (GradReq::accumulate).
void make_leaf(NDArray& a);
Tensor with_requires_grad(Tensor t, bool requires_grad);
bool requires_grad_of(const py::kwargs& kwargs);

}  // namespace asyncscope::python
