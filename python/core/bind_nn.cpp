// Gluon (MXNet edition): the C++ engine/nn blocks, parameters, loss and
// trainer, shaped as gluon's: Sequential().add(*blocks), name_scope() as a
// context manager, Dense(units, activation='relu'), collect_params() as a
// dict by name, Trainer(params, 'sgd', {'learning_rate': ...}), and the
// initializers of mxnet.init.
#include <pybind11/stl.h>

#include <optional>

#include "engine/nn/nn.h"
#include "python/core/arrays.h"
#include "python/core/bindings.h"
#include "python/core/runtime.h"

namespace asyncscope::python {
namespace {

using nn::Block;

// A block's name scope entered by `with`.
struct NameScopeGuard {
  NameScopeGuard(std::string p, std::nullopt_t) : prefix(std::move(p)) {}
  std::string prefix;
  std::optional<Block::NameScope> scope;
};

std::string shape_text(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.ndim(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.ndim() == 1 ? ",)" : ")");
}

std::string parameter_repr(const nn::Parameter& p) {
  return "Parameter " + p.name() + " (shape=" + shape_text(p.shape()) + ", dtype=float32)";
}

// block(x): forward inside the block's scope on the trace.
MxArray call(Block& block, const MxArray& x) {
  PushGuard guard(x.a.context());
  return MxArray{block(x.a)};
}

NpArray call_np(Block& block, const NpArray& x) {
  PushGuard guard(x.a.context());
  return NpArray{block(x.a)};
}

MxArray forward(Block& block, const MxArray& x) {
  PushGuard guard(x.a.context());
  return MxArray{block.forward(x.a)};
}

NpArray forward_np(Block& block, const NpArray& x) {
  PushGuard guard(x.a.context());
  return NpArray{block.forward(x.a)};
}

// Whether npx.set_np() is in effect: parameters then give np arrays.
bool& np_mode() {
  static bool on = false;
  return on;
}

py::object as_flavour(const NDArray& a) {
  return np_mode() ? py::cast(NpArray{a}) : py::cast(MxArray{a});
}

nn::Initializer initializer_or_default(const std::optional<nn::Initializer>& init) {
  return init ? *init : nn::init::uniform();
}

}  // namespace

void bind_nn(py::module_& m) {
  py::module_ g = m.def_submodule("gluon", "gluon's blocks, loss and trainer (asyncscope.gluon re-exports them)");

  py::class_<nn::Initializer>(g, "Initializer", "Makes a parameter's initial values.");
  py::module_ init = m.def_submodule("init", "initializers (asyncscope.init re-exports them)");
  init.def("Uniform", &nn::init::uniform, py::arg("scale") = 0.07f, "U(-scale, scale): the default.");
  init.def("Normal", &nn::init::normal, py::arg("sigma") = 0.01f, "N(0, sigma).");
  init.def("Xavier", [](py::object, py::object, float magnitude) { return nn::init::xavier_uniform(magnitude); },
           py::arg("rnd_type") = "uniform", py::arg("factor_type") = "avg", py::arg("magnitude") = 3.0f,
           "Glorot's uniform initializer (uniform, average of the fans).");
  init.def("Zero", &nn::init::zeros);
  init.def("One", [] { return nn::init::constant(1.0f); });
  init.def("Constant", &nn::init::constant, py::arg("value"));

  g.def("_set_np_mode", [](bool on) { np_mode() = on; }, py::arg("on"), "npx.set_np()'s switch for parameters' arrays.");
  g.def("_next_prefix", &nn::next_prefix, py::arg("kind"),
        "The prefix a block of this kind made now gets ('mlp0_'), counted with the C++ blocks' names.");

  py::class_<nn::Parameter>(g, "Parameter", "A named, trainable array of a block, with its gradient.")
      .def(py::init([](std::string name, py::object shape, std::optional<nn::Initializer> init,
                       const std::string& grad_req) {
             std::vector<int64_t> dims;
             if (!shape.is_none()) {
               if (py::isinstance<py::int_>(shape)) {
                 dims.push_back(shape.cast<int64_t>());
               } else {
                 for (py::handle d : shape) dims.push_back(d.cast<int64_t>());
               }
             }
             for (int64_t d : dims) {
               if (d < 0) throw std::invalid_argument("Parameter " + name + ": a dimension is negative");
             }
             autograd::GradReq req = autograd::GradReq::write;
             if (grad_req == "add") {
               req = autograd::GradReq::add;
             } else if (grad_req == "null") {
               req = autograd::GradReq::null;
             } else if (grad_req != "write") {
               throw std::invalid_argument("Parameter " + name + ": grad_req must be 'write', 'add' or 'null', got '" +
                                           grad_req + "'");
             }
             return std::make_unique<nn::Parameter>(std::move(name), Shape(std::span<const int64_t>(dims)), req,
                                                    init ? *init : nn::Initializer{});
           }),
           py::arg("name"), py::arg("shape") = py::none(), py::arg("init") = py::none(),
           py::arg("grad_req") = "write",
           "A parameter of `shape` (0 for a size the first batch tells); its own init, if given, wins over "
           "initialize()'s.")
      .def_property_readonly("name", &nn::Parameter::name)
      .def_property_readonly("shape", [](const nn::Parameter& p) { return tuple_of(p.shape()); })
      .def("data", [](const nn::Parameter& p, py::object) { return as_flavour(p.data()); }, py::arg("ctx") = py::none(),
           "The parameter's array (an np array after npx.set_np(), else an nd one).")
      .def("grad", [](const nn::Parameter& p, py::object) { return as_flavour(p.grad()); }, py::arg("ctx") = py::none())
      .def("initialize", [](nn::Parameter& p, std::optional<nn::Initializer> init, py::object, bool force) {
        PushGuard guard(*python::context());
        p.initialize(initializer_or_default(init), python::context(), force);
      }, py::arg("init") = py::none(), py::arg("ctx") = py::none(), py::arg("force_reinit") = false)
      .def("zero_grad", &nn::Parameter::zero_grad)
      .def_property_readonly("_initialized", &nn::Parameter::is_initialized)
      .def("_set_shape", [](nn::Parameter& p, const std::vector<int64_t>& dims) {
        PushGuard guard(*python::context());
        p.set_shape(Shape(std::span<const int64_t>(dims)));
      }, py::arg("shape"))
      .def("set_data", [](nn::Parameter& p, py::handle data) {
        const NDArray value = py::isinstance<NpArray>(data) ? data.cast<const NpArray&>().a
                                                             : data.cast<const MxArray&>().a;
        PushGuard guard(value.context());
        NDArray d = p.data();
        if (!(value.shape() == d.shape())) {
          throw std::invalid_argument("Parameter " + p.name() + ".set_data: a " + value.shape().to_string() +
                                      " array for a " + d.shape().to_string() + " parameter");
        }
        Selection all;
        all.shape = d.shape();
        for (int i = d.shape().ndim() - 1, stride = 1; i >= 0; --i) {
          all.strides[i] = stride;
          stride *= static_cast<int>(d.shape()[i]);
        }
        autograd::Pause pause;
        assign(d, all, value);
      }, py::arg("data"), "Copies `data` (of the parameter's shape) into it, in place (pushed).")
      .def("__repr__", &parameter_repr);

  py::class_<nn::ParameterDict>(g, "ParameterDict", "A block's parameters by full name (a dict).")
      .def(py::init<>())
      .def("_add", [](nn::ParameterDict& d, nn::Parameter& p) { d.add(&p); }, py::keep_alive<1, 2>(),
           py::arg("parameter"), "Adds a parameter (kept alive with the dict).")
      .def("update", [](nn::ParameterDict& d, const nn::ParameterDict& other) {
        for (nn::Parameter* p : other) d.add(p);
      }, py::keep_alive<1, 2>(), py::arg("other"), "Adds every parameter of `other` (kept alive with this dict).")
      .def("__getitem__", [](const nn::ParameterDict& d, const std::string& name) -> nn::Parameter& {
        if (!d.contains(name)) throw py::key_error(name);
        return d[name];
      }, py::return_value_policy::reference_internal)
      .def("__contains__", &nn::ParameterDict::contains)
      .def("__len__", &nn::ParameterDict::size)
      .def("__iter__", [](const nn::ParameterDict& d) { return py::iter(py::cast(d.keys())); })
      .def("keys", &nn::ParameterDict::keys)
      .def("values", [](py::object self) {
        py::list out;
        for (nn::Parameter* p : self.cast<const nn::ParameterDict&>()) {
          out.append(py::cast(p, py::return_value_policy::reference_internal, self));
        }
        return out;
      })
      .def("items", [](py::object self) {
        py::list out;
        for (nn::Parameter* p : self.cast<const nn::ParameterDict&>()) {
          out.append(py::make_tuple(p->name(), py::cast(p, py::return_value_policy::reference_internal, self)));
        }
        return out;
      })
      .def("initialize", [](nn::ParameterDict& d, std::optional<nn::Initializer> init, py::object, bool force) {
        PushGuard guard(*python::context());
        d.initialize(initializer_or_default(init), python::context(), force);
      }, py::arg("init") = py::none(), py::arg("ctx") = py::none(), py::arg("force_reinit") = false)
      .def("zero_grad", &nn::ParameterDict::zero_grad)
      .def("__repr__", [](const nn::ParameterDict& d) {
        std::string out = "(\n";
        for (const nn::Parameter* p : d) out += "  " + parameter_repr(*p) + "\n";
        return out + ")";
      });

  py::class_<NameScopeGuard, std::unique_ptr<NameScopeGuard>>(g, "_NameScope")
      .def(py::init([](std::string prefix) { return std::make_unique<NameScopeGuard>(std::move(prefix), std::nullopt); }),
           py::arg("prefix"), "A name scope for blocks made inside `with` (their names start with `prefix`).")
      .def("__enter__", [](NameScopeGuard& s) { s.scope.emplace(s.prefix); })
      .def("__exit__", [](NameScopeGuard& s, py::handle, py::handle, py::handle) {
        s.scope.reset();
        return false;
      });

  py::class_<Block, std::shared_ptr<Block>>(g, "Block", "A layer or a network: maps a batch to an output.")
      .def("__call__", &call, py::arg("x"))
      .def("__call__", &call_np, py::arg("x"))
      .def("forward", &forward, py::arg("x"))
      .def("forward", &forward_np, py::arg("x"))
      .def_property_readonly("prefix", &Block::prefix)
      .def_property_readonly("name", [](const Block& b) { return b.prefix().substr(0, b.prefix().size() - 1); })
      .def("name_scope", [](const Block& b) { return std::make_unique<NameScopeGuard>(b.prefix(), std::nullopt); },
           "A scope (use it with `with`) in which new blocks are named as this block's children.")
      .def("collect_params", [](Block& b) { return b.collect_params(); }, py::keep_alive<0, 1>(),
           "Every parameter of this block and its children, by full name.")
      .def("initialize", [](Block& b, std::optional<nn::Initializer> init, py::object, bool verbose, bool force) {
        (void)verbose;
        PushGuard guard(*python::context());
        b.initialize(initializer_or_default(init), python::context(), force);
      }, py::arg("init") = py::none(), py::arg("ctx") = py::none(), py::arg("verbose") = false,
         py::arg("force_reinit") = false,
         "Initializes the parameters (weights U(-0.07, 0.07), biases zeros by default); those whose input size is "
         "unknown are made at the first forward.");

  py::class_<nn::Dense, Block, std::shared_ptr<nn::Dense>>(g, "Dense", "y = activation(x W^T + b).")
      .def(py::init([](int64_t units, py::object activation, bool use_bias, bool flatten, int64_t in_units) {
             if (!flatten) throw std::invalid_argument("Dense: flatten=False is not supported");
             const std::string name = activation.is_none() ? "" : activation.cast<std::string>();
             return std::make_shared<nn::Dense>(units, nn::activation_from_name(name), use_bias, in_units);
           }),
           py::arg("units"), py::arg("activation") = py::none(), py::arg("use_bias") = true,
           py::arg("flatten") = true, py::arg("in_units") = 0)
      .def_property_readonly("weight", [](nn::Dense& d) -> nn::Parameter& { return d.weight(); },
                             py::return_value_policy::reference_internal)
      .def_property_readonly("bias", [](nn::Dense& d) -> nn::Parameter& { return d.bias(); },
                             py::return_value_policy::reference_internal);

  py::class_<nn::ReLU, Block, std::shared_ptr<nn::ReLU>>(g, "ReLU").def(py::init<>());

  py::class_<nn::Sequential, Block, std::shared_ptr<nn::Sequential>>(g, "Sequential", "Blocks applied in order.")
      .def(py::init<>())
      .def("add", [](nn::Sequential& s, const py::args& blocks) {
        for (py::handle b : blocks) s.add_shared(b.cast<std::shared_ptr<Block>>());
      }, "Appends blocks, in order.")
      .def("__len__", &nn::Sequential::size)
      .def("__getitem__", [](const nn::Sequential& s, size_t i) {
        if (i >= s.size()) throw py::index_error("Sequential index out of range");
        return s.child(i);
      });

  py::class_<nn::L2Loss>(g, "L2Loss", "weight/2 * (label - pred)^2, one value per sample.")
      .def(py::init<float, int>(), py::arg("weight") = 1.0f, py::arg("batch_axis") = 0)
      .def("__call__", [](const nn::L2Loss& loss, const MxArray& pred, const MxArray& label) {
        PushGuard guard(pred.a.context());
        return MxArray{loss(pred.a, label.a)};
      }, py::arg("pred"), py::arg("label"))
      .def("__call__", [](const nn::L2Loss& loss, const NpArray& pred, const NpArray& label) {
        PushGuard guard(pred.a.context());
        return NpArray{loss(pred.a, label.a)};
      }, py::arg("pred"), py::arg("label"));

  py::class_<nn::Trainer>(g, "Trainer", "Updates parameters from their gradients (step()).")
      .def(py::init([](const nn::ParameterDict& params, const std::string& optimizer, py::object options) {
             nn::Trainer::Options opts;
             if (!options.is_none()) {
               for (auto [k, v] : options.cast<py::dict>()) opts[k.cast<std::string>()] = v.cast<double>();
             }
             return std::make_unique<nn::Trainer>(params, optimizer, opts);
           }),
           py::arg("params"), py::arg("optimizer"), py::arg("optimizer_params") = py::none(), py::keep_alive<1, 2>())
      .def("step", [](nn::Trainer& t, int64_t batch_size, bool) {
        PushGuard guard(*python::context());  // an in-flight bound may hold the pushes
        t.step(batch_size);
      }, py::arg("batch_size"), py::arg("ignore_stale_grad") = false,
         "w -= learning_rate / batch_size * grad for every parameter (pushed; returns at once).")
      .def_property_readonly("learning_rate", &nn::Trainer::learning_rate)
      .def("set_learning_rate", &nn::Trainer::set_learning_rate, py::arg("lr"));
}

}  // namespace asyncscope::python
