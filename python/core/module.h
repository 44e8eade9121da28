// The _core extension module's contents, for the two ways it is made: the
// extension that `python3` imports (core/module.cpp) and the module the app
// embeds with its interpreter.
// Threading: once per process, while the module is made.
#pragma once

#include <pybind11/pybind11.h>

namespace asyncscope::python {

void define_module(pybind11::module_& m);

}  // namespace asyncscope::python
