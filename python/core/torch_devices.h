// Which devices the torch edition's tensors may go to in this run, and the
// torch.device objects that name them. A GPU is usable when CUDA works here
// and the run's engine has a stream for it (a run on the CPU gets one for
// cuda:0 when CUDA works: python/core/runtime.h, ScriptProgram); otherwise
// an op that names it fails at once with a RuntimeError saying why.
//
// Threading: the Python thread that holds the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "engine/tensor/context.h"

namespace asyncscope::python {

namespace py = pybind11;

// An attribute of the asyncscope.torch Python module (device, Size, float32):
// classes the package defines in Python and the core hands out.
py::object torch_attr(const char* name);

// Why `device` cannot hold tensors in this context ("" when it can).
std::string torch_device_unusable(Device device, const Context& context);
// The device `spec` names (None: the context's own), checked: RuntimeError
// naming `op` and the reason when it cannot be used here.
Device torch_device(py::handle spec, const Context& context, const char* op);
// The GPUs this context can use (cuda:0 ... cuda:N-1).
int torch_cuda_device_count(const Context& context);
// torch.device('cpu') or torch.device('cuda', index).
py::object torch_device_object(Device device);

}  // namespace asyncscope::python
