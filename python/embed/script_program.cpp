#include "python/embed/script_program.h"

#include <pybind11/embed.h>
#include <Python.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/errors.h"
#include "engine/demos/run_env.h"
#include "python/embed/interpreter.h"
#include "python/embed/python_heap.h"
#include "python/core/source.h"

namespace py = pybind11;

namespace asyncscope::python {
namespace {

// A file object for sys.stdout / sys.stderr that hands whole lines to the
// run's console (a partial last line when flushed or at the end).
class ConsoleWriter {
 public:
  explicit ConsoleWriter(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {}
  ~ConsoleWriter() { flush(); }

  size_t write(const std::string& text) {
    pending_ += text;
    size_t start = 0;
    for (size_t nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n', start)) {
      sink_(std::string_view(pending_).substr(start, nl - start));
      start = nl + 1;
    }
    pending_.erase(0, start);
    return text.size();
  }
  void flush() {
    if (!pending_.empty()) sink_(std::exchange(pending_, std::string()));
  }

 private:
  std::function<void(std::string_view)> sink_;
  std::string pending_;
};

// The writer type, registered once in the embedded core module's namespace.
py::object writer_type() {
  static py::object type = [] {
    py::module_ core = py::module_::import("_asyncscope_core");
    if (!py::hasattr(core, "_ConsoleWriter")) {
      py::class_<ConsoleWriter>(core, "_ConsoleWriter")
          .def("write", &ConsoleWriter::write)
          .def("flush", &ConsoleWriter::flush)
          .def("isatty", [](const ConsoleWriter&) { return false; })
          .def_property_readonly("encoding", [](const ConsoleWriter&) { return "utf-8"; });
    }
    return core.attr("_ConsoleWriter");
  }();
  return type;
}

// Swaps sys.stdout and sys.stderr for the run's console while it lives.
class RedirectedOutput {
 public:
  explicit RedirectedOutput(demos::RunEnv& env) : sys_(py::module_::import("sys")) {
    writer_type();
    out_ = py::cast(ConsoleWriter([&env](std::string_view line) { env.print(line); }));
    err_ = py::cast(ConsoleWriter([&env](std::string_view line) { env.print_error(line); }));
    saved_out_ = sys_.attr("stdout");
    saved_err_ = sys_.attr("stderr");
    sys_.attr("stdout") = out_;
    sys_.attr("stderr") = err_;
  }
  ~RedirectedOutput() {
    out_.attr("flush")();
    err_.attr("flush")();
    sys_.attr("stdout") = saved_out_;
    sys_.attr("stderr") = saved_err_;
  }

 private:
  py::module_ sys_;
  py::object out_, err_, saved_out_, saved_err_;
};

// Prints the traceback of the exception being handled to the error console
// and returns its last line ("ValueError: ...").
std::string report(py::error_already_set& e, demos::RunEnv& env) {
  py::list lines = py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
  std::string text;
  for (py::handle chunk : lines) text += chunk.cast<std::string>();
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    env.print_error(line);
    if (!line.empty()) last = line;
  }
  return last;
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
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw std::invalid_argument("cannot read " + path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw std::invalid_argument("cannot read " + path + ": it is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read " + path + ": " + std::strerror(errno));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void ScriptProgram::run(const demos::ParamValues&, demos::RunEnv& env) const {
  const std::string source = source_ ? *source_ : read_source(path_);
  ensure_interpreter(/*signal_handlers=*/false);
  // Registered before the GIL is taken: a stop takes the GIL to interrupt.
  unsigned long thread = 0;
  {
    py::gil_scoped_acquire gil;
    thread = PyThread_get_thread_ident();
  }
  env.on_stop([thread] {
    py::gil_scoped_acquire gil;
    PyThreadState_SetAsyncExc(thread, PyExc_KeyboardInterrupt);
  });
  py::gil_scoped_acquire gil;
  RedirectedOutput output(env);
  py::dict globals;
  globals["__name__"] = "__main__";
  globals["__file__"] = path_;
  globals["__builtins__"] = py::module_::import("builtins");
  py::list argv;
  argv.append(path_);
  py::module_::import("sys").attr("argv") = argv;
  std::string failure;
  bool stopped = false;
  // The script's Python objects count against the run's budget while it
  // executes; a refused granule is a MemoryError in the script.
  HeapCharge heap(env.memory_account(), "Python objects of the script");
  try {
    py::module_ builtins = py::module_::import("builtins");
    py::object code = builtins.attr("compile")(source, path_, "exec");
    builtins.attr("exec")(code, globals);
    heap.end();
  } catch (py::error_already_set& e) {
    heap.end();  // reporting must not be refused: the objects that filled the budget are still alive
    if (e.matches(PyExc_SystemExit)) {
      py::object status = e.value().attr("code");
      if (!status.is_none() && !(py::isinstance<py::int_>(status) && status.cast<int>() == 0)) {
        failure = "SystemExit: " + py::str(status).cast<std::string>();
      }
    } else if (e.matches(PyExc_KeyboardInterrupt) && env.stop_requested()) {
      stopped = true;
    } else {
      failure = report(e, env);
    }
  }
  leave_source(*env.context());  // the host's own waits and frees that follow have no line
  globals.clear();  // the script's arrays go now, while the run is still open
  if (stopped) throw StoppedError();
  // A MemoryError from the heap's budget: the run ends with the budget's own
  // message (its traceback was printed), as a push it refused would.
  if (const auto refusal = heap.refusal(); refusal && failure.starts_with("MemoryError")) throw *refusal;
  if (!failure.empty()) throw ScriptError(failure);
}

}  // namespace asyncscope::python
