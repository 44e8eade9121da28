// One subcommand of the command line: the options and help it declares (a
// CLI11 subcommand object of its own), and what it does once they are
// parsed. The dispatcher (app/cli.cpp) is a table of these: adding a
// subcommand is one class in one file of this folder and its line in
// all_commands(); nothing else changes.
// Threading: main thread only (the CLI's).
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "app/cli.h"
#include "app/gui/gui.h"

namespace asyncscope::app {

// What every subcommand may read of the options that are not its own.
struct GlobalOptions {
  int window_width = 1280;   // --window-size, for a window the subcommand opens
  int window_height = 800;
  bool window_size_given = false;  // else the window opens at its last size, fitted to the screen

  // The window's size into a request the subcommand makes.
  void size_window(GuiRequest& request) const {
    request.width = window_width;
    request.height = window_height;
    request.size_given = window_size_given;
  }
};

// Where a subcommand writes and how it opens the window.
struct CommandIo {
  std::ostream& out;
  std::ostream& err;
  const GuiLauncher& launch_gui;
  const GlobalOptions& globals;
};

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand to `root`, its options bound to this object's
  // fields; returns it (the dispatcher asks it whether it was parsed).
  virtual CLI::App* declare(CLI::App& root) = 0;
  // Runs it, the command line parsed. Returns the exit code (2 with one
  // line on err for bad input).
  virtual int run(const CommandIo& io) = 0;
  // A subcommand that runs a program with arguments of its own (`script`)
  // takes them out of `tokens`, the words after its name, before they are
  // parsed: what it leaves is parsed as its options. Others leave them all.
  virtual void take_program_arguments(std::vector<std::string>& tokens) { (void)tokens; }
};

// Every subcommand, in the order `asyncscope --help` lists them.
std::vector<std::unique_ptr<Command>> all_commands();

// The options that script a window, declared once for the app itself,
// `view`, `attach` and `profile`: --screenshot, --quit-after-run, --tab.
void add_window_options(CLI::App& app, GuiRequest& request);

}  // namespace asyncscope::app
