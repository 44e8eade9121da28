// The CUDA backend on a real GPU: every op against the CPU op on the same
// seeds, copies, device memory accounting, errors at the sync point, the
// trace's launch and device spans, and the demos with --device cuda. Without
// a usable GPU each test skips with the reason (cuda::status()); the tests
// that hold everywhere check that the reason is given.
#include "engine/cuda/cuda.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/errors.h"
#include "engine/cuda/kernels.h"
#include "engine/demos/registry.h"
#include "support/run_program.h"
#include "engine/tensor/ops.h"
#include "engine/trace/model.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::run_with_timeout;

// Skips without a usable GPU, saying why; on a machine that must have one
// (ASYNCSCOPE_REQUIRE_GPU set, as on the GPU runner) that is a failure, so a
// broken driver cannot turn the GPU tests into silent skips.
#define REQUIRE_GPU()                                                                          \
  do {                                                                                         \
    if (!cuda::available()) {                                                                  \
      if (std::getenv("ASYNCSCOPE_REQUIRE_GPU") != nullptr) {                                  \
        FAIL() << "ASYNCSCOPE_REQUIRE_GPU is set but CUDA is not available: " << cuda::status().reason; \
      }                                                                                        \
      GTEST_SKIP() << "no GPU: " << cuda::status().reason;                                     \
    }                                                                                          \
  } while (0)

// A CPU context and a GPU context with the same seed: the same ops give the same arrays.
struct Pair {
  ContextPtr cpu;
  ContextPtr gpu;
  std::shared_ptr<trace::Recorder> recorder = std::make_shared<trace::Recorder>();
  explicit Pair(uint64_t seed = 7) {
    Context::Options c;
    c.seed = seed;
    c.engine.cpu_workers = 2;
    cpu = Context::create(c);
    Context::Options g = c;
    g.device = Device::cuda(0);
    g.engine.recorder = recorder;
    gpu = Context::create(g);
  }
};

void expect_close(const std::vector<float>& want, const std::vector<float>& got, float tolerance, const char* what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const float scale = std::max(1.0f, std::fabs(want[i]));
    ASSERT_NEAR(want[i], got[i], tolerance * scale) << what << " at " << i;
  }
}

TEST(Cuda, StatusAlwaysSaysWhetherAndWhy) {
  const cuda::Status& s = cuda::status();
  EXPECT_EQ(s.available, s.reason.empty()) << s.reason;
  if (!s.available) {
    try {
      Context::Options options;
      options.device = Device::cuda(0);
      Context::create(options);
      FAIL() << "a context on a missing GPU must be refused";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(s.reason), std::string::npos) << e.what();
    }
  } else {
    EXPECT_GT(s.device_count, 0);
    EXPECT_FALSE(s.device_name.empty());
    EXPECT_GE(s.compute_capability, 80);
  }
}

TEST(Cuda, CreationMatchesTheCpuOnTheSameSeed) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    const Shape shape{37, 53};  // odd sizes: tails of grid-stride loops and of normal pairs
    expect_close(uniform(p.cpu, shape, -2, 3).to_host(), uniform(p.gpu, shape, -2, 3).to_host(), 0, "uniform");
    expect_close(normal(p.cpu, shape, 1, 2).to_host(), normal(p.gpu, shape, 1, 2).to_host(), 1e-6f, "normal");
    expect_close(zeros(p.cpu, shape).to_host(), zeros(p.gpu, shape).to_host(), 0, "zeros");
    expect_close(full(p.cpu, shape, 2.5f).to_host(), full(p.gpu, shape, 2.5f).to_host(), 0, "full");
    std::vector<float> values(shape.size());
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f - 3.0f;
    EXPECT_EQ(from_host(p.gpu, shape, values).to_host(), values);
  });
}

TEST(Cuda, ElementwiseOpsMatchTheCpu) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    const auto both = [&](auto make) { expect_close(make(p.cpu).to_host(), make(p.gpu).to_host(), 1e-6f, "op"); };
    const auto a = [](const ContextPtr& c) { return uniform(c, {33, 17}, -1, 1); };
    const auto b = [](const ContextPtr& c) { return uniform(c, {33, 17}, 0.5f, 2); };
    both([&](const ContextPtr& c) { return a(c) + b(c); });
    both([&](const ContextPtr& c) { return a(c) - b(c); });
    both([&](const ContextPtr& c) { return a(c) * b(c); });
    both([&](const ContextPtr& c) { return a(c) / b(c); });
    both([&](const ContextPtr& c) { return a(c) + uniform(c, {17}, -1, 1); });      // row broadcast
    both([&](const ContextPtr& c) { return full(c, {1}, 3.0f) * a(c); });          // scalar broadcast
    both([&](const ContextPtr& c) { return 2.0f - a(c) / 4.0f + 1.0f; });
    both([&](const ContextPtr& c) { return 1.0f / b(c) * 3.0f - (-a(c)); });
    both([&](const ContextPtr& c) { return relu(a(c)); });
    both([&](const ContextPtr& c) { return relu_grad(a(c), b(c)); });
    both([&](const ContextPtr& c) { return transpose(a(c)); });
    both([&](const ContextPtr& c) { return copy(a(c)); });
    both([&](const ContextPtr& c) {
      NDArray y = a(c);
      y += b(c);
      y -= a(c);
      y.add_scaled(b(c), -0.25f);
      y *= 3.0f;
      return y;
    });
  });
}

TEST(Cuda, BroadcastingAxisReductionsAndUnaryFunctionsMatchTheCpu) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    const auto both = [&](auto make, const char* what) {
      expect_close(make(p.cpu).to_host(), make(p.gpu).to_host(), 1e-5f, what);
    };
    const auto a = [](const ContextPtr& c) { return uniform(c, {3, 5, 7}, 0.5f, 2); };
    both([&](const ContextPtr& c) { return a(c) * uniform(c, {5, 1}, -1, 1); }, "column broadcast");
    both([&](const ContextPtr& c) { return uniform(c, {3, 1, 7}, -1, 1) - a(c); }, "middle broadcast on the left");
    both([&](const ContextPtr& c) { return uniform(c, {5, 1}, -1, 1) + uniform(c, {1, 7}, -1, 1); }, "outer sum");
    both([&](const ContextPtr& c) { return broadcast_to(uniform(c, {5, 1}, -1, 1), {3, 5, 7}); }, "broadcast_to");
    both([&](const ContextPtr& c) { return sum_to(a(c), {5, 1}); }, "sum_to");
    both([&](const ContextPtr& c) { return sum(a(c), 1); }, "sum axis 1");
    both([&](const ContextPtr& c) { return mean(a(c), -1, true); }, "mean last axis, keepdims");
    const int outer[] = {0, 2};
    both([&](const ContextPtr& c) { return norm(a(c), outer); }, "norm over two axes");
    both([&](const ContextPtr& c) { return square(a(c)) + sqrt(a(c)); }, "square, sqrt");
    both([&](const ContextPtr& c) { return exp(a(c)) - log(a(c)); }, "exp, log");
    both([&](const ContextPtr& c) { return reshape(a(c), Shape{15, 7}) * 2.0f; }, "a view as an operand");
  });
}

TEST(Cuda, GradientsMatchTheCpu) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    const auto grads = [](const ContextPtr& c) {
      ContextScope scope(c);
      NDArray w = normal({16, 8});
      NDArray b = zeros({16});
      w.attach_grad();
      b.attach_grad();
      NDArray x = normal({32, 8});
      NDArray l;
      {
        autograd::Record record;
        l = mean(square(relu(dot(x, w, false, true) + b)), 1);
      }
      l.backward();
      std::vector<float> out = w.grad().to_host();
      for (float v : b.grad().to_host()) out.push_back(v);
      return out;
    };
    expect_close(grads(p.cpu), grads(p.gpu), 1e-4f, "dense layer gradients");
  });
}

TEST(Cuda, DotAndReductionsMatchTheCpu) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        const auto make = [&](const ContextPtr& c) {
          NDArray x = normal(c, ta ? Shape{65, 31} : Shape{31, 65});
          NDArray y = normal(c, tb ? Shape{47, 65} : Shape{65, 47});
          return dot(x, y, ta, tb);
        };
        expect_close(make(p.cpu).to_host(), make(p.gpu).to_host(), 1e-4f, "dot");
      }
    }
    const auto x = [](const ContextPtr& c) { return uniform(c, {300, 70}, -1, 2); };
    // Both accumulate in double: the results differ by at most a float rounding.
    const auto near = [](float want, float got) { EXPECT_NEAR(want, got, 4e-7 * std::fabs(want) + 1e-7); };
    near(sum(x(p.cpu)).item(), sum(x(p.gpu)).item());
    near(mean(x(p.cpu)).item(), mean(x(p.gpu)).item());
    near(norm(x(p.cpu)).item(), norm(x(p.gpu)).item());
    expect_close(sum(x(p.cpu), 0).to_host(), sum(x(p.gpu), 0).to_host(), 1e-5f, "sum axis 0");
    expect_close(sum(x(p.cpu), 1).to_host(), sum(x(p.gpu), 1).to_host(), 1e-5f, "sum axis 1");
  });
}

TEST(Cuda, CopiesBetweenHostAndDeviceAreEngineOps) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    NDArray host = uniform(p.cpu, {100});
    // Arrays of one context: move the host array's values into the GPU context through its own host copy.
    NDArray on_gpu = from_host(p.gpu, {100}, host.to_host());
    NDArray back = to(on_gpu * 2.0f, Device::cpu());
    EXPECT_EQ(back.device(), Device::cpu());
    NDArray again = to(back, Device::cuda(0));
    EXPECT_EQ(again.device(), Device::cuda(0));
    const std::vector<float> want = host.to_host();
    const std::vector<float> got = (again / 2.0f).to_host();
    expect_close(want, got, 0, "round trip");
    std::ostringstream printed;
    printed << full(p.gpu, {2}, 1.5f);
    EXPECT_NE(printed.str().find("@cuda:0"), std::string::npos) << printed.str();
    EXPECT_THROW(on_gpu + host, std::invalid_argument) << "operands on different devices";
  });
}

TEST(Cuda, DeviceMemoryIsCountedExactly) {
  REQUIRE_GPU();
  run_with_timeout([] {
    std::shared_ptr<PooledAllocator> pool = cuda::make_device_allocator(Device::cuda(0));
    Context::Options options;
    options.device = Device::cuda(0);
    options.device_allocator = pool;
    auto ctx = Context::create(options);
    {
      NDArray a = zeros(ctx, {1000, 250});  // 1,000,000 bytes
      a.wait_to_read();
      EXPECT_EQ(pool->live_bytes(), 1'000'000);
      NDArray b = a + 1.0f;
      b.wait_to_read();
      EXPECT_EQ(pool->live_bytes(), 2'000'000);
      EXPECT_EQ(pool->stats().peak_live_bytes, 2'000'000);
    }
    ctx->engine().wait_all();
    EXPECT_EQ(pool->live_bytes(), 0);
    EXPECT_GT(pool->pooled_bytes(), 0) << "freed device blocks are cached for reuse";
  });
}

TEST(Cuda, ABudgetRefusalIsTheOpsErrorAtTheSyncPoint) {
  REQUIRE_GPU();
  run_with_timeout([] {
    PooledAllocator::Options small;
    small.budget_bytes = 1 << 20;
    auto pool = std::make_shared<PooledAllocator>(cuda::make_device_source(Device::cuda(0)), small);
    Context::Options options;
    options.device = Device::cuda(0);
    options.device_allocator = pool;
    auto ctx = Context::create(options);
    NDArray fine = zeros(ctx, {16});
    NDArray big = zeros(ctx, {1024, 1024});  // 4 MiB > 1 MiB
    NDArray after = big + 1.0f;
    try {
      after.wait_to_read();
      FAIL() << "expected OpError";
    } catch (const OpError& e) {
      EXPECT_EQ(e.op_name(), "zeros");
    }
    EXPECT_NO_THROW(fine.wait_to_read());
    EXPECT_THROW(ctx->engine().wait_all(), OpError);
    EXPECT_EQ((fine + 1.0f).to_host()[0], 1.0f) << "the engine and the device go on working";
  });
}

TEST(Cuda, TraceShowsLaunchesOnTheHostAndOrderedDeviceSpans) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    std::vector<NDArray> keep;
    for (int i = 0; i < 10; ++i) {
      NDArray x = normal(p.gpu, {256, 256});
      keep.push_back(dot(x, x));
    }
    p.gpu->engine().wait_all();
    const trace::TraceModel m = trace::snapshot(*p.recorder);
    int gpu_ops = 0;
    for (const trace::WorkerLane& lane : m.workers) {
      if (lane.device != trace::DeviceKind::cuda || lane.span != trace::SpanKind::execute) continue;
      int64_t last_end = 0;
      for (uint32_t index : lane.ops) {
        const trace::OpInfo& op = m.ops[index];
        ++gpu_ops;
        EXPECT_LE(op.enqueue, op.launch_start);
        EXPECT_LE(op.launch_start, op.launch_end);
        EXPECT_LE(op.launch_start, op.start);
        EXPECT_LE(op.start, op.end);
        EXPECT_LE(last_end, op.start);
        last_end = op.end;
      }
    }
    EXPECT_GE(gpu_ops, 20);
  });
}

// Basic indexing's views on the device: a contiguous one (x[1:3]) is the
// kernels' part of the storage (a byte offset), a strided one (x[:, 1]) its
// own buffer filled by strided_read and written back by strided_write;
// writes go through to the base, and the results match the CPU's.
TEST(Cuda, ViewsComputeAndWriteThroughOnTheDevice) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    std::vector<float> values(12);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
    Selection rows;  // a[1:3] of a 3 x 4 array
    rows.offset = 4;
    rows.shape = Shape{2, 4};
    rows.strides[0] = 4;
    rows.strides[1] = 1;
    Selection last = rows;  // a[2:3]
    last.offset = 8;
    last.shape = Shape{1, 4};
    Selection column;  // a[:, 1], strided: no view on a GPU
    column.offset = 1;
    column.shape = Shape{3};
    column.strides[0] = 4;
    std::vector<std::vector<float>> got[2];
    for (int side = 0; side < 2; ++side) {
      const ContextPtr& ctx = side == 0 ? p.cpu : p.gpu;
      NDArray a = from_host(ctx, Shape{3, 4}, values);
      std::optional<NDArray> v = view_of(a, rows);
      ASSERT_TRUE(v.has_value());
      got[side].push_back(v->to_host());
      *v += 100.0f;
      got[side].push_back(a.to_host());
      NDArray w = *view_of(a, last);
      got[side].push_back((*v * w - 3.0f).to_host());      // two views of one storage, broadcast
      got[side].push_back(exp(w * 0.01f).to_host());
      got[side].push_back(reduce(*v, Reduction::sum, {}).to_host());
      got[side].push_back(dot(w, transpose(w)).to_host());
      w.fill(-1.0f);
      got[side].push_back(a.to_host());
      // A strided view (a[:, 1]): read through its buffer, written back to a.
      std::optional<NDArray> c = view_of(a, column);
      ASSERT_TRUE(c.has_value());
      got[side].push_back(c->to_host());
      *c *= 10.0f;
      got[side].push_back(a.to_host());
      got[side].push_back((*c * 2.0f + 1.0f).to_host());
    }
    ASSERT_EQ(got[0].size(), got[1].size());
    for (size_t i = 0; i < got[0].size(); ++i) expect_close(got[0][i], got[1][i], 1e-5f, "view result");
  });
}

// The ops of every element type on the device (typed_kernels.cu) against the
// same ops on the CPU: creation, casts, integer and bool arithmetic with
// broadcasting, comparisons, where, each reduction along axes, running sums,
// strided selections read and assigned, take's gradient, integer-array
// indexing and its gradient, concat, slice_axis and its gradient, permute,
// and the host fallbacks (randperm, multinomial) copied to the device.
TEST(Cuda, OpsOfEveryTypeMatchTheCpu) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Pair p;
    struct Result {
      DType dtype;
      std::vector<std::byte> bytes;
    };
    std::vector<Result> got[2];
    for (int side = 0; side < 2; ++side) {
      const ContextPtr& ctx = side == 0 ? p.cpu : p.gpu;
      const Device dev = ctx->device();
      std::vector<Result>& out = got[side];
      const auto keep = [&](const NDArray& a) { out.push_back({a.dtype(), a.to_host_bytes()}); };
      const NDArray i = arange(ctx, -7, 17, 1, DType::int64, dev);           // 24 int64
      const NDArray m = reshape(astype(i, DType::int32), Shape{2, 3, 4});
      const NDArray f = reshape(astype(i, DType::float64) * 0.75f, Shape{2, 3, 4});  // float32 * float64 promotes
      const NDArray u = astype(m, DType::uint8);
      const NDArray b = astype(m, DType::boolean);
      const NDArray three = full(ctx, Shape{4}, 3.0, DType::int32, dev);
      keep(i);
      keep(m);
      keep(f);
      keep(u);
      keep(b);
      keep(full(ctx, Shape{5}, -2.5, DType::int64, dev));
      keep(arange(ctx, 1, 2, 0.25, DType::float64, dev));
      keep(astype(f, DType::int64));
      keep(astype(f, DType::float32));
      keep(m + three);
      keep(m * three);
      keep(floor_divide(m, three));
      keep(mod(m, three));
      keep(pow(m, three));
      keep(maximum(u, astype(three, DType::uint8)));
      keep(f / astype(three, DType::float64));
      keep(compare(m, three, Comparison::greater_equal, true));
      keep(compare(b, astype(three, DType::boolean), Comparison::logical_xor, true));
      keep(where(b, f, astype(m, DType::float64)));
      for (int r = 0; r <= static_cast<int>(Reduction::mean); ++r) {
        const std::vector<std::vector<int>> axis_sets = {{}, {0}, {1, 2}, {2}};
        for (const std::vector<int>& axes : axis_sets) {
          if (static_cast<Reduction>(r) != Reduction::mean) keep(reduce(m, static_cast<Reduction>(r), axes));
          keep(reduce(f, static_cast<Reduction>(r), axes, true));
        }
      }
      keep(reduce(astype(normal(ctx, {300, 1000}), DType::float64), Reduction::sum, std::vector<int>{}));
      keep(cumsum(u, 2));
      keep(cumsum(f, 0, true));
      // Sorting: ties (m's repeats once cast to bool and uint8) in order, every type, both ways.
      for (const NDArray& s : {m, f, u, b}) {
        const Sorted both = sort_with_indices(s, 1, true);
        keep(both.values);
        keep(both.indices);
        keep(sort(s, 0));
        keep(argsort(s, 2));
        const Sorted top = topk(s, 2, -1, false);
        keep(top.values);
        keep(top.indices);
        keep(take_along_axis(s, argsort(s, 2, true), 2));
      }
      // batch_dot, every transpose; take_along_axis's gradient (a broadcast array, repeated picks).
      const NDArray f32 = astype(f, DType::float32);  // (2, 3, 4)
      keep(batch_dot(f32, f32, false, true));
      keep(batch_dot(f32, f32, true, false));
      keep(batch_dot(f32, reshape(f32, Shape{2, 4, 3})));
      NDArray row = astype(reshape(slice_axis(f, 0, 0, 1), Shape{1, 12}), DType::float32);
      row.attach_grad();
      NDArray picked_sum;
      {
        autograd::Record record;
        const NDArray picks = astype(reshape(mod(i, full(ctx, Shape{}, 5.0, DType::int64, dev)), Shape{2, 12}),
                                     DType::int64);
        NDArray picked = take_along_axis(row, picks, 1);
        picked_sum = sum(picked * picked);
      }
      picked_sum.backward();
      keep(row.grad());
      Selection sel;  // m[:, ::2, ::-3] of 2 x 3 x 4
      sel.offset = 3;
      sel.shape = Shape{2, 2, 2};
      sel.strides[0] = 12;
      sel.strides[1] = 8;
      sel.strides[2] = -3;
      keep(take(m, sel));
      NDArray target = astype(m, DType::int64);
      assign(target, sel, full(ctx, Shape{2, 1}, 99.0, DType::int64, dev));
      keep(target);
      NDArray w = astype(f, DType::float32);
      w.attach_grad();
      NDArray loss;
      {
        autograd::Record record;
        NDArray picked = take(w, sel);
        loss = sum(picked * picked);
      }
      loss.backward();
      keep(w.grad());
      // Integer-array indexing: m[[1, -1, 0]] and m[[0, 1], [2, 0]], assigned and differentiated.
      const NDArray rows = from_host_bytes(ctx, Shape{3}, DType::int64, [] {
        std::vector<std::byte> bytes(24);
        const int64_t v[] = {1, -1, 0};
        std::memcpy(bytes.data(), v, 24);
        return bytes;
      }(), dev);
      const NDArray first = astype(arange(ctx, 0, 2, 1, DType::int32, dev), DType::int64);
      const NDArray second = astype(arange(ctx, 2, -1, -2, DType::int32, dev), DType::int64);
      keep(gather(m, std::vector<NDArray>{rows}));
      keep(gather(f, std::vector<NDArray>{first, second}));
      NDArray scattered = astype(m, DType::float64);
      scatter(scattered, std::vector<NDArray>{first, second}, full(ctx, Shape{1}, -5.0, DType::float64, dev));
      keep(scattered);
      NDArray v = astype(f, DType::float32);
      v.attach_grad();
      NDArray gathered_loss;
      {
        autograd::Record record;
        gathered_loss = sum(gather(v, std::vector<NDArray>{rows}) * 2.0f);
      }
      gathered_loss.backward();
      keep(v.grad());
      // Shape ops that copy blocks or strided parts, and slice_axis's gradient.
      keep(concat(std::vector<NDArray>{m, m * three}, 1));
      keep(slice_axis(f, 2, 1, 3));
      keep(permute(m, std::vector<int>{2, 0, 1}));
      NDArray s32 = astype(f, DType::float32);
      s32.attach_grad();
      NDArray sliced_loss;
      {
        autograd::Record record;
        sliced_loss = sum(slice_axis(s32, 1, 1, 3) * 3.0f);
      }
      sliced_loss.backward();
      keep(s32.grad());
      keep(randperm(ctx, 10, dev));
      keep(multinomial(full(ctx, Shape{2, 5}, 1.0, DType::float32, dev), 3, false));
      keep(from_host_bytes(ctx, Shape{2}, DType::int32, std::vector<std::byte>(8, std::byte{1}), dev));
    }
    ASSERT_EQ(got[0].size(), got[1].size());
    for (size_t k = 0; k < got[0].size(); ++k) {
      ASSERT_EQ(got[0][k].dtype, got[1][k].dtype) << "result " << k;
      if (got[0][k].dtype == DType::float64 || got[0][k].dtype == DType::float32) {
        // Reductions in another order: the last bits of the double sums.
        visit_dtype(got[0][k].dtype, [&]<class T>(T) {
          const size_t n = got[0][k].bytes.size() / sizeof(T);
          for (size_t e = 0; e < n; ++e) {
            T a, c;
            std::memcpy(&a, got[0][k].bytes.data() + e * sizeof(T), sizeof(T));
            std::memcpy(&c, got[1][k].bytes.data() + e * sizeof(T), sizeof(T));
            if (std::isnan(a) && std::isnan(c)) continue;
            ASSERT_NEAR(a, c, 1e-5 * std::max<double>(1.0, std::fabs(a))) << "result " << k << " at " << e;
          }
        });
      } else {
        EXPECT_EQ(got[0][k].bytes, got[1][k].bytes) << "result " << k << " (" << name(got[0][k].dtype) << ")";
      }
    }
  });
}

// A script's context: arrays on the CPU by default, a stream for cuda:0 beside
// them (as `asyncscope script` and python3 runs have). Backward of a GPU
// scalar seeds its gradient on the GPU (it was made on the context's default
// device, the CPU, and relu's gradient then mixed the two).
TEST(Cuda, GradientsOfGpuArraysStayOnTheGpuInACpuContext) {
  REQUIRE_GPU();
  run_with_timeout([] {
    Context::Options o;
    o.seed = 7;
    o.engine.gpu_streams = 1;
    o.engine.gpu_device = Device::cuda(0);
    auto ctx = Context::create(o);
    ASSERT_EQ(ctx->device(), Device::cpu());
    NDArray x = full(ctx, Shape{3}, 1.0f, Device::cuda(0));
    x.attach_grad();
    NDArray loss;
    {
      autograd::Record record;
      loss = sum(relu(x * 2.0f));
    }
    loss.backward();
    EXPECT_EQ(x.grad().device(), Device::cuda(0));
    EXPECT_EQ(x.grad().to_host(), (std::vector<float>{2, 2, 2}));
  });
}

// The completer polls an op's end event for a bounded time before it sleeps:
// with polling off, a budget longer than every op, and one shorter than a
// long product, waited ops give the same values and ordered device spans.
TEST(Cuda, CompletionPollBudgetsGiveTheSameResults) {
  REQUIRE_GPU();
  const int64_t before = cuda::completion_poll_ns();
  run_with_timeout([] {
    for (const int64_t poll : {int64_t{0}, int64_t{1'000'000'000}, int64_t{2'000}}) {
      cuda::set_completion_poll_ns(poll);
      EXPECT_EQ(cuda::completion_poll_ns(), poll);
      Pair p;
      NDArray a = normal(p.gpu, {1024, 1024});
      NDArray total = sum(dot(a, a));  // a product of about 1 ms, longer than the 2 us budget
      NDArray cpu_a = normal(p.cpu, {1024, 1024});
      const float want = sum(dot(cpu_a, cpu_a)).item();
      EXPECT_NEAR(total.item(), want, 1e-3f * std::max(std::fabs(want), 1e4f)) << "poll " << poll;
      NDArray y = full(p.gpu, {4}, 1.0f);
      for (int i = 0; i < 50; ++i) {
        y = y + 1.0f;
        y.wait_to_read();
      }
      EXPECT_EQ(y.to_host()[3], 51.0f) << "poll " << poll;
      const trace::TraceModel m = trace::snapshot(*p.recorder);
      for (const trace::OpInfo& op : m.ops) {
        if (op.executed() && op.device == trace::DeviceKind::cuda) {
          EXPECT_LE(op.start, op.end);
        }
      }
    }
  });
  cuda::set_completion_poll_ns(-5);
  EXPECT_EQ(cuda::completion_poll_ns(), 0) << "negative budgets clamp to 0";
  cuda::set_completion_poll_ns(before);
}

// A real device fault: a kernel that writes through an address the device
// does not map. The fault is sticky (it ends the process's CUDA context), so
// the test runs in a fresh process (a thread-safe death test re-executes the
// binary). What must hold there: the reader behind the faulty op gets an
// error naming the fault at its sync point, wait_all reports it too, and
// neither they nor the context's destruction hang.
TEST(CudaFault, AnIllegalAddressReachesTheSyncPointOfItsReader) {
  REQUIRE_GPU();
  const std::string style = GTEST_FLAG_GET(death_test_style);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        run_with_timeout(
            [] {
              Context::Options options;
              options.device = Device::cuda(0);
              auto ctx = Context::create(options);
              NDArray y = zeros(ctx, {16});
              y.wait_to_read();
              Var* const written[] = {y.var()};
              ctx->engine().push(
                  [](const RunContext& rc) {
                    // 0x100 is never a device allocation: the kernel faults.
                    cuda::fill(rc.stream, reinterpret_cast<float*>(uintptr_t{0x100}), 1 << 20, 1.0f);
                  },
                  std::span<Var* const>(), std::span<Var* const>(written), OpMeta("faulty_fill", Device::cuda(0)));
              NDArray z = y + 1.0f;
              try {
                z.wait_to_read();
                std::fprintf(stderr, "the reader's sync point raised nothing\n");
                std::_Exit(3);
              } catch (const OpError& e) {
                std::fprintf(stderr, "reader: op=%s: %s\n", e.op_name().c_str(), e.what());
              }
              try {
                ctx->engine().wait_all();
                std::fprintf(stderr, "wait_all raised nothing\n");
                std::_Exit(4);
              } catch (const OpError& e) {
                std::fprintf(stderr, "wait_all: op=%s: %s\n", e.op_name().c_str(), e.what());
              }
              ctx.reset();  // destruction after a sticky fault must not hang
            },
            std::chrono::seconds(60));
        std::fflush(stderr);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "reader: op=.*illegal memory access");
  GTEST_FLAG_SET(death_test_style, style);
}

class CudaDemo : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(All, CudaDemo,
                         ::testing::Values("host-vs-gpu", "queued-vs-finished", "sync-vs-async", "memory-and-sync",
                                           "sync-functions", "dependency-graph"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST_P(CudaDemo, RunsOnTheGpu) {
  REQUIRE_GPU();
  const char* name = GetParam();
  run_with_timeout([name] {
    const testing::ProgramRun r = testing::run_demo(name, {{"device", "cuda"}});
    EXPECT_FALSE(r.results.rows.empty());
    // Device memory has its own counter lane.
    EXPECT_GE(r.model.counter_index(demos::kDeviceLiveCounter), 0);
  });
}

// CUDA and cuBLAS load the kernels a shape needs on its first use (tens of
// milliseconds, far more than the product itself). The demos that time a
// product or a wait warm up at the measured size first, so that cost is not
// charged to what they measure: a product of that size has finished before
// the first marker.
TEST(CudaDemoWarmUp, TheMeasuredProductsShapeRunsBeforeTheMeasurement) {
  REQUIRE_GPU();
  for (const char* name : {"queued-vs-finished", "sync-functions"}) {
    run_with_timeout([name] {
      const testing::ProgramRun r = testing::run_demo(name, {{"device", "cuda"}, {"size", "384"}});
      ASSERT_FALSE(r.model.markers.empty()) << name;
      const int64_t first_marker = r.model.markers.front().t;
      bool warmed = false;
      for (const trace::OpInfo& op : r.model.ops) {
        if (op.known() && op.executed() && r.model.op_name(op) == "dot" && op.out_bytes == 384u * 384u * 4u &&
            op.end <= first_marker) {
          warmed = true;
        }
      }
      EXPECT_TRUE(warmed) << name << ": no warm-up product of the measured size before the measurement";
    });
  }
}

}  // namespace
}  // namespace asyncscope
