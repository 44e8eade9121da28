// asyncscope: the command line (and, with the App issue, the desktop GUI).
#include <iostream>

#include "app/cli.h"

int main(int argc, char** argv) { return asyncscope::app::run_cli(argc, argv, std::cout, std::cerr); }
