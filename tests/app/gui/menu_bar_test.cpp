// The menu bar's restart with another number of simulated GPUs: the same
// command line, with the option set once, before any subcommand.
#include "app/gui/menu_bar.h"

#include <gtest/gtest.h>

namespace asyncscope::app {
namespace {

using Args = std::vector<std::string>;

TEST(MenuBar, ARestartKeepsTheCommandLineAndSetsTheSimulatedGpusOnce) {
  EXPECT_EQ(with_simulated_gpus({"asyncscope"}, 2), (Args{"asyncscope", "--simulated-gpus", "2"}));
  EXPECT_EQ(with_simulated_gpus({"/opt/asyncscope", "--demo", "host-vs-gpu", "--run"}, 4),
            (Args{"/opt/asyncscope", "--simulated-gpus", "4", "--demo", "host-vs-gpu", "--run"}));
  // An earlier setting is replaced, in either spelling.
  EXPECT_EQ(with_simulated_gpus({"a", "--simulated-gpus", "2", "--script", "x.py"}, 0),
            (Args{"a", "--simulated-gpus", "0", "--script", "x.py"}));
  EXPECT_EQ(with_simulated_gpus({"a", "--simulated-gpus=1", "view", "t.json"}, 2),
            (Args{"a", "--simulated-gpus", "2", "view", "t.json"}));
  EXPECT_TRUE(with_simulated_gpus({}, 2).empty());
}

}  // namespace
}  // namespace asyncscope::app
