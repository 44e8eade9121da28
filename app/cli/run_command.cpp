// `asyncscope run DEMO [options]` and `asyncscope script FILE [options]`:
// a program run headless, what it prints, its result table (a demo's), its
// per-line table (--lines), and its outputs (--trace, --json), all checked
// before the run starts. Each demo is a subcommand of `run`, its
// parameters its options.
#include <map>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/program_run.h"
#include "app/cli/report.h"
#include "engine/base/output_file.h"
#include "engine/base/quote.h"
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
    script_->footer(
        "  ARGS...               the program's own arguments (sys.argv[1:]): after FILE, every word that is not one "
        "of the options above, and all after --\n"
        "Under this command `import torch`, `import mxnet` and `import d2l` give asyncscope's editions (traced); "
        "torchvision, torchaudio and torchtext stay the real packages on the real PyTorch.");
    script_->add_flag("--no-redirect", no_redirect_,
                      "import the real torch, mxnet and d2l as python3 would (their ops are not traced)");
    script_->add_flag("--lines", lines_,
                      "after the output, print per source line: runs, ops pushed, time enqueuing, waits, time waiting, "
                      "bytes");
#if ASYNCSCOPE_HAS_PYTHON
    options_.declare(*script_, python::ScriptProgram(""));
#endif
    return script_;
  }
  int run(const CommandIo& io) override {
    if (!unknown_option_.empty()) {
      say(io.err, "script: unknown option " + quote(unknown_option_) +
                      " before FILE (the program's own options go after FILE; run 'asyncscope script --help')");
      return 2;
    }
#if ASYNCSCOPE_HAS_PYTHON
    std::unique_ptr<python::ScriptProgram> program;
    // Read once: a pipe or a FIFO gives its text to one reader only.
    try {
      program = std::make_unique<python::ScriptProgram>(path_, python::ScriptProgram::read_source(path_));
    } catch (const std::invalid_argument& e) {
      say(io.err, e.what());
      return 2;
    }
    program->set_args(program_args_);
    program->set_redirect(!no_redirect_);
    return options_.run(io, *program, *script_, path_, lines_);
#else
    say(io.err, "this build has no Python support (install python3-dev and pybind11-dev, then rebuild)");
    return 2;
#endif
  }
  // Before FILE every word is parsed as an option; after it, this
  // command's options (and their values) stay, every other word is the
  // program's, and so is all after `--`. FILE is handed on after a `--` of
  // its own, so that a name starting with '-' stays a name.
  void take_program_arguments(std::vector<std::string>& tokens) override {
    std::vector<std::string> ours;
    std::optional<std::string> file;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string& word = tokens[i];
      if (word == "--") {
        if (!file && i + 1 < tokens.size()) file = tokens[++i];
        program_args_.insert(program_args_.end(), tokens.begin() + static_cast<std::ptrdiff_t>(i) + 1, tokens.end());
        break;
      }
      if (word.size() > 1 && word[0] == '-') {
        const size_t equals = word.find('=');
        const CLI::Option* option = script_->get_option_no_throw(word.substr(0, equals));
        if (option == nullptr && !file) {  // not the program's: it has not begun
          if (unknown_option_.empty()) unknown_option_ = word;
          continue;
        }
        if (option != nullptr) {
          ours.push_back(word);
          if (option != nullptr && option->get_items_expected_max() > 0 && equals == std::string::npos &&
              i + 1 < tokens.size()) {
            ours.push_back(tokens[++i]);
          }
          continue;
        }
      } else if (!file) {
        file = word;
        continue;
      }
      program_args_.push_back(word);
    }
    if (file) {
      ours.push_back("--");
      ours.push_back(*file);
    }
    tokens = std::move(ours);
  }

 private:
  CLI::App* script_ = nullptr;
  std::vector<std::string> program_args_;
  std::string unknown_option_;  // an option before FILE that is not this command's
  std::string path_;
  bool lines_ = false;
  bool no_redirect_ = false;
  ProgramOptions options_;
};

}  // namespace

std::unique_ptr<Command> run_command() { return std::make_unique<RunCommand>(); }
std::unique_ptr<Command> script_command() { return std::make_unique<ScriptCommand>(); }

}  // namespace asyncscope::app
