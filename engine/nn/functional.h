// Differentiable NDArray ops: each computes exactly what the op of the same
// meaning in engine/tensor/ops.h computes (one push, returns at once) and,
// inside an autograd::Record scope with an input that needs gradients, tapes
// how to push its gradient. Outside a scope they cost nothing extra.
//
// Broadcasting follows ops.h (a one-element operand, or a row matching the
// last dimension); its gradient is summed back to the operand's shape, which
// is supported for outputs of up to two dimensions.
//
// Threading: frontend only.
#pragma once

#include "engine/nn/autograd.h"

namespace asyncscope::nn::autograd {

// op(a) x op(b) for 2-D arrays.
NDArray dot(const NDArray& a, const NDArray& b, bool transpose_a = false, bool transpose_b = false);
NDArray transpose(const NDArray& a);

NDArray add(const NDArray& a, const NDArray& b);
NDArray subtract(const NDArray& a, const NDArray& b);
NDArray multiply(const NDArray& a, const NDArray& b);
NDArray divide(const NDArray& a, const NDArray& b);

NDArray add(const NDArray& a, float s);
NDArray subtract(const NDArray& a, float s);
NDArray subtract(float s, const NDArray& a);
NDArray multiply(const NDArray& a, float s);
NDArray divide(const NDArray& a, float s);
NDArray divide(float s, const NDArray& a);
NDArray negative(const NDArray& a);

NDArray relu(const NDArray& a);
NDArray square(const NDArray& a);

// To a one-element (0-d) array.
NDArray sum(const NDArray& a);
NDArray mean(const NDArray& a);
// Of a 2-D array along an axis: axis 0 gives shape {cols}, axis 1 shape {rows}.
NDArray sum(const NDArray& a, int axis);
NDArray mean(const NDArray& a, int axis);

// The same values in `shape`, for the shapes the broadcasting rules can
// produce from a's: {n} <-> {1,n}, and any one-element shape to another.
// Returns a itself if the shape already matches.
NDArray reshape_row(const NDArray& a, const Shape& shape);
// A 1-D array {n} as a column {n,1}.
NDArray as_column(const NDArray& a);

}  // namespace asyncscope::nn::autograd
