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
#include "engine/cuda/elements.h"

namespace asyncscope::cuda {

enum class BinaryOp : uint8_t {
  add, sub, mul, div, pow, maximum, minimum,
  equal, not_equal, greater, greater_equal, less, less_equal  // 1 or 0
};
// y = f(x, s) elementwise: UnaryOp (elements.h).
// y = f(y, x) in place (mul_scalar ignores x: y *= s).
enum class UpdateOp : uint8_t { add, sub, add_scaled, mul_scalar };
enum class ReduceOp : uint8_t { sum, mean, norm };

void fill(void* stream, float* y, int64_t n, float value);
// fill() on a plain cudaStream_t (`cuda_stream`), outside the engine's
// streams: for benchmarks that time the runtime's own calls.
void fill_raw(void* cuda_stream, float* y, int64_t n, float value);
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
// The same in double precision (cublasDgemm), for float64 arrays.
void dgemm(void* stream, bool transpose_a, bool transpose_b, int m, int n, int k, double alpha, const double* a,
           int lda, const double* b, int ldb, double beta, double* c, int ldc);

// Asynchronous copies; host memory should be page-locked (pinned_allocator())
// for the device-to-host direction to stay asynchronous.
void copy_to_device(void* stream, void* y, const void* host_x, size_t bytes);
void copy_to_host(void* stream, void* host_y, const void* x, size_t bytes);

// ---- the ops of every element type (typed_kernels.cu; per element: elements.h) ----

// y[0..n) = the `item`-byte word `bits` (a value already converted to y's type).
void fill_words(void* stream, void* y, int64_t n, size_t item, uint64_t bits);
// y[i] = start + i * step converted to `type`, for i in [0, n).
void arange(void* stream, Type type, void* y, int64_t n, double start, double step);
// y = f(x, s) for n elements of type t (float64, or an integer type for the
// functions that keep integers: negative, relu, square, abs, sign, rounding).
void unary_typed(void* stream, UnaryOp op, Type t, void* y, const void* x, int64_t n, float s);
// y (type `to`) = x (type `from`) converted, n elements.
void cast(void* stream, Type to, void* y, Type from, const void* x, int64_t n);
// y (type `result`, layout `out`) = a op b computed in `compute`, each
// operand (of type `compute`) stretched along its mask.
void binary_typed(void* stream, TypedBinary op, Type compute, Type result, void* y, Dims4 out, const void* a,
                  StretchMask a_mask, const void* b, StretchMask b_mask);
// y (type t, layout out) = c ? a : b, each stretched along its mask.
void where(void* stream, Type t, void* y, Dims4 out, const bool* c, StretchMask c_mask, const void* a,
           StretchMask a_mask, const void* b, StretchMask b_mask);
// y (type `out_type`, one element per output of `layout`) = reduction r of x
// (type `in`): a block per output, its threads' partials combined in a tree.
void reduce_typed(void* stream, TypedReduction r, Type in, Type out_type, void* y, const void* x,
                  const ReduceLayout& layout, int64_t outputs);
// y (type `out_type`) = running sums of x (type `in`) along an axis of length
// len, between `outer` and `inner` elements; from the end when `reverse`.
void cumsum(void* stream, Type in, Type out_type, void* y, const void* x, int64_t outer, int64_t len, int64_t inner,
            bool reverse);
// y[i] = x[along_offset(i)] (elements.h), words of `item` bytes, i < n (the
// output's size); an index out of range leaves its element alone.
void take_along(void* stream, void* y, const void* x, const int64_t* index, const AlongLayout& layout, int64_t n,
                size_t item);
// y (base_n elements of type t, floating) = 0, then y[along_offset(i)] += dy[i].
void take_along_backward(void* stream, Type t, void* y, int64_t base_n, const void* dy, const int64_t* index,
                         const AlongLayout& layout, int64_t n);
// The first k of each line of x (type t) along an axis of length len
// (between `outer` and `inner` elements) in stable sorted order: their
// values to `values` and their places in the line to `indices` (int64),
// either may be null; NaN sorts as the largest (elements.h's sorts_before).
// A thread per element compares it with its whole line: O(len) each.
void sort(void* stream, Type t, void* values, int64_t* indices, const void* x, int64_t outer, int64_t len,
          int64_t inner, int64_t k, bool descending);
// y[k] = x[selected_offset(k)], words of `item` bytes, n = the selection's size.
void take(void* stream, void* y, const void* x, const StridedLayout& selection, int64_t n, size_t item);
// y (`base_n` elements of type t, floating) = 0, then y[selected_offset(k)] += dy[k].
void take_backward(void* stream, Type t, void* y, int64_t base_n, const void* dy, const StridedLayout& selection,
                   int64_t n);
// y[selected_offset(k)] = value[value_offset(k)], words of `item` bytes.
void assign(void* stream, void* y, const void* value, const StridedLayout& selection, Strides4 value_strides,
            int64_t n, size_t item);

// `rows` rows of width_bytes each, from src (rows src_pitch bytes apart) to
// dst (dst_pitch apart), device to device (cudaMemcpy2DAsync).
void copy_rows(void* stream, void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width_bytes,
               int64_t rows);
// y[0..bytes) = 0.
void zero(void* stream, void* y, size_t bytes);
// Integer-array indexing over n index elements, blocks of `block` elements:
// y's block j = x's block block_at(j) (zeros for an index out of range);
void gather(void* stream, void* y, const void* x, const IndexArrays& ix, int64_t n, int64_t block, size_t item);
// y's block block_at(j) = value's block j (one out of range is skipped; of
// two equal indices, either value may win, as in PyTorch on a GPU);
void scatter(void* stream, void* y, const void* value, const IndexArrays& ix, int64_t n, int64_t block, size_t item);
// y (`base_n` elements of floating type t) = 0, then its block block_at(j) += dy's block j.
void scatter_add(void* stream, Type t, void* y, int64_t base_n, const void* dy, const IndexArrays& ix, int64_t n,
                 int64_t block);

}  // namespace asyncscope::cuda
