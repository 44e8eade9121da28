// NDArray lifetime and memory: exact accounting through the allocator,
// freeing after pending ops, budget refusal at the sync point, and the
// asynchronous behaviour of pushes.
#include "engine/tensor/ndarray.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>

#include "engine/core/errors.h"
#include "engine/tensor/ops.h"
#include "engine/trace/model.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

struct Fixture {
  std::shared_ptr<PooledAllocator> allocator;
  ContextPtr ctx;
  explicit Fixture(int64_t budget = int64_t{1} << 30, int workers = 2,
                   std::shared_ptr<trace::Recorder> recorder = nullptr) {
    PooledAllocator::Options a;
    a.budget_bytes = budget;
    allocator = std::make_shared<PooledAllocator>(std::make_unique<HostBlockSource>(), a);
    Context::Options o;
    o.allocator = allocator;
    o.engine.cpu_workers = workers;
    o.engine.recorder = std::move(recorder);
    ctx = Context::create(o);
  }
};

TEST(NDArray, LiveBytesAreExactAndReturnToZero) {
  testing::run_with_timeout([] {
    Fixture f;
    {
      NDArray a = ones(f.ctx, {100, 10});
      NDArray b = a * 2.0f;
      NDArray s = sum(b);
      EXPECT_FLOAT_EQ(s.item(), 2000.0f);
      f.ctx->engine().wait_all();
      EXPECT_EQ(f.allocator->live_bytes(), (1000 + 1000 + 1) * 4);
    }
    f.ctx->engine().wait_all();  // the frees are ops too
    EXPECT_EQ(f.allocator->live_bytes(), 0);
    EXPECT_EQ(f.allocator->stats().peak_live_bytes, (1000 + 1000 + 1) * 4);
  });
}

// Chunks are recycled: one given back is handed out again as a new chunk,
// and an array made on it is a new array (nothing of the old one shows).
TEST(NDArray, ARecycledChunkIsANewChunk) {
  testing::run_with_timeout([] {
    Fixture f;
    detail::Chunk* chunk = detail::new_chunk();
    chunk->context = f.ctx;
    chunk->storage_refs = 3;
    chunk->handles.store(5);
    chunk->shape = Shape{2, 3};
    chunk->bytes = 24;
    chunk->base = chunk;
    detail::recycle_chunk(chunk);
    EXPECT_EQ(f.ctx.use_count(), 1) << "recycling drops the chunk's hold on its context";
    detail::Chunk* again = detail::new_chunk();  // this thread gave it last, so it comes first
    ASSERT_EQ(again, chunk);
    EXPECT_EQ(again->handles.load(), 1);
    EXPECT_EQ(again->storage_refs, 1);
    EXPECT_EQ(again->context, nullptr);
    EXPECT_EQ(again->var, nullptr);
    EXPECT_EQ(again->data, nullptr);
    EXPECT_EQ(again->shape.ndim(), 0);
    EXPECT_EQ(again->bytes, 0u);
    EXPECT_EQ(again->base, nullptr);
    EXPECT_EQ(again->grad, nullptr);
    EXPECT_EQ(again->next_free, nullptr);
    detail::recycle_chunk(again);

    // Through arrays: views are dropped on this thread, so the next array
    // takes their chunks; it must still be unwritten and keep its own shape.
    NDArray x = ones(f.ctx, {4, 4});
    for (int i = 0; i < 10; ++i) {
      NDArray v = reshape(x, Shape{16});
      EXPECT_EQ(v.shape(), (Shape{16}));
    }
    NDArray fresh = NDArray::empty(f.ctx, {2, 2});
    EXPECT_EQ(fresh.shape(), (Shape{2, 2}));
    EXPECT_THROW(fresh.to_host(), std::logic_error) << "an array no op wrote cannot be read";
    EXPECT_FLOAT_EQ(sum(x).item(), 16.0f);
  });
}

TEST(NDArray, DroppedArraysAreFreedOnlyAfterTheOpsThatUseThem) {
  testing::run_with_timeout([] {
    Fixture f;
    NDArray x = uniform(f.ctx, {300, 300});
    // The dot result is dropped at once; sum must still read valid memory.
    NDArray s = sum(dot(x, x));
    NDArray reference_dot = dot(x, x);
    EXPECT_NEAR(s.item(), sum(reference_dot).item(), 1e-2f * std::abs(s.item()));
  });
}

TEST(NDArray, AllocationsBeyondTheBudgetFailAtTheSyncPoint) {
  testing::run_with_timeout([] {
    Fixture f(1 << 20);  // 1 MiB
    NDArray small = ones(f.ctx, {1000});
    NDArray huge = ones(f.ctx, {1000, 1000});  // 4 MB: push succeeds, the op fails
    NDArray derived = huge + 1.0f;
    EXPECT_NO_THROW(small.wait_to_read());
    try {
      derived.wait_to_read();
      FAIL() << "expected the budget error";
    } catch (const OpError& e) {
      EXPECT_EQ(e.op_name(), "ones");
      EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("op 'ones' (#"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("failed: the 1000x1000 array: host allocator: allocating"),
                std::string::npos)
          << e.what();
      bool budget_error = false;
      try {
        std::rethrow_exception(e.cause());
      } catch (const MemoryBudgetError&) {
        budget_error = true;
      } catch (...) {
      }
      EXPECT_TRUE(budget_error);
    }
    EXPECT_THROW(f.ctx->engine().wait_all(), OpError);
    // Nothing was allocated for the refused array; the engine still works.
    EXPECT_FLOAT_EQ(sum(small).item(), 1000.0f);
  });
}

TEST(NDArray, PushReturnsBeforeTheWorkIsDone) {
  testing::run_with_timeout([] {
    auto recorder = std::make_shared<trace::Recorder>();
    Fixture f(int64_t{1} << 30, 2, recorder);
    NDArray x = uniform(f.ctx, {600, 600});
    NDArray y = sum(dot(x, x));
    y.wait_to_read();
    // From the trace: every enqueue happened before the GEMM ended, and the
    // wait lasted until the reduction ended.
    const auto m = trace::snapshot(*recorder);
    const trace::OpInfo* gemm = nullptr;
    const trace::OpInfo* reduce = nullptr;
    for (const auto& op : m.ops) {
      if (m.op_name(op) == "dot") gemm = &op;
      if (m.op_name(op) == "sum") reduce = &op;
    }
    ASSERT_TRUE(gemm && reduce);
    for (const auto& op : m.ops) {
      if (op.known() && !op.internal) {
        EXPECT_LT(op.enqueue, gemm->end) << m.op_name(op);
      }
    }
    ASSERT_FALSE(m.syncs.empty());
    EXPECT_EQ(m.syncs.back().kind, trace::SyncKind::wait_to_read);
    EXPECT_GE(m.syncs.back().end, reduce->end);
  });
}

TEST(NDArray, SyncKindsAreRecorded) {
  auto recorder = std::make_shared<trace::Recorder>();
  Fixture f(int64_t{1} << 30, 2, recorder);
  NDArray a = ones(f.ctx, {2});
  a.wait_to_read();
  a.to_host();
  sum(a).item();
  std::ostringstream out;
  out << a;
  f.ctx->engine().wait_all();
  const auto m = trace::snapshot(*recorder);
  std::vector<trace::SyncKind> kinds;
  for (const auto& s : m.syncs) kinds.push_back(s.kind);
  const std::vector<trace::SyncKind> want = {trace::SyncKind::wait_to_read, trace::SyncKind::to_host,
                                             trace::SyncKind::item, trace::SyncKind::print,
                                             trace::SyncKind::wait_all};
  EXPECT_EQ(kinds, want);
  EXPECT_EQ(m.syncs[0].target, a.var()->id());
}

TEST(NDArray, CopiesShareStorageAndMovesLeaveNull) {
  Fixture f;
  NDArray a = full(f.ctx, {3}, 7.0f);
  NDArray b = a;
  EXPECT_EQ(a.var(), b.var());
  NDArray c = std::move(a);
  EXPECT_TRUE(a.is_null());  // NOLINT(bugprone-use-after-move): documented state
  c += ones(f.ctx, {3});
  EXPECT_EQ(b.to_host(), (std::vector<float>{8, 8, 8}));
}

TEST(Context, BlasThreadsShareTheCoresWithWorkers) {
  Context::Options one;
  one.engine.cpu_workers = 1;
  EXPECT_EQ(Context::create(one)->blas_threads(), hardware_threads());
  Context::Options many;
  many.engine.cpu_workers = hardware_threads();
  EXPECT_EQ(Context::create(many)->blas_threads(), 1);
  Context::Options forced;
  forced.blas_threads = 3;
  EXPECT_EQ(Context::create(forced)->blas_threads(), 3);
  forced.blas_threads = -1;
  EXPECT_THROW(Context::create(forced), std::invalid_argument);
}

TEST(NDArray, UnsupportedDeviceIsRefusedAtCreation) {
  Fixture f;
  EXPECT_THROW(NDArray::empty(f.ctx, {2}, Device::cuda(0)), std::invalid_argument);
}

}  // namespace
}  // namespace asyncscope
