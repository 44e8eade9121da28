// The subcommands, one maker per unit of this folder (each in the file of
// its name), for all_commands()'s table.
// Threading: main thread only (the CLI's).
#pragma once

#include <memory>

#include "app/cli/command.h"

namespace asyncscope::app {

std::unique_ptr<Command> list_command();      // list_command.cpp
std::unique_ptr<Command> ops_command();       // list_command.cpp
std::unique_ptr<Command> view_command();      // view_command.cpp
std::unique_ptr<Command> diff_command();      // diff_command.cpp
std::unique_ptr<Command> attach_command();    // attach_command.cpp
std::unique_ptr<Command> run_command();       // run_command.cpp: run DEMO
std::unique_ptr<Command> script_command();    // run_command.cpp: script FILE
std::unique_ptr<Command> profile_command();   // profile_command.cpp

}  // namespace asyncscope::app
