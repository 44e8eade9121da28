#include "python/core/shape_ops.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace asyncscope::python {
namespace {

std::vector<int64_t> dims_of(const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); }

// Row-major strides of a shape, in elements.
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(static_cast<size_t>(s.ndim()), 1);
  for (int i = s.ndim() - 2; i >= 0; --i) st[static_cast<size_t>(i)] = st[static_cast<size_t>(i + 1)] * s[i + 1];
  return st;
}

}  // namespace

int axis_in(int axis, int ndim, const char* op) {
  const int n = ndim == 0 ? 1 : ndim;
  if (axis < -n || axis >= n) {
    throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for " +
                                std::to_string(ndim) + " dimensions");
  }
  return axis < 0 ? axis + n : axis;
}

NDArray unsqueeze_of(const NDArray& a, int axis, const char* op) {
  std::vector<int64_t> dims = dims_of(a.shape());
  const int k = axis_in(axis, a.shape().ndim() + 1, op);
  dims.insert(dims.begin() + k, 1);
  return reshape(a, dims);
}

NDArray squeeze_of(const NDArray& a, const std::optional<std::vector<int>>& axes, const char* op) {
  const Shape& s = a.shape();
  std::vector<bool> drop(static_cast<size_t>(s.ndim()), false);
  if (!axes) {
    for (int i = 0; i < s.ndim(); ++i) drop[static_cast<size_t>(i)] = s[i] == 1;
  } else {
    for (const int axis : *axes) {
      if (s.ndim() == 0) continue;
      const int k = axis_in(axis, s.ndim(), op);
      drop[static_cast<size_t>(k)] = s[k] == 1;
    }
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < s.ndim(); ++i) {
    if (!drop[static_cast<size_t>(i)]) dims.push_back(s[i]);
  }
  return reshape(a, dims);
}

NDArray flatten_of(const NDArray& a, int start, int end, const char* op) {
  const Shape& s = a.shape();
  if (s.ndim() == 0) return reshape(a, Shape{1});
  const int b = axis_in(start, s.ndim(), op), e = axis_in(end, s.ndim(), op);
  if (b > e) throw std::invalid_argument(std::string(op) + ": start_dim comes after end_dim");
  std::vector<int64_t> dims;
  int64_t merged = 1;
  for (int i = 0; i < s.ndim(); ++i) {
    if (i < b || i > e) {
      dims.push_back(s[i]);
    } else {
      merged *= s[i];
      if (i == e) dims.push_back(merged);
    }
  }
  return reshape(a, dims);
}

NDArray flip_of(const NDArray& a, const std::vector<int>& axes, const char* op) {
  const Shape& s = a.shape();
  const std::vector<int64_t> st = strides_of(s);
  Selection sel;
  sel.shape = s;
  for (int i = 0; i < s.ndim(); ++i) sel.strides[i] = st[static_cast<size_t>(i)];
  for (const int axis : axes) {
    const int k = axis_in(axis, s.ndim(), op);
    if (s[k] > 0) sel.offset += (s[k] - 1) * sel.strides[k];
    sel.strides[k] = -sel.strides[k];
  }
  return take(a, sel);
}

NDArray swapaxes_of(const NDArray& a, int a0, int a1, const char* op) {
  const int n = a.shape().ndim();
  std::vector<int> order(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  if (n == 0) return a;
  std::swap(order[static_cast<size_t>(axis_in(a0, n, op))], order[static_cast<size_t>(axis_in(a1, n, op))]);
  return permute(a, order);
}

NDArray linspace_of(const ContextPtr& ctx, double start, double stop, int64_t num, bool endpoint, DType dtype,
                    Device device) {
  if (num < 0) throw std::invalid_argument("linspace: the number of samples must be non-negative, got " + std::to_string(num));
  const int64_t div = endpoint ? num - 1 : num;
  const double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  NDArray i = arange(ctx, 0, static_cast<double>(num), 1, DType::float64, Device::cpu());
  NDArray v = i * full(ctx, Shape{}, step, DType::float64, Device::cpu()) + full(ctx, Shape{}, start, DType::float64, Device::cpu());
  if (endpoint && num > 1) {
    Selection last;
    last.offset = num - 1;
    last.shape = Shape{};
    assign(v, last, full(ctx, Shape{}, stop, DType::float64, Device::cpu()));  // exactly stop, as NumPy
  }
  if (dtype != DType::float64) v = astype(v, dtype);
  return device == Device::cpu() ? v : to(v, device);
}

NDArray eye_of(const ContextPtr& ctx, int64_t n, int64_t m, DType dtype, Device device) {
  const NDArray rows = reshape(arange(ctx, 0, static_cast<double>(n), 1, DType::int64, Device::cpu()), Shape{n, 1});
  const NDArray cols = reshape(arange(ctx, 0, static_cast<double>(m), 1, DType::int64, Device::cpu()), Shape{1, m});
  NDArray out = astype(compare(rows, cols, Comparison::equal, true), dtype);
  return device == Device::cpu() ? out : to(out, device);
}

NDArray variance_of(const NDArray& a, const std::vector<int>& axes, bool keepdims, double ddof, bool root,
                    const char* op) {
  if (!is_floating(a.dtype())) {
    throw std::invalid_argument(std::string(op) + ": needs a floating-point array, got " + name(a.dtype()));
  }
  const Shape& s = a.shape();
  const auto mask = [&] {
    std::vector<bool> m(static_cast<size_t>(s.ndim()), axes.empty());
    for (const int axis : axes) m[static_cast<size_t>(axis_in(axis, s.ndim(), op))] = true;
    return m;
  }();
  int64_t count = 1;
  for (int i = 0; i < s.ndim(); ++i) {
    if (mask[static_cast<size_t>(i)]) count *= s[i];
  }
  const NDArray centred = a - mean(a, axes, true);
  NDArray v = sum(centred * centred, axes, keepdims) / static_cast<float>(std::max(0.0, static_cast<double>(count) - ddof));
  if (axes.empty() && !keepdims) v = reshape(v, Shape{});
  return root ? sqrt(v) : v;
}

NDArray softmax_of(const NDArray& a, int axis, bool log, const char* op) {
  const int k[] = {axis_in(axis, a.shape().ndim(), op)};
  const NDArray shifted = a - reduce(a, Reduction::max, k, true);
  const NDArray e = exp(shifted);
  const NDArray total = sum(e, std::span<const int>(k), true);
  return log ? shifted - ::asyncscope::log(total) : e / total;
}

std::vector<NDArray> split_of(const NDArray& a, const std::vector<int64_t>& sizes, int axis, const char* op) {
  const Shape& s = a.shape();
  const int k = axis_in(axis, s.ndim(), op);
  int64_t total = 0;
  for (const int64_t n : sizes) {
    if (n < 0) throw std::invalid_argument(std::string(op) + ": split sizes must be non-negative");
    total += n;
  }
  if (total != s[k]) {
    throw std::invalid_argument(std::string(op) + ": split sizes add up to " + std::to_string(total) + ", not to the " +
                                std::to_string(s[k]) + " of axis " + std::to_string(k));
  }
  std::vector<NDArray> parts;
  int64_t begin = 0;
  for (const int64_t n : sizes) {
    parts.push_back(slice_axis(a, k, begin, begin + n));
    begin += n;
  }
  return parts;
}

NDArray randint_of(const ContextPtr& ctx, int64_t low, int64_t high, const Shape& shape, Device device) {
  if (!(low < high)) {
    throw std::invalid_argument("randint: need low < high, got low=" + std::to_string(low) +
                                " high=" + std::to_string(high));
  }
  // Uniform in [low, high) in float32, floored; a value rounded up to high goes back to high - 1.
  const NDArray u = uniform(ctx, shape, static_cast<float>(low), static_cast<float>(high), device);
  const NDArray top = full(ctx, Shape{}, static_cast<double>(high - 1), DType::float32, device);
  return astype(minimum(floor(u), top), DType::int64);
}

NDArray pnorm_of(const NDArray& a, double p, const std::vector<int>& axes, bool keepdims, const char* op) {
  const NDArray x = is_floating(a.dtype()) ? a : astype(a, DType::float32);
  const bool all = axes.empty() && !keepdims;
  const auto finish = [&](NDArray v) { return all ? reshape(v, Shape{}) : v; };
  if (p == 2.0) return all ? norm(x) : norm(x, axes, keepdims);
  if (std::isinf(p)) return finish(reduce(abs(x), p > 0 ? Reduction::max : Reduction::min, axes, keepdims));
  if (p == 1.0) return finish(sum(abs(x), axes, keepdims));
  if (p == 0.0) {
    const NDArray nonzero = astype(compare(x, full(x.context_ptr(), Shape{}, 0.0, x.dtype(), x.device()),
                                           Comparison::not_equal, true), x.dtype());
    return finish(sum(nonzero, axes, keepdims));
  }
  if (std::isnan(p)) throw std::invalid_argument(std::string(op) + ": p must be a number");
  const NDArray powered = pow(abs(x), full(x.context_ptr(), Shape{}, p, x.dtype(), x.device()));
  return finish(pow(sum(powered, axes, keepdims), full(x.context_ptr(), Shape{}, 1.0 / p, x.dtype(), x.device())));
}

NDArray tile_of(const NDArray& a, const std::vector<int64_t>& reps, const char* op) {
  NDArray x = a;
  const int nd = std::max(static_cast<int>(reps.size()), a.shape().ndim());
  if (nd > Shape::kMaxDims) throw std::invalid_argument(std::string(op) + ": more dimensions than an array may have");
  while (x.shape().ndim() < nd) x = unsqueeze_of(x, 0, op);
  const size_t pad = static_cast<size_t>(nd) - reps.size();
  for (size_t i = 0; i < reps.size(); ++i) {
    const int64_t r = reps[i];
    if (r < 0) throw std::invalid_argument(std::string(op) + ": repetitions must be non-negative");
    if (r == 1) continue;
    const int axis = static_cast<int>(pad + i);
    if (r == 0) {
      std::vector<int64_t> dims(x.shape().begin(), x.shape().end());
      dims[static_cast<size_t>(axis)] = 0;
      x = full(x.context_ptr(), Shape(std::span<const int64_t>(dims)), 0.0, x.dtype(), x.device());
      continue;
    }
    const std::vector<NDArray> copies(static_cast<size_t>(r), x);
    x = concat(copies, axis);
  }
  return x;
}

NDArray repeat_of(const NDArray& a, int64_t n, std::optional<int> axis, const char* op) {
  if (n < 0) throw std::invalid_argument(std::string(op) + ": repeats must be non-negative");
  const NDArray x = axis ? a : reshape(a, Shape{a.size()});
  const int k = axis ? axis_in(*axis, x.shape().ndim(), op) : 0;
  std::vector<int64_t> wide(x.shape().begin(), x.shape().end());
  wide.insert(wide.begin() + k + 1, n);
  std::vector<int64_t> merged(x.shape().begin(), x.shape().end());
  merged[static_cast<size_t>(k)] *= n;
  return reshape(broadcast_to(unsqueeze_of(x, k + 1, op), Shape(std::span<const int64_t>(wide))), merged);
}

NDArray bmm_of(const NDArray& a, const NDArray& b, const char* op) {
  if (a.shape().ndim() != 3 || b.shape().ndim() != 3 || a.shape()[0] != b.shape()[0] || a.shape()[2] != b.shape()[1]) {
    throw std::invalid_argument(std::string(op) + ": needs (B, n, m) and (B, m, p) arrays, got " +
                                a.shape().to_string() + " and " + b.shape().to_string());
  }
  return batch_dot(a, b);
}

}  // namespace asyncscope::python
