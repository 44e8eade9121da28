// Runs a built-in demo (or any program) the way a host does, for tests: its
// results, its trace and the lines it printed, with a deadlock timeout.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/trace/model.h"
#include "support/timeout.h"

namespace asyncscope::testing {

struct ProgramRun {
  demos::Results results;
  trace::TraceModel model;
  std::vector<std::string> console;
};

using Settings = std::vector<std::pair<std::string, std::string>>;

inline ProgramRun run_program(const demos::Program& program, const Settings& settings) {
  demos::ParamValues values = program.defaults();
  for (const auto& [k, v] : settings) values.set(k, v);
  ProgramRun run;
  demos::RunHooks hooks;
  hooks.console = [&run](std::string_view line) { run.console.emplace_back(line); };
  demos::RunControl control;
  run_with_timeout([&] { run.results = demos::run_program(program, values, hooks, control); });
  run.model = trace::snapshot(*hooks.recorder);
  return run;
}

inline ProgramRun run_demo(const std::string& name, const Settings& settings) {
  const demos::Program* demo = demos::find_demo(name);
  if (demo == nullptr) {
    ADD_FAILURE() << "no demo " << name;
    return {};
  }
  return run_program(*demo, settings);
}

}  // namespace asyncscope::testing
