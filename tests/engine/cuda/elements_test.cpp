// The GPU kernels' per-element functions (engine/cuda/elements.h), run on the
// host the way the kernels spread them over threads, against the CPU ops of
// every element type: casts, the typed binary ops with broadcasting, where,
// reductions (a block's partials and their tree), running sums, and strided
// selections. Runs everywhere; the same kernels on a GPU are checked against
// the CPU in cuda_test.cpp.
#include "engine/cuda/elements.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/tensor/dtype.h"
#include "engine/tensor/op_launch.h"
#include "engine/tensor/ops.h"

namespace asyncscope {
namespace {

namespace el = cuda::elements;

ContextPtr cpu_context() {
  Context::Options o;
  o.seed = 3;
  o.engine.cpu_workers = 1;
  return Context::create(o);
}

// n values of type t as bytes: small integers (divisors without 0 when
// `nonzero`), and for floating types fractions and, with `specials`, NaN,
// infinities and -0.
std::vector<std::byte> values_of(DType t, int64_t n, uint32_t seed, bool nonzero, bool specials = false) {
  std::mt19937 rng(seed);
  std::vector<std::byte> bytes(static_cast<size_t>(n) * item_size(t));
  visit_dtype(t, [&]<class T>(T) {
    T* v = reinterpret_cast<T*>(bytes.data());
    for (int64_t i = 0; i < n; ++i) {
      int k = static_cast<int>(rng() % 13) - 6;
      if (nonzero && k == 0) k = 3;
      if constexpr (std::is_same_v<T, bool>) {
        v[i] = nonzero ? true : (rng() & 1u) != 0;
      } else if constexpr (std::is_same_v<T, uint8_t>) {
        v[i] = static_cast<uint8_t>(nonzero ? 1 + rng() % 255 : rng() % 256);
      } else if constexpr (std::is_floating_point_v<T>) {
        v[i] = static_cast<T>(k) + static_cast<T>(rng() % 4) * static_cast<T>(0.25);
        if (specials && i % 7 == 3) {
          const T s[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                         -std::numeric_limits<T>::infinity(), static_cast<T>(-0.0)};
          v[i] = s[(i / 7) % 4];
        }
      } else {
        v[i] = static_cast<T>(k);
      }
    }
  });
  return bytes;
}

NDArray make(const ContextPtr& ctx, const Shape& shape, DType t, std::vector<std::byte> bytes) {
  return from_host_bytes(ctx, shape, t, std::move(bytes), Device::cpu());
}

// Equal as the values of type t, two NaNs counting as equal; floats within
// a relative `tolerance`.
void expect_same(DType t, const std::vector<std::byte>& want, const std::vector<std::byte>& got, double tolerance,
                 const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  visit_dtype(t, [&]<class T>(T) {
    const size_t n = want.size() / sizeof(T);
    for (size_t i = 0; i < n; ++i) {
      T a, b;
      std::memcpy(&a, want.data() + i * sizeof(T), sizeof(T));
      std::memcpy(&b, got.data() + i * sizeof(T), sizeof(T));
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) && std::isnan(b)) continue;
        if (a == b) continue;
        const double scale = std::max(1.0, std::fabs(static_cast<double>(a)));
        ASSERT_NEAR(static_cast<double>(a), static_cast<double>(b), tolerance * scale) << what << " at " << i;
      } else {
        ASSERT_EQ(a, b) << what << " at " << i;
      }
    }
  });
}

cuda::Type gpu(DType t) { return static_cast<cuda::Type>(t); }

TEST(CudaElements, CastsMatchAstype) {
  auto ctx = cpu_context();
  for (DType from : kAllDTypes) {
    std::vector<std::byte> in = values_of(from, 64, 1, false, true);
    if (is_floating(from)) {  // beyond every integer type, and around the wrap of the narrow ones
      visit_dtype(from, [&]<class T>(T) {
        T* v = reinterpret_cast<T*>(in.data());
        v[0] = static_cast<T>(1e19);
        v[1] = static_cast<T>(-1.5);
        v[2] = static_cast<T>(300.75);
        v[5] = static_cast<T>(-3e9);
      });
    }
    const NDArray a = make(ctx, Shape{64}, from, in);
    for (DType to : kAllDTypes) {
      const std::vector<std::byte> want = astype(a, to).to_host_bytes();
      std::vector<std::byte> got(want.size());
      visit_dtype(to, [&]<class To>(To) {
        visit_dtype(from, [&]<class From>(From) {
          for (int64_t i = 0; i < 64; ++i) {
            reinterpret_cast<To*>(got.data())[i] = el::convert<To>(reinterpret_cast<const From*>(in.data())[i]);
          }
        });
      });
      expect_same(to, want, got, 0, std::string("astype ") + name(from) + " to " + name(to));
    }
  }
}

TEST(CudaElements, UnaryFunctionsOfEveryTypeMatchTheCpu) {
  auto ctx = cpu_context();
  using cuda::UnaryOp;
  const float s = 2.5f;
  struct Case {
    UnaryOp op;
    NDArray (*cpu)(const NDArray&);
    bool keeps_integers;
  };
  const Case cases[] = {
      {UnaryOp::add_scalar, [](const NDArray& a) { return a + 2.5f; }, false},
      {UnaryOp::sub_scalar, [](const NDArray& a) { return a - 2.5f; }, false},
      {UnaryOp::mul_scalar, [](const NDArray& a) { return a * 2.5f; }, false},
      {UnaryOp::div_scalar, [](const NDArray& a) { return a / 2.5f; }, false},
      {UnaryOp::rsub_scalar, [](const NDArray& a) { return 2.5f - a; }, false},
      {UnaryOp::rdiv_scalar, [](const NDArray& a) { return 2.5f / a; }, false},
      {UnaryOp::negative, [](const NDArray& a) { return -a; }, true},
      {UnaryOp::relu, &relu, true},
      {UnaryOp::square, &square, true},
      {UnaryOp::sqrt, &sqrt, false},
      {UnaryOp::exp, &exp, false},
      {UnaryOp::log, &log, false},
      {UnaryOp::abs, &abs, true},
      {UnaryOp::sign, &sign, true},
      {UnaryOp::sin, &sin, false},
      {UnaryOp::cos, &cos, false},
      {UnaryOp::tanh, &tanh, false},
      {UnaryOp::sigmoid, &sigmoid, false},
      {UnaryOp::log1p, &log1p, false},
      {UnaryOp::floor, &floor, true},
      {UnaryOp::ceil, &ceil, true},
      {UnaryOp::rint, &rint, true},
      {UnaryOp::round, &round, true},
      {UnaryOp::asin, &asin, false},
      {UnaryOp::acos, &acos, false},
      {UnaryOp::atan, &atan, false},
      {UnaryOp::sinh, &sinh, false},
      {UnaryOp::cosh, &cosh, false},
      {UnaryOp::expm1, &expm1, false},
      {UnaryOp::erf, &erf, false},
  };
  int checked = 0;
  for (DType t : {DType::float64, DType::int32, DType::int64, DType::uint8}) {
    const std::vector<std::byte> x = values_of(t, 50, 31, false, true);
    const NDArray a = make(ctx, Shape{50}, t, x);
    for (const Case& c : cases) {
      if (!is_floating(t) && !c.keeps_integers) continue;  // computed on a float32 copy
      const NDArray want = c.cpu(a);
      ASSERT_EQ(want.dtype(), t);
      std::vector<std::byte> got(x.size());
      visit_dtype(t, [&]<class T>(T) {
        if constexpr (!std::is_same_v<T, bool>) {
          for (int64_t i = 0; i < 50; ++i) {
            reinterpret_cast<T*>(got.data())[i] = el::apply_unary<T>(c.op, reinterpret_cast<const T*>(x.data())[i], s);
          }
        }
      });
      expect_same(t, want.to_host_bytes(), got, 0, "unary " + std::to_string(static_cast<int>(c.op)) + " on " + name(t));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 30 + 3 * 9);  // every function on float64; the nine that keep integers on each integer type
}

bool is_comparison(ops_detail::Binary op) {
  return op >= ops_detail::Binary::equal && op <= ops_detail::Binary::less_equal ? true
                                                                                 : op >= ops_detail::Binary::logical_and;
}

TEST(CudaElements, BinaryOpsMatchTheCpuWithBroadcasting) {
  auto ctx = cpu_context();
  const Shape sa{3, 1, 4}, sb{5, 1};
  const Shape out{3, 5, 4};
  const Dims4 dims = ops_detail::padded(out);
  const StretchMask ma = ops_detail::stretch_mask(sa, dims), mb = ops_detail::stretch_mask(sb, dims);
  const Strides4 st_a = stretched_strides(dims, ma), st_b = stretched_strides(dims, mb);
  int checked = 0;
  for (int k = 0; k <= static_cast<int>(ops_detail::Binary::logical_xor); ++k) {
    const auto op = static_cast<ops_detail::Binary>(k);
    for (DType t : kAllDTypes) {
      const NDArray a = make(ctx, sa, t, values_of(t, sa.size(), 10 + k, false, k != 4));
      const NDArray b = make(ctx, sb, t, values_of(t, sb.size(), 20 + k, true, false));
      const bool comparison = is_comparison(op);
      const DType compute = comparison ? t : ops_detail::arithmetic_type(t, t, op);
      const DType result = comparison ? DType::boolean : compute;
      std::vector<std::byte> want;
      try {
        want = ops_detail::binary_typed(a, b, op, result, trace::intern("binary"), "binary").to_host_bytes();
      } catch (const std::invalid_argument&) {
        continue;  // refused for this type (bool arithmetic)
      }
      const std::vector<std::byte> ca = astype(a, compute).to_host_bytes(), cb = astype(b, compute).to_host_bytes();
      std::vector<std::byte> got(want.size());
      visit_dtype(compute, [&]<class T>(T) {
        for (int64_t i = 0; i < out.size(); ++i) {
          el::binary_element<T>(i, static_cast<cuda::TypedBinary>(op), gpu(result), got.data(), dims,
                                reinterpret_cast<const T*>(ca.data()), st_a, reinterpret_cast<const T*>(cb.data()),
                                st_b);
        }
      });
      expect_same(result, want, got, 0, "binary op " + std::to_string(k) + " on " + name(t));
      ++checked;
    }
  }
  EXPECT_GE(checked, 90);
  // Where the CPU refuses (an integer division by zero), a kernel gives 0.
  EXPECT_EQ(el::apply<int32_t>(cuda::TypedBinary::floor_divide, 7, 0), 0);
  EXPECT_EQ(el::apply<int64_t>(cuda::TypedBinary::mod, -7, 0), 0);
  EXPECT_EQ(el::apply<int64_t>(cuda::TypedBinary::floor_divide, -7, 2), -4);
  EXPECT_EQ(el::apply<int32_t>(cuda::TypedBinary::mod, -7, 3), 2);
}

TEST(CudaElements, WhereMatchesTheCpu) {
  auto ctx = cpu_context();
  const Shape sc{4, 1}, sa{1, 6}, sb{4, 6};
  const Dims4 dims = ops_detail::padded(Shape{4, 6});
  for (DType t : kAllDTypes) {
    const NDArray c = make(ctx, sc, DType::boolean, values_of(DType::boolean, 4, 5, false));
    const NDArray a = make(ctx, sa, t, values_of(t, 6, 6, false, true));
    const NDArray b = make(ctx, sb, t, values_of(t, 24, 7, false));
    const std::vector<std::byte> want = where(c, a, b).to_host_bytes();
    const std::vector<std::byte> pc = c.to_host_bytes(), pa = a.to_host_bytes(), pb = b.to_host_bytes();
    std::vector<std::byte> got(want.size());
    visit_dtype(t, [&]<class T>(T) {
      for (int64_t i = 0; i < 24; ++i) {
        el::where_element<T>(i, reinterpret_cast<T*>(got.data()), dims, reinterpret_cast<const bool*>(pc.data()),
                             stretched_strides(dims, ops_detail::stretch_mask(sc, dims)),
                             reinterpret_cast<const T*>(pa.data()),
                             stretched_strides(dims, ops_detail::stretch_mask(sa, dims)),
                             reinterpret_cast<const T*>(pb.data()), stretched_strides(dims, 0));
      }
    });
    expect_same(t, want, got, 0, std::string("where on ") + name(t));
  }
}

// What reduce_typed_kernel computes: per output, kReduceThreads partials
// combined in a tree.
std::vector<std::byte> reduce_as_the_kernel(Reduction r, DType in, DType out, const std::vector<std::byte>& x,
                                            const Shape& shape, std::span<const int> axes) {
  const Dims4 dims = ops_detail::padded(shape);
  StretchMask reduced = 0;
  const int pad = 4 - shape.ndim();
  for (int axis : axes) reduced = static_cast<StretchMask>(reduced | (1u << (pad + axis)));
  if (axes.empty()) reduced = static_cast<StretchMask>(((1u << shape.ndim()) - 1) << pad);
  const cuda::ReduceLayout l = cuda::reduce_layout(dims, reduced);
  std::vector<std::byte> y(static_cast<size_t>(l.kept.size()) * item_size(out));
  visit_dtype(in, [&]<class T>(T) {
    std::vector<el::Partial<T>> shares(cuda::kReduceThreads);
    for (int64_t k = 0; k < l.kept.size(); ++k) {
      for (int t = 0; t < cuda::kReduceThreads; ++t) {
        shares[static_cast<size_t>(t)] =
            el::partial<T>(static_cast<cuda::TypedReduction>(r), reinterpret_cast<const T*>(x.data()), l, k, t,
                           cuda::kReduceThreads);
      }
      for (int half = cuda::kReduceThreads / 2; half > 0; half /= 2) {
        for (int t = 0; t < half; ++t) {
          el::combine<T>(static_cast<cuda::TypedReduction>(r), shares[static_cast<size_t>(t)],
                         shares[static_cast<size_t>(t + half)]);
        }
      }
      el::finish<T>(static_cast<cuda::TypedReduction>(r), y.data(), gpu(out), k, shares[0], l.count);
    }
  });
  return y;
}

TEST(CudaElements, ReductionsMatchTheCpuIncludingTiesAndNaNs) {
  auto ctx = cpu_context();
  const Shape shape{3, 4, 70};  // 70 > kReduceThreads / 4: threads share outputs' elements unevenly
  const std::vector<std::vector<int>> axis_sets = {{}, {0}, {2}, {1, 2}, {0, 2}};
  int checked = 0;
  for (int ri = 0; ri <= static_cast<int>(Reduction::mean); ++ri) {
    const auto r = static_cast<Reduction>(ri);
    for (DType t : kAllDTypes) {
      if (r == Reduction::mean && !is_floating(t)) continue;
      for (bool specials : {false, true}) {
        if (specials && !is_floating(t)) continue;
        const std::vector<std::byte> x = values_of(t, shape.size(), 40 + ri, false, specials);
        const NDArray a = make(ctx, shape, t, x);
        for (const std::vector<int>& axes : axis_sets) {
          const NDArray want = reduce(a, r, axes, false);
          const std::vector<std::byte> got = reduce_as_the_kernel(r, t, want.dtype(), x, shape, axes);
          // Sums in another order: the double accumulators differ in their last bits.
          const double tolerance = r == Reduction::prod ? 1e-9 : want.dtype() == DType::float32 ? 1e-6 : 1e-12;
          expect_same(want.dtype(), want.to_host_bytes(), got, tolerance,
                      "reduction " + std::to_string(ri) + " of " + name(t) + " over " + std::to_string(axes.size()) +
                          " axes" + (specials ? " with NaNs" : ""));
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 200);
}

TEST(CudaElements, RunningSumsMatchCumsum) {
  auto ctx = cpu_context();
  const Shape shape{4, 5, 3};
  for (DType t : kAllDTypes) {
    const std::vector<std::byte> x = values_of(t, shape.size(), 9, false);
    const NDArray a = make(ctx, shape, t, x);
    for (int axis = 0; axis < 3; ++axis) {
      for (bool reverse : {false, true}) {
        const NDArray want = cumsum(a, axis, reverse);
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < axis; ++i) outer *= shape[i];
        for (int i = axis + 1; i < 3; ++i) inner *= shape[i];
        std::vector<std::byte> got(want.to_host_bytes().size());
        visit_dtype(t, [&]<class T>(T) {
          visit_dtype(want.dtype(), [&]<class R>(R) {
            for (int64_t line = 0; line < outer * inner; ++line) {
              el::cumsum_line<T, R>(reinterpret_cast<R*>(got.data()), reinterpret_cast<const T*>(x.data()), line,
                                    shape[axis], inner, reverse);
            }
          });
        });
        expect_same(want.dtype(), want.to_host_bytes(), got, 1e-12,
                    std::string("cumsum of ") + name(t) + " along " + std::to_string(axis));
      }
    }
  }
}

// The sort kernel's per-element place, run on the host as the kernel runs it
// (a thread per element writing the first k), against the CPU op, with ties
// and NaNs (values_of's specials).
TEST(CudaElements, SortedPlacesMatchTheCpuSort) {
  auto ctx = cpu_context();
  const Shape shape{4, 5, 3};
  int checked = 0;
  for (DType t : kAllDTypes) {
    const std::vector<std::byte> x = values_of(t, shape.size(), 12, false, true);
    const NDArray a = make(ctx, shape, t, x);
    for (int axis = 0; axis < 3; ++axis) {
      for (bool descending : {false, true}) {
        const int64_t len = shape[axis], k = len - 1;
        const Sorted want = topk(a, k, axis, descending);
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < axis; ++i) outer *= shape[i];
        for (int i = axis + 1; i < 3; ++i) inner *= shape[i];
        std::vector<std::byte> got(want.values.to_host_bytes().size());
        std::vector<int64_t> got_index(static_cast<size_t>(want.indices.size()));
        visit_dtype(t, [&]<class T>(T) {
          const T* in = reinterpret_cast<const T*>(x.data());
          T* out = reinterpret_cast<T*>(got.data());
          for (int64_t e = 0; e < outer * inner * len; ++e) {
            const int64_t line = e / len, i = e % len;
            const int64_t place = el::sorted_place<T>(in, line, len, inner, i, descending);
            if (place >= k) continue;
            const int64_t b = line / inner, c = line % inner;
            out[(b * k + place) * inner + c] = in[(b * len + i) * inner + c];
            got_index[static_cast<size_t>((b * k + place) * inner + c)] = i;
          }
        });
        const std::string what = std::string("topk of ") + name(t) + " along " + std::to_string(axis);
        expect_same(t, want.values.to_host_bytes(), got, 0, what);
        std::vector<std::byte> index_bytes(got_index.size() * sizeof(int64_t));
        if (!got_index.empty()) std::memcpy(index_bytes.data(), got_index.data(), index_bytes.size());
        expect_same(DType::int64, want.indices.to_host_bytes(), index_bytes, 0, what + " (indices)");
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 6 * 3 * 2);
}

// take_along_axis's per-element offset, run on the host as the kernel runs
// it, against the CPU op: an axis in the middle, both operands broadcast,
// negative indices, words of every size.
TEST(CudaElements, AlongOffsetsMatchTakeAlongAxis) {
  auto ctx = cpu_context();
  const Shape a_shape{2, 1, 5, 3}, idx_shape{1, 4, 2, 3};  // out: (2, 4, 2, 3) along axis 2
  std::vector<int64_t> picks(static_cast<size_t>(idx_shape.size()));
  for (size_t i = 0; i < picks.size(); ++i) picks[i] = static_cast<int64_t>((i * 7) % 10) - 5;  // -5 .. 4
  std::vector<std::byte> pick_bytes(picks.size() * sizeof(int64_t));
  std::memcpy(pick_bytes.data(), picks.data(), pick_bytes.size());
  const NDArray index = make(ctx, idx_shape, DType::int64, pick_bytes);
  cuda::AlongLayout l;
  const int64_t out[4] = {2, 4, 2, 3};
  for (int d = 0; d < 4; ++d) l.out.d[d] = out[d];
  l.axis = 2;
  l.len = 5;
  l.array.s[0] = 15;  // a: (2, 1, 5, 3), broadcast along dim 1
  l.array.s[1] = 0;
  l.array.s[2] = 3;
  l.array.s[3] = 1;
  l.index.s[0] = 0;  // indices: (1, 4, 2, 3), broadcast along dim 0
  l.index.s[1] = 6;
  l.index.s[2] = 3;
  l.index.s[3] = 1;
  for (DType t : {DType::float64, DType::int32, DType::uint8}) {
    const std::vector<std::byte> x = values_of(t, a_shape.size(), 21, false);
    const NDArray want = take_along_axis(make(ctx, a_shape, t, x), index, 2);
    ASSERT_EQ(want.shape(), (Shape{2, 4, 2, 3}));
    std::vector<std::byte> got(want.to_host_bytes().size());
    const size_t item = item_size(t);
    for (int64_t i = 0; i < l.out.size(); ++i) {
      const int64_t at = el::along_offset(i, l, picks.data());
      ASSERT_GE(at, 0);
      std::memcpy(got.data() + static_cast<size_t>(i) * item, x.data() + static_cast<size_t>(at) * item, item);
    }
    expect_same(t, want.to_host_bytes(), got, 0, std::string("take_along_axis of ") + name(t));
  }
  const int64_t past[1] = {5};
  cuda::AlongLayout one;
  one.len = 5;
  one.array.s[3] = 1;
  EXPECT_EQ(el::along_offset(0, one, past), -1);
}

TEST(CudaElements, StridedSelectionsMatchTakeAndAssign) {
  auto ctx = cpu_context();
  Selection sel;  // x[::2, ::-2] of a 5 x 6 array, as 3 x 3
  sel.offset = 5;
  sel.shape = Shape{3, 3};
  sel.strides[0] = 12;
  sel.strides[1] = -2;
  cuda::StridedLayout l;
  l.offset = sel.offset;
  l.ndim = 2;
  l.shape[0] = l.shape[1] = 3;
  l.strides[0] = 12;
  l.strides[1] = -2;
  for (DType t : {DType::float64, DType::int32, DType::uint8}) {
    const std::vector<std::byte> x = values_of(t, 30, 11, false);
    NDArray a = make(ctx, Shape{5, 6}, t, x);
    const std::vector<std::byte> want = take(a, sel).to_host_bytes();
    std::vector<std::byte> got(want.size());
    const size_t item = item_size(t);
    for (int64_t k = 0; k < 9; ++k) {
      std::memcpy(got.data() + k * item, x.data() + el::selected_offset(k, l) * static_cast<int64_t>(item), item);
    }
    expect_same(t, want, got, 0, std::string("take of ") + name(t));
    // a[sel] = value, a 1 x 3 value broadcast over the selection's rows.
    const std::vector<std::byte> v = values_of(t, 3, 12, true);
    const NDArray value = make(ctx, Shape{1, 3}, t, v);
    assign(a, sel, value);
    std::vector<std::byte> expected = x;
    const Dims4 dims = ops_detail::padded(sel.shape);
    const Strides4 sv = stretched_strides(dims, ops_detail::stretch_mask(Shape{1, 3}, dims));
    for (int64_t k = 0; k < 9; ++k) {
      std::memcpy(expected.data() + el::selected_offset(k, l) * static_cast<int64_t>(item),
                  v.data() + el::value_offset(k, l, sv) * static_cast<int64_t>(item), item);
    }
    expect_same(t, a.to_host_bytes(), expected, 0, std::string("assign of ") + name(t));
  }
}

}  // namespace
}  // namespace asyncscope
