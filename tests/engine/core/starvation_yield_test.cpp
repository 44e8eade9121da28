// The starvation yield's unit: it looks every kLookEvery pushes, and gives
// the core away only at the second look in a row that finds the workers
// starved with no op finished in between.
#include "engine/core/starvation_yield.h"

#include <gtest/gtest.h>

namespace asyncscope {
namespace {

TEST(StarvationYield, LooksEveryKLookEveryPushes) {
  PusherState pusher = PusherState{new_engine_serial()};
  int looks = 0;
  for (uint32_t i = 0; i < 4 * StarvationYield::kLookEvery; ++i) {
    StarvationYield::after_push(pusher, [&looks] { ++looks; return false; }, [] { return uint64_t{0}; });
  }
  EXPECT_EQ(looks, 4);
}

TEST(StarvationYield, RemembersTheFinishedCountOnlyWhileTheWorkersAreStarved) {
  PusherState pusher = PusherState{new_engine_serial()};
  const auto push_until_look = [&pusher](bool starved, uint64_t finished) {
    for (uint32_t i = 0; i < StarvationYield::kLookEvery; ++i) {
      StarvationYield::after_push(pusher, [starved] { return starved; }, [finished] { return finished; });
    }
  };
  push_until_look(true, 5);
  EXPECT_EQ(pusher.finished, 5u);
  push_until_look(true, 5);  // the second starved look with nothing finished: yields (and stays armed)
  EXPECT_EQ(pusher.finished, 5u);
  push_until_look(true, 9);
  EXPECT_EQ(pusher.finished, 9u);
  push_until_look(false, 9);
  EXPECT_EQ(pusher.finished, UINT64_MAX) << "a look that finds the workers busy forgets";
}

}  // namespace
}  // namespace asyncscope
