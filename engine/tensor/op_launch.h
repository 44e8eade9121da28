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
#include "engine/trace/names.h"

namespace asyncscope::ops_detail {

using detail::Chunk;

inline bool on_gpu(Device d) noexcept { return d.kind != DeviceKind::cpu; }

// The chunk that owns a's storage, for an op's function to capture (a view's
// own chunk may go before the op runs; the storage may not).
inline Chunk* storage(const NDArray& a, const char* op) { return a.chunk(op)->storage(); }

// A handle on a's values for a gradient function to keep: a view of its
// storage that carries no autograd state. An op's gradient that kept its own
// output directly would make a cycle (the output holds the node, the node its
// gradient function, the function the output) and the graph would never go.
inline NDArray detached(const NDArray& a) { return make_view(a, a.shape()); }

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

// Pushes an op reading `in` and writing `out`: `cpu` on a CPU worker, or
// `gpu` submitted to the stream when the op runs on a GPU. It runs on the
// device of the first output, or on `device` when given (copies between
// devices run on the GPU's stream).
template <class Cpu, class Gpu>
void launch(trace::NameId name, const char* op, std::initializer_list<const NDArray*> in,
            std::initializer_list<const NDArray*> out, Cpu&& cpu, Gpu&& gpu, const Device* device = nullptr) {
  const NDArray& first = **out.begin();
  Context& ctx = first.context();
  ctx.check_open(op);
  Var* reads[4];
  Var* writes[2];
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
}

// y = f(x) elementwise, a new array of x's shape; on a GPU the same
// function is cuda::unary(gpu_op, s).
template <class F>
NDArray unary(const NDArray& a, trace::NameId name, const char* op, cuda::UnaryOp gpu_op, float s, F f) {
  Chunk* x = storage(a, op);
  NDArray out = NDArray::empty(a.context_ptr(), a.shape(), a.device());
  Chunk* o = out.chunk();
  launch(
      name, op, {&a}, {&out},
      [o, x, f](const RunContext&) {
        float* y = o->data_for_write();
        const float* p = x->data_for_read();
        const int64_t n = o->shape.size();
        for (int64_t i = 0; i < n; ++i) y[i] = f(p[i]);
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

// Pushes an op reading any number of arrays and writing `out`, on the CPU
// (std::invalid_argument, naming the op, on another device).
template <class Cpu>
void launch_many(trace::NameId name, const char* op, std::span<const NDArray> in, const NDArray& out, Cpu&& cpu) {
  Context& ctx = out.context();
  ctx.check_open(op);
  if (on_gpu(out.device())) {
    throw std::invalid_argument(std::string(op) + ": not implemented on " + to_string(out.device()));
  }
  std::vector<Var*> reads;
  reads.reserve(in.size());
  for (const NDArray& a : in) reads.push_back(a.var());
  Var* const writes[] = {out.var()};
  OpMeta meta(name, out.device());
  meta.iteration = ctx.iteration();
  meta.out_bytes = out.bytes();
  meta.first_touch = &out.chunk()->shape;
  ctx.engine().push(std::forward<Cpu>(cpu), reads, writes, meta);
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
