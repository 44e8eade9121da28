// ChunkedLog: one writer appends, readers on other threads see a consistent,
// growing prefix; the capacity bound drops (and counts) instead of growing.
#include "engine/trace_record/chunked_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "support/timeout.h"

namespace asyncscope::trace {
namespace {

using testing::run_with_timeout;

constexpr size_t kChunk = ChunkedLog<int>::kChunkSize;

TEST(ChunkedLog, StartsEmpty) {
  ChunkedLog<int> log(100);
  EXPECT_EQ(log.size(), 0u);
  EXPECT_EQ(log.dropped(), 0u);
}

TEST(ChunkedLog, AppendGrowsSizeAndIndexReturnsTheValues) {
  ChunkedLog<int> log(100);
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(log.append(i * 3));
    EXPECT_EQ(log.size(), static_cast<size_t>(i + 1));
  }
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(log[i], static_cast<int>(i) * 3);
}

TEST(ChunkedLog, EntriesSurviveCrossingChunkBoundaries) {
  const size_t n = 3 * kChunk + 17;
  ChunkedLog<uint64_t> log(4 * kChunk);
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(log.append(i * i));
  ASSERT_EQ(log.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(log[i], uint64_t{i} * i) << "entry " << i;
  // The entries on either side of every boundary, explicitly.
  for (size_t b = kChunk; b < n; b += kChunk) {
    EXPECT_EQ(log[b - 1], uint64_t{b - 1} * (b - 1));
    EXPECT_EQ(log[b], uint64_t{b} * b);
  }
}

TEST(ChunkedLog, CapacityIsRoundedUpToWholeChunks) {
  EXPECT_EQ(ChunkedLog<int>(1).capacity(), kChunk);
  EXPECT_EQ(ChunkedLog<int>(kChunk).capacity(), kChunk);
  EXPECT_EQ(ChunkedLog<int>(kChunk + 1).capacity(), 2 * kChunk);
  EXPECT_EQ(ChunkedLog<int>(0).capacity(), 0u);
}

TEST(ChunkedLog, BoundDropsAndCountsInsteadOfGrowing) {
  ChunkedLog<int> log(2 * kChunk);
  const size_t cap = log.capacity();
  for (size_t i = 0; i < cap; ++i) ASSERT_TRUE(log.append(static_cast<int>(i)));
  EXPECT_EQ(log.dropped(), 0u);
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(log.append(-1));
  EXPECT_EQ(log.size(), cap);
  EXPECT_EQ(log.dropped(), 1000u);
  // What was kept is untouched by the drops.
  for (size_t i = 0; i < cap; ++i) ASSERT_EQ(log[i], static_cast<int>(i));
}

TEST(ChunkedLog, ZeroCapacityDropsEverything) {
  ChunkedLog<int> log(0);
  EXPECT_FALSE(log.append(1));
  EXPECT_FALSE(log.append(2));
  EXPECT_EQ(log.size(), 0u);
  EXPECT_EQ(log.dropped(), 2u);
}

struct Wide {
  uint64_t a = 0, b = 0, c = 0, d = 0;
};

// A reader that loads size() may read every entry below it, complete, while the
// writer keeps appending; it never waits for the writer, nor the writer for it.
template <class T, class Make, class Check>
void concurrent_prefix(size_t n, Make make, Check check) {
  run_with_timeout([&] {
    ChunkedLog<T> log(n);
    std::atomic<bool> writer_done{false};
    std::atomic<int> readers_started{0};
    constexpr int kReaders = 2;
    std::atomic<uint64_t> bad{0};
    std::atomic<uint64_t> passes{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < kReaders; ++r) {
      readers.emplace_back([&] {
        readers_started.fetch_add(1);
        size_t checked = 0;  // entries below this were already verified
        size_t last_size = 0;
        for (;;) {
          // Read the flag before size(): a pass after the writer finished sees everything.
          const bool done = writer_done.load();
          const size_t size = log.size();
          if (size < last_size) bad.fetch_add(1);  // the prefix only grows
          last_size = size;
          // Recheck a window just below the size (the freshest entries) and
          // everything new since the last pass.
          const size_t from = std::min(checked, size > 64 ? size - 64 : 0);
          for (size_t i = from; i < size; ++i) {
            if (!check(log[i], i)) bad.fetch_add(1);
          }
          checked = size;
          passes.fetch_add(1);
          if (done) break;
        }
        if (last_size != n) bad.fetch_add(1);
      });
    }
    // Start writing only once the readers run, so they overlap the writes.
    while (readers_started.load() < kReaders) std::this_thread::yield();
    for (size_t i = 0; i < n; ++i) {
      if (!log.append(make(i))) {
        ADD_FAILURE() << "append " << i << " was dropped below the capacity";
        break;
      }
    }
    writer_done.store(true);
    for (auto& t : readers) t.join();
    EXPECT_EQ(bad.load(), 0u);
    EXPECT_EQ(log.size(), n);
    EXPECT_GE(passes.load(), static_cast<uint64_t>(kReaders));
  });
}

TEST(ChunkedLog, ConcurrentReadersSeeAConsistentGrowingPrefix) {
  concurrent_prefix<uint64_t>(
      1'000'000, [](size_t i) { return uint64_t{i}; }, [](uint64_t v, size_t i) { return v == i; });
}

// Multi-word entries: a torn or unpublished entry would show mismatched words.
TEST(ChunkedLog, ConcurrentReadersSeeWholeMultiWordEntries) {
  concurrent_prefix<Wide>(
      300'000,
      [](size_t i) {
        const uint64_t x = i;
        return Wide{x, ~x, x * 7, x + 1};
      },
      [](const Wide& w, size_t i) {
        const uint64_t x = i;
        return w.a == x && w.b == ~x && w.c == x * 7 && w.d == x + 1;
      });
}

}  // namespace
}  // namespace asyncscope::trace
