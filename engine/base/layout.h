// The layout broadcasting and reductions index with, on the CPU and in the
// CUDA kernels alike: a shape aligned at its last dimension and padded to
// four dimensions with leading 1s, and an operand described by a mask of the
// dimensions along which it is stretched (its size there is 1). An operand's
// strides follow from the two, so an op's function captures a few bytes
// instead of a stride table per operand.
// Threading: plain value types and pure functions.
#pragma once

#include <cstdint>

#include "engine/base/random.h"  // ASYNCSCOPE_HOST_DEVICE

namespace asyncscope {

struct Dims4 {
  int64_t d[4] = {1, 1, 1, 1};

  ASYNCSCOPE_HOST_DEVICE int64_t size() const noexcept { return d[0] * d[1] * d[2] * d[3]; }
};

struct Strides4 {
  int64_t s[4] = {0, 0, 0, 0};
};

// Bit k of a mask: dimension k (of the 4 padded ones) is stretched.
using StretchMask = uint8_t;

// Row-major strides of an operand of `out`'s layout that is stretched along
// `mask` (stride 0 there).
ASYNCSCOPE_HOST_DEVICE inline Strides4 stretched_strides(const Dims4& out, StretchMask mask) noexcept {
  Strides4 s;
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    const bool stretched = (mask >> i) & 1u;
    s.s[i] = stretched ? 0 : stride;
    stride *= stretched ? 1 : out.d[i];
  }
  return s;
}

// The offset of element (i0, i1, i2, i3) under `s`.
ASYNCSCOPE_HOST_DEVICE inline int64_t offset_of(const Strides4& s, int64_t i0, int64_t i1, int64_t i2,
                                                int64_t i3) noexcept {
  return i0 * s.s[0] + i1 * s.s[1] + i2 * s.s[2] + i3 * s.s[3];
}

}  // namespace asyncscope
