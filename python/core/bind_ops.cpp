// The frontends' functions and array methods made from the op table
// (engine/tensor/op_table.h): for each elementwise unary op, its nd names
// as nd functions and NDArray methods, its torch names as torch functions
// and Tensor methods; and the table itself, as _core.op_table(), for the
// packages' modules (which re-export what was made) and for help.
#include <pybind11/stl.h>

#include <string>

#include "engine/tensor/op_table.h"
#include "python/core/arrays.h"
#include "python/core/bindings.h"

namespace asyncscope::python {
namespace {

using UnaryFn = NDArray (*)(const NDArray&);

// name(x) as a module function (argument `arg`) and x.name() as a method of
// T's class, both pushing fn as an op of T's flavour.
template <class T>
void bind_unary(py::module_& module, py::handle cls, std::string_view name, const char* arg, UnaryFn fn,
                const std::string& doc) {
  const std::string n(name);
  const auto call = [fn](const T& x) { return push_as<T>(x.a, [&] { return fn(x.a); }); };
  module.def(n.c_str(), call, py::arg(arg), doc.c_str());
  py::cpp_function method(call, py::name(n.c_str()), py::is_method(cls), py::sibling(py::getattr(cls, n.c_str(), py::none())),
                          doc.c_str());
  py::setattr(cls, n.c_str(), method);
}

py::list table_rows() {
  py::list rows;
  for (const OpDef& op : op_table()) {
    py::dict row;
    row["name"] = std::string(op.name);
    row["kind"] = to_string(op.kind);
    row["nd"] = py::cast(frontend_names(op.nd));
    row["torch"] = py::cast(frontend_names(op.torch));
    row["operators"] = py::cast(frontend_names(op.operators));
    row["doc"] = std::string(op.doc);
    row["gradient"] = op.gradient;
    row["devices"] = op.cuda ? py::make_tuple("cpu", "cuda") : py::make_tuple("cpu");
    row["dtypes"] = py::make_tuple(std::string(kOpDtypes));
    row["generated"] = op.unary != nullptr;
    rows.append(row);
  }
  return rows;
}

}  // namespace

void bind_ops(py::module_& m) {
  py::module_ nd = m.attr("nd");
  py::module_ torch = m.attr("torch");
  py::list nd_made, torch_made;
  for (const OpDef& op : op_table()) {
    if (op.unary == nullptr) continue;
    const std::string doc = std::string(op.doc) + " (elementwise; pushed, returns at once)";
    for (const std::string_view name : frontend_names(op.nd)) {
      bind_unary<MxArray>(nd, nd.attr("NDArray"), name, "data", op.unary, doc);
      nd_made.append(std::string(name));
    }
    for (const std::string_view name : frontend_names(op.torch)) {
      bind_unary<Tensor>(torch, torch.attr("Tensor"), name, "input", op.unary, doc);
      torch_made.append(std::string(name));
    }
    // Python's abs() for both flavours (the table's operator "abs(x)").
    for (const std::string_view o : frontend_names(op.operators)) {
      if (o != "abs(x)") continue;
      const UnaryFn fn = op.unary;
      nd.attr("NDArray").attr("__abs__") = py::cpp_function(
          [fn](const MxArray& x) { return push_as<MxArray>(x.a, [&] { return fn(x.a); }); },
          py::is_method(nd.attr("NDArray")));
      torch.attr("Tensor").attr("__abs__") = py::cpp_function(
          [fn](const Tensor& x) { return push_as<Tensor>(x.a, [&] { return fn(x.a); }); },
          py::is_method(torch.attr("Tensor")));
    }
  }
  nd.attr("__table_ops__") = nd_made;
  torch.attr("__table_ops__") = torch_made;
  m.def("op_table", &table_rows,
        "The op table: one dict per op (name, kind, its names in nd and torch, operators, doc, gradient, devices, "
        "dtypes, generated).");
}

}  // namespace asyncscope::python
