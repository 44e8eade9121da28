// Device kernels and cuBLAS calls behind engine/cuda/kernels.h. Simple
// grid-stride kernels: the point of the backend is to show asynchrony, and
// these are memory-bound anyway; the GEMM (the work that matters) is cuBLAS.
#include <algorithm>
#include <string>

#include "engine/cuda/cuda.h"
#include "engine/cuda/kernels.h"
#include "engine/cuda/grid.cuh"
#include "engine/cuda/stream.h"
#include "engine/base/random.h"

namespace asyncscope::cuda {
namespace {

using namespace grid;

__global__ void fill_kernel(float* y, int64_t n, float value) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) y[i] = value;
}

__global__ void uniform_kernel(float* y, int64_t n, uint64_t key, float low, float high) {
  const float scale = high - low;
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    y[i] = low + scale * random::unit(key, static_cast<uint64_t>(i));
  }
}

__global__ void normal_kernel(float* y, int64_t n, uint64_t key, float mean, float std_dev) {
  const int64_t pairs = (n + 1) / 2;
  for (int64_t p = global_index(); p < pairs; p += grid_stride()) {
    float first = 0.0f;
    float second = 0.0f;
    random::normal_pair(key, static_cast<uint64_t>(p), mean, std_dev, first, second);
    y[2 * p] = first;
    if (2 * p + 1 < n) y[2 * p + 1] = second;
  }
}

__device__ inline float apply(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::add: return a + b;
    case BinaryOp::sub: return a - b;
    case BinaryOp::mul: return a * b;
    case BinaryOp::div: return a / b;
    case BinaryOp::pow: return powf(a, b);
    case BinaryOp::maximum: return a != a ? a : (b != b ? b : (a > b ? a : b));
    case BinaryOp::minimum: return a != a ? a : (b != b ? b : (a < b ? a : b));
    case BinaryOp::equal: return a == b ? 1.0f : 0.0f;
    case BinaryOp::not_equal: return a != b ? 1.0f : 0.0f;
    case BinaryOp::greater: return a > b ? 1.0f : 0.0f;
    case BinaryOp::greater_equal: return a >= b ? 1.0f : 0.0f;
    case BinaryOp::less: return a < b ? 1.0f : 0.0f;
    case BinaryOp::less_equal: return a <= b ? 1.0f : 0.0f;
  }
  return 0.0f;
}

// The offset under `s` of element i of layout `d` (row-major).
__device__ inline int64_t offset_at(const Dims4& d, const Strides4& s, int64_t i) {
  const int64_t i3 = i % d.d[3];
  i /= d.d[3];
  const int64_t i2 = i % d.d[2];
  i /= d.d[2];
  const int64_t i1 = i % d.d[1];
  return offset_of(s, i / d.d[1], i1, i2, i3);
}

__global__ void binary_kernel(BinaryOp op, float* y, Dims4 out, const float* a, Strides4 sa, const float* b,
                              Strides4 sb) {
  const int64_t n = out.size();
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    y[i] = apply(op, a[offset_at(out, sa, i)], b[offset_at(out, sb, i)]);
  }
}

__global__ void broadcast_kernel(float* y, Dims4 out, const float* x, Strides4 sx) {
  const int64_t n = out.size();
  for (int64_t i = global_index(); i < n; i += grid_stride()) y[i] = x[offset_at(out, sx, i)];
}

__device__ inline float apply(UnaryOp op, float x, float s) {
  switch (op) {
    case UnaryOp::copy: return x;
    case UnaryOp::add_scalar: return x + s;
    case UnaryOp::sub_scalar: return x - s;
    case UnaryOp::mul_scalar: return x * s;
    case UnaryOp::div_scalar: return x / s;
    case UnaryOp::rsub_scalar: return s - x;
    case UnaryOp::rdiv_scalar: return s / x;
    case UnaryOp::negative: return -x;
    case UnaryOp::relu: return x > 0.0f ? x : 0.0f;
    case UnaryOp::square: return x * x;
    case UnaryOp::sqrt: return sqrtf(x);
    case UnaryOp::exp: return expf(x);
    case UnaryOp::log: return logf(x);
    case UnaryOp::abs: return fabsf(x);
    case UnaryOp::sign: return static_cast<float>((x > 0.0f) - (x < 0.0f));
    case UnaryOp::sin: return sinf(x);
    case UnaryOp::cos: return cosf(x);
    case UnaryOp::tanh: return tanhf(x);
    case UnaryOp::sigmoid: return 1.0f / (1.0f + expf(-x));
    case UnaryOp::log1p: return log1pf(x);
    case UnaryOp::floor: return floorf(x);
    case UnaryOp::ceil: return ceilf(x);
    case UnaryOp::rint: return rintf(x);
    case UnaryOp::round: return roundf(x);
    case UnaryOp::asin: return asinf(x);
    case UnaryOp::acos: return acosf(x);
    case UnaryOp::atan: return atanf(x);
    case UnaryOp::sinh: return sinhf(x);
    case UnaryOp::cosh: return coshf(x);
    case UnaryOp::expm1: return expm1f(x);
    case UnaryOp::erf: return erff(x);
  }
  return 0.0f;
}

__global__ void unary_kernel(UnaryOp op, float* y, const float* x, int64_t n, float s) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) y[i] = apply(op, x[i], s);
}

__global__ void update_kernel(UpdateOp op, float* y, const float* x, int64_t n, float s) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    switch (op) {
      case UpdateOp::add: y[i] += x[i]; break;
      case UpdateOp::sub: y[i] -= x[i]; break;
      case UpdateOp::add_scaled: y[i] += s * x[i]; break;
      case UpdateOp::mul_scalar: y[i] *= s; break;
    }
  }
}

__global__ void relu_grad_kernel(float* y, const float* x, const float* dy, int64_t n) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) y[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

__global__ void transpose_kernel(float* y, const float* x, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    const int64_t r = i / cols;
    const int64_t c = i - r * cols;
    y[c * rows + r] = x[i];
  }
}

// Block sums of x and x^2 in double, added into acc[0] and acc[1].
__global__ void sum_kernel(double* acc, const float* x, int64_t n) {
  __shared__ double sums[kThreads];
  __shared__ double squares[kThreads];
  double s = 0.0;
  double q = 0.0;
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    const double v = x[i];
    s += v;
    q += v * v;
  }
  sums[threadIdx.x] = s;
  squares[threadIdx.x] = q;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      sums[threadIdx.x] += sums[threadIdx.x + half];
      squares[threadIdx.x] += squares[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&acc[0], sums[0]);
    atomicAdd(&acc[1], squares[0]);
  }
}

__global__ void finish_reduce_kernel(ReduceOp op, float* out, const double* acc, int64_t n) {
  switch (op) {
    case ReduceOp::sum: out[0] = static_cast<float>(acc[0]); break;
    case ReduceOp::mean: out[0] = n ? static_cast<float>(acc[0] / static_cast<double>(n)) : 0.0f; break;
    case ReduceOp::norm: out[0] = static_cast<float>(sqrt(acc[1])); break;
  }
}

// One thread per output, in double: outputs of reductions along an axis are
// many and their inputs short next to a whole-array sum's.
//   out:     the output layout (in's, with the reduced dimensions set to 1)
//   sx:      x's strides; `kept` walks the output, `walk`/`sw` the reduced part
__global__ void reduce_kernel(ReduceOp op, float* y, const float* x, Dims4 out, Strides4 sx, Dims4 walk,
                              Strides4 sw) {
  const int64_t outputs = out.size();
  const int64_t count = walk.size();
  for (int64_t o = global_index(); o < outputs; o += grid_stride()) {
    const float* base = x + offset_at(out, sx, o);
    double acc = 0.0;
    for (int64_t r = 0; r < count; ++r) {
      const double v = base[offset_at(walk, sw, r)];
      acc += op == ReduceOp::norm ? v * v : v;
    }
    if (op == ReduceOp::mean) acc = count ? acc / static_cast<double>(count) : 0.0;
    if (op == ReduceOp::norm) acc = sqrt(acc);
    y[o] = static_cast<float>(acc);
  }
}

}  // namespace

bool kernels_loadable(std::string& reason) {
  cudaFuncAttributes attributes{};
  const cudaError_t e = cudaFuncGetAttributes(&attributes, fill_kernel);
  if (e == cudaSuccess) return true;
  (void)cudaGetLastError();
  reason = cudaGetErrorString(e);
  return false;
}

void fill(void* stream, float* y, int64_t n, float value) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(y, n, value);
  check_launch("fill kernel");
}

void fill_raw(void* cuda_stream, float* y, int64_t n, float value) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), kThreads, 0, static_cast<cudaStream_t>(cuda_stream)>>>(y, n, value);
  check_launch("fill kernel");
}

void fill_uniform(void* stream, float* y, int64_t n, uint64_t key, float low, float high) {
  if (n == 0) return;
  uniform_kernel<<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(y, n, key, low, high);
  check_launch("uniform kernel");
}

void fill_normal(void* stream, float* y, int64_t n, uint64_t key, float mean, float std_dev) {
  if (n == 0) return;
  normal_kernel<<<blocks_for((n + 1) / 2), kThreads, 0, on(stream).submit_handle()>>>(y, n, key, mean, std_dev);
  check_launch("normal kernel");
}

void binary(void* stream, BinaryOp op, float* y, Dims4 out, const float* a, StretchMask a_mask, const float* b,
            StretchMask b_mask) {
  const int64_t n = out.size();
  if (n == 0) return;
  binary_kernel<<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(
      op, y, out, a, stretched_strides(out, a_mask), b, stretched_strides(out, b_mask));
  check_launch("binary kernel");
}

void broadcast(void* stream, float* y, Dims4 out, const float* x, StretchMask x_mask) {
  const int64_t n = out.size();
  if (n == 0) return;
  broadcast_kernel<<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(y, out, x,
                                                                               stretched_strides(out, x_mask));
  check_launch("broadcast kernel");
}

void unary(void* stream, UnaryOp op, float* y, const float* x, int64_t n, float s) {
  if (n == 0) return;
  unary_kernel<<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(op, y, x, n, s);
  check_launch("unary kernel");
}

void update(void* stream, UpdateOp op, float* y, const float* x, int64_t n, float s) {
  if (n == 0) return;
  update_kernel<<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(op, y, x, n, s);
  check_launch("update kernel");
}

void relu_grad(void* stream, float* y, const float* x, const float* dy, int64_t n) {
  if (n == 0) return;
  relu_grad_kernel<<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(y, x, dy, n);
  check_launch("relu_grad kernel");
}

void transpose(void* stream, float* y, const float* x, int64_t rows, int64_t cols) {
  if (rows * cols == 0) return;
  transpose_kernel<<<blocks_for(rows * cols), kThreads, 0, on(stream).submit_handle()>>>(y, x, rows, cols);
  check_launch("transpose kernel");
}

void reduce_all(void* stream, ReduceOp op, float* out, const float* x, int64_t n) {
  Stream& s = on(stream);
  const cudaStream_t handle = s.submit_handle();
  // The scratch is the stream's: ops on one stream run one after another.
  check(cudaMemsetAsync(s.scratch(), 0, 2 * sizeof(double), handle), "cudaMemsetAsync");
  if (n > 0) {
    sum_kernel<<<std::min(blocks_for(n), 1024u), kThreads, 0, handle>>>(s.scratch(), x, n);
    check_launch("sum kernel");
  }
  finish_reduce_kernel<<<1, 1, 0, handle>>>(op, out, s.scratch(), n);
  check_launch("reduce kernel");
}

void reduce(void* stream, ReduceOp op, float* y, const float* x, Dims4 in, StretchMask reduced) {
  // x's strides split in two: the kept dimensions index the output, the
  // reduced ones are walked by each output's thread.
  const Strides4 sx = stretched_strides(in, 0);
  Dims4 out = in, walk;
  Strides4 kept_strides, walk_strides;
  for (int i = 0; i < 4; ++i) {
    const bool r = (reduced >> i) & 1u;
    out.d[i] = r ? 1 : in.d[i];
    walk.d[i] = r ? in.d[i] : 1;
    kept_strides.s[i] = r ? 0 : sx.s[i];
    walk_strides.s[i] = r ? sx.s[i] : 0;
  }
  const int64_t outputs = out.size();
  if (outputs == 0) return;
  reduce_kernel<<<blocks_for(outputs), kThreads, 0, on(stream).submit_handle()>>>(op, y, x, out, kept_strides, walk,
                                                                                 walk_strides);
  check_launch("reduce kernel");
}

void sgemm(void* stream, bool transpose_a, bool transpose_b, int m, int n, int k, float alpha, const float* a,
           int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  // cuBLAS is column-major: a row-major C = op(A) op(B) is the column-major
  // C^T = op(B)^T op(A)^T, which is the same memory with A and B swapped.
  const cublasOperation_t op_a = transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  Stream& s = on(stream);
  (void)s.submit_handle();  // cuBLAS submits to this stream: the op's device time starts here
  check(blas_api().sgemm(s.blas(), op_b, op_a, n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc),
        "cublasSgemm");
}

void dgemm(void* stream, bool transpose_a, bool transpose_b, int m, int n, int k, double alpha, const double* a,
           int lda, const double* b, int ldb, double beta, double* c, int ldc) {
  // Row-major through column-major as sgemm above: A and B swapped.
  const cublasOperation_t op_a = transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  Stream& s = on(stream);
  (void)s.submit_handle();
  check(blas_api().dgemm(s.blas(), op_b, op_a, n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc),
        "cublasDgemm");
}

void copy_to_device(void* stream, void* y, const void* host_x, size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemcpyAsync(y, host_x, bytes, cudaMemcpyHostToDevice, on(stream).submit_handle()), "cudaMemcpyAsync (host to device)");
}

void copy_to_host(void* stream, void* host_y, const void* x, size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemcpyAsync(host_y, x, bytes, cudaMemcpyDeviceToHost, on(stream).submit_handle()), "cudaMemcpyAsync (device to host)");
}

}  // namespace asyncscope::cuda
