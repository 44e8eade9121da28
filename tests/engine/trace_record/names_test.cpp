// The process-wide name registry. Other tests intern names too, so every name
// here carries a prefix no one else uses, and ids are compared, not assumed.
#include "engine/trace_record/names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "support/timeout.h"

namespace asyncscope::trace {
namespace {

using testing::run_with_timeout;

TEST(Names, EmptyNameIsIdZero) {
  EXPECT_EQ(intern(""), 0u);
  EXPECT_EQ(name_of(0), "");
}

TEST(Names, InternIsIdempotent) {
  const NameId a = intern("names_test.idempotent");
  EXPECT_NE(a, 0u);
  EXPECT_EQ(intern("names_test.idempotent"), a);
  EXPECT_EQ(intern(std::string("names_test.idempotent")), a);
}

TEST(Names, DistinctNamesGetDistinctIds) {
  const NameId a = intern("names_test.distinct.a");
  const NameId b = intern("names_test.distinct.b");
  EXPECT_NE(a, b);
}

TEST(Names, NameOfRoundTrips) {
  for (const char* name : {"names_test.rt.x", "names_test.rt.y", "names_test.rt.a longer name with spaces"}) {
    EXPECT_EQ(name_of(intern(name)), name);
  }
}

TEST(Names, IdsAreStableAsTheRegistryGrows) {
  const NameId first = intern("names_test.stable");
  // Grow the registry well past any small-buffer or rehash threshold.
  for (int i = 0; i < 1000; ++i) intern("names_test.stable.filler." + std::to_string(i));
  EXPECT_EQ(intern("names_test.stable"), first);
  EXPECT_EQ(name_of(first), "names_test.stable");
  EXPECT_EQ(name_of(intern("names_test.stable.filler.0")), "names_test.stable.filler.0");
}

TEST(Names, InternDoesNotKeepAViewOfTheCallersString) {
  NameId id = 0;
  {
    std::string temp = "names_test.temporary";
    id = intern(temp);
    temp.assign(temp.size(), 'x');
  }
  EXPECT_EQ(name_of(id), "names_test.temporary");
  EXPECT_EQ(intern("names_test.temporary"), id);
}

TEST(Names, UnknownIdIsEmpty) {
  EXPECT_EQ(name_of(0xFFFFFFF0u), "");
}

TEST(Names, AllNamesIsIndexedById) {
  const NameId id = intern("names_test.all_names");
  const std::vector<std::string> names = all_names();
  ASSERT_GT(names.size(), id);
  EXPECT_EQ(names[0], "");
  EXPECT_EQ(names[id], "names_test.all_names");
}

TEST(Names, ConcurrentInterningGivesOneIdPerName) {
  run_with_timeout([] {
    constexpr int kThreads = 8;
    constexpr int kNames = 500;
    std::vector<std::vector<NameId>> ids(kThreads, std::vector<NameId>(kNames));
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        // Each thread walks the names in a different order, so first interns race.
        for (int k = 0; k < kNames; ++k) {
          const int i = (k * 7 + t * 61) % kNames;
          ids[static_cast<size_t>(t)][static_cast<size_t>(i)] =
              intern("names_test.concurrent." + std::to_string(i));
        }
      });
    }
    for (auto& th : threads) th.join();
    std::vector<NameId> seen;
    for (int i = 0; i < kNames; ++i) {
      const NameId id = ids[0][static_cast<size_t>(i)];
      for (int t = 1; t < kThreads; ++t) ASSERT_EQ(ids[static_cast<size_t>(t)][static_cast<size_t>(i)], id) << i;
      EXPECT_EQ(name_of(id), "names_test.concurrent." + std::to_string(i));
      seen.push_back(id);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "two names share an id";
  });
}

}  // namespace
}  // namespace asyncscope::trace
