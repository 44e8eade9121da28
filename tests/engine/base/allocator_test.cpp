#include "engine/base/allocator.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace asyncscope {
namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;

// What a CountingSource handed out and got back; outlives the allocator that owns the source.
struct Ledger {
  std::mutex mutex;
  std::unordered_map<void*, size_t> outstanding;
  uint64_t allocations = 0;
  uint64_t releases = 0;
  uint64_t bad_releases = 0;  // unknown pointer, double release or wrong size
  uint64_t bad_sizes = 0;     // not a non-zero multiple of kAlignment
  int failures_to_inject = 0;

  size_t outstanding_count() {
    std::lock_guard lock(mutex);
    return outstanding.size();
  }
};

class CountingSource final : public BlockSource {
 public:
  explicit CountingSource(std::shared_ptr<Ledger> ledger) : ledger_(std::move(ledger)) {}

  void* allocate(size_t bytes) override {
    std::lock_guard lock(ledger_->mutex);
    if (ledger_->failures_to_inject > 0) {
      --ledger_->failures_to_inject;
      throw std::bad_alloc();
    }
    if (bytes == 0 || bytes % PooledAllocator::kAlignment != 0) ++ledger_->bad_sizes;
    void* p = std::aligned_alloc(PooledAllocator::kAlignment, bytes);
    if (p == nullptr) throw std::bad_alloc();
    ledger_->outstanding.emplace(p, bytes);
    ++ledger_->allocations;
    return p;
  }

  void release(void* p, size_t bytes) noexcept override {
    std::lock_guard lock(ledger_->mutex);
    ++ledger_->releases;
    auto it = ledger_->outstanding.find(p);
    if (it == ledger_->outstanding.end() || it->second != bytes) {
      ++ledger_->bad_releases;
      return;
    }
    ledger_->outstanding.erase(it);
    std::free(p);
  }

  const char* name() const override { return "counting"; }

 private:
  std::shared_ptr<Ledger> ledger_;
};

struct Fixture {
  std::shared_ptr<Ledger> ledger = std::make_shared<Ledger>();
  PooledAllocator alloc;

  explicit Fixture(int64_t budget, int64_t max_pooled = PooledAllocator::kDefault)
      : alloc(std::make_unique<CountingSource>(ledger),
              PooledAllocator::Options{budget, max_pooled}) {}
};

void expect_same_stats(const MemoryStats& a, const MemoryStats& b) {
  EXPECT_EQ(a.live_bytes, b.live_bytes);
  EXPECT_EQ(a.charged_bytes, b.charged_bytes);
  EXPECT_EQ(a.pooled_bytes, b.pooled_bytes);
  EXPECT_EQ(a.peak_live_bytes, b.peak_live_bytes);
  EXPECT_EQ(a.budget_bytes, b.budget_bytes);
  EXPECT_EQ(a.max_pooled_bytes, b.max_pooled_bytes);
  EXPECT_EQ(a.allocations, b.allocations);
  EXPECT_EQ(a.pool_hits, b.pool_hits);
  EXPECT_EQ(a.pool_misses, b.pool_misses);
}

// A deadlock must fail the run, not hang it: a future that never becomes
// ready cannot be abandoned (its destructor waits), so abort instead.
template <typename Fn>
void run_with_timeout(Fn fn, std::chrono::seconds limit = std::chrono::seconds(30)) {
  auto done = std::async(std::launch::async, std::move(fn));
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "concurrent test did not finish within %lld s: deadlock?\n",
                 static_cast<long long>(limit.count()));
    std::abort();
  }
  done.get();
}

// Restores an environment variable when the test ends, however it ends.
class ScopedEnv {
 public:
  explicit ScopedEnv(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Allocator, SizeClassesRoundToCacheLinesThenPages) {
  EXPECT_EQ(PooledAllocator::size_class(0), 0u);
  EXPECT_EQ(PooledAllocator::size_class(1), 64u);
  EXPECT_EQ(PooledAllocator::size_class(64), 64u);
  EXPECT_EQ(PooledAllocator::size_class(65), 128u);
  EXPECT_EQ(PooledAllocator::size_class(4096), 4096u);
  EXPECT_EQ(PooledAllocator::size_class(4097), 8192u);
  EXPECT_EQ(PooledAllocator::size_class(3 * 4096 - 5), 3u * 4096);
}

TEST(Allocator, ExactLivePooledPeakAfterSequence) {
  Fixture f(kMiB, kMiB);
  void* a = f.alloc.allocate(100);
  void* b = f.alloc.allocate(5000);
  MemoryStats s = f.alloc.stats();
  EXPECT_EQ(s.live_bytes, 5100);
  EXPECT_EQ(s.pooled_bytes, 0);
  EXPECT_EQ(s.peak_live_bytes, 5100);
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_EQ(s.pool_misses, 2u);

  f.alloc.deallocate(a, 100);
  EXPECT_EQ(f.alloc.live_bytes(), 5000);
  EXPECT_EQ(f.alloc.pooled_bytes(), 128);
  f.alloc.deallocate(b, 5000);
  EXPECT_EQ(f.alloc.live_bytes(), 0);
  EXPECT_EQ(f.alloc.pooled_bytes(), 128 + 8192);

  void* c = f.alloc.allocate(7000);  // class 8192: reuses b's block
  EXPECT_EQ(c, b);
  s = f.alloc.stats();
  EXPECT_EQ(s.live_bytes, 7000);
  EXPECT_EQ(s.pooled_bytes, 128);
  EXPECT_EQ(s.peak_live_bytes, 7000);
  EXPECT_EQ(s.allocations, 3u);
  EXPECT_EQ(s.pool_hits, 1u);
  EXPECT_EQ(s.pool_misses, 2u);

  f.alloc.deallocate(c, 7000);
  f.alloc.reset_peak();
  EXPECT_EQ(f.alloc.stats().peak_live_bytes, 0);
  void* d = f.alloc.allocate(10);
  EXPECT_EQ(f.alloc.stats().peak_live_bytes, 10);
  f.alloc.deallocate(d, 10);
  f.alloc.trim();
  EXPECT_EQ(f.alloc.pooled_bytes(), 0);
  EXPECT_EQ(f.ledger->outstanding_count(), 0u);
  EXPECT_EQ(f.ledger->bad_releases, 0u);
  EXPECT_EQ(f.ledger->bad_sizes, 0u);
}

TEST(Allocator, PoolReturnsSameBlockForSameSizeClass) {
  Fixture f(kMiB, kMiB);
  void* p = f.alloc.allocate(1000);
  f.alloc.deallocate(p, 1000);
  for (size_t bytes : {1000u, 1000u, 1001u, 970u}) {  // all class 1024
    void* q = f.alloc.allocate(bytes);
    EXPECT_EQ(q, p) << bytes;
    f.alloc.deallocate(q, bytes);
  }
  const MemoryStats s = f.alloc.stats();
  EXPECT_EQ(s.pool_hits, 4u);
  EXPECT_EQ(s.pool_misses, 1u);
  EXPECT_EQ(f.ledger->allocations, 1u);

  void* other = f.alloc.allocate(2000);  // another class: a miss, not p
  EXPECT_NE(other, p);
  EXPECT_EQ(f.alloc.stats().pool_misses, 2u);
  f.alloc.deallocate(other, 2000);
}

TEST(Allocator, BlocksAreAligned) {
  Fixture f(64 * kMiB);
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t bytes : {1u, 3u, 63u, 64u, 100u, 4095u, 4097u, 100000u}) {
    void* p = f.alloc.allocate(bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % PooledAllocator::kAlignment, 0u) << bytes;
    std::memset(p, 0xab, bytes);
    blocks.emplace_back(p, bytes);
  }
  for (auto [p, bytes] : blocks) f.alloc.deallocate(p, bytes);
  EXPECT_EQ(f.alloc.live_bytes(), 0);
}

// Blocks of 4 MiB and more are mapped on their own at a 2 MiB boundary (for
// transparent huge pages); every byte is usable, and release unmaps exactly
// what was mapped, also for sizes that are not whole pages.
TEST(Allocator, LargeHostBlocksStartOnHugePageBoundariesAndAreWholeAndReleased) {
  HostBlockSource source;
  for (size_t bytes : {size_t{4} << 20, (size_t{16} << 20) + 100, (size_t{5} << 20) + 4096 * 3}) {
    auto* p = static_cast<unsigned char*>(source.allocate(bytes));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t{2} << 20), 0u) << bytes;
    std::memset(p, 0xab, bytes);
    EXPECT_EQ(p[0], 0xab);
    EXPECT_EQ(p[bytes - 1], 0xab);
    source.release(p, bytes);
  }
  // Smaller blocks keep the allocator's 64-byte alignment.
  void* small = source.allocate(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % PooledAllocator::kAlignment, 0u);
  source.release(small, 1000);
}

TEST(Allocator, ZeroBytesReturnsSentinelAndCountsNothing) {
  Fixture f(kMiB);
  const MemoryStats before = f.alloc.stats();
  void* p = f.alloc.allocate(0);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(p, PooledAllocator::zero_size_block());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % PooledAllocator::kAlignment, 0u);
  f.alloc.deallocate(p, 0);
  f.alloc.deallocate(nullptr, 128);
  expect_same_stats(before, f.alloc.stats());
  EXPECT_EQ(f.ledger->allocations, 0u);
}

TEST(Allocator, BudgetRefusalThrowsAndChangesNothing) {
  Fixture f(64 * kKiB, 0);
  void* a = f.alloc.allocate(40 * kKiB);
  const MemoryStats before = f.alloc.stats();
  try {
    f.alloc.allocate(30 * kKiB);
    FAIL() << "expected MemoryBudgetError";
  } catch (const MemoryBudgetError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("memory budget of 64.0 KB"), std::string::npos) << what;
    EXPECT_NE(what.find("40.0 KB live"), std::string::npos) << what;
    EXPECT_NE(what.find("ASYNCSCOPE_MEMORY_BUDGET_MB"), std::string::npos) << what;  // what a user can set
    EXPECT_EQ(what.find("::"), std::string::npos) << what;                          // no C++ names
    EXPECT_EQ(e.requested_bytes(), 30 * kKiB);
    EXPECT_EQ(e.budget_bytes(), 64 * kKiB);
    EXPECT_EQ(e.live_bytes(), 40 * kKiB);
  }
  expect_same_stats(before, f.alloc.stats());
  EXPECT_THROW(f.alloc.allocate(PooledAllocator::kMaxRequestBytes + 1), MemoryBudgetError);
  EXPECT_THROW(f.alloc.allocate(SIZE_MAX), MemoryBudgetError);
  expect_same_stats(before, f.alloc.stats());
  EXPECT_EQ(f.ledger->allocations, 1u);

  f.alloc.set_budget(128 * kKiB);  // raising it lets the same request through
  void* b = f.alloc.allocate(30 * kKiB);
  f.alloc.deallocate(b, 30 * kKiB);
  f.alloc.deallocate(a, 40 * kKiB);
}

TEST(Allocator, CachedBlocksAreEvictedBeforeRefusing) {
  Fixture f(64 * kKiB, 64 * kKiB);
  void* a = f.alloc.allocate(32 * kKiB);
  void* b = f.alloc.allocate(16 * kKiB);
  f.alloc.deallocate(a, 32 * kKiB);
  f.alloc.deallocate(b, 16 * kKiB);
  ASSERT_EQ(f.alloc.pooled_bytes(), 48 * kKiB);

  // 48 cached + 40 new > 64: the largest cached class (32 KiB) goes, which is enough.
  void* c = f.alloc.allocate(40 * kKiB);
  EXPECT_EQ(f.alloc.live_bytes(), 40 * kKiB);
  EXPECT_EQ(f.alloc.pooled_bytes(), 16 * kKiB);
  EXPECT_EQ(f.ledger->releases, 1u);

  // 40 live + 16 cached + 20 new > 64: the 16 KiB block goes too.
  void* d = f.alloc.allocate(20 * kKiB);
  EXPECT_EQ(f.alloc.live_bytes(), 60 * kKiB);
  EXPECT_EQ(f.alloc.pooled_bytes(), 0);
  EXPECT_EQ(f.ledger->releases, 2u);

  // Live memory alone is now the limit: nothing left to evict.
  EXPECT_THROW(f.alloc.allocate(8 * kKiB), MemoryBudgetError);
  f.alloc.deallocate(c, 40 * kKiB);
  f.alloc.deallocate(d, 20 * kKiB);
  EXPECT_EQ(f.alloc.stats().peak_live_bytes, 60 * kKiB);
}

// Trace buffers and op records are charged against the same budget as
// arrays: one bound for everything a run grows with.
TEST(Allocator, ChargesShareTheBudgetWithArrays) {
  Fixture f(64 * kKiB, 64 * kKiB);
  void* cached = f.alloc.allocate(16 * kKiB);
  f.alloc.deallocate(cached, 16 * kKiB);
  ASSERT_EQ(f.alloc.pooled_bytes(), 16 * kKiB);

  // A charge makes room by evicting cached blocks, as an array would.
  EXPECT_TRUE(f.alloc.charge(56 * kKiB, "the trace buffers"));
  EXPECT_EQ(f.alloc.charged_bytes(), 56 * kKiB);
  EXPECT_EQ(f.alloc.pooled_bytes(), 0);
  // Arrays now see 8 KiB left.
  EXPECT_THROW(f.alloc.allocate(16 * kKiB), MemoryBudgetError);
  void* a = f.alloc.allocate(8 * kKiB);
  // A refused charge names what was charged and the budget, and counts nothing.
  const MemoryStats before = f.alloc.stats();
  try {
    f.alloc.charge(kKiB, "the trace buffers");
    FAIL() << "expected MemoryBudgetError";
  } catch (const MemoryBudgetError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("the trace buffers: ", 0), 0u) << what;
    EXPECT_NE(what.find("memory budget of 64.0 KB"), std::string::npos) << what;
    EXPECT_EQ(e.live_bytes(), 64 * kKiB);
  }
  expect_same_stats(before, f.alloc.stats());
  // Forced: counted past the budget, and said so.
  EXPECT_FALSE(f.alloc.charge(kKiB, "freeing an array", /*force=*/true));
  EXPECT_EQ(f.alloc.charged_bytes(), 57 * kKiB);
  f.alloc.uncharge(57 * kKiB);
  EXPECT_EQ(f.alloc.charged_bytes(), 0);
  f.alloc.deallocate(a, 8 * kKiB);
  EXPECT_EQ(f.alloc.live_bytes(), 0);
}

TEST(Allocator, MaxPooledBytesIsRespected) {
  Fixture f(kMiB, 10 * kKiB);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(f.alloc.allocate(4 * kKiB));
  for (void* p : blocks) f.alloc.deallocate(p, 4 * kKiB);
  EXPECT_EQ(f.alloc.pooled_bytes(), 8 * kKiB);  // a third block would make 12 > 10
  EXPECT_EQ(f.ledger->releases, 2u);
  EXPECT_EQ(f.alloc.live_bytes(), 0);

  Fixture no_cache(kMiB, 0);
  void* p = no_cache.alloc.allocate(100);
  no_cache.alloc.deallocate(p, 100);
  EXPECT_EQ(no_cache.alloc.pooled_bytes(), 0);
  EXPECT_EQ(no_cache.ledger->outstanding_count(), 0u);
}

TEST(Allocator, DefaultPoolCapFollowsBudget) {
  Fixture f(kMiB);
  EXPECT_EQ(f.alloc.stats().max_pooled_bytes, 256 * kKiB);
  std::vector<void*> blocks;
  for (int i = 0; i < 50; ++i) blocks.push_back(f.alloc.allocate(4 * kKiB));
  for (void* p : blocks) f.alloc.deallocate(p, 4 * kKiB);
  EXPECT_EQ(f.alloc.pooled_bytes(), 200 * kKiB);

  f.alloc.set_budget(400 * kKiB);  // cap becomes 100 KiB; the excess is released now
  EXPECT_EQ(f.alloc.stats().max_pooled_bytes, 100 * kKiB);
  EXPECT_EQ(f.alloc.pooled_bytes(), 100 * kKiB);
  EXPECT_EQ(f.ledger->outstanding_count(), 25u);

  f.alloc.set_budget(int64_t{64} << 30);
  EXPECT_EQ(f.alloc.stats().max_pooled_bytes, int64_t{2} << 30);
  EXPECT_THROW(f.alloc.set_budget(0), std::invalid_argument);
}

TEST(Allocator, SourceFailureTrimsCacheAndRetriesOnce) {
  Fixture f(kMiB, kMiB);
  void* a = f.alloc.allocate(8 * kKiB);
  f.alloc.deallocate(a, 8 * kKiB);
  f.ledger->failures_to_inject = 1;
  void* b = f.alloc.allocate(16 * kKiB);  // fails once, cache is given back, retried
  EXPECT_EQ(f.alloc.pooled_bytes(), 0);
  EXPECT_EQ(f.alloc.live_bytes(), 16 * kKiB);

  const MemoryStats before = f.alloc.stats();
  f.ledger->failures_to_inject = 1;  // nothing cached: the failure propagates
  EXPECT_THROW(f.alloc.allocate(32 * kKiB), std::bad_alloc);
  expect_same_stats(before, f.alloc.stats());
  f.alloc.deallocate(b, 16 * kKiB);
}

TEST(Allocator, InvalidConstructionIsRejected) {
  EXPECT_THROW(PooledAllocator(nullptr, {kMiB, 0}), std::invalid_argument);
  EXPECT_THROW(PooledAllocator(std::make_unique<HostBlockSource>(), {0, 0}), std::invalid_argument);
  EXPECT_THROW(PooledAllocator(std::make_unique<HostBlockSource>(), {kMiB, -2}),
               std::invalid_argument);
}

// Threads allocate and free random sizes, stamp each block with its owner to
// catch a block handed out twice, and a sampler polls the lock-free counters.
void run_concurrent_workload(int64_t budget, int64_t max_pooled) {
  constexpr int kThreads = 4;
  constexpr int kOpsPerThread = 10000;
  constexpr size_t kSizes[] = {16, 100, 1000, 4000, 5000, 20000, 70000};
  Fixture f(budget, max_pooled);
  std::atomic<bool> stop{false};
  std::atomic<int> corruptions{0};
  std::atomic<uint64_t> refusals{0};

  run_with_timeout([&] {
    std::thread sampler([&] {
      while (!stop.load()) {
        const int64_t live = f.alloc.live_bytes();
        const int64_t pooled = f.alloc.pooled_bytes();
        if (live < 0 || pooled < 0) corruptions.fetch_add(1);
        const MemoryStats s = f.alloc.stats();
        if (s.pool_hits + s.pool_misses != s.allocations || s.live_bytes > s.peak_live_bytes ||
            s.live_bytes > s.budget_bytes || s.pooled_bytes > s.max_pooled_bytes) {
          corruptions.fetch_add(1);
        }
      }
    });
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&, t] {
        std::mt19937 rng(1234 + t);
        const auto stamp = static_cast<unsigned char>(t + 1);
        std::vector<std::pair<unsigned char*, size_t>> held;
        auto release_one = [&](size_t i) {
          auto [p, bytes] = held[i];
          if (p[0] != stamp || p[bytes - 1] != stamp) corruptions.fetch_add(1);
          f.alloc.deallocate(p, bytes);
          held[i] = held.back();
          held.pop_back();
        };
        for (int op = 0; op < kOpsPerThread; ++op) {
          if (!held.empty() && (held.size() >= 16 || rng() % 2 == 0)) {
            release_one(rng() % held.size());
            continue;
          }
          const size_t bytes = kSizes[rng() % std::size(kSizes)];
          try {
            auto* p = static_cast<unsigned char*>(f.alloc.allocate(bytes));
            p[0] = p[bytes - 1] = stamp;
            held.emplace_back(p, bytes);
          } catch (const MemoryBudgetError&) {
            refusals.fetch_add(1);
          }
        }
        while (!held.empty()) release_one(held.size() - 1);
      });
    }
    for (auto& w : workers) w.join();
    stop.store(true);
    sampler.join();
  });

  EXPECT_EQ(corruptions.load(), 0);
  const MemoryStats s = f.alloc.stats();
  EXPECT_EQ(s.live_bytes, 0);
  EXPECT_EQ(s.pool_hits + s.pool_misses, s.allocations);
  EXPECT_GT(s.pool_hits, 0u);
  EXPECT_LE(s.peak_live_bytes, budget);
  EXPECT_LE(s.pooled_bytes, s.max_pooled_bytes);
  f.alloc.trim();
  EXPECT_EQ(f.alloc.pooled_bytes(), 0);
  std::lock_guard lock(f.ledger->mutex);
  EXPECT_TRUE(f.ledger->outstanding.empty());
  EXPECT_EQ(f.ledger->allocations, f.ledger->releases);
  EXPECT_EQ(f.ledger->bad_releases, 0u);
  EXPECT_EQ(f.ledger->bad_sizes, 0u);
  if (budget < 1 * kMiB) {
    EXPECT_GT(refusals.load(), 0u) << "the tight budget was never hit";
  }
}

TEST(Allocator, ConcurrentAllocFreeKeepsExactStats) {
  run_concurrent_workload(64 * kMiB, 16 * kMiB);
}

TEST(Allocator, ConcurrentAllocFreeUnderTightBudget) {
  // 4 threads x up to 16 blocks of up to 72 KiB want ~4.5 MiB; 512 KiB forces
  // eviction and refusals to race with frees.
  run_concurrent_workload(512 * kKiB, 256 * kKiB);
}

TEST(Allocator, DefaultBudgetIsAFractionOfPhysicalRam) {
  ScopedEnv restore("ASYNCSCOPE_MEMORY_BUDGET_MB");
  unsetenv("ASYNCSCOPE_MEMORY_BUDGET_MB");
  const int64_t ram = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  const int64_t budget = PooledAllocator::default_budget_bytes();
  EXPECT_GT(budget, 0);
  EXPECT_LT(budget, ram);
  EXPECT_LE(budget, ram / 2);

  setenv("ASYNCSCOPE_MEMORY_BUDGET_MB", "512", 1);
  EXPECT_EQ(PooledAllocator::default_budget_bytes(), 512 * kMiB);
  for (const char* bad : {"", "abc", "12x", "-5", "0", "99999999999999999999"}) {
    setenv("ASYNCSCOPE_MEMORY_BUDGET_MB", bad, 1);
    try {
      PooledAllocator::default_budget_bytes();
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ASYNCSCOPE_MEMORY_BUDGET_MB"), std::string::npos);
    }
  }
}

TEST(Allocator, HostAllocatorRoundTrip) {
  PooledAllocator& host = host_allocator();
  EXPECT_EQ(&host, &host_allocator());
  EXPECT_STREQ(host.source().name(), "host");
  const int64_t live_before = host.live_bytes();
  constexpr size_t kFloats = 1000;
  auto* data = static_cast<float*>(host.allocate(kFloats * sizeof(float)));
  for (size_t i = 0; i < kFloats; ++i) data[i] = static_cast<float>(i);
  EXPECT_EQ(data[kFloats - 1], 999.0f);
  EXPECT_EQ(host.live_bytes(), live_before + static_cast<int64_t>(kFloats * sizeof(float)));
  host.deallocate(data, kFloats * sizeof(float));
  EXPECT_EQ(host.live_bytes(), live_before);
}

}  // namespace
}  // namespace asyncscope
