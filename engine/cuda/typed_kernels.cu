// The GPU kernels of the ops of every element type (kernels.h's second
// half). Each kernel spreads the per-element functions of elements.h over
// threads (grid-stride loops; a block per output for reductions), so what
// an element computes is what the host tests of elements.h check.
#include <algorithm>
#include <cstring>

#include "engine/cuda/cuda.h"
#include "engine/cuda/elements.h"
#include "engine/cuda/kernels.h"
#include "engine/cuda/grid.cuh"
#include "engine/cuda/stream.h"

namespace asyncscope::cuda {
namespace {

using namespace grid;

// f(T{}) with T the C++ type of t (on the host: picks the kernel instantiation).
template <class F>
void visit(Type t, F&& f) {
  switch (t) {
    case Type::float32: f(float{}); return;
    case Type::float64: f(double{}); return;
    case Type::int32: f(int32_t{}); return;
    case Type::int64: f(int64_t{}); return;
    case Type::uint8: f(uint8_t{}); return;
    case Type::boolean: f(bool{}); return;
  }
}

template <class F>
void visit_item(size_t item, F&& f) {
  if (item == 1) {
    f(uint8_t{});
  } else if (item == 4) {
    f(uint32_t{});
  } else {
    f(uint64_t{});
  }
}

template <class W>
__global__ void fill_words_kernel(W* y, int64_t n, W bits) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) y[i] = bits;
}

template <class T>
__global__ void arange_kernel(T* y, int64_t n, double start, double step) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    y[i] = elements::convert<T>(start + static_cast<double>(i) * step);
  }
}

template <class T>
__global__ void unary_typed_kernel(UnaryOp op, T* y, const T* x, int64_t n, float s) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) y[i] = elements::apply_unary<T>(op, x[i], s);
}

template <class To, class From>
__global__ void cast_kernel(To* y, const From* x, int64_t n) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) y[i] = elements::convert<To>(x[i]);
}

template <class T>
__global__ void binary_typed_kernel(TypedBinary op, Type r, void* y, Dims4 out, const T* a, Strides4 sa, const T* b,
                                    Strides4 sb, int64_t n) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    elements::binary_element<T>(i, op, r, y, out, a, sa, b, sb);
  }
}

template <class T>
__global__ void where_kernel(T* y, Dims4 out, const bool* c, Strides4 sc, const T* a, Strides4 sa, const T* b,
                             Strides4 sb, int64_t n) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    elements::where_element<T>(i, y, out, c, sc, a, sa, b, sb);
  }
}

// One block per output (grid-stride over outputs): each thread reduces its
// share, then the block combines the shares in a tree, as
// tests/engine/cuda/elements_test.cpp does on the host.
template <class T>
__global__ void reduce_typed_kernel(TypedReduction r, Type out_type, void* y, const T* x, ReduceLayout layout,
                                    int64_t outputs) {
  __shared__ elements::Partial<T> shares[kReduceThreads];
  for (int64_t k = blockIdx.x; k < outputs; k += gridDim.x) {
    shares[threadIdx.x] = elements::partial<T>(r, x, layout, k, threadIdx.x, kReduceThreads);
    __syncthreads();
    for (int half = kReduceThreads / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) elements::combine<T>(r, shares[threadIdx.x], shares[threadIdx.x + half]);
      __syncthreads();
    }
    if (threadIdx.x == 0) elements::finish<T>(r, y, out_type, k, shares[0], layout.count);
    __syncthreads();
  }
}

template <class T, class R>
__global__ void cumsum_kernel(R* y, const T* x, int64_t lines, int64_t len, int64_t inner, bool reverse) {
  for (int64_t line = global_index(); line < lines; line += grid_stride()) {
    elements::cumsum_line<T, R>(y, x, line, len, inner, reverse);
  }
}

template <class T>
__global__ void sort_kernel(T* values, int64_t* indices, const T* x, int64_t lines, int64_t len, int64_t inner,
                            int64_t k, bool descending) {
  const int64_t n = lines * len;
  for (int64_t e = global_index(); e < n; e += grid_stride()) {
    const int64_t line = e / len, i = e % len;
    const int64_t place = elements::sorted_place<T>(x, line, len, inner, i, descending);
    if (place >= k) continue;
    const int64_t b = line / inner, c = line % inner;
    const int64_t at = (b * k + place) * inner + c;
    if (values != nullptr) values[at] = x[(b * len + i) * inner + c];
    if (indices != nullptr) indices[at] = i;
  }
}

template <class W>
__global__ void take_along_kernel(W* y, const W* x, const int64_t* index, AlongLayout l, int64_t n) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    const int64_t at = elements::along_offset(i, l, index);
    if (at >= 0) y[i] = x[at];
  }
}

template <class T>
__global__ void take_along_backward_kernel(T* y, const T* dy, const int64_t* index, AlongLayout l, int64_t n) {
  for (int64_t i = global_index(); i < n; i += grid_stride()) {
    const int64_t at = elements::along_offset(i, l, index);
    if (at >= 0) atomicAdd(y + at, dy[i]);
  }
}

template <class W>
__global__ void take_kernel(W* y, const W* x, StridedLayout s, int64_t n) {
  for (int64_t k = global_index(); k < n; k += grid_stride()) y[k] = x[elements::selected_offset(k, s)];
}

template <class T>
__global__ void take_backward_kernel(T* y, const T* dy, StridedLayout s, int64_t n) {
  // Atomic: a selection with a zero stride picks one element several times.
  for (int64_t k = global_index(); k < n; k += grid_stride()) atomicAdd(y + elements::selected_offset(k, s), dy[k]);
}

template <class W>
__global__ void assign_kernel(W* y, const W* value, StridedLayout s, Strides4 sv, int64_t n) {
  for (int64_t k = global_index(); k < n; k += grid_stride()) {
    y[elements::selected_offset(k, s)] = value[elements::value_offset(k, s, sv)];
  }
}

template <class W>
__global__ void gather_kernel(W* y, const W* x, IndexArrays ix, int64_t n, int64_t block) {
  for (int64_t e = global_index(); e < n * block; e += grid_stride()) {
    const int64_t at = elements::block_at(e / block, ix);
    y[e] = at < 0 ? W{0} : x[at * block + e % block];
  }
}

template <class W>
__global__ void scatter_kernel(W* y, const W* value, IndexArrays ix, int64_t n, int64_t block) {
  for (int64_t e = global_index(); e < n * block; e += grid_stride()) {
    const int64_t at = elements::block_at(e / block, ix);
    if (at >= 0) y[at * block + e % block] = value[e];
  }
}

template <class T>
__global__ void scatter_add_kernel(T* y, const T* dy, IndexArrays ix, int64_t n, int64_t block) {
  for (int64_t e = global_index(); e < n * block; e += grid_stride()) {
    const int64_t at = elements::block_at(e / block, ix);
    if (at >= 0) atomicAdd(y + at * block + e % block, dy[e]);
  }
}

}  // namespace

void fill_words(void* stream, void* y, int64_t n, size_t item, uint64_t bits) {
  if (n == 0) return;
  visit_item(item, [&]<class W>(W) {
    W w;
    std::memcpy(&w, &bits, sizeof(W));  // the low bytes: little-endian
    fill_words_kernel<W><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(static_cast<W*>(y), n, w);
  });
  check_launch("fill kernel");
}

void arange(void* stream, Type type, void* y, int64_t n, double start, double step) {
  if (n == 0) return;
  visit(type, [&]<class T>(T) {
    arange_kernel<T><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(static_cast<T*>(y), n, start, step);
  });
  check_launch("arange kernel");
}

void unary_typed(void* stream, UnaryOp op, Type t, void* y, const void* x, int64_t n, float s) {
  if (n == 0) return;
  visit(t, [&]<class T>(T) {
    if constexpr (std::is_same_v<T, bool>) {
      throw CudaError("unary kernel: no bool kernel");
    } else {
      unary_typed_kernel<T><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(
          op, static_cast<T*>(y), static_cast<const T*>(x), n, s);
    }
  });
  check_launch("unary kernel");
}

void cast(void* stream, Type to, void* y, Type from, const void* x, int64_t n) {
  if (n == 0) return;
  visit(to, [&]<class To>(To) {
    visit(from, [&]<class From>(From) {
      cast_kernel<To, From><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(
          static_cast<To*>(y), static_cast<const From*>(x), n);
    });
  });
  check_launch("astype kernel");
}

void binary_typed(void* stream, TypedBinary op, Type compute, Type result, void* y, Dims4 out, const void* a,
                  StretchMask a_mask, const void* b, StretchMask b_mask) {
  const int64_t n = out.size();
  if (n == 0) return;
  const Strides4 sa = stretched_strides(out, a_mask), sb = stretched_strides(out, b_mask);
  visit(compute, [&]<class T>(T) {
    binary_typed_kernel<T><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(
        op, result, y, out, static_cast<const T*>(a), sa, static_cast<const T*>(b), sb, n);
  });
  check_launch("binary kernel");
}

void where(void* stream, Type t, void* y, Dims4 out, const bool* c, StretchMask c_mask, const void* a,
           StretchMask a_mask, const void* b, StretchMask b_mask) {
  const int64_t n = out.size();
  if (n == 0) return;
  const Strides4 sc = stretched_strides(out, c_mask), sa = stretched_strides(out, a_mask),
                 sb = stretched_strides(out, b_mask);
  visit(t, [&]<class T>(T) {
    where_kernel<T><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(
        static_cast<T*>(y), out, c, sc, static_cast<const T*>(a), sa, static_cast<const T*>(b), sb, n);
  });
  check_launch("where kernel");
}

void reduce_typed(void* stream, TypedReduction r, Type in, Type out_type, void* y, const void* x,
                  const ReduceLayout& layout, int64_t outputs) {
  if (outputs == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(outputs, 65535));
  visit(in, [&]<class T>(T) {
    reduce_typed_kernel<T><<<blocks, kReduceThreads, 0, on(stream).submit_handle()>>>(r, out_type, y,
                                                                               static_cast<const T*>(x), layout,
                                                                               outputs);
  });
  check_launch("reduce kernel");
}

void cumsum(void* stream, Type in, Type out_type, void* y, const void* x, int64_t outer, int64_t len, int64_t inner,
            bool reverse) {
  const int64_t lines = outer * inner;
  if (lines == 0 || len == 0) return;
  visit(in, [&]<class T>(T) {
    visit(out_type, [&]<class R>(R) {
      if constexpr (std::is_same_v<R, elements::Acc<T>> || std::is_same_v<R, T>) {
        cumsum_kernel<T, R><<<blocks_for(lines), kThreads, 0, on(stream).submit_handle()>>>(
            static_cast<R*>(y), static_cast<const T*>(x), lines, len, inner, reverse);
      } else {
        throw CudaError("cumsum: no kernel from this type to that");
      }
    });
  });
  check_launch("cumsum kernel");
}

void sort(void* stream, Type t, void* values, int64_t* indices, const void* x, int64_t outer, int64_t len,
          int64_t inner, int64_t k, bool descending) {
  const int64_t lines = outer * inner;
  if (lines == 0 || len == 0 || k == 0) return;
  visit(t, [&]<class T>(T) {
    sort_kernel<T><<<blocks_for(lines * len), kThreads, 0, on(stream).submit_handle()>>>(
        static_cast<T*>(values), indices, static_cast<const T*>(x), lines, len, inner, k, descending);
  });
  check_launch("sort kernel");
}

void take_along(void* stream, void* y, const void* x, const int64_t* index, const AlongLayout& layout, int64_t n,
                size_t item) {
  if (n == 0) return;
  visit_item(item, [&]<class W>(W) {
    take_along_kernel<W><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(
        static_cast<W*>(y), static_cast<const W*>(x), index, layout, n);
  });
  check_launch("take_along_axis kernel");
}

void take_along_backward(void* stream, Type t, void* y, int64_t base_n, const void* dy, const int64_t* index,
                         const AlongLayout& layout, int64_t n) {
  if (t != Type::float32 && t != Type::float64) throw CudaError("take_along_axis_backward: floating types only");
  const cudaStream_t s = on(stream).submit_handle();
  const size_t item = t == Type::float64 ? 8 : 4;
  if (base_n > 0) check(cudaMemsetAsync(y, 0, static_cast<size_t>(base_n) * item, s), "cudaMemsetAsync");
  if (n == 0) return;
  if (t == Type::float32) {
    take_along_backward_kernel<float><<<blocks_for(n), kThreads, 0, s>>>(static_cast<float*>(y),
                                                                         static_cast<const float*>(dy), index, layout, n);
  } else {
    take_along_backward_kernel<double><<<blocks_for(n), kThreads, 0, s>>>(
        static_cast<double*>(y), static_cast<const double*>(dy), index, layout, n);
  }
  check_launch("take_along_axis_backward kernel");
}

void take(void* stream, void* y, const void* x, const StridedLayout& selection, int64_t n, size_t item) {
  if (n == 0) return;
  visit_item(item, [&]<class W>(W) {
    take_kernel<W><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(static_cast<W*>(y),
                                                                              static_cast<const W*>(x), selection, n);
  });
  check_launch("take kernel");
}

void take_backward(void* stream, Type t, void* y, int64_t base_n, const void* dy, const StridedLayout& selection,
                   int64_t n) {
  const size_t item = t == Type::float64 ? 8 : 4;
  if (t != Type::float32 && t != Type::float64) throw CudaError("take_backward: floating types only");
  const cudaStream_t s = on(stream).submit_handle();
  if (base_n > 0) check(cudaMemsetAsync(y, 0, static_cast<size_t>(base_n) * item, s), "cudaMemsetAsync");
  if (n == 0) return;
  if (t == Type::float32) {
    take_backward_kernel<float><<<blocks_for(n), kThreads, 0, s>>>(static_cast<float*>(y),
                                                                  static_cast<const float*>(dy), selection, n);
  } else {
    take_backward_kernel<double><<<blocks_for(n), kThreads, 0, s>>>(static_cast<double*>(y),
                                                                   static_cast<const double*>(dy), selection, n);
  }
  check_launch("take_backward kernel");
}

void assign(void* stream, void* y, const void* value, const StridedLayout& selection, Strides4 value_strides,
            int64_t n, size_t item) {
  if (n == 0) return;
  visit_item(item, [&]<class W>(W) {
    assign_kernel<W><<<blocks_for(n), kThreads, 0, on(stream).submit_handle()>>>(
        static_cast<W*>(y), static_cast<const W*>(value), selection, value_strides, n);
  });
  check_launch("assign kernel");
}

void copy_rows(void* stream, void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width_bytes,
               int64_t rows) {
  if (rows == 0 || width_bytes == 0) return;
  check(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width_bytes, static_cast<size_t>(rows),
                          cudaMemcpyDeviceToDevice, on(stream).submit_handle()),
        "cudaMemcpy2DAsync");
}

void zero(void* stream, void* y, size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemsetAsync(y, 0, bytes, on(stream).submit_handle()), "cudaMemsetAsync");
}

void gather(void* stream, void* y, const void* x, const IndexArrays& ix, int64_t n, int64_t block, size_t item) {
  if (n == 0 || block == 0) return;
  visit_item(item, [&]<class W>(W) {
    gather_kernel<W><<<blocks_for(n * block), kThreads, 0, on(stream).submit_handle()>>>(
        static_cast<W*>(y), static_cast<const W*>(x), ix, n, block);
  });
  check_launch("gather kernel");
}

void scatter(void* stream, void* y, const void* value, const IndexArrays& ix, int64_t n, int64_t block, size_t item) {
  if (n == 0 || block == 0) return;
  visit_item(item, [&]<class W>(W) {
    scatter_kernel<W><<<blocks_for(n * block), kThreads, 0, on(stream).submit_handle()>>>(
        static_cast<W*>(y), static_cast<const W*>(value), ix, n, block);
  });
  check_launch("scatter kernel");
}

void scatter_add(void* stream, Type t, void* y, int64_t base_n, const void* dy, const IndexArrays& ix, int64_t n,
                 int64_t block) {
  if (t != Type::float32 && t != Type::float64) throw CudaError("gather_backward: floating types only");
  const size_t item = t == Type::float64 ? 8 : 4;
  const cudaStream_t s = on(stream).submit_handle();
  if (base_n > 0) check(cudaMemsetAsync(y, 0, static_cast<size_t>(base_n) * item, s), "cudaMemsetAsync");
  if (n == 0 || block == 0) return;
  if (t == Type::float32) {
    scatter_add_kernel<float><<<blocks_for(n * block), kThreads, 0, s>>>(static_cast<float*>(y),
                                                                        static_cast<const float*>(dy), ix, n, block);
  } else {
    scatter_add_kernel<double><<<blocks_for(n * block), kThreads, 0, s>>>(static_cast<double*>(y),
                                                                         static_cast<const double*>(dy), ix, n, block);
  }
  check_launch("gather_backward kernel");
}

}  // namespace asyncscope::cuda
