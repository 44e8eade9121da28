// The device side of the NDArray ops: each function submits work to a stream
// and returns without waiting for it. `stream` is the RunContext::stream an op
// receives on a CUDA stream worker. Pointers are device memory unless named
// host_*. Launch errors throw cuda::CudaError naming the kernel or call;
// errors while the work runs surface when the engine waits for the op.
//
// Results match the CPU ops: the same counter-based random numbers
// (engine/base/random.h), reductions accumulated in double.
//
// Threading: the stream worker thread that owns `stream`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/base/layout.h"

namespace asyncscope::cuda {

enum class BinaryOp : uint8_t {
  add, sub, mul, div, pow, maximum, minimum,
  equal, not_equal, greater, greater_equal, less, less_equal  // 1 or 0
};
// y = f(x, s) elementwise.
enum class UnaryOp : uint8_t {
  copy, add_scalar, sub_scalar, mul_scalar, div_scalar, rsub_scalar, rdiv_scalar, negative, relu, square, sqrt, exp, log,
  abs, sign, sin, cos, tanh, sigmoid, log1p, floor, ceil, rint, round
};
// y = f(y, x) in place (mul_scalar ignores x: y *= s).
enum class UpdateOp : uint8_t { add, sub, add_scaled, mul_scalar };
enum class ReduceOp : uint8_t { sum, mean, norm };

void fill(void* stream, float* y, int64_t n, float value);
void fill_uniform(void* stream, float* y, int64_t n, uint64_t key, float low, float high);
void fill_normal(void* stream, float* y, int64_t n, uint64_t key, float mean, float std_dev);

// y (of layout `out`, engine/base/layout.h) = a op b, each operand stretched
// along its mask.
void binary(void* stream, BinaryOp op, float* y, Dims4 out, const float* a, StretchMask a_mask, const float* b,
            StretchMask b_mask);
// y (of layout `out`) = x stretched along its mask.
void broadcast(void* stream, float* y, Dims4 out, const float* x, StretchMask x_mask);
void unary(void* stream, UnaryOp op, float* y, const float* x, int64_t n, float s = 0.0f);
void update(void* stream, UpdateOp op, float* y, const float* x, int64_t n, float s = 0.0f);
void relu_grad(void* stream, float* y, const float* x, const float* dy, int64_t n);
void transpose(void* stream, float* y, const float* x, int64_t rows, int64_t cols);

// out[0] = sum, mean or norm of x[0..n).
void reduce_all(void* stream, ReduceOp op, float* out, const float* x, int64_t n);
// y = the sum, mean or norm of x (layout `in`) over the dimensions in
// `reduced`; y has in's layout with those dimensions set to 1.
void reduce(void* stream, ReduceOp op, float* y, const float* x, Dims4 in, StretchMask reduced);

// Row-major C (m x n) = alpha * op(A) op(B) + beta * C through cuBLAS sgemm
// (FP32, no TF32), with lda/ldb/ldc the row lengths as stored.
void sgemm(void* stream, bool transpose_a, bool transpose_b, int m, int n, int k, float alpha, const float* a,
           int lda, const float* b, int ldb, float beta, float* c, int ldc);

// Asynchronous copies; host memory should be page-locked (pinned_allocator())
// for the device-to-host direction to stay asynchronous.
void copy_to_device(void* stream, void* y, const void* host_x, size_t bytes);
void copy_to_host(void* stream, void* host_y, const void* x, size_t bytes);

}  // namespace asyncscope::cuda
