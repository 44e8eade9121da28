// A user's Python script as a Program: `asyncscope script FILE.py` and the
// app's scripts run it like a demo, and as python3 would run it: its file is
// read once and compiled from its bytes (its coding line or BOM decides the
// encoding), in a fresh __main__ module, with sys.argv = [FILE, ARGS...]
// and its folder first on sys.path; its arrays use the run's context, and
// so do the threads it starts, so every op and wait lands in the run's trace.
// Unless told otherwise, `import torch`, `import mxnet` and `import d2l`
// give asyncscope's editions for the run (asyncscope/_redirect.py), so a
// reader's program runs unmodified.
// sys.stdout and sys.stderr are text streams to the run's console
// (asyncscope/_host.py); tracebacks go to the error console.
//
// The end is python3's: the script's non-daemon threads are joined, its
// daemon threads end. An exception it does not catch prints its traceback
// and fails the run with ScriptError (the traceback's last line, or for a
// syntax error "SyntaxError: ... (FILE, line N)"); sys.exit(0) or None is a
// normal end, another status ends it with demos::ExitStatus.
//
// Stop: the run's context refuses the next push or wait, and a thread of the
// run's own raises KeyboardInterrupt in the script's thread (SystemExit in
// its threads) and wakes time.sleep and, where Ctrl+C cannot reach the
// script (the app), a read of sys.stdin; so even a pure-Python loop ends
// promptly. Waits on the engine end at a stop too (python/core/arrays.h).
//
// Its run is on --device (the CPU by default) and, when CUDA can be used
// here, also has a stream for cuda:0, so that a script may put tensors on
// the GPU by name (device='cuda') as the frameworks let it.
//
// Threading: as Program (run on the run's thread; the source is read there
// unless it was given).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

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
  // The program's own arguments: sys.argv[1:].
  void set_args(std::vector<std::string> args) { args_ = std::move(args); }
  const std::vector<std::string>& args() const noexcept { return args_; }
  // false: `import torch` and the others are python3's own packages (untraced).
  void set_redirect(bool redirect) noexcept { redirect_ = redirect; }
  bool redirect() const noexcept { return redirect_; }
  // The text it runs, when it was given one (else its file is read at each run).
  const std::optional<std::string>& source() const noexcept { return source_; }

  // The script's text; std::invalid_argument saying why it cannot be read
  // (a missing file, a folder, no permission).
  static std::string read_source(const std::string& path);

 private:
  std::string path_;
  std::optional<std::string> source_;
  std::vector<std::string> args_;
  bool redirect_ = true;
};

}  // namespace asyncscope::python
