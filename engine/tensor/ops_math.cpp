// Elementwise math beyond arithmetic: absolute value and sign, the
// trigonometric functions and their inverses, the hyperbolic and logistic
// functions, log1p, expm1, erf, and rounding; each with its gradient (zero
// for the step functions, as in MXNet and PyTorch).
#include <cmath>
#include <type_traits>

#include "engine/cuda/kernels.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {

using ops_detail::IntegerInput;
using ops_detail::record1;
using ops_detail::unary;

namespace {

// Rounding an integer gives it back (no round trip through double, which
// would lose int64's low bits).
template <class T, class R>
T whole_number(T x, R round) {
  if constexpr (std::is_integral_v<T>) {
    return x;
  } else {
    return round(x);
  }
}

// A step function's gradient: zero wherever it is defined.
NDArray zero_gradient(const NDArray& dy) { return dy * 0.0f; }

}  // namespace

NDArray abs(const NDArray& a) {
  static const trace::NameId kName = trace::intern("abs");
  NDArray out = unary(a, kName, "abs", cuda::UnaryOp::abs, 0.0f, [](auto x) { return x < 0 ? -x : x; }, IntegerInput::keep);
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy * sign(a); });
  }
  return out;
}

NDArray sign(const NDArray& a) {
  static const trace::NameId kName = trace::intern("sign");
  if (a.dtype() == DType::boolean) return copy(a);  // the sign of a bool is itself
  NDArray out = unary(a, kName, "sign", cuda::UnaryOp::sign, 0.0f,
                      [](auto x) { return static_cast<float>((x > 0) - (x < 0)); }, IntegerInput::keep);
  if (autograd::should_record({&a})) record1(kName, a, out, &zero_gradient);
  return out;
}

NDArray sin(const NDArray& a) {
  static const trace::NameId kName = trace::intern("sin");
  NDArray out = unary(a, kName, "sin", cuda::UnaryOp::sin, 0.0f, [](auto x) { return std::sin(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy * cos(a); });
  }
  return out;
}

NDArray cos(const NDArray& a) {
  static const trace::NameId kName = trace::intern("cos");
  NDArray out = unary(a, kName, "cos", cuda::UnaryOp::cos, 0.0f, [](auto x) { return std::cos(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return -(dy * sin(a)); });
  }
  return out;
}

NDArray tanh(const NDArray& a) {
  static const trace::NameId kName = trace::intern("tanh");
  NDArray out = unary(a, kName, "tanh", cuda::UnaryOp::tanh, 0.0f, [](auto x) { return std::tanh(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [out = ops_detail::detached(out)](const NDArray& dy) { return dy * (1.0f - square(out)); });
  }
  return out;
}

NDArray sigmoid(const NDArray& a) {
  static const trace::NameId kName = trace::intern("sigmoid");
  NDArray out = unary(a, kName, "sigmoid", cuda::UnaryOp::sigmoid, 0.0f,
                      [](auto x) { return 1.0f / (1.0f + std::exp(-x)); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [out = ops_detail::detached(out)](const NDArray& dy) { return dy * out * (1.0f - out); });
  }
  return out;
}

NDArray log1p(const NDArray& a) {
  static const trace::NameId kName = trace::intern("log1p");
  NDArray out = unary(a, kName, "log1p", cuda::UnaryOp::log1p, 0.0f, [](auto x) { return std::log1p(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy / (a + 1.0f); });
  }
  return out;
}

NDArray expm1(const NDArray& a) {
  static const trace::NameId kName = trace::intern("expm1");
  NDArray out = unary(a, kName, "expm1", cuda::UnaryOp::expm1, 0.0f, [](auto x) { return std::expm1(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [out = ops_detail::detached(out)](const NDArray& dy) { return dy * (out + 1.0f); });
  }
  return out;
}

NDArray asin(const NDArray& a) {
  static const trace::NameId kName = trace::intern("arcsin");
  NDArray out = unary(a, kName, "arcsin", cuda::UnaryOp::asin, 0.0f, [](auto x) { return std::asin(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy / sqrt(1.0f - square(a)); });
  }
  return out;
}

NDArray acos(const NDArray& a) {
  static const trace::NameId kName = trace::intern("arccos");
  NDArray out = unary(a, kName, "arccos", cuda::UnaryOp::acos, 0.0f, [](auto x) { return std::acos(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return -(dy / sqrt(1.0f - square(a))); });
  }
  return out;
}

NDArray atan(const NDArray& a) {
  static const trace::NameId kName = trace::intern("arctan");
  NDArray out = unary(a, kName, "arctan", cuda::UnaryOp::atan, 0.0f, [](auto x) { return std::atan(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy / (square(a) + 1.0f); });
  }
  return out;
}

NDArray sinh(const NDArray& a) {
  static const trace::NameId kName = trace::intern("sinh");
  NDArray out = unary(a, kName, "sinh", cuda::UnaryOp::sinh, 0.0f, [](auto x) { return std::sinh(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy * cosh(a); });
  }
  return out;
}

NDArray cosh(const NDArray& a) {
  static const trace::NameId kName = trace::intern("cosh");
  NDArray out = unary(a, kName, "cosh", cuda::UnaryOp::cosh, 0.0f, [](auto x) { return std::cosh(x); });
  if (autograd::should_record({&a})) {
    record1(kName, a, out, [a](const NDArray& dy) { return dy * sinh(a); });
  }
  return out;
}

NDArray erf(const NDArray& a) {
  static const trace::NameId kName = trace::intern("erf");
  NDArray out = unary(a, kName, "erf", cuda::UnaryOp::erf, 0.0f, [](auto x) { return std::erf(x); });
  if (autograd::should_record({&a})) {
    // d erf(a) / da = 2 / sqrt(pi) exp(-a^2)
    record1(kName, a, out, [a](const NDArray& dy) { return dy * exp(-square(a)) * 1.1283791670955126f; });
  }
  return out;
}

NDArray floor(const NDArray& a) {
  static const trace::NameId kName = trace::intern("floor");
  NDArray out = unary(a, kName, "floor", cuda::UnaryOp::floor, 0.0f, [](auto x) { return whole_number(x, [](auto v) { return std::floor(v); }); }, IntegerInput::keep);
  if (autograd::should_record({&a})) record1(kName, a, out, &zero_gradient);
  return out;
}

NDArray ceil(const NDArray& a) {
  static const trace::NameId kName = trace::intern("ceil");
  NDArray out = unary(a, kName, "ceil", cuda::UnaryOp::ceil, 0.0f, [](auto x) { return whole_number(x, [](auto v) { return std::ceil(v); }); }, IntegerInput::keep);
  if (autograd::should_record({&a})) record1(kName, a, out, &zero_gradient);
  return out;
}

NDArray rint(const NDArray& a) {
  static const trace::NameId kName = trace::intern("rint");
  NDArray out = unary(a, kName, "rint", cuda::UnaryOp::rint, 0.0f, [](auto x) { return whole_number(x, [](auto v) { return std::nearbyint(v); }); }, IntegerInput::keep);
  if (autograd::should_record({&a})) record1(kName, a, out, &zero_gradient);
  return out;
}

NDArray round(const NDArray& a) {
  static const trace::NameId kName = trace::intern("round");
  NDArray out = unary(a, kName, "round", cuda::UnaryOp::round, 0.0f, [](auto x) { return whole_number(x, [](auto v) { return std::round(v); }); }, IntegerInput::keep);
  if (autograd::should_record({&a})) record1(kName, a, out, &zero_gradient);
  return out;
}

}  // namespace asyncscope
