// Runs a built-in demo through the GUI's own runner into a RunList, the way
// the app does frame by frame (update the live run, then end it), for tests
// of what the panels get without a window.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/gui/run_list.h"
#include "app/gui/runner.h"
#include "engine/demos/registry.h"
#include "support/timeout.h"

namespace asyncscope::testing {

using Settings = std::vector<std::pair<std::string, std::string>>;

// The run is left in `runs` (shown); returns it.
inline app::RunRecord& run_to_end(app::RunList& runs, app::ProgramRunner& runner, const std::string& demo,
                                  const Settings& settings) {
  const demos::Program* program = demos::find_demo(demo);
  EXPECT_NE(program, nullptr) << "no demo " << demo;
  demos::ParamValues values = program->defaults();
  for (const auto& [k, v] : settings) values.set(k, v);
  runner.start(*program, values);
  app::RunRecord& run = runs.add_live(*program, values, runner.recorder());
  const auto deadline = std::chrono::steady_clock::now() + kDeadlockTimeout;
  while (runner.busy()) {
    runs.update_live(runner.console_since(run.console.size()));
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << demo << " did not finish within " << kDeadlockTimeout.count() << " s";
      runner.stop();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  runner.join();
  runs.update_live(runner.console_since(run.console.size()));
  runs.end_live(runner.results(), runner.error());
  return run;
}

}  // namespace asyncscope::testing
