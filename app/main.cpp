// asyncscope command line. The GUI and the demo runner arrive with later
// issues; for now it reports the version and the engine's environment.
#include <CLI/CLI.hpp>

#include <iostream>

#include "engine/core/engine.h"

int main(int argc, char** argv) {
  CLI::App app{"asyncscope: watch asynchronous execution happen"};
  app.set_version_flag("--version", std::string("asyncscope ") + ASYNCSCOPE_VERSION);
  CLI11_PARSE(app, argc, argv);
  std::cout << app.help();
  return 0;
}
