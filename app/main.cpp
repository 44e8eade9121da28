// asyncscope: the desktop app, and the command line that runs demos headless.
#include <iostream>

#include "app/cli.h"
#include "app/gui/gui.h"

int main(int argc, char** argv) {
  return asyncscope::app::run_cli(argc, argv, std::cout, std::cerr, [](const asyncscope::app::GuiRequest& request) {
    return asyncscope::app::run_gui(request, std::cerr);
  });
}
