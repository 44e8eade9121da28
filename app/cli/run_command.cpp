// `asyncscope run DEMO [options]` and `asyncscope script FILE [options]`:
// a program run headless, what it prints, its result table (a demo's), its
// per-line table (--lines), and its outputs (--trace, --json), all checked
// before the run starts. Each demo is a subcommand of `run`, its
// parameters its options.
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/program_run.h"
#include "app/cli/report.h"
#include "engine/base/output_file.h"
#include "engine/demos/registry.h"
#if ASYNCSCOPE_HAS_PYTHON
#include "python/embed/script_program.h"
#endif

namespace asyncscope::app {
namespace {

// A program's parameters as options of its subcommand, plus --trace and --json.
struct ProgramOptions {
  std::map<std::string, std::string> raw;  // param -> text, as given
  std::string trace, json;

  void declare(CLI::App& sub, const demos::Program& program) {
    for (const demos::Param& p : program.params()) {
      sub.add_option("--" + p.name, raw[p.name], p.help)->default_str(default_text(p));
    }
    sub.add_option("--trace", trace, "write the run's timeline as Chrome trace JSON (Perfetto, chrome://tracing)");
    sub.add_option("--json", json, "write the parameters and results as JSON");
  }

  // The program run with the options given on `sub`; `script`: the file it
  // was read from (an input no output may replace), or "".
  int run(const CommandIo& io, const demos::Program& program, const CLI::App& sub, const std::string& script,
          bool lines) {
    demos::ParamValues values = program.defaults();
    try {
      for (const demos::Param& p : program.params()) {
        if (sub.count("--" + p.name) > 0) values.set(p.name, raw[p.name]);
      }
      // Every output is checked before the run, and two outputs may not share a file.
      OutputSet outputs(io.out, io.err);
      if (!script.empty()) outputs.add_input("the script", script);
      for (const auto& [flag, path] : {std::pair{"--json", &json}, {"--trace", &trace}}) {
        if (sub.count(flag) > 0) outputs.add(flag, *path);
      }
      check_runnable(program, values);
      return run_program(program, values, outputs, lines, io.out, io.err);
    } catch (const std::invalid_argument& e) {
      say(io.err, e.what());
      return 2;
    }
  }
};

class RunCommand final : public Command {
 public:
  CLI::App* declare(CLI::App& root) override {
    run_ = root.add_subcommand("run", "Run a demo headless and print its result table");
    run_->require_subcommand(1);
    for (const auto& demo : demos::all_demos()) {
      demo_options_[demo->name()].declare(*run_->add_subcommand(demo->name(), demo->summary()), *demo);
    }
    return run_;
  }
  int run(const CommandIo& io) override {
    for (const auto& demo : demos::all_demos()) {
      if (!run_->got_subcommand(demo->name())) continue;
      return demo_options_[demo->name()].run(io, *demo, *run_->get_subcommand(demo->name()), "", false);
    }
    return 2;  // CLI11 requires one: not reached
  }

 private:
  CLI::App* run_ = nullptr;
  std::map<std::string, ProgramOptions> demo_options_;
};

class ScriptCommand final : public Command {
 public:
  CLI::App* declare(CLI::App& root) override {
    script_ = root.add_subcommand("script", "Run a Python script on the engine: what it prints, then its trace");
    script_->add_option("FILE", path_, "the script (e.g. one of assets/scripts/)")->required();
    script_->add_flag("--lines", lines_,
                      "after the output, print per source line: runs, ops pushed, time enqueuing, waits, time waiting, "
                      "bytes");
#if ASYNCSCOPE_HAS_PYTHON
    options_.declare(*script_, python::ScriptProgram(""));
#endif
    return script_;
  }
  int run(const CommandIo& io) override {
#if ASYNCSCOPE_HAS_PYTHON
    std::unique_ptr<python::ScriptProgram> program;
    // Read once: a pipe or a FIFO gives its text to one reader only.
    try {
      program = std::make_unique<python::ScriptProgram>(path_, python::ScriptProgram::read_source(path_));
    } catch (const std::invalid_argument& e) {
      say(io.err, e.what());
      return 2;
    }
    return options_.run(io, *program, *script_, path_, lines_);
#else
    say(io.err, "this build has no Python support (install python3-dev and pybind11-dev, then rebuild)");
    return 2;
#endif
  }

 private:
  CLI::App* script_ = nullptr;
  std::string path_;
  bool lines_ = false;
  ProgramOptions options_;
};

}  // namespace

std::unique_ptr<Command> run_command() { return std::make_unique<RunCommand>(); }
std::unique_ptr<Command> script_command() { return std::make_unique<ScriptCommand>(); }

}  // namespace asyncscope::app
