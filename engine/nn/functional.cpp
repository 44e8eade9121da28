#include "engine/nn/functional.h"

#include <stdexcept>
#include <string>

#include "engine/tensor/ops.h"

// The plain ops are always called qualified (asyncscope::dot): unqualified,
// argument-dependent lookup would find them next to the ones defined here.
namespace asyncscope::nn::autograd {
namespace {

using Grads = std::array<NDArray, 2>;
using Need = std::array<bool, 2>;

int64_t last_dim(const Shape& s) { return s.ndim() == 0 ? 1 : s[s.ndim() - 1]; }

// Same rule as ops.h: `row` is {n} or {1,n} with n the last dimension of `full`.
bool is_row_of(const Shape& row, const Shape& full) {
  if (full.ndim() == 0) return false;
  const int64_t n = last_dim(full);
  return (row.ndim() == 1 && row[0] == n) || (row.ndim() == 2 && row[0] == 1 && row[1] == n);
}

// Checked when taping, so an unsupported broadcast fails at the forward op
// that introduced it rather than later in backward.
void check_reducible(const Shape& in, const Shape& out, const char* op) {
  if (in == out || in.size() == 1 || out.ndim() <= 2) return;
  throw std::invalid_argument(std::string("autograd::") + op + ": the gradient of broadcasting " + in.to_string() +
                              " to " + out.to_string() + " needs an output of at most 2 dimensions");
}

// The values of a in `shape` (same size; a is one-element or a row of shape).
NDArray reshaped(const NDArray& a, const Shape& shape) {
  if (a.shape() == shape) return a;
  return zeros(a.context_ptr(), shape) + a;  // the broadcast add is the reshape
}

// Sums the gradient of a broadcast output back to the operand's shape.
NDArray reduce_to(const NDArray& dy, const Shape& in) {
  const Shape& out = dy.shape();
  if (out == in) return dy;
  if (in.size() == 1) return reshaped(asyncscope::sum(dy), in);  // one value fed every output
  if (out.ndim() == 2) return reshaped(asyncscope::sum(dy, 0), in);  // a row fed every output row
  return reshaped(dy, in);  // {n} from {1,n}: only the shape differs
}

template <class G>
NDArray tape1(const NDArray& a, NDArray out, G gradient) {
  return record_op({&a}, std::move(out), [g = std::move(gradient)](const NDArray& dy, Need) {
    return Grads{g(dy), NDArray()};
  });
}

// For binary ops: ga and gb compute each input's gradient before reduction;
// only the gradients backward asks for are pushed.
template <class GA, class GB>
NDArray tape2(const NDArray& a, const NDArray& b, NDArray out, const char* op, GA ga, GB gb) {
  if (!needs_tape({&a, &b})) return out;
  check_reducible(a.shape(), out.shape(), op);
  check_reducible(b.shape(), out.shape(), op);
  return record_op({&a, &b}, std::move(out),
                   [ga = std::move(ga), gb = std::move(gb), sa = a.shape(), sb = b.shape()](const NDArray& dy, Need need) {
                     Grads g;
                     if (need[0]) g[0] = reduce_to(ga(dy), sa);
                     if (need[1]) g[1] = reduce_to(gb(dy), sb);
                     return g;
                   });
}

}  // namespace

NDArray dot(const NDArray& a, const NDArray& b, bool transpose_a, bool transpose_b) {
  NDArray out = asyncscope::dot(a, b, transpose_a, transpose_b);
  if (!needs_tape({&a, &b})) return out;
  // C = op(a) op(b): dA and dB are again single GEMMs, with the transposes
  // chosen so that no transposed copy is ever materialised.
  return record_op({&a, &b}, std::move(out), [a, b, transpose_a, transpose_b](const NDArray& dc, Need need) {
    Grads g;
    if (need[0]) {
      g[0] = transpose_a ? asyncscope::dot(b, dc, transpose_b, true) : asyncscope::dot(dc, b, false, !transpose_b);
    }
    if (need[1]) {
      g[1] = transpose_b ? asyncscope::dot(dc, a, true, transpose_a) : asyncscope::dot(a, dc, !transpose_a, false);
    }
    return g;
  });
}

NDArray transpose(const NDArray& a) {
  return tape1(a, asyncscope::transpose(a), [](const NDArray& dy) { return asyncscope::transpose(dy); });
}

NDArray add(const NDArray& a, const NDArray& b) {
  return tape2(a, b, a + b, "add", [](const NDArray& dy) { return dy; }, [](const NDArray& dy) { return dy; });
}

NDArray subtract(const NDArray& a, const NDArray& b) {
  NDArray out = a - b;
  if (!needs_tape({&a, &b})) return out;
  check_reducible(a.shape(), out.shape(), "subtract");
  check_reducible(b.shape(), out.shape(), "subtract");
  // Negate after reducing: the reduced gradient is never larger than dy.
  return record_op({&a, &b}, std::move(out), [sa = a.shape(), sb = b.shape()](const NDArray& dy, Need need) {
    Grads g;
    if (need[0]) g[0] = reduce_to(dy, sa);
    if (need[1]) g[1] = -reduce_to(dy, sb);
    return g;
  });
}

NDArray multiply(const NDArray& a, const NDArray& b) {
  return tape2(a, b, a * b, "multiply", [b](const NDArray& dy) { return dy * b; },
               [a](const NDArray& dy) { return dy * a; });
}

NDArray divide(const NDArray& a, const NDArray& b) {
  NDArray out = a / b;
  // d(a/b)/db = -(a/b)/b: from the output, so a need not be kept.
  return tape2(a, b, out, "divide", [b](const NDArray& dy) { return dy / b; },
               [b, out](const NDArray& dy) { return -(dy * out / b); });
}

NDArray add(const NDArray& a, float s) {
  return tape1(a, a + s, [](const NDArray& dy) { return dy; });
}
NDArray subtract(const NDArray& a, float s) {
  return tape1(a, a - s, [](const NDArray& dy) { return dy; });
}
NDArray subtract(float s, const NDArray& a) {
  return tape1(a, s - a, [](const NDArray& dy) { return -dy; });
}
NDArray multiply(const NDArray& a, float s) {
  return tape1(a, a * s, [s](const NDArray& dy) { return dy * s; });
}
NDArray divide(const NDArray& a, float s) {
  return tape1(a, a / s, [s](const NDArray& dy) { return dy / s; });
}
NDArray divide(float s, const NDArray& a) {
  NDArray out = s / a;
  return tape1(a, out, [a, out](const NDArray& dy) { return -(dy * out / a); });  // d(s/a)/da = -(s/a)/a
}
NDArray negative(const NDArray& a) {
  return tape1(a, -a, [](const NDArray& dy) { return -dy; });
}

NDArray relu(const NDArray& a) {
  NDArray out = asyncscope::relu(a);
  // out > 0 exactly where a > 0, so the gradient keeps the output (which the
  // next layer keeps anyway) and the pre-activation can be freed at once.
  return tape1(a, out, [out](const NDArray& dy) { return relu_grad(out, dy); });
}

NDArray square(const NDArray& a) {
  return tape1(a, a * a, [a](const NDArray& dy) { return dy * a * 2.0f; });
}

NDArray sum(const NDArray& a) {
  return tape1(a, asyncscope::sum(a), [shape = a.shape()](const NDArray& dy) {
    return ones(dy.context_ptr(), shape) * dy;
  });
}

NDArray mean(const NDArray& a) {
  return tape1(a, asyncscope::mean(a), [shape = a.shape()](const NDArray& dy) {
    const float inv_n = shape.size() > 0 ? 1.0f / static_cast<float>(shape.size()) : 0.0f;
    return full(dy.context_ptr(), shape, inv_n) * dy;
  });
}

NDArray sum(const NDArray& a, int axis) {
  NDArray out = asyncscope::sum(a, axis);
  const int64_t rows = a.shape()[0];
  const int64_t cols = a.shape()[1];
  return tape1(a, std::move(out), [axis, rows, cols](const NDArray& dy) {
    // Broadcast dy back: as a row (axis 0), or as a column, built as a row of
    // the transposed shape, since ops.h broadcasts rows only.
    if (axis == 0) return zeros(dy.context_ptr(), {rows, cols}) + dy;
    return asyncscope::transpose(zeros(dy.context_ptr(), {cols, rows}) + dy);
  });
}

NDArray mean(const NDArray& a, int axis) {
  NDArray total = autograd::sum(a, axis);
  const int64_t n = a.shape()[axis == 0 ? 0 : 1];
  return multiply(total, n > 0 ? 1.0f / static_cast<float>(n) : 0.0f);
}

NDArray reshape_row(const NDArray& a, const Shape& shape) {
  if (a.shape() == shape) return a;
  const bool ok = a.size() == shape.size() && shape.ndim() <= 2 &&
                  (a.size() == 1 || (is_row_of(a.shape(), shape) && is_row_of(shape, a.shape())));
  if (!ok) {
    throw std::invalid_argument("autograd::reshape_row: cannot reshape " + a.shape().to_string() + " to " +
                                shape.to_string() + " (only {n} <-> {1,n} and one-element shapes)");
  }
  return tape1(a, reshaped(a, shape), [in = a.shape()](const NDArray& dy) { return reshaped(dy, in); });
}

NDArray as_column(const NDArray& a) {
  if (a.shape().ndim() != 1) {
    throw std::invalid_argument("autograd::as_column: needs a 1-D array, got " + a.shape().to_string());
  }
  return autograd::transpose(autograd::reshape_row(a, {1, a.shape()[0]}));
}

}  // namespace asyncscope::nn::autograd
