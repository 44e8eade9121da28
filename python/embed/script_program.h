// A user's Python script as a Program: `asyncscope script FILE.py` and the
// app's scripts run it like a demo. The script runs on the run's frontend
// thread with the embedded interpreter, in fresh globals (as `__main__`,
// with sys.argv = [FILE]); its arrays use the run's context, so every op and
// wait lands in the run's trace. What it prints goes to the run's console
// (sys.stderr and tracebacks to the error console).
//
// Stop: the run's context refuses the next push or wait, and the script's
// thread gets KeyboardInterrupt at its next Python instruction, so even a
// pure-Python loop that never touches the engine ends promptly.
//
// An exception the script does not catch prints its traceback and fails the
// run with ScriptError (its last line: "ZeroDivisionError: division by
// zero"); SystemExit with status 0 or None is a normal end.
//
// Its run is on --device (the CPU by default) and, when CUDA can be used
// here, also has a stream for cuda:0, so that a script may put tensors on
// the GPU by name (device='cuda') as the frameworks let it.
//
// Threading: as Program (run on the run's thread; the source is read there).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "engine/demos/program.h"

namespace asyncscope::python {

// A script ended with an exception it did not catch (its traceback was printed).
class ScriptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ScriptProgram final : public demos::Program {
 public:
  // `path` need not exist yet: reading it is part of each run.
  explicit ScriptProgram(std::string path);
  // Runs `source` instead of the file's text, under the file's name (the
  // app's editor runs its buffer this way, so the trace's line numbers are
  // those of the text that ran, saved or not).
  ScriptProgram(std::string path, std::string source);

  std::string name() const override;  // the file's name: "memory.py"
  std::string title() const override;
  std::string summary() const override;
  std::vector<demos::Param> params() const override;
  demos::ContextRequest context_request(const demos::ParamValues& values) const override;
  void run(const demos::ParamValues& values, demos::RunEnv& env) const override;
  bool writes_process_output() const override { return true; }

  const std::string& path() const noexcept { return path_; }
  // The text it runs, when it was given one (else its file is read at each run).
  const std::optional<std::string>& source() const noexcept { return source_; }

  // The script's text; std::invalid_argument saying why it cannot be read
  // (a missing file, a folder, no permission).
  static std::string read_source(const std::string& path);

 private:
  std::string path_;
  std::optional<std::string> source_;
};

}  // namespace asyncscope::python
