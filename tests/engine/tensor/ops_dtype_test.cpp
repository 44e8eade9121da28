// The ops of every dtype (ops_dtype.cpp): casts as NumPy casts, typed
// creation, promotion in arithmetic, Python's floored // and %, comparisons
// as bool, reductions' result types and values, cumsum, strided take and
// assignment, views of contiguous selections (writing through, overlapping
// updates, lifetime), in-place updates of integer arrays, and the refusal of a
// float32-only kernel to read another type.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "engine/core/errors.h"
#include "engine/tensor/ops.h"
#include "support/grad_check.h"
#include "support/typed_values.h"

namespace asyncscope {
namespace {

using testing::GradFixture;
using testing::values;

template <class T>
NDArray make(const GradFixture& fx, const Shape& shape, const std::vector<T>& v) {
  return testing::typed_array<T>(fx.ctx, shape, v);
}

TEST(OpsDType, PromotionFollowsTheFrameworks) {
  EXPECT_EQ(promote(DType::int64, DType::float32), DType::float32);
  EXPECT_EQ(promote(DType::int32, DType::int64), DType::int64);
  EXPECT_EQ(promote(DType::uint8, DType::int32), DType::int32);
  EXPECT_EQ(promote(DType::boolean, DType::uint8), DType::uint8);
  EXPECT_EQ(promote(DType::float32, DType::float64), DType::float64);
  EXPECT_EQ(scalar_result(DType::int32, false), DType::int32);
  EXPECT_EQ(scalar_result(DType::int32, true), DType::float32);
  EXPECT_EQ(scalar_result(DType::float64, true), DType::float64);
  EXPECT_EQ(scalar_result(DType::boolean, false), DType::int64);
  EXPECT_EQ(dtype_named("long"), DType::int64);
  EXPECT_THROW(dtype_named("complex64"), std::invalid_argument);
}

TEST(OpsDType, AstypeConvertsAsNumPy) {
  GradFixture fx;
  const NDArray f = from_host(fx.ctx, Shape{5}, {-1.7f, -0.5f, 0.0f, 2.9f, 300.0f});
  EXPECT_EQ(values<int32_t>(astype(f, DType::int32)), (std::vector<int32_t>{-1, 0, 0, 2, 300}));
  EXPECT_EQ(values<bool>(astype(f, DType::boolean)), (std::vector<bool>{true, true, false, true, true}));
  EXPECT_EQ(values<uint8_t>(astype(astype(f, DType::int32), DType::uint8)),
            (std::vector<uint8_t>{255, 0, 0, 2, 44}));  // wraps, as NumPy's int32 -> uint8
  EXPECT_EQ(values<uint8_t>(astype(f, DType::uint8)), (std::vector<uint8_t>{255, 0, 0, 2, 44}))
      << "a float wraps through int64, as NumPy and PyTorch convert on x86";
  EXPECT_EQ(values<double>(astype(f, DType::float64))[3], static_cast<double>(2.9f));
  const NDArray big = make<int64_t>(fx, Shape{1}, {(int64_t{1} << 53) + 1});
  EXPECT_EQ(values<int64_t>(astype(big, DType::int64))[0], (int64_t{1} << 53) + 1) << "no trip through double";
}

TEST(OpsDType, ArangeAndFullMakeEachType) {
  GradFixture fx;
  EXPECT_EQ(values<int64_t>(arange(fx.ctx, 0, 5, 1, DType::int64, Device::cpu())),
            (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values<float>(arange(fx.ctx, 1, 2, 0.25, DType::float32, Device::cpu())),
            (std::vector<float>{1.0f, 1.25f, 1.5f, 1.75f}));
  EXPECT_EQ(values<int32_t>(arange(fx.ctx, 5, 0, -2, DType::int32, Device::cpu())), (std::vector<int32_t>{5, 3, 1}));
  EXPECT_EQ(arange(fx.ctx, 3, 1, 1, DType::int64, Device::cpu()).shape(), (Shape{0}));
  EXPECT_THROW(arange(fx.ctx, 0, 1, 0, DType::int64, Device::cpu()), std::invalid_argument);
  EXPECT_EQ(values<bool>(full(fx.ctx, Shape{2}, 1.0, DType::boolean, Device::cpu())), (std::vector<bool>{true, true}));
}

TEST(OpsDType, IntegerArithmeticStaysInteger) {
  GradFixture fx;
  const NDArray a = make<int64_t>(fx, Shape{4}, {7, -7, 7, -7});
  const NDArray b = make<int64_t>(fx, Shape{4}, {2, 2, -2, -2});
  EXPECT_EQ(values<int64_t>(a + b), (std::vector<int64_t>{9, -5, 5, -9}));
  EXPECT_EQ(values<int64_t>(a * b), (std::vector<int64_t>{14, -14, -14, 14}));
  EXPECT_EQ(values<int64_t>(floor_divide(a, b)), (std::vector<int64_t>{3, -4, -4, 3})) << "floored, as Python's //";
  EXPECT_EQ(values<int64_t>(mod(a, b)), (std::vector<int64_t>{1, 1, -1, -1})) << "the divisor's sign, as Python's %";
  EXPECT_EQ(values<float>(a / b), (std::vector<float>{3.5f, -3.5f, -3.5f, 3.5f})) << "true division gives floats";
  EXPECT_EQ(values<int64_t>(pow(a, make<int64_t>(fx, Shape{}, {2}))), (std::vector<int64_t>{49, 49, 49, 49}));
  EXPECT_EQ(values<int64_t>(pow(make<int64_t>(fx, Shape{4}, {1, -1, -1, 2}), make<int64_t>(fx, Shape{4}, {-3, -2, -3, -1}))),
            (std::vector<int64_t>{1, 1, -1, 0}))
      << "negative integer powers truncate, as PyTorch's";
  const NDArray f = from_host(fx.ctx, Shape{4}, {0.5f, 0.5f, 0.5f, 0.5f});
  EXPECT_EQ(values<float>(a + f), (std::vector<float>{7.5f, -6.5f, 7.5f, -6.5f})) << "int64 with float32 is float32";
  EXPECT_EQ(values<float>(a * 0.5f), (std::vector<float>{3.5f, -3.5f, 3.5f, -3.5f}));
  EXPECT_EQ(values<int64_t>(-a), (std::vector<int64_t>{-7, 7, -7, 7}));
  EXPECT_EQ(values<int64_t>(abs(a)), (std::vector<int64_t>{7, 7, 7, 7}));
  EXPECT_EQ(values<float>(exp(a - a)), (std::vector<float>{1, 1, 1, 1})) << "exp of integers is float32";
  const NDArray zero = make<int64_t>(fx, Shape{4}, {0, 1, 0, 1});
  NDArray q = floor_divide(a, zero);
  EXPECT_THROW(q.wait_to_read(), OpError) << "integer division by zero is the op's error, at the sync point";
}

TEST(OpsDType, ComparisonsGiveBoolOrTheOperandType) {
  GradFixture fx;
  const NDArray a = make<int32_t>(fx, Shape{3}, {1, 2, 3});
  const NDArray two = make<int32_t>(fx, Shape{}, {2});
  EXPECT_EQ(values<bool>(compare(a, two, Comparison::greater, true)), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(values<int32_t>(compare(a, two, Comparison::equal, false)), (std::vector<int32_t>{0, 1, 0}));
  const NDArray f = from_host(fx.ctx, Shape{3}, {1, 2, 3});
  EXPECT_EQ(values<bool>(compare(f, a, Comparison::equal, true)), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(values<float>(compare(f, from_host(fx.ctx, Shape{}, {2}), Comparison::less, false)),
            (std::vector<float>{1, 0, 0}));
  const NDArray mask = compare(a, two, Comparison::greater_equal, true);
  EXPECT_EQ(values<bool>(logical_not(mask, true)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(values<int32_t>(where(mask, a, make<int32_t>(fx, Shape{}, {0}))), (std::vector<int32_t>{0, 2, 3}))
      << "where takes a where the mask holds";
}

TEST(OpsDType, ReductionsHaveTheFrameworksTypes) {
  GradFixture fx;
  const NDArray a = make<int32_t>(fx, Shape{2, 3}, {3, 1, 4, 1, 5, 9});
  EXPECT_EQ(values<int64_t>(reduce(a, Reduction::sum, {})), (std::vector<int64_t>{23}));
  const int zero[] = {0}, one[] = {1};
  EXPECT_EQ(values<int64_t>(reduce(a, Reduction::sum, zero)), (std::vector<int64_t>{4, 6, 13}));
  EXPECT_EQ(values<int32_t>(reduce(a, Reduction::max, one)), (std::vector<int32_t>{4, 9}));
  EXPECT_EQ(values<int32_t>(reduce(a, Reduction::min, {})), (std::vector<int32_t>{1}));
  EXPECT_EQ(values<int64_t>(reduce(a, Reduction::argmax, {})), (std::vector<int64_t>{5}));
  EXPECT_EQ(values<int64_t>(reduce(a, Reduction::argmin, one)), (std::vector<int64_t>{1, 0})) << "the first of ties";
  EXPECT_EQ(values<int64_t>(reduce(a, Reduction::prod, one, true)), (std::vector<int64_t>{12, 45}));
  EXPECT_EQ(reduce(a, Reduction::prod, one, true).shape(), (Shape{2, 1}));
  EXPECT_EQ(values<bool>(reduce(a, Reduction::all, {})), (std::vector<bool>{true}));
  EXPECT_EQ(values<bool>(reduce(a - 1, Reduction::any, one)), (std::vector<bool>{true, true}));
  EXPECT_THROW(reduce(a, Reduction::mean, {}), std::invalid_argument);
  EXPECT_EQ(values<double>(reduce(astype(a, DType::float64), Reduction::mean, {})), (std::vector<double>{23.0 / 6}));
  const NDArray empty = make<int32_t>(fx, Shape{0, 3}, {});
  EXPECT_THROW(reduce(empty, Reduction::max, zero), std::out_of_range);
  EXPECT_EQ(values<int64_t>(reduce(empty, Reduction::sum, zero)), (std::vector<int64_t>{0, 0, 0}));
  const NDArray nan = from_host(fx.ctx, Shape{3}, {1, std::numeric_limits<float>::quiet_NaN(), 5});
  EXPECT_EQ(values<int64_t>(reduce(nan, Reduction::argmax, {})), (std::vector<int64_t>{1})) << "a NaN wins";
}

TEST(OpsDType, LongRowsTakeTheVectorPathWithTheSameAnswers) {
  GradFixture fx;
  // Rows longer than a vector of lanes: max and min along the last axis
  // against a plain loop, with a NaN (it wins), infinities, and integers.
  std::vector<float> v(3 * 70);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  v[70 + 33] = std::numeric_limits<float>::quiet_NaN();
  v[140 + 5] = std::numeric_limits<float>::infinity();
  const NDArray a = from_host(fx.ctx, Shape{3, 70}, v);
  const int last[] = {1};
  const std::vector<float> mx = values<float>(reduce(a, Reduction::max, last));
  const std::vector<float> mn = values<float>(reduce(a, Reduction::min, last));
  for (int r = 0; r < 3; ++r) {
    float hi = -std::numeric_limits<float>::infinity(), lo = std::numeric_limits<float>::infinity();
    bool nan = false;
    for (int c = 0; c < 70; ++c) {
      const float x = v[static_cast<size_t>(r * 70 + c)];
      nan |= x != x;
      if (x > hi) hi = x;
      if (x < lo) lo = x;
    }
    if (nan) {
      EXPECT_TRUE(std::isnan(mx[static_cast<size_t>(r)])) << "row " << r;
      EXPECT_TRUE(std::isnan(mn[static_cast<size_t>(r)])) << "row " << r;
    } else {
      EXPECT_EQ(mx[static_cast<size_t>(r)], hi) << "row " << r;
      EXPECT_EQ(mn[static_cast<size_t>(r)], lo) << "row " << r;
    }
  }
  const NDArray i = astype(reshape(arange(fx.ctx, 0, 200, 1, DType::int64, Device::cpu()), Shape{2, 100}), DType::uint8);
  EXPECT_EQ(values<uint8_t>(reduce(i, Reduction::max, last)), (std::vector<uint8_t>{99, 199}));
  EXPECT_EQ(values<uint8_t>(reduce(i, Reduction::min, last)), (std::vector<uint8_t>{0, 100}));
}

TEST(OpsDType, CumsumRunsAlongAnAxis) {
  GradFixture fx;
  const NDArray a = make<int32_t>(fx, Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values<int64_t>(cumsum(a, 0)), (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(values<int64_t>(cumsum(a, -1)), (std::vector<int64_t>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values<float>(cumsum(astype(a, DType::float32), 1, true)), (std::vector<float>{6, 5, 3, 15, 11, 6}));
  EXPECT_THROW(cumsum(a, 2), std::invalid_argument);
}

TEST(OpsDType, TakeAndAssignWorkThroughStrides) {
  GradFixture fx;
  NDArray a = arange(fx.ctx, 0, 12, 1, DType::int64, Device::cpu());
  a = reshape(a, Shape{3, 4});
  Selection column;  // a[:, 1]
  column.offset = 1;
  column.shape = Shape{3};
  column.strides[0] = 4;
  EXPECT_EQ(values<int64_t>(take(a, column)), (std::vector<int64_t>{1, 5, 9}));
  Selection reversed_rows;  // a[::-1, ::2]
  reversed_rows.offset = 8;
  reversed_rows.shape = Shape{3, 2};
  reversed_rows.strides[0] = -4;
  reversed_rows.strides[1] = 2;
  EXPECT_EQ(values<int64_t>(take(a, reversed_rows)), (std::vector<int64_t>{8, 10, 4, 6, 0, 2}));
  assign(a, column, full(fx.ctx, Shape{}, 7.9, DType::float32, Device::cpu()));
  EXPECT_EQ(values<int64_t>(a), (std::vector<int64_t>{0, 7, 2, 3, 4, 7, 6, 7, 8, 7, 10, 11})) << "cast to int64";
  Selection outside = column;
  outside.offset = 4;
  EXPECT_THROW(take(a, outside), std::invalid_argument);
  EXPECT_EQ(values<int64_t>(transpose(a))[1], 4);
  const int order[] = {1, 0};
  EXPECT_EQ(values<int64_t>(permute(a, order)), values<int64_t>(transpose(a)));
  EXPECT_EQ(values<int64_t>(broadcast_to(make<int64_t>(fx, Shape{2, 1}, {1, 2}), Shape{2, 3})),
            (std::vector<int64_t>{1, 1, 1, 2, 2, 2}));
}

Selection rows_of(const Shape& s, int64_t begin, int64_t end) {  // a[begin:end]
  Selection sel;
  const int64_t row = s.size() / s[0];
  sel.offset = begin * row;
  std::vector<int64_t> dims{end - begin};
  for (int i = 1; i < s.ndim(); ++i) dims.push_back(s[i]);
  sel.shape = Shape(dims);
  int64_t stride = 1;
  for (int i = s.ndim() - 1; i >= 0; --i) {
    sel.strides[i] = stride;
    stride *= sel.shape[i];
  }
  return sel;
}

TEST(OpsDType, ContiguousSelectionsAreViewsThatWriteThrough) {
  GradFixture fx;
  NDArray a = reshape(arange(fx.ctx, 0, 12, 1, DType::float32, Device::cpu()), Shape{3, 4});
  std::optional<NDArray> rows = view_of(a, rows_of(a.shape(), 1, 3));  // a[1:3]
  ASSERT_TRUE(rows.has_value());
  EXPECT_TRUE(rows->is_view());
  EXPECT_TRUE(rows->shares_storage(a));
  EXPECT_EQ(rows->shape(), (Shape{2, 4}));
  EXPECT_EQ(rows->to_host(), (std::vector<float>{4, 5, 6, 7, 8, 9, 10, 11}));
  *rows += 100.0f;  // the float32 kernel, on the view's part of the storage
  EXPECT_EQ(a.to_host(), (std::vector<float>{0, 1, 2, 3, 104, 105, 106, 107, 108, 109, 110, 111}));
  // A view of the view, reshaped: offsets add up.
  std::optional<NDArray> one = view_of(*rows, rows_of(rows->shape(), 1, 2));
  ASSERT_TRUE(one.has_value());
  NDArray flat = reshape(*one, Shape{4});
  flat.fill(-1.0f);
  EXPECT_EQ(a.to_host()[8], -1.0f);
  EXPECT_EQ(a.to_host()[7], 107.0f);
  // Writes to the base are seen through the view; an op reading the view
  // after a write to the base is ordered after it (one var).
  a *= 2.0f;
  const NDArray sum_of_view = reduce(flat, Reduction::sum, {});
  EXPECT_EQ(sum_of_view.to_host(), (std::vector<float>{-8}));
  EXPECT_THROW(make_view(a, Shape{4}, 9), std::out_of_range);
  // Typed arrays too: an int64 row assigned through its view.
  NDArray b = reshape(arange(fx.ctx, 0, 6, 1, DType::int64, Device::cpu()), Shape{2, 3});
  NDArray second = *view_of(b, rows_of(b.shape(), 1, 2));
  assign(second, rows_of(second.shape(), 0, 1), make<int64_t>(fx, Shape{}, {9}));
  EXPECT_EQ(values<int64_t>(b), (std::vector<int64_t>{0, 1, 2, 9, 9, 9}));
}

TEST(OpsDType, StridedSelectionsAreViewsThatWriteThroughTheirOwnBuffer) {
  GradFixture fx;
  NDArray a = reshape(arange(fx.ctx, 0, 12, 1, DType::int64, Device::cpu()), Shape{3, 4});
  Selection column;  // a[:, 1]
  column.offset = 1;
  column.shape = Shape{3};
  column.strides[0] = 4;
  NDArray col = *view_of(a, column);
  EXPECT_TRUE(col.is_view());
  EXPECT_EQ(values<int64_t>(col), (std::vector<int64_t>{1, 5, 9}));
  col += make<int64_t>(fx, Shape{}, {100});  // read, add, write back: three ops on a's var
  EXPECT_EQ(values<int64_t>(a), (std::vector<int64_t>{0, 101, 2, 3, 4, 105, 6, 7, 8, 109, 10, 11}));
  a *= make<int64_t>(fx, Shape{}, {2});  // seen through the view
  EXPECT_EQ(values<int64_t>(col), (std::vector<int64_t>{202, 210, 218}));
  Selection corners;  // a[::2, ::3]
  corners.offset = 0;
  corners.shape = Shape{2, 2};
  corners.strides[0] = 8;
  corners.strides[1] = 3;
  NDArray c = *view_of(a, corners);
  assign(c, rows_of(c.shape(), 1, 2), make<int64_t>(fx, Shape{}, {-1}));
  EXPECT_EQ(values<int64_t>(a), (std::vector<int64_t>{0, 202, 4, 6, 8, 210, 12, 14, -1, 218, 20, -1}));
  EXPECT_EQ(values<int64_t>(reshape(c, Shape{4})), (std::vector<int64_t>{0, 6, -1, -1})) << "reshape copies";
  EXPECT_EQ(values<int64_t>(reduce(c, Reduction::sum, {})), (std::vector<int64_t>{4}));
  // Both views are written in turn; each op sees the other's writes.
  NDArray f = reshape(arange(fx.ctx, 0, 12, 1, DType::float32, Device::cpu()), Shape{3, 4});
  Selection fcol = column;
  NDArray v1 = *view_of(f, fcol);
  fcol.offset = 2;
  NDArray v2 = *view_of(f, fcol);
  for (int i = 0; i < 50; ++i) {
    v1 += v2;
    v2 -= 1.0f;
  }
  // v2 goes 2, 6, 10 down by 1 each round; v1 adds its value before each decrement.
  const std::vector<float> got = f.to_host();
  EXPECT_EQ(got[1], 1.0f + 50 * 2.0f - 1225.0f);
  EXPECT_EQ(got[2], 2.0f - 50);
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_EQ(got[3], 3.0f);
}

TEST(OpsDType, AStridedViewOutlivesItsHandlesUntilItsOpsHaveRun) {
  GradFixture fx(EngineKind::threaded, 2);
  std::vector<NDArray> results;
  for (int i = 0; i < 200; ++i) {
    NDArray base = reshape(arange(fx.ctx, 0, 64, 1, DType::float32, Device::cpu()), Shape{8, 8});
    Selection col;
    col.offset = i % 8;
    col.shape = Shape{8};
    col.strides[0] = 8;
    NDArray view = *view_of(base, col);
    view *= 2.0f;
    results.push_back(reduce(view, Reduction::sum, {}));
  }
  for (int i = 0; i < 200; ++i) {
    const float expected = 2.0f * static_cast<float>(8 * (i % 8) + 8 * 28);
    EXPECT_EQ(results[static_cast<size_t>(i)].to_host(), (std::vector<float>{expected})) << i;
  }
}

TEST(OpsDType, OverlappingInPlaceUpdatesReadBeforeTheyWrite) {
  GradFixture fx;
  NDArray a = arange(fx.ctx, 0, 6, 1, DType::float32, Device::cpu());
  NDArray tail = *view_of(a, rows_of(a.shape(), 1, 6));
  const NDArray head = *view_of(a, rows_of(a.shape(), 0, 5));
  assign(tail, rows_of(tail.shape(), 0, 5), head);  // a[1:] = a[:-1]
  EXPECT_EQ(a.to_host(), (std::vector<float>{0, 0, 1, 2, 3, 4}));
  NDArray m = reshape(arange(fx.ctx, 0, 6, 1, DType::float32, Device::cpu()), Shape{2, 3});
  m += reshape(*view_of(m, rows_of(m.shape(), 0, 1)), Shape{3});  // m += m[0]: row 0 doubles, row 1 reads the old row 0
  EXPECT_EQ(m.to_host(), (std::vector<float>{0, 2, 4, 3, 5, 7}));
  m += m;  // the same elements: no copy needed, and none changes before it is read
  EXPECT_EQ(m.to_host(), (std::vector<float>{0, 4, 8, 6, 10, 14}));
  NDArray n = reshape(arange(fx.ctx, 0, 6, 1, DType::float32, Device::cpu()), Shape{2, 3});
  n.add_scaled(reshape(*view_of(n, rows_of(n.shape(), 0, 2)), Shape{2, 3}), 1.0f);
  EXPECT_EQ(n.to_host(), (std::vector<float>{0, 2, 4, 6, 8, 10}));
}

TEST(OpsDType, AViewOutlivesItsHandlesUntilItsOpsHaveRun) {
  // Ops capture the view itself (its offset and shape): dropping every handle
  // of the view and of its base right after pushing must not free either
  // before those ops run (ASan and TSan builds check the memory).
  GradFixture fx(EngineKind::threaded, 2);
  std::vector<NDArray> results;
  for (int i = 0; i < 200; ++i) {
    NDArray base = reshape(arange(fx.ctx, 0, 64, 1, DType::float32, Device::cpu()), Shape{8, 8});
    NDArray row = *view_of(base, rows_of(base.shape(), i % 8, i % 8 + 1));
    row *= 2.0f;
    results.push_back(reduce(row, Reduction::sum, {}));
  }
  for (int i = 0; i < 200; ++i) {
    const int r = i % 8;
    const float expected = 2.0f * static_cast<float>(8 * (8 * r) + 28);
    EXPECT_EQ(results[static_cast<size_t>(i)].to_host(), (std::vector<float>{expected})) << i;
  }
}

TEST(OpsDType, MultinomialDrawsByWeight) {
  GradFixture fx;
  const NDArray w = from_host(fx.ctx, Shape{4}, {1, 0, 6, 3});
  const std::vector<int64_t> draws = values<int64_t>(multinomial(w, 20000, true));
  std::vector<int> counts(4);
  for (int64_t d : draws) ++counts[static_cast<size_t>(d)];
  EXPECT_EQ(counts[1], 0) << "a zero weight is never drawn";
  EXPECT_NEAR(counts[2], 12000, 5 * std::sqrt(20000 * 0.6 * 0.4));
  EXPECT_NEAR(counts[0], 2000, 5 * std::sqrt(20000 * 0.1 * 0.9));
  // Without replacement: each row a permutation of its categories.
  const NDArray rows = multinomial(full(fx.ctx, Shape{3, 8}, 1.0, DType::float64, Device::cpu()), 8, false);
  EXPECT_EQ(rows.shape(), (Shape{3, 8}));
  std::vector<int64_t> r = values<int64_t>(rows);
  for (int i = 0; i < 3; ++i) {
    std::vector<int64_t> row(r.begin() + i * 8, r.begin() + (i + 1) * 8);
    std::sort(row.begin(), row.end());
    EXPECT_EQ(row, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  }
  EXPECT_THROW(multinomial(w, 5, false), std::invalid_argument);
  EXPECT_THROW(multinomial(arange(fx.ctx, 0, 3, 1, DType::int64, Device::cpu()), 1, true), std::invalid_argument);
  NDArray bad = multinomial(from_host(fx.ctx, Shape{2}, {1, -1}), 1, true);
  EXPECT_THROW(bad.wait_to_read(), OpError);
  try {
    wait_all(fx.ctx);
  } catch (const OpError&) {
  }
  // The same seed, the same draws.
  fx.ctx->reseed(3);
  const std::vector<int64_t> first = values<int64_t>(multinomial(w, 50, true));
  fx.ctx->reseed(3);
  EXPECT_EQ(values<int64_t>(multinomial(w, 50, true)), first);
}

TEST(OpsDType, GatherAndScatterPickBlocksByIndexArrays) {
  GradFixture fx;
  NDArray a = reshape(arange(fx.ctx, 0, 12, 1, DType::int32, Device::cpu()), Shape{3, 4});
  const NDArray rows = make<int64_t>(fx, Shape{2}, {2, -3});
  const NDArray one[] = {rows};
  EXPECT_EQ(gather(a, one).shape(), (Shape{2, 4}));
  EXPECT_EQ(values<int32_t>(gather(a, one)), (std::vector<int32_t>{8, 9, 10, 11, 0, 1, 2, 3}));
  const NDArray cols = make<int64_t>(fx, Shape{2, 1}, {3, 0});  // broadcast against rows: a 2x2 result
  const NDArray two[] = {rows, cols};
  EXPECT_EQ(gather(a, two).shape(), (Shape{2, 2}));
  EXPECT_EQ(values<int32_t>(gather(a, two)), (std::vector<int32_t>{11, 3, 8, 0}));
  scatter(a, one, make<int32_t>(fx, Shape{}, {-1}));
  EXPECT_EQ(values<int32_t>(a), (std::vector<int32_t>{-1, -1, -1, -1, 4, 5, 6, 7, -1, -1, -1, -1}));
  const NDArray bad = make<int64_t>(fx, Shape{1}, {3});
  const NDArray out_of_range[] = {bad};
  NDArray g = gather(a, out_of_range);
  EXPECT_THROW(g.wait_to_read(), OpError) << "an index out of range is the op's error, at the sync point";
  const NDArray f = from_host(fx.ctx, Shape{1}, {1.0f});
  const NDArray floats[] = {f};
  EXPECT_THROW(gather(a, floats), std::invalid_argument);
  try {
    wait_all(fx.ctx);
  } catch (const OpError&) {  // the out-of-range gather, the run's first error since the last wait_all
  }
}

TEST(OpsDType, InPlaceUpdatesKeepTheArrayAndItsType) {
  GradFixture fx;
  NDArray a = make<int32_t>(fx, Shape{3}, {1, 2, 3});
  const NDArray same = a;
  a += make<int32_t>(fx, Shape{}, {10});
  EXPECT_EQ(values<int32_t>(same), (std::vector<int32_t>{11, 12, 13}));
  EXPECT_THROW(a += from_host(fx.ctx, Shape{3}, {0.5f, 0.5f, 0.5f}), std::invalid_argument)
      << "a float result does not fit an int32 array";
  a.fill(4.0f);
  EXPECT_EQ(values<int32_t>(same), (std::vector<int32_t>{4, 4, 4}));
  NDArray d = astype(a, DType::float64);
  d *= 0.5f;
  EXPECT_EQ(values<double>(d), (std::vector<double>{2, 2, 2}));
}

TEST(OpsDType, GradientsMatchFiniteDifferences) {
  GradFixture fx;
  using testing::expect_gradients_match;
  using testing::host_random;
  using Inputs = std::vector<NDArray>;
  Selection strided;  // x[1:, ::-2] of a 3x4 array
  strided.offset = 7;
  strided.shape = Shape{2, 2};
  strided.strides[0] = 4;
  strided.strides[1] = -2;
  expect_gradients_match(fx.ctx, [&](const Inputs& x) { return take(x[0], strided); }, {Shape{3, 4}},
                         {host_random(12, 1)});
  Selection broadcast;  // a row read three times: gradients add up
  broadcast.shape = Shape{3, 4};
  broadcast.strides[1] = 1;
  expect_gradients_match(fx.ctx, [&](const Inputs& x) { return take(x[0], broadcast); }, {Shape{4}},
                         {host_random(4, 2)});
  expect_gradients_match(fx.ctx, [](const Inputs& x) { return cumsum(x[0], 1); }, {Shape{2, 5}}, {host_random(10, 3)});
  expect_gradients_match(fx.ctx, [](const Inputs& x) { return cumsum(x[0], 0, true); }, {Shape{3, 2}},
                         {host_random(6, 4)});
  const int order[] = {2, 0, 1};
  expect_gradients_match(fx.ctx, [&](const Inputs& x) { return permute(x[0], order); }, {Shape{2, 3, 2}},
                         {host_random(12, 5)});
  expect_gradients_match(
      fx.ctx, [](const Inputs& x) { return where(compare(x[0], x[1], Comparison::greater, true), x[0], x[1]); },
      {Shape{2, 3}, Shape{3}}, {host_random(6, 6), host_random(3, 7)});
  const int last[] = {1};
  // Values spaced further apart than the differences' step, so that no two
  // are tied for the max or min within it.
  std::vector<float> spaced(12);
  for (size_t i = 0; i < spaced.size(); ++i) spaced[i] = static_cast<float>((i * 5) % 12) / 12.0f - 0.47f;
  for (const Reduction r : {Reduction::sum, Reduction::mean, Reduction::prod, Reduction::max, Reduction::min}) {
    SCOPED_TRACE("reduction " + std::to_string(static_cast<int>(r)));
    expect_gradients_match(fx.ctx, [&](const Inputs& x) { return reduce(x[0], r, last, r == Reduction::mean); },
                           {Shape{3, 4}}, {spaced});
    expect_gradients_match(fx.ctx, [&](const Inputs& x) { return reduce(x[0], r, {}); }, {Shape{2, 3}},
                           {std::vector<float>(spaced.begin(), spaced.begin() + 6)});
  }
  // Integer-array indexing: a repeated index adds its gradients up.
  const NDArray rows = make<int64_t>(fx, Shape{4}, {2, 0, 2, -1});
  const NDArray cols = make<int64_t>(fx, Shape{4}, {1, 3, 1, 0});
  expect_gradients_match(fx.ctx, [&](const Inputs& x) { const NDArray i[] = {rows}; return gather(x[0], i); },
                         {Shape{3, 4}}, {host_random(12, 11)});
  expect_gradients_match(fx.ctx, [&](const Inputs& x) { const NDArray i[] = {rows, cols}; return gather(x[0], i); },
                         {Shape{3, 4}}, {host_random(12, 12)});
  // Through float64 and back: the casts pass the gradient in each type.
  expect_gradients_match(
      fx.ctx, [](const Inputs& x) { return astype(exp(astype(x[0], DType::float64)) * 2.0f, DType::float32); },
      {Shape{5}}, {host_random(5, 10)});
}

TEST(OpsDType, ProductsTakeEveryNumericTypeAndRefuseMixes) {
  GradFixture fx;
  const NDArray a = make<int32_t>(fx, Shape{2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(values<int32_t>(dot(a, a)), (std::vector<int32_t>{7, 10, 15, 22}));
  EXPECT_EQ(values<int32_t>(dot(a, a, true, false)), (std::vector<int32_t>{10, 14, 14, 20}));  // a^T a
  const NDArray big = make<int64_t>(fx, Shape{1, 1}, {int64_t{1} << 62});
  EXPECT_EQ(values<int64_t>(dot(big, make<int64_t>(fx, Shape{1, 1}, {4}))), (std::vector<int64_t>{0}))
      << "integer products wrap, as PyTorch's";
  const NDArray d = astype(a, DType::float64);
  EXPECT_EQ(dot(d, d).dtype(), DType::float64);
  EXPECT_EQ(values<double>(dot(d, d, false, true)), (std::vector<double>{5, 11, 11, 25}));  // a a^T
  const NDArray batch = make<uint8_t>(fx, Shape{2, 1, 2}, {1, 2, 3, 4});
  EXPECT_EQ(values<uint8_t>(batch_dot(batch, batch, false, true)), (std::vector<uint8_t>{5, 25}));
  for (const NDArray& other : {astype(a, DType::float32), astype(a, DType::int64)}) {
    try {
      (void)dot(a, other);
      FAIL() << "dot multiplied int32 by " << name(other.dtype());
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("different element types"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)dot(astype(a, DType::boolean), astype(a, DType::boolean)), std::invalid_argument);
}

TEST(OpsDType, AFloat64GraphHasFloat64Gradients) {
  GradFixture fx;
  NDArray x = astype(from_host(fx.ctx, Shape{2, 2}, {1, -2, 3, 4}), DType::float64);
  NDArray w = astype(from_host(fx.ctx, Shape{2, 1}, {0.5f, -1}), DType::float64);
  x.attach_grad();
  w.attach_grad();
  NDArray loss;
  {
    autograd::Record record;
    loss = sum(relu(dot(x, w)));  // (2.5, -0.5): only the first row passes relu
  }
  loss.backward();
  EXPECT_EQ(x.grad().dtype(), DType::float64);
  EXPECT_EQ(w.grad().dtype(), DType::float64);
  EXPECT_EQ(values<double>(x.grad()), (std::vector<double>{0.5, -1, 0, 0}));
  EXPECT_EQ(values<double>(w.grad()), (std::vector<double>{1, -2}));
}

}  // namespace
}  // namespace asyncscope
