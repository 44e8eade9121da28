// No subcommand: the desktop app, its options scripting it (asyncscope
// [--demo NAME | --script FILE] [demo options] [--run] [--vary NAME=V,V]
// [--screenshot PNG] [--quit-after-run] [--tab TAB]). Everything is checked
// here first, so bad input is one line and exit 2, never a window that
// says so. Declared on the root of the command line, not as a subcommand.
// Threading: main thread only (the CLI's).
#pragma once

#include <string>
#include <vector>

#include "app/cli/command.h"

namespace asyncscope::app {

class AppCommand {
 public:
  void declare(CLI::App& root);
  // `extras`: what the command line left over, the demo's own options.
  int run(const CommandIo& io, const std::vector<std::string>& extras);

 private:
  GuiRequest request_;
  std::string vary_;
};

}  // namespace asyncscope::app
