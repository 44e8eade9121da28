#include "python/core/errors.h"

#include <exception>

#include "engine/base/allocator.h"
#include "engine/core/errors.h"
#include "engine/trace/source_lines.h"
#include "python/core/runtime.h"

namespace py = pybind11;

namespace asyncscope::python {
namespace {

bool caused_by_budget(const OpError& e) {
  if (!e.cause()) return false;
  try {
    std::rethrow_exception(e.cause());
  } catch (const MemoryBudgetError&) {
    return true;
  } catch (...) {
    return false;
  }
}

// The failed op's message with the script line that pushed it, which the
// run's trace knows (a failure shows at a sync point, often lines later).
std::string with_source(const OpError& e) {
  try {
    const std::shared_ptr<trace::Recorder> rec = recorder();
    if (!rec) return e.what();
    const std::string where = trace::op_source_text(*rec, e.op_id());
    return where.empty() ? std::string(e.what()) : std::string(e.what()) + " (pushed at " + where + ")";
  } catch (...) {
    return e.what();  // no run to ask: the message as it is
  }
}

}  // namespace

void register_errors(py::module_& m) {
  static py::exception<OpError> op_error(m, "OpError", PyExc_RuntimeError);
  op_error.doc() =
      "An op failed on a worker. Raised at the sync point that depends on it (wait_to_read, asnumpy, asscalar, "
      "printing, waitall), naming the op.";
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const OpError& e) {
      const std::string what = with_source(e);
      if (caused_by_budget(e)) {
        PyErr_SetString(PyExc_MemoryError, what.c_str());
      } else {
        op_error(what.c_str());
      }
    } catch (const MemoryBudgetError& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const StoppedError& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const CancelledError& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const WaitInterrupted&) {
      // The sleep hook gave the wait up: for a signal whose handler raised,
      // that exception is set already; otherwise the run was stopped.
      if (PyErr_Occurred() == nullptr) PyErr_SetString(PyExc_KeyboardInterrupt, StoppedError().what());
    }
  });
}

void set_python_error(std::exception_ptr error) noexcept {
  // What pybind11 2.10's dispatcher does with an exception: each translator,
  // this module's local ones first, sets the error and returns, or rethrows
  // what it does not handle.
  const auto translated = [&error](auto& translators) {
    for (auto& translate : translators) {
      try {
        translate(error);
        return true;
      } catch (...) {
        error = std::current_exception();
      }
    }
    return false;
  };
  if (translated(py::detail::get_local_internals().registered_exception_translators)) return;
  if (translated(py::detail::get_internals().registered_exception_translators)) return;
  PyErr_SetString(PyExc_SystemError, "an unknown C++ exception reached Python");
}

}  // namespace asyncscope::python
