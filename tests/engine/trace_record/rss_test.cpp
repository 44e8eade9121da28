// RssReader follows the process's resident memory. The region is mapped with
// mmap/munmap directly, so the drop after freeing does not depend on whether
// malloc returns memory to the system.
#include "engine/trace_record/rss.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace asyncscope::trace {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(Rss, ReadIsPositive) {
  RssReader reader;
  EXPECT_GT(reader.read(), 0);
}

TEST(Rss, RepeatedReadsKeepWorking) {
  // One descriptor, re-read from offset 0 each time.
  RssReader reader;
  for (int i = 0; i < 1000; ++i) ASSERT_GT(reader.read(), 0) << "read " << i;
}

TEST(Rss, ReadIsAMultipleOfThePageSize) {
  RssReader reader;
  const long page = ::sysconf(_SC_PAGESIZE);
  ASSERT_GT(page, 0);
  EXPECT_EQ(reader.read() % page, 0);
}

TEST(Rss, FollowsTouchingAndUnmappingMemory) {
  RssReader reader;
  const size_t bytes = 128 * static_cast<size_t>(kMiB);
  const int64_t before = reader.read();
  ASSERT_GT(before, 0);

  void* region = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  // Mapping alone does not make pages resident; writing one byte per page does.
  auto* p = static_cast<volatile unsigned char*>(region);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  for (size_t i = 0; i < bytes; i += page) p[i] = static_cast<unsigned char>(i / page);
  const int64_t touched = reader.read();
  EXPECT_GE(touched - before, 100 * kMiB) << "before " << before << " touched " << touched;

  ASSERT_EQ(::munmap(region, bytes), 0);
  const int64_t after = reader.read();
  EXPECT_GE(touched - after, 100 * kMiB) << "touched " << touched << " after " << after;
}

}  // namespace
}  // namespace asyncscope::trace
