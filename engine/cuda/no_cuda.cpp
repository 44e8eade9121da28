// The CUDA backend's entry points in a build without it (no nvcc was found,
// or -DASYNCSCOPE_CUDA=OFF): status() says so and everything else refuses
// with that reason. The kernels in kernels.h are not reachable here: arrays
// on a CUDA device cannot be created without a stream worker.
#include "engine/cuda/cuda.h"
#include "engine/cuda/kernels.h"

namespace asyncscope::cuda {
namespace {

[[noreturn]] void refuse() { throw std::invalid_argument("CUDA is not available: " + status().reason); }

}  // namespace

const Status& status() {
  static const Status s = [] {
    Status st;
    st.reason = "this build has no CUDA backend (it was configured without a CUDA compiler)";
    return st;
  }();
  return s;
}

void require(Device device) {
  if (device.kind != DeviceKind::cpu) refuse();
}

std::unique_ptr<DeviceStream> make_stream(Device, int) { refuse(); }
std::unique_ptr<BlockSource> make_device_source(Device) { refuse(); }
int64_t default_device_budget_bytes(Device) { refuse(); }
std::unique_ptr<PooledAllocator> make_device_allocator(Device) { refuse(); }
PooledAllocator& device_allocator(Device) { refuse(); }
PooledAllocator& pinned_allocator() { refuse(); }
int64_t completion_poll_ns() { return 0; }
void set_completion_poll_ns(int64_t) {}

void fill(void*, float*, int64_t, float) { refuse(); }
void fill_raw(void*, float*, int64_t, float) { refuse(); }
void fill_uniform(void*, float*, int64_t, uint64_t, float, float) { refuse(); }
void fill_normal(void*, float*, int64_t, uint64_t, float, float) { refuse(); }
void binary(void*, BinaryOp, float*, Dims4, const float*, StretchMask, const float*, StretchMask) { refuse(); }
void broadcast(void*, float*, Dims4, const float*, StretchMask) { refuse(); }
void unary(void*, UnaryOp, float*, const float*, int64_t, float) { refuse(); }
void update(void*, UpdateOp, float*, const float*, int64_t, float) { refuse(); }
void relu_grad(void*, float*, const float*, const float*, int64_t) { refuse(); }
void transpose(void*, float*, const float*, int64_t, int64_t) { refuse(); }
void reduce_all(void*, ReduceOp, float*, const float*, int64_t) { refuse(); }
void reduce(void*, ReduceOp, float*, const float*, Dims4, StretchMask) { refuse(); }
void sgemm(void*, bool, bool, int, int, int, float, const float*, int, const float*, int, float, float*, int) {
  refuse();
}
void dgemm(void*, bool, bool, int, int, int, double, const double*, int, const double*, int, double, double*, int) {
  refuse();
}
void copy_to_device(void*, void*, const void*, size_t) { refuse(); }
void copy_to_host(void*, void*, const void*, size_t) { refuse(); }
void fill_words(void*, void*, int64_t, size_t, uint64_t) { refuse(); }
void arange(void*, Type, void*, int64_t, double, double) { refuse(); }
void unary_typed(void*, UnaryOp, Type, void*, const void*, int64_t, float) { refuse(); }
void cast(void*, Type, void*, Type, const void*, int64_t) { refuse(); }
void binary_typed(void*, TypedBinary, Type, Type, void*, Dims4, const void*, StretchMask, const void*, StretchMask) {
  refuse();
}
void where(void*, Type, void*, Dims4, const bool*, StretchMask, const void*, StretchMask, const void*, StretchMask) {
  refuse();
}
void reduce_typed(void*, TypedReduction, Type, Type, void*, const void*, const ReduceLayout&, int64_t) { refuse(); }
void cumsum(void*, Type, Type, void*, const void*, int64_t, int64_t, int64_t, bool) { refuse(); }
void sort(void*, Type, void*, int64_t*, const void*, int64_t, int64_t, int64_t, int64_t, bool) { refuse(); }
void take_along(void*, void*, const void*, const int64_t*, const AlongLayout&, int64_t, size_t) { refuse(); }
void take_along_backward(void*, Type, void*, int64_t, const void*, const int64_t*, const AlongLayout&, int64_t) {
  refuse();
}
void take(void*, void*, const void*, const StridedLayout&, int64_t, size_t) { refuse(); }
void take_backward(void*, Type, void*, int64_t, const void*, const StridedLayout&, int64_t) { refuse(); }
void assign(void*, void*, const void*, const StridedLayout&, Strides4, int64_t, size_t) { refuse(); }
void copy_rows(void*, void*, size_t, const void*, size_t, size_t, int64_t) { refuse(); }
void zero(void*, void*, size_t) { refuse(); }
void gather(void*, void*, const void*, const IndexArrays&, int64_t, int64_t, size_t) { refuse(); }
void scatter(void*, void*, const void*, const IndexArrays&, int64_t, int64_t, size_t) { refuse(); }
void scatter_add(void*, Type, void*, int64_t, const void*, const IndexArrays&, int64_t, int64_t) { refuse(); }

}  // namespace asyncscope::cuda
