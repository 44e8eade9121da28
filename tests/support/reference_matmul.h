// The matrix product by the textbook triple loop, in double, for tests of
// dot(): op(A) is m x k and op(B) is k x n, each stored row-major as given
// (transposed when ta / tb); returns the m x n product, row-major.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace asyncscope::testing {

inline std::vector<double> reference_matmul(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                                            int64_t k, int64_t n, bool ta, bool tb) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        const float x = ta ? a[static_cast<size_t>(p * m + i)] : a[static_cast<size_t>(i * k + p)];
        const float y = tb ? b[static_cast<size_t>(j * k + p)] : b[static_cast<size_t>(p * n + j)];
        acc += static_cast<double>(x) * y;
      }
      c[static_cast<size_t>(i * n + j)] = acc;
    }
  }
  return c;
}

}  // namespace asyncscope::testing
