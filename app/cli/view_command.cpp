// `asyncscope view FILE [OTHER]`: a trace (ours or a profiler's) opened in
// the app, or described (--print), answered as JSON (--json) or drawn as an
// SVG picture (--svg), of the whole trace or of a window of it (--range).
#include <cmath>
#include <string>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/report.h"
#include "engine/base/quote.h"
#include "engine/trace/profile_model.h"

namespace asyncscope::app {
namespace {

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

class ViewCommand final : public Command {
 public:
  CLI::App* declare(CLI::App& root) override {
    view_ = root.add_subcommand("view",
                                "Open a trace in the app: our own export, or a profiler's (PyTorch/Kineto, the JSON Array "
                                "format, MXNet, any Chrome trace; .gz read as it is)");
    view_->add_option("FILE", path_, "trace written by 'asyncscope run ... --trace FILE', the app's export, or a profiler")
        ->required();
    view_->add_option("OTHER", other_, "a second trace, opened after the first and stacked below it to compare (the app only)");
    view_->add_flag("--print", print_, "describe the trace on the terminal instead of opening the window");
    view_->add_option("--json", json_,
                      "write what the trace answers (verdict, streams, queue, idle time, ops, memory holders) as JSON "
                      "instead of opening the window");
    view_->add_option("--svg", svg_,
                      "draw the timeline (lanes, state strips, queue depth, memory, the verdict) as an SVG picture "
                      "instead of opening the window");
    view_->add_option("--range", range_,
                      "the window FROM:TO (seconds since the trace's start; either may be left out) that --svg draws "
                      "and --json and --print answer for: its verdict, streams and memory holders");
    view_->add_option("--title", title_, "with --svg: the picture's caption (default: the file's name and format)");
    view_->add_option("--svg-width", svg_width_, "the picture's width in pixels (320-16384, default 1400)")
        ->check(CLI::Range(320.0f, 16384.0f));
    view_->add_flag("--complete-steps", complete_steps_,
                    "a profiler's trace with two or more ProfilerStep ranges: count only the steps before the last, as "
                    "HTA does");
    add_window_options(*view_, request_);
    return view_;
  }

  int run(const CommandIo& io) override {
    trace::AnalysisOptions options;
    options.complete_steps_only = complete_steps_;
    const bool json = view_->count("--json") > 0, svg = view_->count("--svg") > 0;
    if (print_ || json || svg) {
      int64_t from = -1, to = -1;
      if (!range_.empty() && !parse_range(range_, from, to)) {
        say(io.err, "--range " + quote(range_) + ": expected FROM:TO in seconds since the trace's start (e.g. 0.5:1.25, "
                    "or 2: for the rest), FROM before TO");
        return 2;
      }
      TraceReport report;
      report.path = path_;
      report.options = options;
      report.print = print_;
      report.json = json ? &json_ : nullptr;
      report.svg = svg ? &svg_ : nullptr;
      report.svg_width = svg_width_;
      report.range_from = from;
      report.range_to = to;
      report.title = view_->count("--title") > 0 ? &title_ : nullptr;
      return report_trace(report, io.out, io.err);
    }
    try {
      // A bad file is bad input: say so here, before a window opens.
      trace::open_trace(path_, options);
      if (!other_.empty()) trace::open_trace(other_, options);
    } catch (const std::exception& e) {
      say(io.err, e.what());
      return 2;
    }
    GuiRequest request = request_;
    request.view_file = path_;
    request.view_other = other_;
    request.complete_steps = complete_steps_;
    io.globals.size_window(request);
    if (!request.screenshot.empty()) {
      const std::string why =
          check_outputs({{"--screenshot", request.screenshot}}, {{"the trace", path_}, {"the second trace", other_}});
      if (!why.empty()) {
        say(io.err, why);
        return 2;
      }
    }
    return io.launch_gui(request);
  }

 private:
  CLI::App* view_ = nullptr;
  std::string path_, other_, json_, svg_, range_, title_;
  bool print_ = false, complete_steps_ = false;
  float svg_width_ = 1400;
  GuiRequest request_;
};

}  // namespace

std::unique_ptr<Command> view_command() { return std::make_unique<ViewCommand>(); }

}  // namespace asyncscope::app
