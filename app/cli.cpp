#include "app/cli.h"

#if ASYNCSCOPE_HAS_PYTHON
#include <Python.h>  // first, as Python asks
#endif
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

#include "app/cli_attach.h"
#include "app/cli_profile.h"
#include "app/cli_report.h"
#include "app/interrupt.h"
#include "engine/base/allocator.h"
#include "engine/base/format.h"
#include "engine/base/output_file.h"
#include "engine/base/quote.h"
#include "engine/core/errors.h"
#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/profile_model.h"
#include "engine/trace/insight.h"
#include "engine/trace/live.h"
#include "engine/trace/model.h"
#include "engine/trace/source_lines.h"
#if ASYNCSCOPE_HAS_PYTHON
#include "python/embed/interpreter.h"
#include "python/embed/script_program.h"
#endif

namespace asyncscope::app {
namespace {

// Progress on stderr, but only once a run has taken more than a second.
class Progress {
 public:
  explicit Progress(std::ostream& err) : err_(err), tty_(::isatty(STDERR_FILENO) != 0) {}
  ~Progress() {
    if (shown_ && tty_) err_ << "\r\033[K" << std::flush;
  }
  void operator()(double fraction, const std::string& what) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    const int percent = static_cast<int>(fraction * 100);
    if (tty_) {
      if (now - last_ < std::chrono::milliseconds(100)) return;
      err_ << "\r\033[K" << percent << "% " << what << std::flush;
    } else {
      if (percent / 10 == last_decile_) return;  // a line per 10% when not a terminal
      last_decile_ = percent / 10;
      err_ << percent << "% " << what << "\n";
    }
    last_ = now;
    shown_ = true;
  }

 private:
  std::ostream& err_;
  const bool tty_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  int last_decile_ = -1;
  bool shown_ = false;
};

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

// What a run is refused for before it starts, by `run` and by the app's
// --run alike (there before a window opens): a device that is not there,
// arrays that would not fit the memory budget. Throws std::invalid_argument.
void check_runnable(const demos::Program& demo, const demos::ParamValues& values) {
  demo.context_request(values);
  const int64_t need = demo.estimate_bytes(values);
  const int64_t budget = PooledAllocator::default_budget_bytes();
  if (need > budget) {
    std::ostringstream msg;
    msg << "these parameters need about " << format_value(static_cast<double>(need) / 1e9, "GB")
        << " of memory (arrays, their trace and pending ops), more than the memory budget of "
        << format_value(static_cast<double>(budget) / 1e9, "GB")
        << "; choose smaller sizes (or raise ASYNCSCOPE_MEMORY_BUDGET_MB)";
    throw std::invalid_argument(msg.str());
  }
}

int run_demo(const demos::Program& demo, const demos::ParamValues& values, OutputSet& outputs, bool lines,
             std::ostream& out, std::ostream& err);

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

// The options that script the window, for the app (`asyncscope --run ...`)
// and for `view`: declared once.
void add_window_options(CLI::App& app, GuiRequest& request) {
  app.add_option("--screenshot", request.screenshot,
                 "save a PNG of the window once it is drawn and the run (if any) is done");
  app.add_flag("--quit-after-run", request.quit_after_run, "exit once the run (if any) and the screenshot are done");
  app.add_option("--tab", request.tab, "the bottom tab shown first: results, insight or console")
      ->check(CLI::IsMember(std::vector<std::string>(kBottomTabs.begin(), kBottomTabs.end())));
}

// The command line as CLI11 parses it: the options each subcommand binds.
struct CommandLine {
  CLI::App app{"asyncscope: watch asynchronous execution happen.\n"
               "Runs the built-in demos of a real dependency engine and records what the frontend enqueued, "
               "what each worker ran, and when the frontend waited.",
               "asyncscope"};
  // Without a subcommand the desktop app opens; these options script it.
  GuiRequest gui;
  std::string vary;
  std::string window_size;
  const CLI::Option* window_size_option = nullptr;
  CLI::App* list = nullptr;
  CLI::App* ops = nullptr;
  bool ops_json = false, ops_markdown = false;
  // view
  CLI::App* view = nullptr;
  std::string view_path, view_other;
  bool view_print = false;
  std::string view_json, view_svg, view_range, view_title;
  float view_svg_width = 1400;
  bool complete_steps = false;
  GuiRequest view_request;
  // diff A B
  CLI::App* diff = nullptr;
  std::string diff_a, diff_b, diff_json;
  bool diff_complete_steps = false;
  // attach [PID]
  CLI::App* attach = nullptr;
  std::string attach_pid;
  bool attach_list = false, attach_print = false, attach_from_start = false;
  uint64_t attach_max_ops = 0;
  double attach_seconds = 0;
  std::string attach_trace;
  GuiRequest attach_request;
  // profile SCRIPT [ARGS]
  CLI::App* profile = nullptr;
  std::vector<std::string> profile_args;  // the script, then its arguments
  std::string profile_trace, profile_json;
  bool profile_print = false;
  // run DEMO and script FILE
  CLI::App* run = nullptr;
  CLI::App* script = nullptr;
  std::string trace_path, json_path;
  std::map<std::string, std::map<std::string, std::string>> raw;  // program -> param -> text
  std::string script_path;
  bool script_lines = false;
  int simulated_gpus = 0;
  CLI::Option* simulated_option = nullptr;

  CommandLine();
  // A program's parameters as options of its subcommand, plus --trace and --json.
  void add_run_options(CLI::App* sub, const demos::Program& program, const std::string& key);
};

CommandLine::CommandLine() {
  app.set_version_flag("--version", std::string("asyncscope ") + ASYNCSCOPE_VERSION);
  app.require_subcommand(0, 1);
  app.add_option("--demo", gui.demo, "open the app on this demo (see 'asyncscope list')");
  app.add_option("--script", gui.script, "open the app on this Python script (e.g. assets/scripts/memory.py)");
  app.add_flag("--run", gui.run, "start the demo (or script) at once");
  add_window_options(app, gui);
  app.add_option("--vary", vary, "with --run: one run per value, e.g. --vary sync=none,item (compared side by side)");
  simulated_option = app.add_option("--simulated-gpus", simulated_gpus,
                                    "simulate N GPUs (cuda:0 .. cuda:N-1: host memory, host threads of their own, "
                                    "drawn as the devices' lanes), as ASYNCSCOPE_SIMULATED_GPUS=N does");
  window_size_option = app.add_option("--window-size", window_size,
                                      "window size WIDTHxHEIGHT, from " + std::to_string(kMinWindowWidth) + "x" +
                                          std::to_string(kMinWindowHeight) + " to " + std::to_string(kMaxWindowSide) +
                                          "x" + std::to_string(kMaxWindowSide) + " (default 1280x800)");

  list = app.add_subcommand("list", "List the demos and their parameters");
  ops = app.add_subcommand("ops", "List the ops of the Python frontends: names in nd and torch, gradient, devices");
  ops->add_flag("--json", ops_json, "print the table as JSON");
  ops->add_flag("--markdown", ops_markdown, "print the table as the page docs/ops.md");
  view = app.add_subcommand("view",
                            "Open a trace in the app: our own export, or a profiler's (PyTorch/Kineto, the JSON Array "
                            "format, MXNet, any Chrome trace; .gz read as it is)");
  view->add_option("FILE", view_path,
                   "trace written by 'asyncscope run ... --trace FILE', the app's export, or a profiler")
      ->required();
  view->add_option("OTHER", view_other,
                   "a second trace, opened after the first and stacked below it to compare (the app only)");
  view->add_flag("--print", view_print, "describe the trace on the terminal instead of opening the window");
  view->add_option("--json", view_json,
                   "write what the trace answers (verdict, streams, queue, idle time, ops, memory holders) as JSON "
                   "instead of opening the window");
  view->add_option("--svg", view_svg,
                   "draw the timeline (lanes, state strips, queue depth, memory, the verdict) as an SVG picture "
                   "instead of opening the window");
  view->add_option("--range", view_range,
                   "the window FROM:TO (seconds since the trace's start; either may be left out) that --svg draws "
                   "and --json and --print answer for: its verdict, streams and memory holders");
  view->add_option("--title", view_title, "with --svg: the picture's caption (default: the file's name and format)");
  view->add_option("--svg-width", view_svg_width, "the picture's width in pixels (320-16384, default 1400)")
      ->check(CLI::Range(320.0f, 16384.0f));
  view->add_flag("--complete-steps", complete_steps,
                 "a profiler's trace with two or more ProfilerStep ranges: count only the steps before the last, as "
                 "HTA does");
  add_window_options(*view, view_request);
  diff = app.add_subcommand("diff",
                            "Compare two traces (ours or profilers', in any mix): what changed, and per op name the "
                            "count and time in each");
  diff->add_option("A", diff_a, "the first trace (the baseline)")->required();
  diff->add_option("B", diff_b, "the second trace")->required();
  diff->add_option("--json", diff_json, "write the comparison as JSON");
  diff->add_flag("--complete-steps", diff_complete_steps,
                 "profilers' traces with two or more ProfilerStep ranges: count only the steps before the last");
  attach = app.add_subcommand(
      "attach",
      "Follow a running program that publishes its trace (started with ASYNCSCOPE_SERVE=1, or calling "
      "asyncscope.serve()): live in the app, or headless with --seconds, --trace or --print");
  attach->add_option("PID", attach_pid, "the program's process id (default: the only one that publishes; see --list)");
  attach->add_flag("--list", attach_list, "list this user's programs that publish, and exit");
  attach->add_option("--seconds", attach_seconds,
                     "headless: follow for at most this long (default: until the program ends, or Ctrl+C)");
  attach->add_option("--max-ops", attach_max_ops,
                     "headless: keep at most this many ops, then stop following (default " +
                         std::to_string(kMaxAttachOps) + ": with it --seconds S is over within S + 5 s)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  attach->add_flag("--from-start", attach_from_start,
                   "receive everything the program recorded since it started (default: from " +
                       std::to_string(trace::kDefaultCatchUp.count()) + " s before attaching on)");
  attach->add_option("--trace", attach_trace, "headless: write what arrived as Chrome trace JSON");
  attach->add_flag("--print", attach_print, "headless: describe what arrived on the terminal");
  add_window_options(*attach, attach_request);
  run = app.add_subcommand("run", "Run a demo headless and print its result table");
  run->require_subcommand(1);
  for (const auto& demo : demos::all_demos()) {
    add_run_options(run->add_subcommand(demo->name(), demo->summary()), *demo, demo->name());
  }
  script = app.add_subcommand("script", "Run a Python script on the engine: what it prints, then its trace");
  script->add_option("FILE", script_path, "the script (e.g. one of assets/scripts/)")->required();
  script->add_flag("--lines", script_lines,
                   "after the output, print per source line: runs, ops pushed, time enqueuing, waits, time waiting, bytes");
#if ASYNCSCOPE_HAS_PYTHON
  add_run_options(script, python::ScriptProgram(""), "script");
#endif
  profile = app.add_subcommand(
      "profile",
      "Run a Python program with the real PyTorch of this build's python3 under its profiler (CPU, and CUDA where "
      "it has a GPU; memory; stacks), then open its trace");
  profile->add_option("--trace", profile_trace,
                      "keep the trace here (default: a private temporary folder, removed at the end)");
  profile->add_flag("--print", profile_print, "describe the trace on the terminal instead of opening the window");
  profile->add_option("--json", profile_json, "write what the trace answers as JSON instead of opening the window");
  profile->add_option("SCRIPT", profile_args, "the program and its arguments (options of asyncscope come before it)")
      ->required();
  // Everything after the script is the script's own.
  profile->prefix_command();
  // The app's demo options are checked against the demo's parameters later.
  // Set last: subcommands created after it would inherit it.
  app.allow_extras();
}

void CommandLine::add_run_options(CLI::App* sub, const demos::Program& program, const std::string& key) {
  for (const demos::Param& p : program.params()) {
    sub->add_option("--" + p.name, raw[key][p.name], p.help)->default_str(default_text(p));
  }
  sub->add_option("--trace", trace_path, "write the run's timeline as Chrome trace JSON (Perfetto, chrome://tracing)");
  sub->add_option("--json", json_path, "write the parameters and results as JSON");
}

// "FROM:TO" in seconds (either side may be empty) to ns; false if malformed.
bool parse_range(const std::string& text, int64_t& from, int64_t& to) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) return false;
  const auto side = [](const std::string& s, int64_t& out) {
    if (s.empty()) return true;
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      return false;
    }
    if (used != s.size() || !std::isfinite(v) || v < 0 || v > 1e6) return false;
    out = static_cast<int64_t>(std::llround(v * 1e9));
    return true;
  };
  from = to = -1;
  if (!side(text.substr(0, colon), from) || !side(text.substr(colon + 1), to)) return false;
  return from < 0 || to < 0 || from < to;
}

// `view FILE`: the trace described on the terminal, or opened in the app.
int view_command(CommandLine& cl, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui) {
  trace::AnalysisOptions options;
  options.complete_steps_only = cl.complete_steps;
  if (cl.view_print || cl.view->count("--json") > 0 || cl.view->count("--svg") > 0) {
    int64_t from = -1, to = -1;
    if (!cl.view_range.empty() && !parse_range(cl.view_range, from, to)) {
      say(err, "--range " + quote(cl.view_range) + ": expected FROM:TO in seconds since the trace's start (e.g. 0.5:1.25, "
               "or 2: for the rest), FROM before TO");
      return 2;
    }
    TraceReport report;
    report.path = cl.view_path;
    report.options = options;
    report.print = cl.view_print;
    report.json = cl.view->count("--json") > 0 ? &cl.view_json : nullptr;
    report.svg = cl.view->count("--svg") > 0 ? &cl.view_svg : nullptr;
    report.svg_width = cl.view_svg_width;
    report.range_from = from;
    report.range_to = to;
    report.title = cl.view->count("--title") > 0 ? &cl.view_title : nullptr;
    return report_trace(report, out, err);
  }
  try {
    // A bad file is bad input: say so here, before a window opens.
    trace::open_trace(cl.view_path, options);
    if (!cl.view_other.empty()) trace::open_trace(cl.view_other, options);
  } catch (const std::exception& e) {
    say(err, e.what());
    return 2;
  }
  cl.view_request.view_other = cl.view_other;
  cl.view_request.complete_steps = cl.complete_steps;
  GuiRequest& request = cl.view_request;
  request.view_file = cl.view_path;
  request.width = cl.gui.width;
  request.height = cl.gui.height;
  if (!request.screenshot.empty()) {
    const std::string why = check_outputs({{"--screenshot", request.screenshot}},
                                          {{"the trace", cl.view_path}, {"the second trace", cl.view_other}});
    if (!why.empty()) {
      say(err, why);
      return 2;
    }
  }
  return launch_gui(request);
}

// No subcommand: the desktop app, scripted by the options.
int app_command(CommandLine& cl, std::ostream& err, const GuiLauncher& launch_gui) {
  if (!cl.vary.empty()) {
    const auto eq = cl.vary.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == cl.vary.size()) {
      say(err, "--vary needs NAME=VALUE,VALUE,... (e.g. --vary sync=none,item)");
      return 2;
    }
    cl.gui.vary = cl.vary.substr(0, eq);
    std::stringstream list(cl.vary.substr(eq + 1));
    for (std::string v; std::getline(list, v, ',');) cl.gui.vary_values.push_back(v);
  }
  return open_gui(cl.app.remaining(), cl.gui, err, launch_gui);
}

// `run DEMO` and `script FILE`: the program run headless with its outputs.
int run_command(CommandLine& cl, std::ostream& out, std::ostream& err) {
  const demos::Program* demo = nullptr;
  CLI::App* sub = nullptr;
  std::string key;
#if ASYNCSCOPE_HAS_PYTHON
  std::unique_ptr<python::ScriptProgram> script_program;
#endif
  if (cl.script->parsed()) {
#if ASYNCSCOPE_HAS_PYTHON
    // Read once: a pipe or a FIFO gives its text to one reader only.
    try {
      script_program = std::make_unique<python::ScriptProgram>(cl.script_path,
                                                               python::ScriptProgram::read_source(cl.script_path));
    } catch (const std::invalid_argument& e) {
      say(err, e.what());
      return 2;
    }
    demo = script_program.get();
    sub = cl.script;
    key = "script";
#else
    say(err, "this build has no Python support (install python3-dev and pybind11-dev, then rebuild)");
    return 2;
#endif
  } else {
    for (const auto& d : demos::all_demos()) {
      if (cl.run->got_subcommand(d->name())) demo = d.get();
    }
    sub = cl.run->get_subcommand(demo->name());
    key = demo->name();
  }
  demos::ParamValues values = demo->defaults();
  try {
    for (const demos::Param& p : demo->params()) {
      if (sub->count("--" + p.name) > 0) values.set(p.name, cl.raw[key][p.name]);
    }
    // Every output is checked before the run, and two outputs may not share a file.
    OutputSet outputs(out, err);
    if (sub == cl.script) outputs.add_input("the script", cl.script_path);
    for (const auto& [flag, path] : {std::pair{"--json", &cl.json_path}, {"--trace", &cl.trace_path}}) {
      if (sub->count(flag) > 0) outputs.add(flag, *path);
    }
    check_runnable(*demo, values);
    return run_demo(*demo, values, outputs, sub == cl.script && cl.script_lines, out, err);
  } catch (const std::invalid_argument& e) {
    say(err, e.what());
    return 2;
  }
}

int dispatch(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui) {
  CommandLine cl;
  // An unknown demo deserves a better message than "unexpected argument".
  if (argc >= 3 && std::string(argv[1]) == "run" && argv[2][0] != '-' && !demos::find_demo(argv[2])) {
    say(err, "unknown demo " + quote(argv[2]) + "; run 'asyncscope list' to see the demos");
    return 2;
  }
  try {
    cl.app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cl.app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return cl.app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    if (const auto nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
    say(err, message + " (see asyncscope --help)");
    return 2;
  }
  if (cl.simulated_option->count() > 0) {
    try {
      set_simulated_gpus(cl.simulated_gpus);
    } catch (const std::exception& e) {
      say(err, std::string("--simulated-gpus: ") + e.what());
      return 2;
    }
  }
  if (cl.window_size_option->count() > 0 && !parse_window_size(cl.window_size, cl.gui.width, cl.gui.height)) {
    say(err, "--window-size " + quote(cl.window_size) + ": expected WIDTHxHEIGHT in pixels, from " +
                 std::to_string(kMinWindowWidth) + "x" + std::to_string(kMinWindowHeight) + " to " +
                 std::to_string(kMaxWindowSide) + "x" + std::to_string(kMaxWindowSide) + " (e.g. 1280x800)");
    return 2;
  }
  if (cl.list->parsed()) {
    print_list(out);
    return 0;
  }
  if (cl.ops->parsed()) {
    if (cl.ops_markdown) {
      print_ops_markdown(out);
    } else {
      print_ops(out, cl.ops_json);
    }
    return 0;
  }
  if (cl.view->parsed()) return view_command(cl, out, err, launch_gui);
  if (cl.profile->parsed()) {
    ProfileRequest request;
    request.args = cl.profile_args;
    request.trace = cl.profile->count("--trace") > 0 ? &cl.profile_trace : nullptr;
    request.json = cl.profile->count("--json") > 0 ? &cl.profile_json : nullptr;
    request.print = cl.profile_print;
    request.gui = cl.view_request;
    request.gui.width = cl.gui.width;
    request.gui.height = cl.gui.height;
    return profile_command(request, out, err, launch_gui);
  }
  if (cl.attach->parsed()) {
    AttachRequest request;
    request.pid = cl.attach_pid;
    request.list = cl.attach_list;
    request.headless = cl.attach->count("--seconds") > 0 || cl.attach->count("--trace") > 0 || cl.attach_print ||
                       cl.attach->count("--max-ops") > 0;
    request.seconds = cl.attach_seconds;
    request.from_start = cl.attach_from_start;
    request.max_ops = cl.attach_max_ops;
    request.trace = cl.attach_trace;
    request.print = cl.attach_print;
    request.gui = cl.attach_request;
    request.gui.width = cl.gui.width;
    request.gui.height = cl.gui.height;
    return attach_command(request, out, err, launch_gui);
  }
  if (cl.diff->parsed()) {
    trace::AnalysisOptions options;
    options.complete_steps_only = cl.diff_complete_steps;
    return diff_command(cl.diff_a, cl.diff_b, options, cl.diff->count("--json") > 0 ? &cl.diff_json : nullptr, out,
                        err);
  }
  if (cl.run->parsed() || cl.script->parsed()) return run_command(cl, out, err);
  return app_command(cl, err, launch_gui);
}

int run_demo(const demos::Program& demo, const demos::ParamValues& values, OutputSet& outputs, bool lines,
             std::ostream& out, std::ostream& err) {
  demos::RunHooks hooks;
  Progress progress(err);
  hooks.progress = [&progress](double f, const std::string& what) { progress(f, what); };
  // As the program writes it: a prompt without a newline stays one.
  hooks.console_text = [&out, &err](std::string_view text, bool error) { (error ? err : out) << text << std::flush; };
  demos::RunControl control;
  bool script = false;
  std::map<std::string, std::string> texts;  // the script's text as it ran, for --lines
#if ASYNCSCOPE_HAS_PYTHON
  // A script run from a terminal: Ctrl+C is KeyboardInterrupt in the script.
  if (const auto* program = dynamic_cast<const python::ScriptProgram*>(&demo)) {
    script = true;
    if (program->source()) texts[program->path()] = *program->source();
    try {
      python::ensure_interpreter(/*signal_handlers=*/true);
    } catch (const std::exception& e) {
      say(err, e.what());
      return 1;
    }
  }
#endif
  // From here to the end of the commit, SIGINT and SIGTERM stop the run and
  // abandon the outputs (their temporary files removed): exit 130 or 143.
  InterruptScope interrupt([&control, script] {
    control.stop();
#if ASYNCSCOPE_HAS_PYTHON
    // A script waiting in a blocking call (time.sleep) gets its KeyboardInterrupt
    // when the call returns EINTR; the stop alone is seen only between bytecodes.
    if (script) PyErr_SetInterrupt();
#else
    (void)script;
#endif
  });
  const auto interrupted = [&err] {
    const int signal = InterruptScope::signal_number();
    say(err, std::string("interrupted by ") + InterruptScope::signal_name(signal) +
                 ": stopped before the end; no output file was written or replaced");
    return 128 + signal;
  };
  demos::Results results;
  int status = 0;
  try {
    results = demos::run_program(demo, values, hooks, control);
  } catch (const demos::ExitStatus& e) {
    if (InterruptScope::signal_number() != 0) return interrupted();
    status = e.status();  // the program's own status (a script's sys.exit(3)); its outputs are written as usual
  } catch (const std::invalid_argument&) {
    if (InterruptScope::signal_number() != 0) return interrupted();
    throw;  // a parameter combination the demo cannot run: bad input
  } catch (const std::exception& e) {
    if (InterruptScope::signal_number() != 0) return interrupted();
    say(err, demo.name() + " failed: " + e.what());
    // What ran before the failure is still worth its table.
    if (lines && hooks.recorder) print_lines(out, trace::line_figures(trace::snapshot(*hooks.recorder)), texts);
    // A run stopped by the memory budget: its trace so far shows what grew.
    if ((hooks.over_budget || dynamic_cast<const MemoryBudgetError*>(&e) != nullptr) && hooks.recorder) {
      const trace::TraceModel model = trace::snapshot(*hooks.recorder);
      const trace::ExportOptions options{demo.name(), demos::run_origin(demo, values, nullptr)};
      outputs.set_content("--trace", [&model, &options](std::ostream& o) { trace::write_chrome_trace(model, o, options); });
      outputs.stop_when([] { return InterruptScope::signal_number() != 0; });
      try {
        outputs.commit();  // --trace only: the results are incomplete, so --json is not written
      } catch (const std::exception& write_error) {
        say(err, write_error.what());
      }
    }
    return 1;
  }
  if (InterruptScope::signal_number() != 0) return interrupted();
  const trace::TraceModel model = trace::snapshot(*hooks.recorder);
  const RunAnswers answers = answers_of(model);
  // A demo's table ends with the answers; a script's stdout is its own, so
  // they come with its per-line table (--lines) only.
  const bool table = !results.rows.empty() || !results.notes.empty();
  if (table) print_results(out, demo, values, results);
  if ((table || lines) && answers.verdict.bound != trace::Bound::unknown) print_answers(out, answers);
  const std::vector<trace::LineFigures> figures = trace::line_figures(model);
  if (lines) print_lines(out, figures, texts);
  // The table first: a stream output (/dev/stdout) follows it.
  out.flush();
  outputs.set_content("--json", [&](std::ostream& o) { o << results_json(demo, values, results, figures, answers); });
  const trace::ExportOptions options{demo.name(), demos::run_origin(demo, values, &results)};
  outputs.set_content("--trace", [&model, &options](std::ostream& o) { trace::write_chrome_trace(model, o, options); });
  outputs.stop_when([] { return InterruptScope::signal_number() != 0; });
  try {
    outputs.commit();
  } catch (const std::exception& e) {
    if (InterruptScope::signal_number() != 0) return interrupted();
    say(err, e.what());
    return 1;
  }
  return status;  // a signal after the commit came too late to undo it: the run is complete
}

}  // namespace

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
