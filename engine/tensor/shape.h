// Shape: the dimensions of an NDArray (up to 4), stored inline so creating an
// array allocates nothing for its shape. Built from a brace list ({2, 3}) or
// from a list known only at run time (a Python tuple becomes a vector).
// Threading: plain value type.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>

namespace asyncscope {

class Shape {
 public:
  static constexpr int kMaxDims = 4;
  // The most elements a shape may describe: 2^59, so that a byte count of
  // up to 8-byte elements, or a product of two such sizes' small factors,
  // stays far from int64's end. Every size computation (size(), bytes,
  // strides) can then multiply without overflow checks of its own.
  static constexpr int64_t kMaxElements = int64_t{1} << 59;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : Shape(std::span<const int64_t>(dims.begin(), dims.size())) {}
  // std::invalid_argument for more than kMaxDims dimensions, a negative
  // one, or more than kMaxElements elements in all.
  explicit Shape(std::span<const int64_t> dims) {
    if (dims.size() > kMaxDims) {
      throw std::invalid_argument("shape: at most " + std::to_string(kMaxDims) + " dimensions, got " +
                                  std::to_string(dims.size()));
    }
    // The product of the non-zero dimensions, capped at kMaxElements + 1: an
    // empty shape's other dimensions are held to the same bound, so that
    // strides and partial products stay in range too.
    int64_t product = 1;
    for (int64_t d : dims) {
      if (d < 0) throw std::invalid_argument("shape: dimensions must be >= 0, got " + std::to_string(d));
      dims_[ndim_++] = d;
      if (d > 0) product = mul_capped(product, d);
    }
    if (product > kMaxElements) {
      throw std::invalid_argument("shape " + to_string() + ": more than 2^59 elements, more than any array can hold");
    }
  }

  // a * b for a, b >= 0, or kMaxElements + 1 if that is more than kMaxElements.
  static constexpr int64_t mul_capped(int64_t a, int64_t b) noexcept {
    if (a == 0 || b == 0) return 0;
    return a > kMaxElements || b > kMaxElements / a ? kMaxElements + 1 : a * b;
  }

  int ndim() const noexcept { return ndim_; }
  int64_t operator[](int i) const noexcept { return dims_[i]; }
  const int64_t* begin() const noexcept { return dims_; }
  const int64_t* end() const noexcept { return dims_ + ndim_; }
  std::span<const int64_t> dims() const noexcept { return {dims_, static_cast<size_t>(ndim_)}; }

  // Number of elements (1 for a 0-d scalar).
  int64_t size() const noexcept {
    int64_t n = 1;
    for (int i = 0; i < ndim_; ++i) n *= dims_[i];
    return n;
  }

  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    if (a.ndim_ != b.ndim_) return false;
    for (int i = 0; i < a.ndim_; ++i) {
      if (a.dims_[i] != b.dims_[i]) return false;
    }
    return true;
  }

  // "2000x2000"; "scalar" for 0-d.
  std::string to_string() const {
    if (ndim_ == 0) return "scalar";
    std::string s;
    for (int i = 0; i < ndim_; ++i) {
      if (i > 0) s.push_back('x');
      s.append(std::to_string(dims_[i]));
    }
    return s;
  }

 private:
  int64_t dims_[kMaxDims] = {};
  int ndim_ = 0;
};

}  // namespace asyncscope
