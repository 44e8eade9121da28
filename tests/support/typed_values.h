// Arrays of any dtype to and from host vectors of their C++ type, for tests
// that check values exactly (std::vector<bool> included, element by element).
// Threading: the thread that owns the arrays' context.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/tensor/ops.h"

namespace asyncscope::testing {

// a's values (a sync point); a must be of T's dtype.
template <class T>
std::vector<T> values(const NDArray& a) {
  EXPECT_EQ(a.dtype(), dtype_of<T>());
  const std::vector<std::byte> bytes = a.to_host_bytes();
  std::vector<T> out;
  for (size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
    T v;
    std::memcpy(&v, bytes.data() + i, sizeof(T));
    out.push_back(v);
  }
  return out;
}

// A CPU array of T's dtype with the values v.
template <class T>
NDArray typed_array(const ContextPtr& ctx, const Shape& shape, const std::vector<T>& v) {
  std::vector<std::byte> bytes(v.size() * sizeof(T));
  for (size_t i = 0; i < v.size(); ++i) {
    const T x = v[i];
    std::memcpy(bytes.data() + i * sizeof(T), &x, sizeof(T));
  }
  return from_host_bytes(ctx, shape, dtype_of<T>(), std::move(bytes), Device::cpu());
}

}  // namespace asyncscope::testing
