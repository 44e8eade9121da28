// The dispatcher: the root of the command line and its global options
// (--version, --simulated-gpus, --window-size), then a table of subcommands
// (app/cli/commands.h), each of which declares its own options and runs
// itself; without a subcommand, the app (app/cli/app_command.h).
#include "app/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "app/cli/app_command.h"
#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/report.h"
#include "app/interrupt.h"
#include "engine/base/quote.h"
#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"

namespace asyncscope::app {
namespace {

// The window's size: small enough for any GPU's framebuffer and a
// screenshot's memory (16384² RGBA is 1 GiB), big enough for the layout.
constexpr int kMinWindowWidth = 320, kMinWindowHeight = 240, kMaxWindowSide = 16384;

// Exactly digits 'x' digits, within the bounds above; no sign, space or suffix.
bool parse_window_size(const std::string& text, int& width, int& height) {
  const size_t x = text.find('x');
  if (x == std::string::npos) return false;
  const auto side = [](std::string_view digits, int& value) {
    if (digits.empty() || digits.size() > 5) return false;
    for (const char c : digits) {
      if (c < '0' || c > '9') return false;
    }
    value = std::stoi(std::string(digits));
    return value <= kMaxWindowSide;
  };
  int w = 0, h = 0;
  if (!side(std::string_view(text).substr(0, x), w) || !side(std::string_view(text).substr(x + 1), h)) return false;
  if (w < kMinWindowWidth || h < kMinWindowHeight) return false;
  width = w;
  height = h;
  return true;
}

// Where the subcommand's name is among the words after the program's
// name: the first word that is neither one of the root's options nor its
// value (tokens.size() if none, or after `--`).
size_t subcommand_at(const CLI::App& root, const std::vector<std::string>& tokens) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& word = tokens[i];
    if (word == "--") return tokens.size();
    if (word.size() < 2 || word[0] != '-') return i;
    const size_t equals = word.find('=');
    const CLI::Option* option = root.get_option_no_throw(word.substr(0, equals));
    if (option != nullptr && option->get_items_expected_max() > 0 && equals == std::string::npos) ++i;  // its value
  }
  return tokens.size();
}

int dispatch(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui) {
  CLI::App root{"asyncscope: watch asynchronous execution happen.\n"
                "Runs the built-in demos of a real dependency engine and records what the frontend enqueued, "
                "what each worker ran, and when the frontend waited.",
                "asyncscope"};
  root.set_version_flag("--version", std::string("asyncscope ") + ASYNCSCOPE_VERSION);
  root.require_subcommand(0, 1);
  int simulated_gpus = 0;
  std::string window_size;
  const CLI::Option* simulated = root.add_option(
      "--simulated-gpus", simulated_gpus,
      "simulate N GPUs (cuda:0 .. cuda:N-1: host memory, host threads of their own, drawn as the devices' lanes), as "
      "ASYNCSCOPE_SIMULATED_GPUS=N does");
  const CLI::Option* size = root.add_option(
      "--window-size", window_size,
      "window size WIDTHxHEIGHT, from " + std::to_string(kMinWindowWidth) + "x" + std::to_string(kMinWindowHeight) +
          " to " + std::to_string(kMaxWindowSide) + "x" + std::to_string(kMaxWindowSide) +
          " (default: the size it last closed at, fitted to the screen; 1280x800 at first)");
  AppCommand app;
  app.declare(root);
  const std::vector<std::unique_ptr<Command>> commands = all_commands();
  std::vector<const CLI::App*> subcommands;
  for (const auto& c : commands) subcommands.push_back(c->declare(root));
  // The app's demo options are checked against the demo's parameters later.
  // Set last: subcommands created after it would inherit it.
  root.allow_extras();

  // An unknown demo deserves a better message than "unexpected argument".
  if (argc >= 3 && std::string(argv[1]) == "run" && argv[2][0] != '-' && !demos::find_demo(argv[2])) {
    say(err, "unknown demo " + quote(argv[2]) + "; run 'asyncscope list' to see the demos");
    return 2;
  }
  // The words after the subcommand's name that belong to a program it runs
  // are taken out first; CLI11 parses the rest (in reverse order, as its
  // vector form wants them).
  std::vector<std::string> tokens(argv + (argc > 0 ? 1 : 0), argv + std::max(argc, 1));
  if (const size_t at = subcommand_at(root, tokens); at < tokens.size()) {
    for (size_t i = 0; i < commands.size(); ++i) {
      if (subcommands[i]->get_name() != tokens[at]) continue;
      std::vector<std::string> after(tokens.begin() + static_cast<std::ptrdiff_t>(at) + 1, tokens.end());
      commands[i]->take_program_arguments(after);
      tokens.resize(at + 1);
      tokens.insert(tokens.end(), after.begin(), after.end());
    }
  }
  std::reverse(tokens.begin(), tokens.end());
  try {
    root.parse(tokens);
  } catch (const CLI::CallForHelp& e) {
    return root.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return root.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    if (const auto nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
    say(err, message + " (see asyncscope --help)");
    return 2;
  }
  if (simulated->count() > 0) {
    try {
      set_simulated_gpus(simulated_gpus);
    } catch (const std::exception& e) {
      say(err, std::string("--simulated-gpus: ") + e.what());
      return 2;
    }
  }
  GlobalOptions globals;
  globals.window_size_given = size->count() > 0;
  if (size->count() > 0 && !parse_window_size(window_size, globals.window_width, globals.window_height)) {
    say(err, "--window-size " + quote(window_size) + ": expected WIDTHxHEIGHT in pixels, from " +
                 std::to_string(kMinWindowWidth) + "x" + std::to_string(kMinWindowHeight) + " to " +
                 std::to_string(kMaxWindowSide) + "x" + std::to_string(kMaxWindowSide) + " (e.g. 1280x800)");
    return 2;
  }
  const CommandIo io{out, err, launch_gui, globals};
  for (size_t i = 0; i < commands.size(); ++i) {
    if (subcommands[i]->parsed()) return commands[i]->run(io);
  }
  return app.run(io, root.remaining());
}

}  // namespace

void add_window_options(CLI::App& app, GuiRequest& request) {
  app.add_option("--screenshot", request.screenshot,
                 "save a PNG of the window once it is drawn and the run (if any) is done");
  app.add_flag("--quit-after-run", request.quit_after_run, "exit once the run (if any) and the screenshot are done");
  app.add_option("--tab", request.tab, "the bottom tab shown first: results, insight or console")
      ->check(CLI::IsMember(std::vector<std::string>(kBottomTabs.begin(), kBottomTabs.end())));
}

std::vector<std::unique_ptr<Command>> all_commands() {
  std::vector<std::unique_ptr<Command>> table;
  table.push_back(list_command());
  table.push_back(ops_command());
  table.push_back(view_command());
  table.push_back(diff_command());
  table.push_back(attach_command());
  table.push_back(run_command());
  table.push_back(script_command());
  table.push_back(profile_command());
  return table;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui) {
  const int code = dispatch(argc, argv, out, err, launch_gui);
  // Interrupted: said so already; the signal's nudges also fail writes to stdout.
  if (InterruptScope::signal_number() != 0 && code >= 128) return code;
  // A listing or table that did not reach its reader (a full disk, a closed
  // pipe) is a failure, not success: the stream's error shows only at flush.
  if (!out.flush()) {
    say(err, "could not write to standard output (full disk or closed pipe?): what was printed is incomplete");
    return code == 0 ? 1 : code;
  }
  return code;
}

}  // namespace asyncscope::app
