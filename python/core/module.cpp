// The extension module `asyncscope._core` that `python3` imports.
#include "python/core/module.h"

PYBIND11_MODULE(_core, m) { asyncscope::python::define_module(m); }
