#include "python/core/arrays.h"
#include "python/core/bindings.h"
#include "python/core/errors.h"
#include "python/core/module.h"

namespace asyncscope::python {

void define_module(py::module_& m) {
  m.doc() = "asyncscope's core: the engine, arrays, autograd, gluon blocks and torch tensors behind the Python package";
  register_errors(m);
  note_python_main_thread();
  bind_runtime(m);
  bind_nd(m);
  bind_autograd(m);
  bind_nn(m);
  bind_torch(m);
  bind_ops(m);
  bind_types(m);
  bind_np(m);
  bind_sorting(m);
  bind_linalg(m);
  bind_torch_random(m);
  py::module_ torch = m.attr("torch");
  add_numpy_argument_names(torch);
}

}  // namespace asyncscope::python
