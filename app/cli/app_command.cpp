#include "app/cli/app_command.h"

#include <memory>
#include <sstream>
#include <stdexcept>

#include "app/cli/program_run.h"
#include "app/cli/report.h"
#include "engine/base/quote.h"
#include "engine/demos/registry.h"
#if ASYNCSCOPE_HAS_PYTHON
#include "python/embed/script_program.h"
#endif

namespace asyncscope::app {
namespace {

// The GUI with a demo and its options from the command line, checked first
// so bad input is reported here (one line, exit 2) rather than in a window.
int open_gui(const std::vector<std::string>& extras, GuiRequest request, std::ostream& err,
             const GuiLauncher& launch_gui) {
  const std::string name = request.demo.empty() ? "sync-vs-async" : request.demo;
  const demos::Program* demo = nullptr;
#if ASYNCSCOPE_HAS_PYTHON
  std::unique_ptr<python::ScriptProgram> script;
#endif
  if (!request.script.empty()) {
#if ASYNCSCOPE_HAS_PYTHON
    if (!request.demo.empty()) {
      say(err, "--script and --demo each pick the program to open: give one of them");
      return 2;
    }
    // Read once: a pipe or a FIFO gives its text to one reader only.
    try {
      script = std::make_unique<python::ScriptProgram>(request.script,
                                                       python::ScriptProgram::read_source(request.script));
    } catch (const std::invalid_argument& e) {
      say(err, std::string("--script: ") + e.what());
      return 2;
    }
    demo = script.get();
#else
    say(err, "--script: this build has no Python support (install python3-dev and pybind11-dev, then rebuild)");
    return 2;
#endif
  } else {
    demo = demos::find_demo(name);
  }
  if (demo == nullptr) {
    say(err, "unknown demo " + quote(name) + "; run 'asyncscope list' to see the demos");
    return 2;
  }
  demos::ParamValues values = demo->defaults();
  try {
    for (size_t i = 0; i < extras.size(); ++i) {
      const std::string& flag = extras[i];
      if (flag.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument " + quote(flag) + " (see asyncscope --help)");
      std::string param = flag.substr(2), text;
      if (const auto eq = param.find('='); eq != std::string::npos) {
        text = param.substr(eq + 1);
        param.resize(eq);
      } else if (i + 1 < extras.size()) {
        text = extras[++i];
      } else {
        throw std::invalid_argument(quote(flag) + " needs a value");
      }
      bool known = false;
      for (const demos::Param& p : demo->params()) known = known || p.name == param;
      if (!known) {
        throw std::invalid_argument(quote("--" + param) + " is not an option of " + demo->name() + " (see asyncscope list)");
      }
      values.set(param, text);
      request.params.emplace_back(param, text);
    }
    if (!request.screenshot.empty()) {
      if (const std::string why = check_outputs({{"--screenshot", request.screenshot}}, {{"the script", request.script}});
          !why.empty()) {
        throw std::invalid_argument(why);
      }
    }
    if (!request.vary.empty() && !request.run) throw std::invalid_argument("--vary needs --run");
    // Every run the window would start is checked here, so a refusal is one
    // line and exit 2, not a window waiting forever under --quit-after-run.
    for (const std::string& v : request.vary_values) {
      demos::ParamValues probe = values;
      probe.set(request.vary, v);
      check_runnable(*demo, probe);
    }
    if (request.run && request.vary.empty()) check_runnable(*demo, values);
  } catch (const std::invalid_argument& e) {
    say(err, e.what());
    return 2;
  }
  if (request.script.empty()) request.demo = name;
  return launch_gui(request);
}

}  // namespace

void AppCommand::declare(CLI::App& root) {
  root.add_option("--demo", request_.demo, "open the app on this demo (see 'asyncscope list')");
  root.add_option("--script", request_.script, "open the app on this Python script (e.g. assets/scripts/memory.py)");
  root.add_flag("--run", request_.run, "start the demo (or script) at once");
  add_window_options(root, request_);
  root.add_option("--vary", vary_, "with --run: one run per value, e.g. --vary sync=none,item (compared side by side)");
}

int AppCommand::run(const CommandIo& io, const std::vector<std::string>& extras) {
  GuiRequest request = request_;
  io.globals.size_window(request);
  if (!vary_.empty()) {
    const auto eq = vary_.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == vary_.size()) {
      say(io.err, "--vary needs NAME=VALUE,VALUE,... (e.g. --vary sync=none,item)");
      return 2;
    }
    request.vary = vary_.substr(0, eq);
    std::stringstream list(vary_.substr(eq + 1));
    for (std::string v; std::getline(list, v, ',');) request.vary_values.push_back(v);
  }
  return open_gui(extras, request, io.err, io.launch_gui);
}

}  // namespace asyncscope::app
