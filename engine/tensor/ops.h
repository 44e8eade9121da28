// NDArray operations. Each pushes one op to the context's engine and returns
// the output array at once; the computation happens on a worker.
//
// Elementwise binary ops broadcast the second (or first) operand when it has
// one element, or is a row (1-D, or 1xN) matching the other's last dimension.
//
// An op runs on the device of its arrays: on a CPU worker, or submitted to a
// GPU stream (engine/cuda/kernels.h, cuBLAS for dot). Operands of one op must
// be on the same device (std::invalid_argument otherwise; move them with to()).
// Threading: frontend only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/tensor/ndarray.h"

namespace asyncscope {

// Creation, on the context's device (Context::Options::device).
NDArray zeros(const ContextPtr& ctx, const Shape& shape);
NDArray ones(const ContextPtr& ctx, const Shape& shape);
NDArray full(const ContextPtr& ctx, const Shape& shape, float value);
// Seeded: the same context seed and push order give the same numbers, whatever the workers.
NDArray uniform(const ContextPtr& ctx, const Shape& shape, float low = 0.0f, float high = 1.0f);
NDArray normal(const ContextPtr& ctx, const Shape& shape, float mean = 0.0f, float std_dev = 1.0f);
// Copies host values into a new array (values.size() must equal shape.size()).
NDArray from_host(const ContextPtr& ctx, const Shape& shape, std::vector<float> values);
NDArray copy(const NDArray& a);
// The array's values on `device`: a copy pushed as an op on the GPU's stream
// (host to device, or device to page-locked host memory), or copy() on the
// same device.
NDArray to(const NDArray& a, Device device);

// Elementwise.
NDArray operator+(const NDArray& a, const NDArray& b);
NDArray operator-(const NDArray& a, const NDArray& b);
NDArray operator*(const NDArray& a, const NDArray& b);
NDArray operator/(const NDArray& a, const NDArray& b);
NDArray operator+(const NDArray& a, float s);
NDArray operator-(const NDArray& a, float s);
NDArray operator*(const NDArray& a, float s);
NDArray operator/(const NDArray& a, float s);
NDArray operator+(float s, const NDArray& a);
NDArray operator-(float s, const NDArray& a);
NDArray operator*(float s, const NDArray& a);
NDArray operator/(float s, const NDArray& a);
NDArray operator-(const NDArray& a);
NDArray relu(const NDArray& a);
// dy where x > 0, else 0: the gradient of relu.
NDArray relu_grad(const NDArray& x, const NDArray& dy);

// Matrix product of 2-D arrays through BLAS sgemm: op(a) x op(b).
NDArray dot(const NDArray& a, const NDArray& b, bool transpose_a = false, bool transpose_b = false);
NDArray transpose(const NDArray& a);

// Reductions to a one-element array (accumulated in double).
NDArray sum(const NDArray& a);
NDArray mean(const NDArray& a);
NDArray norm(const NDArray& a);  // Euclidean (Frobenius) norm
// Sum of a 2-D array along an axis: axis 0 gives a row of the column sums
// (shape {cols}), axis 1 the row sums (shape {rows}).
NDArray sum(const NDArray& a, int axis);

}  // namespace asyncscope
