// Sorting along an axis (ops_sort.cpp): sort, argsort, sort_with_indices
// and topk of every dtype along every axis against std::stable_sort, NaN's
// place, ties in their order, empty and 0-d arrays, refusals, the gradient
// through the values, take_along_axis (broadcasting, any dtype, its
// gradient, its error), and what the trace shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine/tensor/ops.h"
#include "engine/trace/model.h"
#include "engine/trace_record/recorder.h"
#include "support/grad_check.h"
#include "support/timeout.h"
#include "support/typed_values.h"

namespace asyncscope {
namespace {

using testing::expect_gradients_match;
using testing::GradFixture;
using testing::host_random;
using testing::run_with_timeout;
using testing::values;

template <class T>
NDArray make(const ContextPtr& ctx, const Shape& shape, const std::vector<T>& v) {
  return testing::typed_array<T>(ctx, shape, v);
}

// n small values of type T with many ties (and NaNs for the floating types).
template <class T>
std::vector<T> tied_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int k = static_cast<int>(rng() % 7) - 3;
    if constexpr (std::is_same_v<T, bool>) {
      v[i] = k > 0;
    } else if constexpr (std::is_unsigned_v<T>) {
      v[i] = static_cast<T>(k + 3);
    } else {
      v[i] = static_cast<T>(k);
      if constexpr (std::is_floating_point_v<T>) {
        if (i % 11 == 4) v[i] = std::numeric_limits<T>::quiet_NaN();
      }
    }
  }
  return v;
}

// Whether a comes first (NaN the largest), as the op promises.
template <class T>
bool first(T a, T b, bool descending) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return descending ? std::isnan(a) && !std::isnan(b) : !std::isnan(a) && std::isnan(b);
  }
  return descending ? b < a : a < b;
}

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
  }
  return a == b;
}

// Every line of a {2, 5, 3} array along `axis`, stably sorted on the host,
// its first k: the values and the indices the op must give.
template <class T>
void expect_sorted(const ContextPtr& ctx, int axis, bool descending, int64_t k) {
  const Shape shape{2, 5, 3};
  const std::vector<T> v = tied_values<T>(30, 7 + static_cast<uint32_t>(axis));
  const NDArray a = make<T>(ctx, shape, v);
  const int64_t dims[3] = {2, 5, 3};
  const int64_t len = dims[axis];
  int64_t out_dims[3] = {2, 5, 3};
  out_dims[axis] = k;
  const Sorted s = k == len ? sort_with_indices(a, axis, descending) : topk(a, k, axis, descending);
  ASSERT_EQ(s.values.shape(), Shape(std::span<const int64_t>(out_dims)));
  ASSERT_EQ(s.indices.dtype(), DType::int64);
  const std::vector<T> got = values<T>(s.values);
  const std::vector<int64_t> got_index = values<int64_t>(s.indices);
  const int64_t strides[3] = {15, 3, 1};
  const int64_t out_strides[3] = {out_dims[1] * out_dims[2], out_dims[2], 1};
  for (int64_t line = 0; line < 30 / len; ++line) {
    // The line's start: its coordinates outside `axis`.
    int64_t coord[3], rest = line;
    for (int d = 2; d >= 0; --d) {
      if (d == axis) {
        coord[d] = 0;
        continue;
      }
      coord[d] = rest % dims[d];
      rest /= dims[d];
    }
    const int64_t base = coord[0] * strides[0] + coord[1] * strides[1] + coord[2] * strides[2];
    const int64_t out_base = coord[0] * out_strides[0] + coord[1] * out_strides[1] + coord[2] * out_strides[2];
    std::vector<int64_t> order(static_cast<size_t>(len));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
      return first(v[base + i * strides[axis]], v[base + j * strides[axis]], descending);
    });
    for (int64_t p = 0; p < k; ++p) {
      const int64_t at = out_base + p * out_strides[axis];
      EXPECT_EQ(got_index[at], order[p]) << "line " << line << " place " << p;
      EXPECT_TRUE(same(got[at], v[base + order[p] * strides[axis]])) << "line " << line << " place " << p;
    }
  }
  // The value-only and index-only ops agree with the op that gives both.
  if (k == len) {
    const std::vector<T> alone = values<T>(sort(a, axis, descending));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same(alone[i], got[i])) << i;
    EXPECT_EQ(values<int64_t>(argsort(a, axis, descending)), got_index);
  }
}

TEST(Sorting, EveryDTypeAlongEveryAxisBothWaysIsStableWithNaNTheLargest) {
  run_with_timeout([] {
    GradFixture fx;
    for (int axis = 0; axis < 3; ++axis) {
      for (bool descending : {false, true}) {
        SCOPED_TRACE("axis " + std::to_string(axis) + (descending ? " descending" : " ascending"));
        const int64_t len = axis == 0 ? 2 : (axis == 1 ? 5 : 3);
        expect_sorted<float>(fx.ctx, axis, descending, len);
        expect_sorted<double>(fx.ctx, axis, descending, len);
        expect_sorted<int32_t>(fx.ctx, axis, descending, len);
        expect_sorted<int64_t>(fx.ctx, axis, descending, len);
        expect_sorted<uint8_t>(fx.ctx, axis, descending, len);
        expect_sorted<bool>(fx.ctx, axis, descending, len);
        for (int64_t k = 0; k < len; ++k) {
          expect_sorted<float>(fx.ctx, axis, descending, k);
          expect_sorted<int64_t>(fx.ctx, axis, descending, k);
        }
      }
    }
  });
}

TEST(Sorting, NaNIsLastAscendingAndFirstDescending) {
  GradFixture fx;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const NDArray a = from_host(fx.ctx, Shape{6}, {2.0f, nan, -inf, 2.0f, inf, -1.0f});
  const std::vector<float> up = sort(a).to_host();
  EXPECT_EQ(std::vector<float>(up.begin(), up.end() - 1), (std::vector<float>{-inf, -1, 2, 2, inf}));
  EXPECT_TRUE(std::isnan(up.back()));
  EXPECT_EQ(values<int64_t>(argsort(a)), (std::vector<int64_t>{2, 5, 0, 3, 4, 1}));
  EXPECT_EQ(values<int64_t>(argsort(a, 0, true)), (std::vector<int64_t>{1, 4, 0, 3, 5, 2}));
  const Sorted top = topk(a, 2);
  EXPECT_TRUE(std::isnan(top.values.to_host()[0]));
  EXPECT_EQ(values<int64_t>(top.indices), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(values<int64_t>(topk(a, 3, 0, false).indices), (std::vector<int64_t>{2, 5, 0}));
}

TEST(Sorting, EmptyAndZeroDimensionalArraysAndRefusals) {
  GradFixture fx;
  const NDArray empty = from_host(fx.ctx, Shape{0, 3}, {});
  EXPECT_EQ(sort(empty, 0).shape(), (Shape{0, 3}));
  EXPECT_EQ(argsort(empty, 1).shape(), (Shape{0, 3}));
  EXPECT_EQ(topk(empty, 0, 0).values.shape(), (Shape{0, 3}));
  EXPECT_EQ(topk(from_host(fx.ctx, Shape{2, 3}, {1, 2, 3, 4, 5, 6}), 0).indices.shape(), (Shape{2, 0}));
  const NDArray scalar = from_host(fx.ctx, Shape{}, {4.0f});
  EXPECT_EQ(sort(scalar).shape(), Shape{});
  EXPECT_EQ(sort(scalar).to_host(), (std::vector<float>{4}));
  EXPECT_EQ(values<int64_t>(argsort(scalar)), (std::vector<int64_t>{0}));
  const NDArray a = from_host(fx.ctx, Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(sort(a, 2), std::invalid_argument);
  EXPECT_THROW(argsort(a, -3), std::invalid_argument);
  try {
    topk(a, 4);
    ADD_FAILURE() << "k above the axis length was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "topk: k = 4 is out of range for an axis of 3 elements");
  }
  EXPECT_THROW(topk(a, -1), std::invalid_argument);
}

TEST(Sorting, TheGradientGoesBackToWhereEachValueCameFrom) {
  run_with_timeout([] {
    GradFixture fx;
    const std::vector<float> v = host_random(12, 4, -2.0f, 2.0f);  // distinct: no tie to split
    for (int axis : {0, 1}) {
      for (bool descending : {false, true}) {
        SCOPED_TRACE("axis " + std::to_string(axis));
        expect_gradients_match(fx.ctx, [axis, descending](const std::vector<NDArray>& x) { return sort(x[0], axis, descending); },
                               {Shape{3, 4}}, {v});
        expect_gradients_match(fx.ctx, [axis, descending](const std::vector<NDArray>& x) {
          return topk(x[0], 2, axis, descending).values;
        }, {Shape{3, 4}}, {v});
        expect_gradients_match(fx.ctx, [axis, descending](const std::vector<NDArray>& x) {
          return sort_with_indices(x[0], axis, descending).values;
        }, {Shape{3, 4}}, {v});
      }
    }
  });
}

NDArray typed(const GradFixture& fx, const Shape& shape, int n);

TEST(Sorting, TakeAlongAxisPicksByIndicesAndBroadcasts) {
  GradFixture fx;
  const NDArray a = from_host(fx.ctx, Shape{2, 3}, {10, 20, 30, 40, 50, 60});
  const NDArray idx = make<int64_t>(fx.ctx, Shape{2, 2}, {2, 0, -1, 1});
  EXPECT_EQ(take_along_axis(a, idx, 1).to_host(), (std::vector<float>{30, 10, 60, 50}));
  const NDArray rows = make<int32_t>(fx.ctx, Shape{1, 3}, {1, 0, 1});  // broadcast along axis 1
  EXPECT_EQ(take_along_axis(a, rows, 0).to_host(), (std::vector<float>{40, 20, 60}));
  EXPECT_EQ(take_along_axis(a, argsort(a, 1, true), 1).to_host(), sort(a, 1, true).to_host());
  EXPECT_THROW(take_along_axis(a, make<int64_t>(fx.ctx, Shape{2}, {0, 1}), 0), std::invalid_argument);
  EXPECT_THROW(take_along_axis(a, from_host(fx.ctx, Shape{2, 1}, {0, 1}), 1), std::invalid_argument);
  EXPECT_THROW(take_along_axis(a, make<int64_t>(fx.ctx, Shape{3, 1}, {0, 1, 0}), 1), std::invalid_argument);
  EXPECT_THROW(take_along_axis(a, idx, 2), std::invalid_argument);
  NDArray out_of_range = take_along_axis(a, make<int64_t>(fx.ctx, Shape{2, 1}, {0, 3}), 1);
  try {
    out_of_range.wait_to_read();  // the op's error, at the sync point
    ADD_FAILURE() << "an index past the axis was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("index 3 is out of range for an axis of 3 elements"), std::string::npos)
        << e.what();
  }
  // Both broadcast, as NumPy's: a (1, 3) array along axis 1 with indices (2, 2).
  const NDArray row = from_host(fx.ctx, Shape{1, 3}, {7, 8, 9});
  EXPECT_EQ(take_along_axis(row, make<int64_t>(fx.ctx, Shape{2, 2}, {2, 2, 0, 1}), 1).to_host(),
            (std::vector<float>{9, 9, 7, 8}));
  // Any dtype, 4 dimensions, an axis in the middle.
  const NDArray ints = typed(fx, Shape{2, 3, 2, 2}, 24);
  const std::vector<int64_t> picks = {2, 0, 1, 1, 0, 0, 2, 1};  // (2, 1, 2, 2)
  const std::vector<int32_t> got = values<int32_t>(take_along_axis(ints, make<int64_t>(fx.ctx, Shape{2, 1, 2, 2}, picks), 1));
  std::vector<int32_t> want;
  for (int b = 0; b < 2; ++b) {
    for (int j = 0; j < 4; ++j) want.push_back(b * 12 + static_cast<int32_t>(picks[static_cast<size_t>(b * 4 + j)]) * 4 + j);
  }
  EXPECT_EQ(got, want);
}

NDArray typed(const GradFixture& fx, const Shape& shape, int n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return make<int32_t>(fx.ctx, shape, v);
}

TEST(Sorting, TakeAlongAxisGradientAddsBackWhereEachElementCameFrom) {
  run_with_timeout([] {
    GradFixture fx;
    const std::vector<float> v = host_random(12, 9, -2.0f, 2.0f);
    for (int axis : {0, 1}) {
      SCOPED_TRACE("axis " + std::to_string(axis));
      expect_gradients_match(fx.ctx, [&fx, axis](const std::vector<NDArray>& x) {
        // repeated and negative indices: their gradients add up
        const NDArray idx = make<int64_t>(fx.ctx, axis == 0 ? Shape{4, 4} : Shape{3, 5},
                                          axis == 0 ? std::vector<int64_t>{0, 2, 2, -1, 1, 1, 0, 2, 2, 2, 2, 2, 0, 0, 1, -3}
                                                    : std::vector<int64_t>{3, 3, 0, -1, 1, 2, 2, 2, 0, 1, 0, 0, 3, 1, 1});
        return take_along_axis(x[0], idx, axis);
      }, {Shape{3, 4}}, {v});
    }
    // a broadcast array: its single row gets every pick's gradient
    expect_gradients_match(fx.ctx, [&fx](const std::vector<NDArray>& x) {
      return take_along_axis(x[0], make<int64_t>(fx.ctx, Shape{3, 2}, {0, 3, 3, 3, 1, 0}), 1);
    }, {Shape{1, 4}}, {std::vector<float>(v.begin(), v.begin() + 4)});
  });
}

TEST(Sorting, OneOpSortsAndWhileRecordingTheValuesArePickedByTakeAlongAxis) {
  run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    Context::Options options;
    options.engine.cpu_workers = 2;
    options.engine.recorder = recorder;
    const ContextPtr ctx = Context::create(options);
    NDArray x = from_host(ctx, Shape{4, 8}, host_random(32, 2));
    const Sorted plain = sort_with_indices(x);
    NDArray only_values = sort(x, 0);
    NDArray top = topk(x, 3).values;
    x.attach_grad();
    NDArray recorded;
    {
      autograd::Record record;
      recorded = sort(x, 1, true);
    }
    recorded.backward();
    ctx->wait_all();
    const trace::TraceModel model = trace::snapshot(*recorder);
    std::map<std::string, int> count;
    std::map<std::string, int> writes;
    for (const trace::OpInfo& op : model.ops) {
      if (!op.known() || op.internal) continue;
      const std::string name(model.op_name(op));
      ++count[name];
      writes[name] = std::max(writes[name], static_cast<int>(op.num_writes));
    }
    EXPECT_EQ(count["sort"], 2) << "sort_with_indices and sort: one op each";
    EXPECT_EQ(writes["sort"], 2) << "values and indices written by one op";
    EXPECT_EQ(count["topk"], 1);
    EXPECT_EQ(count["argsort"], 1) << "the recorded sort's indices";
    EXPECT_EQ(count["take_along_axis"], 1) << "its values";
    EXPECT_EQ(count["take_along_axis_backward"], 1);
    EXPECT_EQ(count["gather"], 0);
    EXPECT_EQ(x.grad().to_host(), std::vector<float>(32, 1.0f));
  });
}

}  // namespace
}  // namespace asyncscope
