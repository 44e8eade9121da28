// The frontends' functions and array methods made from the op table
// (engine/tensor/op_table.h): for each elementwise unary op, its nd names
// as nd functions and NDArray methods, its torch names as torch functions
// and Tensor methods; and the table itself, as _core.op_table(), for the
// packages' modules (which re-export what was made) and for help.
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "engine/tensor/op_table.h"
#include "python/core/arrays.h"
#include "python/core/bindings.h"

namespace asyncscope::python {
namespace {

using UnaryFn = NDArray (*)(const NDArray&);
using BinaryFn = NDArray (*)(const NDArray&, const NDArray&);

// An operand of a binary function: an array of T's flavour, a number (a
// 0-d array of it, pushed on the other operand's device), or in the PyTorch
// edition a NumPy array; null if it is none of these.
template <class T>
std::optional<NDArray> operand(py::handle v, const NDArray* other) {
  if (const T* x = array_of<T>(v)) return x->a;
  if (other == nullptr) return std::nullopt;
  if (const std::optional<PyNumber> n = python_number(v)) return scalar_of(*other, *n);
  return numpy_operand<T>(*other, v);
}

// fn(a, b) for arrays or numbers on either side (at least one an array).
template <class T>
py::object call_binary(BinaryFn fn, py::handle a, py::handle b, std::string_view name) {
  const T* first = array_of<T>(a);
  const T* second = array_of<T>(b);
  if (first == nullptr && second == nullptr) {
    throw py::type_error(std::string(name) + "(): at least one operand must be an array of this framework, got " +
                         std::string(py::str(py::type::of(a).attr("__name__"))) + " and " +
                         std::string(py::str(py::type::of(b).attr("__name__"))));
  }
  const NDArray& like = first != nullptr ? first->a : second->a;
  return wrap(push_as<T>(like, [&] {
    const std::optional<NDArray> x = operand<T>(a, &like);
    const std::optional<NDArray> y = operand<T>(b, &like);
    if (!x || !y) {
      throw py::type_error(std::string(name) + "(): unsupported operand " +
                           std::string(py::str(py::type::of(x ? b : a).attr("__name__"))));
    }
    NDArray p = *x, q = *y;
    align_zero_d<T>(p, q, name == "div" || name == "divide" || name == "true_divide");
    return fn(p, q);
  }));
}

// name(a, b) as a module function, and a.name(b) as a method of T's class
// when `method`.
template <class T>
void bind_binary(py::module_& module, py::handle cls, std::string_view name, const char* first, const char* second,
                 BinaryFn fn, const std::string& doc, bool method) {
  const std::string n(name);
  module.def(n.c_str(), [fn, n](py::handle a, py::handle b) { return call_binary<T>(fn, a, b, n); },
             py::arg(first), py::arg(second), doc.c_str());
  if (!method) return;
  py::cpp_function m([fn, n](py::handle self, py::handle b) { return call_binary<T>(fn, self, b, n); },
                     py::name(n.c_str()), py::is_method(cls), py::sibling(py::getattr(cls, n.c_str(), py::none())),
                     py::arg("other"), doc.c_str());
  py::setattr(cls, n.c_str(), m);
}

// The Python comparison operators' dunder names, for the table's operators.
const char* comparison_dunder(std::string_view op) {
  if (op == "==") return "__eq__";
  if (op == "!=") return "__ne__";
  if (op == ">") return "__gt__";
  if (op == ">=") return "__ge__";
  if (op == "<") return "__lt__";
  if (op == "<=") return "__le__";
  return nullptr;
}

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
    py::list dtypes;
    if (op.dtypes == "all") {
      for (const DType t : kAllDTypes) dtypes.append(name(t));
    } else {
      dtypes.append(std::string(op.dtypes));
    }
    row["dtypes"] = py::tuple(dtypes);
    row["generated"] = op.unary != nullptr || op.binary != nullptr;
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
    if (op.binary != nullptr) {
      const std::string doc = std::string(op.doc) + " (elementwise, broadcasting; pushed, returns at once)";
      for (const std::string_view name : frontend_names(op.nd)) {
        bind_binary<MxArray>(nd, nd.attr("NDArray"), name, "lhs", "rhs", op.binary, doc, false);
        nd_made.append(std::string(name));
      }
      for (const std::string_view name : frontend_names(op.torch)) {
        bind_binary<Tensor>(torch, torch.attr("Tensor"), name, "input", "other", op.binary, doc, true);
        torch_made.append(std::string(name));
      }
      // The MXNet edition's comparison operators (PyTorch's give bool tensors).
      for (const std::string_view o : frontend_names(op.operators)) {
        const char* dunder = comparison_dunder(o);
        if (dunder == nullptr || op.nd.empty()) continue;
        const BinaryFn fn = op.binary;
        py::object cls = nd.attr("NDArray");
        cls.attr(dunder) = py::cpp_function(
            [fn, o](py::handle self, py::handle y) -> py::object {
              if (array_of<MxArray>(y) == nullptr && !number_of(y)) {
                return py::reinterpret_borrow<py::object>(Py_NotImplemented);  // x == None is False, as in MXNet
              }
              return call_binary<MxArray>(fn, self, y, o);
            },
            py::is_method(cls));
      }
      continue;
    }
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
  // Comparisons make the class unhashable unless told otherwise: an array
  // hashes by identity, as MXNet's does.
  nd.attr("NDArray").attr("__hash__") = py::module_::import("builtins").attr("object").attr("__hash__");
  nd.attr("__table_ops__") = nd_made;
  torch.attr("__table_ops__") = torch_made;
  m.def("op_table", &table_rows,
        "The op table: one dict per op (name, kind, its names in nd and torch, operators, doc, gradient, devices, "
        "dtypes, generated).");
}

}  // namespace asyncscope::python
