// How the engine's errors reach Python: a failed op at its sync point is
// asyncscope.OpError (a RuntimeError) naming the op; a refusal of the memory
// budget, there or at the call, is MemoryError; a stopped run is
// KeyboardInterrupt; shape and argument errors (std::invalid_argument) are
// ValueError, with the C++ message in every case.
// Threading: call register_errors once, while the module is made.
#pragma once

#include <pybind11/pybind11.h>

namespace asyncscope::python {

void register_errors(pybind11::module_& m);

}  // namespace asyncscope::python
