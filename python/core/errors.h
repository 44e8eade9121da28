// How the engine's errors reach Python: a failed op at its sync point is
// asyncscope.OpError (a RuntimeError) naming the op; a refusal of the memory
// budget, there or at the call, is MemoryError; a stopped run is
// KeyboardInterrupt, and so is Ctrl+C during a wait (or what else Python's
// signal handler raised); shape and argument errors (std::invalid_argument) are
// ValueError, with the C++ message in every case.
// Threading: call register_errors once, while the module is made.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>

namespace asyncscope::python {

void register_errors(pybind11::module_& m);

// Sets the Python error for a C++ exception as pybind11's own calls do: the
// registered translators in turn (this module's, then pybind11's defaults),
// for code that CPython calls without pybind11 in between (number slots).
// Threading: with the GIL held.
void set_python_error(std::exception_ptr error) noexcept;

// Runs f, a function CPython calls directly (a number slot, a plain method):
// its result (a new reference), or null with the Python error for what f threw.
template <class F>
PyObject* called_from_python(F&& f) noexcept {
  try {
    return f();
  } catch (pybind11::error_already_set& e) {
    e.restore();
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

}  // namespace asyncscope::python
