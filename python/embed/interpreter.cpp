#include "python/embed/interpreter.h"

#include <pybind11/embed.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "python/core/module.h"
#include "python/embed/python_heap.h"

namespace py = pybind11;

PYBIND11_EMBEDDED_MODULE(_asyncscope_core, m) { asyncscope::python::define_module(m); }

namespace asyncscope::python {

std::string package_dir() {
  if (const char* env = std::getenv("ASYNCSCOPE_PYTHONPATH"); env != nullptr && *env != '\0') return env;
  return ASYNCSCOPE_PYTHON_DIR;
}

std::string python_executable() { return ASYNCSCOPE_PYTHON_EXECUTABLE; }

// The release of the GIL by the thread that started the interpreter, kept
// for the life of the process (reachable, so LeakSanitizer does not count it).
py::gil_scoped_release* main_thread_release = nullptr;

namespace {

std::atomic<bool> handles_signals{false};
std::thread::id starting_thread;  // written once, before handles_signals

// The embedded interpreter is the libpython the build linked, so it takes its
// standard library and site-packages (NumPy) from the python3 the build used.
// Left to itself it would look for `python3` on PATH, and a pyenv, conda or
// other interpreter found there first would give it another prefix, one
// without NumPy. PYTHONHOME, when set, still wins.
void start_interpreter(bool signal_handlers) {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = signal_handlers ? 1 : 0;
  config.parse_argv = 0;
  const PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, ASYNCSCOPE_PYTHON_EXECUTABLE);
  if (PyStatus_Exception(status) != 0) {
    PyConfig_Clear(&config);
    throw std::runtime_error(std::string("cannot configure the embedded Python: ") +
                             (status.err_msg != nullptr ? status.err_msg : "unknown error"));
  }
  // Setting the program name pre-initialized Python (its allocators are
  // chosen, and only the configuration was allocated through them): the
  // heap's hooks go in now, before the interpreter's state and any object.
  install_heap_hooks();
  py::initialize_interpreter(&config, 0, nullptr, /*add_program_dir_to_path=*/false);
  starting_thread = std::this_thread::get_id();
  handles_signals.store(signal_handlers);
}

}  // namespace

bool python_signals_reach_this_thread() noexcept {
  return handles_signals.load() && std::this_thread::get_id() == starting_thread;
}

void ensure_interpreter(bool signal_handlers) {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [signal_handlers] {
    const std::string dir = package_dir();
    if (!std::filesystem::exists(std::filesystem::path(dir) / "asyncscope" / "__init__.py")) {
      failure = "the asyncscope Python package is not in " + dir +
                " (build it with `make`, or set ASYNCSCOPE_PYTHONPATH to the folder that holds it)";
      return;
    }
    start_interpreter(signal_handlers);
    try {
      py::module_ sys = py::module_::import("sys");
      sys.attr("path").attr("insert")(0, dir);
      sys.attr("argv") = py::make_tuple("");
      // The core is this executable's: the package imports it under its usual name.
      sys.attr("modules")["asyncscope._core"] = py::module_::import("_asyncscope_core");
      py::module_::import("asyncscope");
    } catch (const py::error_already_set& e) {
      failure = std::string("the asyncscope Python package did not import: ") + e.what();
    }
    // The interpreter stays up; other threads take the GIL when they run Python.
    // Never deleted: the GIL stays released by this thread.
    main_thread_release = new py::gil_scoped_release();
  });
  if (!failure.empty()) throw std::runtime_error(failure);
}

}  // namespace asyncscope::python
