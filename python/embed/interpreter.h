// The Python interpreter embedded in the asyncscope executable, for
// `asyncscope script` and the app's scripts. Started once per process, by the
// first script run, and never finalized: NumPy and the asyncscope package
// stay imported from one run to the next, and each run gets fresh globals.
// The package's core is compiled into the executable (the extension module
// that plain python3 imports would bring a second engine); its pure-Python
// modules come from the build's package folder, or $ASYNCSCOPE_PYTHONPATH.
//
// Threading: any thread; after the first call the GIL is free, and a thread
// that runs Python takes it (pybind11::gil_scoped_acquire).
#pragma once

#include <string>

namespace asyncscope::python {

// Starts the interpreter if it is not running. `signal_handlers`: let Python
// turn Ctrl+C into KeyboardInterrupt (the CLI, whose script runs on the main
// thread); the app leaves signals alone. Decided by the first call. Throws
// std::runtime_error saying why if Python cannot start or the package is
// missing.
void ensure_interpreter(bool signal_handlers);

// Whether Ctrl+C reaches the calling thread's Python code as
// KeyboardInterrupt: the interpreter takes signals (the first
// ensure_interpreter call asked for it) and this is the thread that started
// it (Python runs signal handlers there only). False before it started.
bool python_signals_reach_this_thread() noexcept;

// Where the interpreter finds the asyncscope package.
std::string package_dir();

// The python3 the build used (whose libpython is embedded), for programs
// run in a process of their own (`asyncscope profile`).
std::string python_executable();

}  // namespace asyncscope::python
