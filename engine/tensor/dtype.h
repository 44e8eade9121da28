// DType: the element type of an NDArray. float32 is the default and the type
// every op has a CPU and (where there is one) a GPU kernel for; the other
// types have CPU kernels for creation, casts, copies, shape and indexing ops,
// arithmetic, comparisons and reductions (ops.h says which op takes which).
// Transcendental functions of integer arrays compute on a float32 copy, as
// PyTorch and MXNet's NumPy interface promote them.
//
// promote() is the type two operands of a binary op compute in: the wider
// of two types of one kind (bool < integers < floating point), and a
// floating-point type over any integer one (int64 with float32 gives float32,
// as in PyTorch and MXNet; NumPy would give float64).
// Threading: plain values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace asyncscope {

enum class DType : uint8_t { float32, float64, int32, int64, uint8, boolean };

inline constexpr DType kAllDTypes[] = {DType::float32, DType::float64, DType::int32,
                                       DType::int64,   DType::uint8,   DType::boolean};

constexpr size_t item_size(DType t) noexcept {
  switch (t) {
    case DType::float64:
    case DType::int64: return 8;
    case DType::float32:
    case DType::int32: return 4;
    case DType::uint8:
    case DType::boolean: return 1;
  }
  return 4;
}

// NumPy's name: "float32", "int64", "bool".
constexpr const char* name(DType t) noexcept {
  switch (t) {
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::uint8: return "uint8";
    case DType::boolean: return "bool";
  }
  return "?";
}

// The type of that name (NumPy's names, with "float", "double", "int" and
// "long" as PyTorch spells them); std::invalid_argument otherwise.
inline DType dtype_named(std::string_view n) {
  if (n == "float32" || n == "float") return DType::float32;
  if (n == "float64" || n == "double") return DType::float64;
  if (n == "int32" || n == "int") return DType::int32;
  if (n == "int64" || n == "long") return DType::int64;
  if (n == "uint8") return DType::uint8;
  if (n == "bool" || n == "bool_") return DType::boolean;
  throw std::invalid_argument("unsupported dtype '" + std::string(n) +
                              "' (float32, float64, int32, int64, uint8 and bool are)");
}

constexpr bool is_floating(DType t) noexcept { return t == DType::float32 || t == DType::float64; }
constexpr bool is_integral(DType t) noexcept { return !is_floating(t) && t != DType::boolean; }

namespace dtype_detail {
constexpr int kind(DType t) noexcept { return t == DType::boolean ? 0 : is_floating(t) ? 2 : 1; }
constexpr int rank(DType t) noexcept {
  switch (t) {
    case DType::boolean: return 0;
    case DType::uint8: return 1;
    case DType::int32: return 2;
    case DType::int64: return 3;
    case DType::float32: return 4;
    case DType::float64: return 5;
  }
  return 0;
}
}  // namespace dtype_detail

constexpr DType promote(DType a, DType b) noexcept {
  if (a == b) return a;
  const int ka = dtype_detail::kind(a), kb = dtype_detail::kind(b);
  if (ka != kb) return ka > kb ? a : b;
  return dtype_detail::rank(a) > dtype_detail::rank(b) ? a : b;
}

// The type of a Python number combined with an array of type `t`: a number
// of the array's kind, or of a lower one, takes the array's type (x + 1 stays
// int32, y * 2.5 stays float64); a float with an integer or bool array gives
// float32, an int with a bool array int64 (PyTorch's rule for numbers).
constexpr DType scalar_result(DType t, bool scalar_is_float) noexcept {
  if (scalar_is_float) return is_floating(t) ? t : DType::float32;
  return t == DType::boolean ? DType::int64 : t;
}

// f(T{}) with the C++ type of t: float, double, int32_t, int64_t, uint8_t, bool.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::float64: return f(double{});
    case DType::int32: return f(int32_t{});
    case DType::int64: return f(int64_t{});
    case DType::uint8: return f(uint8_t{});
    case DType::boolean: return f(bool{});
    case DType::float32: break;
  }
  return f(float{});
}

template <class T>
constexpr DType dtype_of() noexcept {
  if constexpr (std::is_same_v<T, double>) return DType::float64;
  if constexpr (std::is_same_v<T, int32_t>) return DType::int32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::int64;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::uint8;
  if constexpr (std::is_same_v<T, bool>) return DType::boolean;
  return DType::float32;
}

}  // namespace asyncscope
