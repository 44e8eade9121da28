// How the ops of engine/tensor push their work: checks shared by every op,
// the launch that picks the CPU or GPU function, and the 4-D layout that
// broadcasting and reductions index with. Internal to engine/tensor.
// Threading: frontend only (kernels run on workers, on what they captured).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/base/layout.h"
#include "engine/cuda/kernels.h"
#include "engine/tensor/autograd.h"
#include "engine/tensor/ndarray.h"
#include "engine/trace_record/names.h"

namespace asyncscope::ops_detail {

using detail::Chunk;

// Whether ops on `d` run on a real GPU (their CUDA function): not the CPU, and
// not a simulated GPU (engine/core/device.h), whose ops run the CPU one.
inline bool on_gpu(Device d) { return d.kind != DeviceKind::cpu && simulated_gpus() == 0; }

// What an op's function captures of an array: the chunk that owns its
// storage (a whole view's own chunk may go before the op runs; the storage
// may not), or, for a view of a part of the storage, the view's chunk, which
// says where its values are, counted as one of the view's holders while the
// function lives. Copy it into the function: copies count, moves do not.
class ChunkRef {
 public:
  ChunkRef() noexcept = default;
  explicit ChunkRef(Chunk* c) noexcept : bits_(reinterpret_cast<uintptr_t>(c)) {
    if (c->slice) {
      c->holders.fetch_add(1, std::memory_order_relaxed);
      bits_ |= kCounted;
    }
  }
  ChunkRef(const ChunkRef& other) noexcept : bits_(other.bits_) {
    if (bits_ & kCounted) get()->holders.fetch_add(1, std::memory_order_relaxed);
  }
  ChunkRef(ChunkRef&& other) noexcept : bits_(std::exchange(other.bits_, 0)) {}
  ChunkRef& operator=(ChunkRef other) noexcept {
    std::swap(bits_, other.bits_);
    return *this;
  }
  ~ChunkRef() {
    if (bits_ & kCounted) detail::drop_holder(get());
  }
  Chunk* get() const noexcept { return reinterpret_cast<Chunk*>(bits_ & ~kCounted); }
  Chunk* operator->() const noexcept { return get(); }

 private:
  static constexpr uintptr_t kCounted = 1;  // chunks are 64-byte aligned: the low bit is free
  uintptr_t bits_ = 0;
};

// For a strided view: pushes the op that gathers its elements from the
// storage into its own buffer (a write of the var, so it runs after every
// op already pushed on the array and before the op about to be pushed), or
// the op that scatters its buffer back after an op wrote it (ops_select.cpp).
void strided_read(const NDArray& view);
void strided_write(const NDArray& view);

inline ChunkRef storage(const NDArray& a, const char* op) {
  Chunk* c = a.chunk(op);
  if (!c->slice) [[likely]] return ChunkRef(c->storage());
  if (c->strided) strided_read(a);
  return ChunkRef(c);
}

// `value` as an in-place op on `self` may read it while writing self: itself,
// or, when it is another view of self's storage (x[1:] = x[:-1], x += x[0]),
// a copy taken first, so no element is read after the op overwrote it.
NDArray unaliased(const NDArray& self, const NDArray& value);

// A handle on a's values for a gradient function to keep: a view of its
// storage that carries no autograd state. An op's gradient that kept its own
// output directly would make a cycle (the output holds the node, the node its
// gradient function, the function the output) and the graph would never go.
inline NDArray detached(const NDArray& a) { return make_view(a, a.shape(), 0); }

// Both arrays usable by one op: not null, one context, one device.
inline void check_pair(const NDArray& a, const NDArray& b, const char* op) {
  const Chunk* ca = a.chunk(op);
  const Chunk* cb = b.chunk(op);
  if (ca->context != cb->context) {
    throw std::invalid_argument(std::string(op) + ": the arrays belong to different contexts (runs)");
  }
  if (ca->device != cb->device) {
    throw std::invalid_argument(std::string(op) + ": the arrays are on different devices (" + to_string(ca->device) +
                                " and " + to_string(cb->device) + "); move one with to()");
  }
}

// In place of an op's CPU or GPU function: the op has none for that device
// (copies between devices know where they run; some ops exist on the CPU only).
struct NoFunction {};

// The elementwise binary ops; the first ones in the order of cuda::BinaryOp,
// which has GPU kernels for them (float32).
enum class Binary {
  add, sub, mul, div, pow, maximum, minimum, equal, not_equal, greater, greater_equal, less, less_equal,
  floor_divide, mod, logical_and, logical_or, logical_xor
};

// a op b for arrays of any types (ops_dtype.cpp, CPU): both are cast to the
// type they compute in (promote(), bool arithmetic as int64, true division
// of integers in float32), and the result has type `result` (that type, or
// any type for a comparison).
NDArray binary_typed(const NDArray& a, const NDArray& b, Binary op, DType result, trace::NameId name,
                     const char* text);
// The type binary_typed computes a op b in.
DType arithmetic_type(DType a, DType b, Binary op);
// A 0-d array of a Python-style number for an op with `like` (scalar_result's type).
NDArray scalar_array(const NDArray& like, double value, bool is_float);

// An op with float32 kernels only was given an array of another type.
[[noreturn]] void throw_dtype(const char* op, DType dtype);

// Pushes an op reading `in` and writing `out` whatever their dtypes: `cpu` on
// a CPU worker, or `gpu` submitted to the stream when the op runs on a GPU.
// It runs on the device of the first output, or on `device` when given
// (copies between devices run on the GPU's stream).
template <class Cpu, class Gpu>
void launch_typed(trace::NameId name, const char* op, std::initializer_list<const NDArray*> in,
                  std::initializer_list<const NDArray*> out, Cpu&& cpu, Gpu&& gpu, const Device* device = nullptr) {
  const NDArray& first = **out.begin();
  Context& ctx = first.context();
  ctx.check_open(op);
  Var* reads[4];
  Var* writes[4];
  size_t nr = 0, nw = 0;
  const Device where = device ? *device : first.device();
  OpMeta meta(name, where);
  meta.iteration = ctx.iteration();
  for (const NDArray* a : in) reads[nr++] = a->var();
  for (const NDArray* a : out) {
    writes[nw++] = a->var();
    meta.out_bytes += a->bytes();
  }
  meta.first_touch = &first.chunk()->shape;  // the output's header line, which data_for_write() reads first
  const std::span<Var* const> r(reads, nr), w(writes, nw);
  if (on_gpu(where)) {
    if constexpr (std::is_same_v<std::decay_t<Gpu>, NoFunction>) {
      throw std::invalid_argument(std::string(op) + ": not implemented on " + to_string(where));
    } else {
      ctx.engine().push(std::forward<Gpu>(gpu), r, w, meta);
    }
  } else {
    if constexpr (std::is_same_v<std::decay_t<Cpu>, NoFunction>) {
      throw std::invalid_argument(std::string(op) + ": not implemented on the CPU");
    } else {
      ctx.engine().push(std::forward<Cpu>(cpu), r, w, meta);
    }
  }
  for (const NDArray* a : out) {
    if (a->chunk()->strided) [[unlikely]] strided_write(*a);
  }
}

// launch_typed for an op whose kernels take float32 arrays only: an array
// of another type is refused at the call (std::invalid_argument naming the
// op and the type), never read as floats.
template <class Cpu, class Gpu>
void launch(trace::NameId name, const char* op, std::initializer_list<const NDArray*> in,
            std::initializer_list<const NDArray*> out, Cpu&& cpu, Gpu&& gpu, const Device* device = nullptr) {
  for (const NDArray* a : in) {
    if (a->dtype() != DType::float32) [[unlikely]] throw_dtype(op, a->dtype());
  }
  for (const NDArray* a : out) {
    if (a->dtype() != DType::float32) [[unlikely]] throw_dtype(op, a->dtype());
  }
  launch_typed(name, op, in, out, std::forward<Cpu>(cpu), std::forward<Gpu>(gpu), device);
}

// What an elementwise function does with an integer or bool array: compute
// on a float32 copy (exp, sin: PyTorch's promotion), or keep the type (abs,
// negation, rounding of integers).
enum class IntegerInput { to_float32, keep };

// astype (ops.h), for the helpers here.
NDArray cast_for(const NDArray& a, DType dtype);

// f over an array of float64 or (rule keep) an integer type; on a GPU the
// same function is cuda::unary_typed(gpu_op, s).
template <class F>
NDArray unary_typed(const NDArray& a, trace::NameId name, const char* op, cuda::UnaryOp gpu_op, float s, F f,
                    IntegerInput rule) {
  const DType dt = a.dtype();
  if (dt == DType::boolean || (!is_floating(dt) && rule == IntegerInput::to_float32)) throw_dtype(op, dt);
  ChunkRef x = storage(a, op);
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), a.device(), dt);
  Chunk* o = out.chunk();
  const auto run = [&]<class T>(T) {
    launch_typed(
        name, op, {&a}, {&out},
        [o, x, f](const RunContext&) {
          T* y = o->typed_for_write<T>();
          const T* p = x->typed_for_read<T>();
          const int64_t n = o->shape.size();
          for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(f(p[i]));
        },
        [o, x, gpu_op, s, dt](const RunContext& rc) {
          cuda::unary_typed(rc.stream, gpu_op, static_cast<cuda::Type>(dt), o->raw_for_write(), x->raw_for_read(),
                            o->shape.size(), s);
        });
  };
  switch (dt) {
    case DType::float64: run(double{}); break;
    case DType::int32: run(int32_t{}); break;
    case DType::int64: run(int64_t{}); break;
    case DType::uint8: run(uint8_t{}); break;
    default: throw_dtype(op, dt);
  }
  return out;
}

// y = f(x) elementwise, a new array of x's shape; on a GPU the same
// function is cuda::unary(gpu_op, s).
// An array of another type goes to unary_typed (f is then called with its
// values' type: write it as a generic lambda).
template <class F>
NDArray unary(const NDArray& a, trace::NameId name, const char* op, cuda::UnaryOp gpu_op, float s, F f,
              IntegerInput rule = IntegerInput::to_float32) {
  if (a.dtype() != DType::float32) [[unlikely]] {
    // A function that keeps integers has no meaning for bools (PyTorch refuses -b, abs(b), floor(b)).
    if (a.dtype() == DType::boolean && rule == IntegerInput::keep) throw_dtype(op, a.dtype());
    if (!is_floating(a.dtype()) && rule == IntegerInput::to_float32) {
      return unary(cast_for(a, DType::float32), name, op, gpu_op, s, f, rule);
    }
    return unary_typed(a, name, op, gpu_op, s, f, rule);
  }
  ChunkRef x = storage(a, op);
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), a.device());
  Chunk* o = out.chunk();
  launch(
      name, op, {&a}, {&out},
      [o, x, f](const RunContext&) {
        float* y = o->data_for_write();
        const float* p = x->data_for_read();
        const int64_t n = o->shape.size();
        for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(f(p[i]));
      },
      [o, x, gpu_op, s](const RunContext& rc) {
        cuda::unary(rc.stream, gpu_op, o->data_for_write(), x->data_for_read(), o->shape.size(), s);
      });
  return out;
}

// Records a one-input op whose gradient is g(dy). Call it only when
// autograd::should_record: building g copies handles.
template <class G>
void record1(trace::NameId name, const NDArray& a, const NDArray& out, G g) {
  autograd::record(name, {&a}, out,
                   [g = std::move(g)](const NDArray& dy, std::span<const bool>) { return std::vector<NDArray>{g(dy)}; });
}

// Pushes an op reading any number of arrays and writing `out`, whatever
// their dtypes: `cpu` on a CPU worker, or `gpu` submitted to the stream when
// `out` is on a GPU (without one, std::invalid_argument naming the op).
template <class Cpu, class Gpu = NoFunction>
void launch_many(trace::NameId name, const char* op, std::span<const NDArray> in, const NDArray& out, Cpu&& cpu,
                 Gpu&& gpu = NoFunction{}) {
  Context& ctx = out.context();
  ctx.check_open(op);
  const bool device = on_gpu(out.device());
  if constexpr (std::is_same_v<std::decay_t<Gpu>, NoFunction>) {
    if (device) throw std::invalid_argument(std::string(op) + ": not implemented on " + to_string(out.device()));
  }
  std::vector<Var*> reads;
  reads.reserve(in.size());
  for (const NDArray& a : in) reads.push_back(a.var());
  Var* const writes[] = {out.var()};
  OpMeta meta(name, out.device());
  meta.iteration = ctx.iteration();
  meta.out_bytes = out.bytes();
  meta.first_touch = &out.chunk()->shape;
  if constexpr (std::is_same_v<std::decay_t<Gpu>, NoFunction>) {
    ctx.engine().push(std::forward<Cpu>(cpu), reads, writes, meta);
  } else if (device) {
    ctx.engine().push(std::forward<Gpu>(gpu), reads, writes, meta);
  } else {
    ctx.engine().push(std::forward<Cpu>(cpu), reads, writes, meta);
  }
  if (out.chunk()->strided) [[unlikely]] strided_write(out);
}

// An op's interned name, looked up once per call site:
//   static const trace::NameId kName = trace::intern("add");
using trace::intern;

// A shape in the padded layout of engine/base/layout.h.
inline Dims4 padded(const Shape& s) {
  Dims4 out;
  const int pad = 4 - s.ndim();
  for (int i = 0; i < s.ndim(); ++i) out.d[pad + i] = s[i];
  return out;
}

// The dimensions along which `in` (broadcast-compatible) is stretched to `out`.
inline StretchMask stretch_mask(const Shape& in, const Dims4& out) {
  const Dims4 p = padded(in);
  StretchMask mask = 0;
  for (int i = 0; i < 4; ++i) {
    if (p.d[i] == 1 && out.d[i] != 1) mask = static_cast<StretchMask>(mask | (1u << i));
  }
  return mask;
}

// The shape NumPy's rules give two broadcast operands, or std::invalid_argument naming `op`.
Shape broadcast_shape(const Shape& a, const Shape& b, const char* op);
// Axes given as in NumPy (negative from the end), checked, as a mask over a's dimensions.
std::array<bool, Shape::kMaxDims> axes_mask(const Shape& a, std::span<const int> axes, const char* op);

}  // namespace asyncscope::ops_detail
