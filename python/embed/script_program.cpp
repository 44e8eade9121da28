#include "python/embed/script_program.h"

#include <pybind11/embed.h>
#include <Python.h>

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "engine/base/input_file.h"
#include "engine/core/errors.h"
#include "engine/demos/run_env.h"
#include "python/embed/interpreter.h"
#include "python/embed/python_heap.h"
#include "python/core/runtime.h"
#include "python/core/source.h"

namespace py = pybind11;

namespace asyncscope::python {
namespace {

// Where the bytes of the script's sys.stdout or sys.stderr go (asyncscope._host
// wraps it in a text stream): the run's console while the run lives, then
// the process's own descriptor, for a thread that kept the stream and
// writes after the run ended. A host that reads the descriptors into the
// console (the app) gets them there all along, in the order they were
// written with what C extensions and os.write send.
class ConsoleSink {
 public:
  ConsoleSink(demos::RunEnv& env, bool error)
      : env_(env.process_output_captured() ? nullptr : &env), error_(error) {}

  void write(const py::bytes& data) {
    const std::string_view text = data;
    if (env_ != nullptr) {
      env_->write(text, error_);
      return;
    }
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(error_ ? 2 : 1, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // as python3's own streams at exit: nowhere left to report it
      done += static_cast<size_t>(n);
    }
  }
  // The run ended (with the GIL held, so no write is under way).
  void close() noexcept { env_ = nullptr; }

 private:
  demos::RunEnv* env_;
  bool error_;
};

// The sink's type, registered once in the embedded core module's namespace.
void register_sink_type() {
  static const bool registered = [] {
    py::module_ core = py::module_::import("_asyncscope_core");
    // Held by Python too: a stream the script kept (a logging handler, a
    // daemon thread) may write after the run, and finds the sink closed.
    py::class_<ConsoleSink, std::shared_ptr<ConsoleSink>>(core, "_ConsoleSink").def("__call__", &ConsoleSink::write);
    return true;
  }();
  (void)registered;
}

// The stop of a running script, made off the stopping thread: a stop calls
// RunEnv::on_stop with the run's lock held, from the UI thread (or the
// command line's signal watcher), which must not wait for the GIL that a
// script inside a long C call holds. The stopper's own thread takes the GIL
// and calls the run's interrupt() (asyncscope._host.Run).
class ScriptStopper {
 public:
  // `run` stays alive until the stopper is destroyed.
  explicit ScriptStopper(py::handle run) : run_(run), thread_([this] { serve(); }) {}
  // Any thread; never blocks on the GIL.
  void request() {
    {
      std::lock_guard lock(mutex_);
      requested_ = true;
    }
    wake_.notify_one();
  }
  // The script's thread, GIL held: no interrupt() is made from here on
  // (one under way has finished, since it holds the GIL).
  void finish() {
    {
      std::lock_guard lock(mutex_);
      ending_ = true;
    }
    wake_.notify_one();
  }
  // After finish(), without the GIL (the thread may be waiting for it).
  ~ScriptStopper() {
    finish();
    thread_.join();
  }
  ScriptStopper(const ScriptStopper&) = delete;
  ScriptStopper& operator=(const ScriptStopper&) = delete;

 private:
  void serve() {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return requested_ || ending_; });
      if (ending_) return;
    }
    py::gil_scoped_acquire gil;
    {
      std::lock_guard lock(mutex_);
      if (ending_) return;  // the run ended while this thread waited for the GIL
    }
    try {
      run_.attr("interrupt")();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("asyncscope: stopping the script");
    }
  }

  py::handle run_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool ending_ = false;
  std::thread thread_;  // last: starts once the rest is ready
};

// Prints the traceback of the exception being handled to the error console
// and returns the line that says what it was: its last line
// ("ValueError: ..."), or for a syntax error the same with the place
// ("SyntaxError: '(' was never closed (s.py, line 1)").
std::string report(py::error_already_set& e, demos::RunEnv& env) {
  py::module_ traceback = py::module_::import("traceback");
  const py::object trace = e.trace() ? py::reinterpret_borrow<py::object>(e.trace()) : py::none();
  const py::list lines = traceback.attr("format_exception")(e.type(), e.value(), trace);
  // The text may hold what UTF-8 cannot (a lone surrogate in a message).
  const std::string text = py::str("").attr("join")(lines).attr("encode")("utf-8", "backslashreplace").cast<std::string>();
  env.write(text, /*error=*/true);
  if (e.matches(PyExc_SyntaxError)) {
    return e.type().attr("__name__").cast<std::string>() + ": " +
           py::str(e.value()).attr("encode")("utf-8", "backslashreplace").cast<std::string>();
  }
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) last = line;
  }
  return last;
}

// What a SystemExit means, as python3 reads it: None or 0 end the run
// normally; an int is the exit status; anything else is printed to the error
// output and the status is 1.
void exit_with(py::error_already_set& e, demos::RunEnv& env) {
  const py::object code = e.value().attr("code");
  if (code.is_none()) return;
  if (py::isinstance<py::int_>(code)) {
    if (!code.attr("__ne__")(0).cast<bool>()) return;
    const int status = code.attr("__and__")(0xff).cast<int>();  // what the process's status keeps
    throw demos::ExitStatus(status, "SystemExit: " + py::str(code).cast<std::string>());
  }
  const std::string text = py::str(code).attr("encode")("utf-8", "backslashreplace").cast<std::string>();
  env.write(text + "\n", /*error=*/true);
  throw demos::ExitStatus(1, "SystemExit: " + text);
}

}  // namespace

ScriptProgram::ScriptProgram(std::string path) : path_(std::move(path)) {}
ScriptProgram::ScriptProgram(std::string path, std::string source)
    : path_(std::move(path)), source_(std::move(source)) {}

std::string ScriptProgram::name() const { return std::filesystem::path(path_).filename().string(); }
std::string ScriptProgram::title() const { return name(); }
std::string ScriptProgram::summary() const { return "the Python script " + path_; }

std::vector<demos::Param> ScriptProgram::params() const {
  return {demos::workers_param(), demos::device_param(), demos::seed_param(), demos::max_inflight_param()};
}

demos::ContextRequest ScriptProgram::context_request(const demos::ParamValues& values) const {
  demos::ContextRequest request = Program::context_request(values);
  request.gpu_when_available = true;
  return request;
}

std::string ScriptProgram::read_source(const std::string& path) {
  try {
    return read_whole_file(path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("cannot read " + path + ": " + e.what());
  }
}

void ScriptProgram::run(const demos::ParamValues&, demos::RunEnv& env) const {
  const std::string source = source_ ? *source_ : read_source(path_);
  ensure_interpreter(/*signal_handlers=*/false);
  py::gil_scoped_acquire gil;
  register_sink_type();
  const HostedRun hosted_run(env.context());  // the threads the script starts push to this run too
  const auto out = std::make_shared<ConsoleSink>(env, /*error=*/false);
  const auto err = std::make_shared<ConsoleSink>(env, /*error=*/true);
  py::module_ sys = py::module_::import("sys");
  // The script's streams, stop and end as under python3 (asyncscope/_host.py);
  // where Ctrl+C cannot reach the script's thread (the app's run thread),
  // stdin is read so that a stop wakes the reader.
  const py::object host_run = py::module_::import("asyncscope._host")
                                  .attr("begin")(out, err, !python_signals_reach_this_thread());
  const unsigned long script_thread = PyThread_get_thread_ident();
  std::optional<ScriptStopper> stopper(std::in_place, host_run);
  env.on_stop([&stopper] { stopper->request(); });
  // The end of the run's hosting, once, however run() leaves: no stop
  // reaches the script afterwards (the stopper is done, and an interrupt it
  // made meanwhile is taken back), the streams go back, the sinks close.
  bool hosting_ended = false;
  const auto end_hosting = [&] {
    if (std::exchange(hosting_ended, true)) return;
    env.on_stop({});
    stopper->finish();
    {
      py::gil_scoped_release unlocked;
      stopper.reset();
    }
    PyThreadState_SetAsyncExc(script_thread, nullptr);
    // A stop by Ctrl+C also tripped Python's own SIGINT flag (the command
    // line's handler does, so that a blocking call returns): the stop is
    // being handled, so its KeyboardInterrupt is taken now, not in end().
    if (env.stop_requested() && PyErr_CheckSignals() != 0) PyErr_Clear();
    try {
      host_run.attr("end")();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("asyncscope: ending the script's run");
    }
    out->close();
    err->close();
  };
  struct AtExit {
    std::function<void()> f;
    ~AtExit() { f(); }
  } const at_exit{end_hosting};
  // A fresh __main__ module, as python3 makes for a script: pickle and
  // multiprocessing find the script's classes through sys.modules.
  py::module_ main = py::reinterpret_steal<py::module_>(PyModule_New("__main__"));
  py::dict globals = main.attr("__dict__");
  globals["__file__"] = path_;
  globals["__cached__"] = py::none();
  globals["__builtins__"] = py::module_::import("builtins");
  const py::object saved_main = sys.attr("modules").attr("get")("__main__");
  sys.attr("modules")["__main__"] = main;
  py::list argv;
  argv.append(path_);
  for (const std::string& arg : args_) {  // bytes as python3 decodes its argv (surrogateescape)
    PyObject* text = PyUnicode_DecodeFSDefault(arg.c_str());
    if (text == nullptr) throw py::error_already_set();
    argv.append(py::reinterpret_steal<py::str>(text));
  }
  sys.attr("argv") = argv;
  // The editions in place of torch, mxnet and d2l while the script runs.
  const py::module_ redirect = py::module_::import("asyncscope._redirect");
  if (redirect_) redirect.attr("install")();
  struct Uninstall {
    const py::module_& redirect;
    bool active;
    ~Uninstall() {
      if (!active) return;
      try {
        redirect.attr("uninstall")();
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("asyncscope: restoring the real torch, mxnet and d2l");
      }
    }
  } const uninstall{redirect, redirect_};
  // The script's folder first on the import path, links resolved, as python3 puts it.
  std::error_code ec;
  const std::string folder =
      std::filesystem::weakly_canonical(std::filesystem::absolute(path_, ec), ec).parent_path().string();
  sys.attr("path").attr("insert")(0, folder);
  std::string failure;
  std::optional<demos::ExitStatus> exit_status;
  bool stopped = false;
  const auto handle = [&](py::error_already_set& e) {
    try {
      if (e.matches(PyExc_SystemExit)) {
        exit_with(e, env);
      } else if (e.matches(PyExc_KeyboardInterrupt) && env.stop_requested()) {
        stopped = true;
      } else {
        failure = report(e, env);
      }
    } catch (const demos::ExitStatus& status) {
      exit_status = status;
    } catch (py::error_already_set& inner) {  // a SystemExit whose code cannot be printed, say
      failure = report(inner, env);
    }
  };
  // The script's Python objects count against the run's budget while it
  // executes; a refused granule is a MemoryError in the script.
  HeapCharge heap(env.memory_account(), "Python objects of the script");
  try {
    // From the file's bytes, so that its coding line or BOM decides the
    // encoding, as under python3.
    py::module_ builtins = py::module_::import("builtins");
    const py::object code = builtins.attr("compile")(py::bytes(source), path_, "exec", 0, true);
    builtins.attr("exec")(code, globals);
    heap.end();
    // The process's end under python3: the threads the script started are joined.
    host_run.attr("join_threads")();
  } catch (py::error_already_set& e) {
    heap.end();  // reporting must not be refused: the objects that filled the budget are still alive
    handle(e);
    if (!stopped) {  // however the script ended, unless it was stopped
      try {
        host_run.attr("join_threads")();
      } catch (py::error_already_set& join_error) {
        handle(join_error);
      }
    }
  }
  end_hosting();
  try {
    // Unless the script took it out itself.
    if (sys.attr("path").attr("__contains__")(folder).cast<bool>()) sys.attr("path").attr("remove")(folder);
  } catch (py::error_already_set& e) {
    handle(e);
  }
  if (saved_main.is_none()) {
    sys.attr("modules").attr("pop")("__main__", py::none());
  } else {
    sys.attr("modules")["__main__"] = saved_main;
  }
  leave_source(*env.context());  // the host's own waits and frees that follow have no line
  globals.clear();  // the script's arrays go now, while the run is still open
  if (stopped) throw StoppedError();
  // A MemoryError from the heap's budget: the run ends with the budget's own
  // message (its traceback was printed), as a push it refused would.
  if (const auto refusal = heap.refusal(); refusal && failure.starts_with("MemoryError")) throw *refusal;
  if (!failure.empty()) throw ScriptError(failure);
  if (exit_status) throw *exit_status;
}

}  // namespace asyncscope::python
