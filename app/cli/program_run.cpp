#include "app/cli/program_run.h"

#if ASYNCSCOPE_HAS_PYTHON
#include <Python.h>  // first of the others, as Python asks
#endif
#include <unistd.h>

#include <chrono>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "app/cli/report.h"
#include "app/interrupt.h"
#include "engine/base/allocator.h"
#include "engine/base/format.h"
#include "engine/core/errors.h"
#include "engine/demos/run_env.h"
#include "engine/trace/chrome_trace.h"
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


}  // namespace

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


int run_program(const demos::Program& demo, const demos::ParamValues& values, OutputSet& outputs, bool lines,
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


}  // namespace asyncscope::app
