// NumPy's argument names in the torch edition: as PyTorch's argument parser
// does, a function or Tensor method that takes `dim` / `keepdim` also takes
// them as `axis` / `keepdims` (x.argmax(axis=1), torch.max(x, axis=0,
// keepdims=True)), which the book's PyTorch cells use throughout.
//
// Each binding with a `dim` or `keepdim` parameter (and no `axis` of its
// own) gets one more overload, tried last, taking (*args, **kwargs): it
// renames the NumPy names and calls the function again. A call that matches
// a binding directly never reaches it. A call that matches only with
// implicit conversions (pybind11's second pass) reaches it first, as it
// matches anything: it then calls again with a flag set that makes it step
// aside (pybind11's reference_cast_error: "try the next overload"), so the
// conversions run as before. A call that matches nothing ends in
// pybind11's own TypeError listing the signatures.
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "python/core/bindings.h"

namespace asyncscope::python {
namespace {

// Set while the fallback calls a function again without a name to rename:
// the nested dispatch then skips the fallback once.
thread_local bool g_step_aside = false;

struct StepAsideGuard {
  explicit StepAsideGuard(bool on) : saved(g_step_aside) { g_step_aside = on; }
  ~StepAsideGuard() { g_step_aside = saved; }
  StepAsideGuard(const StepAsideGuard&) = delete;
  StepAsideGuard& operator=(const StepAsideGuard&) = delete;
  bool saved;
};

bool has_parameter(const std::string& doc, const char* name) {
  const std::string token = std::string(name) + ":";
  for (size_t at = doc.find(token); at != std::string::npos; at = doc.find(token, at + 1)) {
    if (at > 0 && (doc[at - 1] == ' ' || doc[at - 1] == '(')) return true;
  }
  return false;
}

// Whether `fn` is a pybind11 binding whose signatures name dim or keepdim but not axis.
bool takes_dim(py::handle fn) {
  if (!py::isinstance<py::cpp_function>(fn) && !PyInstanceMethod_Check(fn.ptr())) return false;
  py::object doc = py::getattr(fn, "__doc__", py::none());
  if (doc.is_none()) return false;
  const std::string text = py::str(doc);
  return (has_parameter(text, "dim") || has_parameter(text, "keepdim")) && !has_parameter(text, "axis");
}

void add_fallback(py::handle owner, const std::string& name, bool method) {
  py::object existing = owner.attr(name.c_str());
  if (method && PyInstanceMethod_Check(existing.ptr())) {
    existing = py::reinterpret_borrow<py::object>(PyInstanceMethod_GET_FUNCTION(existing.ptr()));
  }
  auto renamed = [owner, name](py::args args, const py::kwargs& kwargs) -> py::object {
    if (g_step_aside) {
      g_step_aside = false;  // only this dispatch: calls the op makes inside see the fallback again
      throw py::reference_cast_error();
    }
    py::dict spelled;
    bool changed = false;
    for (auto [key, value] : kwargs) {
      std::string k = py::str(key);
      if ((k == "axis" && !kwargs.contains("dim")) || (k == "keepdims" && !kwargs.contains("keepdim"))) {
        k = k == "axis" ? "dim" : "keepdim";
        changed = true;
      }
      spelled[py::str(k)] = value;
    }
    StepAsideGuard guard(!changed);
    return owner.attr(name.c_str())(*args, **spelled);
  };
  if (method) {
    py::cpp_function fallback(renamed, py::name(name.c_str()), py::sibling(existing), py::is_method(owner));
    py::setattr(owner, name.c_str(), fallback);
  } else {
    py::cpp_function fallback(renamed, py::name(name.c_str()), py::sibling(existing), py::scope(owner));
    py::setattr(owner, name.c_str(), fallback);
  }
}

}  // namespace

void add_numpy_argument_names(py::module_& torch) {
  std::vector<std::string> functions, methods;
  for (auto [key, value] : torch.attr("__dict__").cast<py::dict>()) {
    if (takes_dim(value)) functions.push_back(py::str(key));
  }
  py::object tensor = torch.attr("Tensor");
  for (auto [key, value] : tensor.attr("__dict__").cast<py::dict>()) {
    if (takes_dim(value)) methods.push_back(py::str(key));
  }
  for (const auto& name : functions) add_fallback(torch, name, /*method=*/false);
  for (const auto& name : methods) add_fallback(tensor, name, /*method=*/true);
}

}  // namespace asyncscope::python
