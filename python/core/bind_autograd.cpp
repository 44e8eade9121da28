// autograd: record() and pause() as context managers, is_recording(), and
// backward() of one head or several. The scopes are engine/tensor's
// autograd::Record and autograd::Pause, so any op the script runs inside
// record() is recorded, and backward() may come after the scope has closed.
#include <pybind11/stl.h>

#include <optional>

#include "python/core/arrays.h"
#include "python/core/bindings.h"

namespace asyncscope::python {
namespace {

// A recording (or paused) scope entered by `with`: made on __enter__,
// ended on __exit__, on the thread that entered it.
template <class Scope>
struct ScopeGuard {
  std::optional<Scope> scope;
};

template <class Scope>
void bind_scope(py::module_& m, const char* name, const char* doc) {
  py::class_<ScopeGuard<Scope>, std::unique_ptr<ScopeGuard<Scope>>>(m, name, doc)
      .def("__enter__", [](ScopeGuard<Scope>& s) -> ScopeGuard<Scope>& {
        if (s.scope) throw std::logic_error("this scope is already entered");
        s.scope.emplace();
        return s;
      }, py::return_value_policy::reference)
      .def("__exit__", [](ScopeGuard<Scope>& s, py::handle, py::handle, py::handle) {
        s.scope.reset();
        return false;
      });
}

// The NDArray (MXNet) or Tensor (PyTorch) behind a Python head.
NDArray array_of(py::handle h, const char* op = "backward") {
  if (py::isinstance<MxArray>(h)) return h.cast<const MxArray&>().a;
  if (py::isinstance<NpArray>(h)) return h.cast<const NpArray&>().a;
  if (py::isinstance<Tensor>(h)) return h.cast<const Tensor&>().a;
  throw py::type_error(std::string(op) + ": expected arrays, got " + std::string(py::str(py::type::of(h).attr("__name__"))));
}

// `g` as an array of `like`'s flavour.
py::object same_flavour(py::handle like, NDArray g) {
  if (py::isinstance<MxArray>(like)) return py::cast(MxArray{std::move(g)});
  if (py::isinstance<NpArray>(like)) return py::cast(NpArray{std::move(g)});
  return py::cast(Tensor{std::move(g)});
}

py::list as_list(py::handle x) {
  const bool many = py::isinstance<py::list>(x) || py::isinstance<py::tuple>(x);
  return many ? py::list(py::reinterpret_borrow<py::object>(x)) : py::list(py::make_tuple(x));
}

}  // namespace

void bind_autograd(py::module_& m) {
  py::module_ ag = m.def_submodule("autograd", "scopes and backward (asyncscope.autograd re-exports them)");
  bind_scope<autograd::Record>(ag, "_Record", "Records the ops run inside it for backward().");
  bind_scope<autograd::Pause>(ag, "_Pause", "Stops recording inside a record() scope.");
  ag.def("record", [](bool) { return std::make_unique<ScopeGuard<autograd::Record>>(); }, py::arg("train_mode") = true,
         "A scope (use it with `with`) whose ops are recorded for backward().");
  ag.def("pause", [](bool) { return std::make_unique<ScopeGuard<autograd::Pause>>(); }, py::arg("train_mode") = false,
         "A scope that stops recording inside record().");
  ag.def("is_recording", &autograd::is_recording);
  ag.def("backward", [](py::object heads, py::object head_grads, bool retain_graph) {
    const bool many = py::isinstance<py::list>(heads) || py::isinstance<py::tuple>(heads);
    const py::list hs = many ? py::list(heads) : py::list(py::make_tuple(heads));
    const py::list gs = head_grads.is_none() ? py::list() : many ? py::list(head_grads) : py::list(py::make_tuple(head_grads));
    if (!gs.empty() && gs.size() != hs.size()) throw std::invalid_argument("backward: one head gradient per head");
    std::optional<PushGuard> guard;
    for (size_t i = 0; i < hs.size(); ++i) {
      if (!guard) guard.emplace(array_of(hs[i]).context());
      const NDArray grad = gs.empty() || gs[i].is_none() ? NDArray() : array_of(gs[i]);
      autograd::backward(array_of(hs[i]), grad, retain_graph);
    }
  }, py::arg("heads"), py::arg("head_grads") = py::none(), py::arg("retain_graph") = false,
     "Pushes the gradient ops of the heads (their sums, for non-scalar heads) into their leaves' .grad.");
  ag.def("grad", [](py::object heads, py::object variables, py::object head_grads, bool retain_graph,
                    bool allow_unused) {
    const py::list hs = as_list(heads);
    const py::list vs = as_list(variables);
    const py::list gs = head_grads.is_none() ? py::list() : as_list(head_grads);
    if (!gs.empty() && gs.size() != hs.size()) throw std::invalid_argument("grad: one head gradient per head");
    if (hs.empty() || vs.empty()) throw std::invalid_argument("grad: give at least one head and one variable");
    std::vector<NDArray> inputs;
    for (py::handle v : vs) inputs.push_back(array_of(v, "grad"));
    PushGuard guard(inputs[0].context());
    std::vector<NDArray> total(inputs.size());
    for (size_t i = 0; i < hs.size(); ++i) {
      const NDArray head_grad = gs.empty() || gs[i].is_none() ? NDArray() : array_of(gs[i], "grad");
      // Every head but the last keeps the graph: the next one walks it too.
      std::vector<NDArray> g = autograd::grad(array_of(hs[i], "grad"), inputs, head_grad,
                                              retain_graph || i + 1 < hs.size());
      for (size_t k = 0; k < g.size(); ++k) {
        if (!g[k].is_null()) total[k] = total[k].is_null() ? std::move(g[k]) : total[k] + g[k];
      }
    }
    py::list out;
    for (size_t k = 0; k < total.size(); ++k) {
      if (total[k].is_null()) {
        if (!allow_unused) {
          throw std::invalid_argument("grad: variable " + std::to_string(k) +
                                      " was not used to compute the heads (allow_unused=True gives None for it)");
        }
        out.append(py::none());
      } else {
        out.append(same_flavour(vs[k], std::move(total[k])));
      }
    }
    return out;
  }, py::arg("heads"), py::arg("variables"), py::arg("head_grads") = py::none(), py::arg("retain_graph") = false,
     py::arg("allow_unused") = false,
     "The gradients of the heads (summed) with respect to the variables, a list; no .grad is changed.");
}

}  // namespace asyncscope::python
