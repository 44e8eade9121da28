// The PyTorch edition's tensors: asyncscope.torch.Tensor and the torch
// functions, with PyTorch's semantics where they differ from the MXNet
// edition: whole-tensor reductions are 0-d, item() gives a Python float,
// shape is a torch.Size, devices are torch.device objects, printing is
// PyTorch's text (python/core/torch_repr.h), and every op records for
// autograd under PyTorch's grad mode (python/core/torch_grad_mode.h).
//
// Unlike PyTorch, ops on the CPU are asynchronous too: they are pushed to the
// engine's CPU workers and return at once, as ops on a GPU stream do.
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>

#include "engine/tensor/autograd_graph.h"
#include "python/core/arrays.h"
#include "python/core/bindings.h"
#include "python/core/runtime.h"
#include "python/core/shape_ops.h"
#include "python/core/torch_creation.h"
#include "python/core/torch_devices.h"
#include "python/core/torch_repr.h"
#include "python/core/typed_methods.h"

namespace asyncscope::python {
namespace {

void set_requires_grad(Tensor& x, bool requires_grad) {
  const bool leaf = x.a.grad_req() != autograd::GradReq::null || !x.a.requires_grad();
  if (!leaf) {
    throw std::runtime_error("you can only change requires_grad flags of leaf variables (this tensor was computed "
                             "by recorded ops; use detach() for a leaf)");
  }
  if (requires_grad) {
    if (x.a.grad_req() != autograd::GradReq::accumulate) make_leaf(x.a);
  } else if (x.a.grad_req() != autograd::GradReq::null) {
    x.a.attach_grad(autograd::GradReq::null);
  }
}

std::string device_suffix(Device d) {
  return d.kind == DeviceKind::cpu ? "" : "device='" + to_string(d) + "'";
}

// The name PyTorch gives the backward function of a recorded op
// (MulBackward0): the name an edition gave it, PyTorch's name for the
// engine's op, or the engine's name in PyTorch's pattern (take: TakeBackward0).
std::string node_name(const autograd::Node& node) {
  if (node.display_name != 0) return std::string(trace::name_of(node.display_name));
  const std::string op = trace::name_of(node.name);
  static const std::pair<const char*, const char*> kNames[] = {
      {"add", "AddBackward0"},       {"add_scalar", "AddBackward0"},   {"sub", "SubBackward0"},
      {"sub_scalar", "SubBackward0"}, {"rsub_scalar", "RsubBackward1"}, {"mul", "MulBackward0"},
      {"mul_scalar", "MulBackward0"}, {"div", "DivBackward0"},         {"div_scalar", "DivBackward0"},
      {"rdiv_scalar", "MulBackward0"}, {"negative", "NegBackward0"},    {"pow", "PowBackward1"},
      {"square", "PowBackward0"},    {"sqrt", "SqrtBackward0"},        {"exp", "ExpBackward0"},
      {"log", "LogBackward0"},       {"relu", "ReluBackward0"},        {"sigmoid", "SigmoidBackward0"},
      {"tanh", "TanhBackward0"},     {"sin", "SinBackward0"},          {"cos", "CosBackward0"},
      {"abs", "AbsBackward0"},       {"sum", "SumBackward0"},          {"sum_axis", "SumBackward1"},
      {"mean", "MeanBackward0"},     {"mean_axis", "MeanBackward1"},   {"norm", "NormBackward1"},
      {"norm_axis", "NormBackward1"}, {"dot", "MmBackward0"}, {"batch_dot", "BmmBackward0"},          {"reshape", "ViewBackward0"},
      {"transpose", "TBackward0"},   {"permute", "PermuteBackward0"},  {"take", "IndexBackward0"},
      {"gather", "IndexBackward0"},  {"concat", "CatBackward0"},       {"copy", "CloneBackward0"},
      {"astype", "ToCopyBackward0"}, {"maximum", "MaximumBackward0"},  {"minimum", "MinimumBackward0"},
      {"max", "MaxBackward1"},       {"min", "MinBackward1"},          {"prod", "ProdBackward0"},
      {"cumsum", "CumsumBackward0"}, {"where", "WhereBackward0"},      {"broadcast_to", "ExpandBackward0"}};
  for (const auto& [engine, torch_name] : kNames) {
    if (op == engine) return std::string(torch_name);
  }
  std::string out;
  bool upper = true;
  for (const char ch : op) {
    if (ch == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
    upper = false;
  }
  return out + "Backward0";
}

// The recorded op that computed x (also once a backward released it), or
// null for a leaf or a tensor outside any graph.
std::shared_ptr<autograd::Node> grad_node(const NDArray& x) {
  const detail::Chunk* c = x.chunk();
  // A node a backward has used stays the tensor's grad_fn, as PyTorch keeps it (its saved values are gone).
  if (!c->grad || c->grad->leaf || !c->grad->node) return nullptr;
  return c->grad->node;
}

// grad_fn: a recorded op's backward, as PyTorch shows it: its name(), and
// next_functions, the backward of each input, (None, 0) for a constant and
// (AccumulateGrad, 0) for a leaf that requires grad (its .variable).
struct GradFn {
  std::shared_ptr<autograd::Node> node;
};
struct AccumulateGrad {
  NDArray leaf;
};

std::string torch_repr(const Tensor& x) {
  const DType t = x.a.dtype();
  std::vector<double> values;
  if (t == DType::float32) {
    const std::vector<float> f = waiting_to_copy(x.a.context(), [&] { return x.a.to_host(trace::SyncKind::print); });
    values.assign(f.begin(), f.end());
  } else {
    const std::vector<std::byte> bytes =
        waiting_to_copy(x.a.context(), [&] { return x.a.to_host_bytes(trace::SyncKind::print); });
    visit_dtype(t, [&]<class T>(T) {
      values.resize(bytes.size() / sizeof(T));
      for (size_t i = 0; i < values.size(); ++i) {
        T v;
        std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
        values[i] = static_cast<double>(v);
      }
    });
  }
  std::vector<std::string> suffixes;
  if (const std::string s = device_suffix(x.a.device()); !s.empty()) suffixes.push_back(s);
  // PyTorch names the type unless it is the default of its kind.
  if (t != DType::float32 && t != DType::int64 && t != DType::boolean) {
    suffixes.push_back(std::string("dtype=torch.") + name(t));
  }
  if (x.a.grad_req() == autograd::GradReq::accumulate) {
    suffixes.push_back("requires_grad=True");
  } else if (const std::shared_ptr<autograd::Node> node = grad_node(x.a)) {
    suffixes.push_back("grad_fn=<" + node_name(*node) + ">");
  }
  const TensorValues kind = is_floating(t)     ? TensorValues::floating
                            : t == DType::boolean ? TensorValues::boolean
                                                  : TensorValues::integer;
  return torch_tensor_text(x.a.shape(), values, kind, suffixes);
}

Tensor reduce(const Tensor& x, py::handle dim_given, bool keepdim, ReduceKind kind) {
  const py::object dim = torch_dims(dim_given);
  return push_as<Tensor>(x.a, [&] {
    // A 0-d tensor takes dim 0 or -1 (PyTorch's rule): the whole tensor.
    const bool scalar_dim = x.a.shape().ndim() == 0 && !dim.is_none() && PyIndex_Check(dim.ptr()) &&
                            (py::cast<int64_t>(dim) == 0 || py::cast<int64_t>(dim) == -1);
    if ((dim.is_none() && !keepdim) || scalar_dim) return reduce_all(x.a, kind);
    const std::vector<int> axes = axes_from(dim);
    return reduce_along(x.a, axes, keepdim, kind);
  });
}

// sum(dim, keepdim), also spelled sum(axis=, keepdims=) as PyTorch accepts.
Tensor reduce_with_aliases(const Tensor& x, py::object dim, bool keepdim, py::object axis, py::object keepdims,
                           ReduceKind kind) {
  if (!axis.is_none()) dim = axis;
  if (!keepdims.is_none()) keepdim = py::cast<bool>(keepdims);
  return reduce(x, dim, keepdim, kind);
}

// The 2-norm (Frobenius for a matrix), over everything or along dim.
// The p-norm ('fro' and None: 2; a number, inf included), of everything or along dim.
Tensor norm_of(const Tensor& x, py::object p, py::object dim, bool keepdim) {
  double order = 2.0;
  if (py::isinstance<py::str>(p)) {
    if (py::cast<std::string>(p) != "fro") {
      throw std::invalid_argument("norm: p must be a number or 'fro', got '" + py::cast<std::string>(p) + "'");
    }
  } else if (!p.is_none()) {
    order = py::cast<double>(p);
  }
  if (order == 2.0) return reduce(x, dim, keepdim, ReduceKind::norm);
  const std::vector<int> axes = axes_from(torch_dims(dim));
  return push_as<Tensor>(x.a, [&] { return pnorm_of(x.a, order, axes, keepdim, "norm"); });
}

// x on `device`: x itself when it is there already, as PyTorch's .to() does.
py::object moved(py::object self, py::handle spec, const char* op) {
  const Tensor& x = self.cast<const Tensor&>();
  const Device device = torch_device(spec, x.a.context(), op);
  if (device == x.a.device()) return self;
  return py::cast(push_as<Tensor>(x.a, [&] { return to(x.a, device); }));
}

// matmul_vectors with PyTorch's exception for shapes that do not fit.
NDArray matmul(const NDArray& a, const NDArray& b, const char* op) {
  try {
    return matmul_vectors(a, b, op);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

float item_of(const Tensor& x) {
  if (x.a.size() != 1) {
    throw std::runtime_error("a Tensor with " + std::to_string(x.a.size()) +
                             " elements cannot be converted to Scalar (item() needs exactly one)");
  }
  return waiting(x.a.context(), [&] { return x.a.item(); });
}

// item(): a Python float, int or bool by the tensor's dtype.
py::object tensor_item(const Tensor& x) {
  if (x.a.dtype() == DType::float32) return py::float_(item_of(x));
  if (x.a.size() != 1) {
    throw std::runtime_error("a Tensor with " + std::to_string(x.a.size()) +
                             " elements cannot be converted to Scalar (item() needs exactly one)");
  }
  return to_numpy(x.a, trace::SyncKind::item).attr("reshape")(py::tuple()).attr("item")();
}

py::object size_of(const Tensor& x) { return torch_attr("Size")(tuple_of(x.a.shape())); }

std::string address_text(const void* p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return text;
}

void bind_grad_fn(py::module_& t) {
  py::class_<AccumulateGrad>(t, "_AccumulateGrad", "The backward step that adds a leaf's gradient into its .grad.")
      .def("name", [](const AccumulateGrad&) { return "torch::autograd::AccumulateGrad"; })
      .def_property_readonly("variable", [](const AccumulateGrad& a) { return Tensor{a.leaf}; })
      .def_property_readonly("next_functions", [](const AccumulateGrad&) { return py::tuple(); })
      .def("__repr__", [](py::handle self) {
        return "<AccumulateGrad object at " + address_text(self.ptr()) + ">";
      });
  py::class_<GradFn>(t, "_GradFn", "A tensor's grad_fn: the backward of the op that computed it.")
      .def("name", [](const GradFn& f) { return node_name(*f.node); })
      .def_property_readonly("next_functions", [](const GradFn& f) {
        if (f.node->used) {
          throw std::runtime_error("Trying to backward through the graph a second time (or directly access saved "
                                   "tensors after they have already been freed)");
        }
        py::list next;
        for (const autograd::Edge& e : f.node->inputs) {
          if (e.node && !e.node->used) {
            next.append(py::make_tuple(py::cast(GradFn{e.node}), 0));
          } else if (!e.leaf.is_null()) {
            next.append(py::make_tuple(py::cast(AccumulateGrad{e.leaf}), 0));
          } else {
            next.append(py::make_tuple(py::none(), 0));
          }
        }
        return py::tuple(next);
      }, "The backward of each input: (grad_fn, 0), (AccumulateGrad, 0) for a leaf, (None, 0) for a constant.")
      .def("__eq__", [](const GradFn& a, const GradFn& b) { return a.node == b.node; })
      .def("__hash__", [](const GradFn& f) { return std::hash<const void*>()(f.node.get()); })
      .def("__repr__", [](py::handle self) {
        return "<" + node_name(*self.cast<const GradFn&>().node) + " object at " + address_text(self.ptr()) + ">";
      });
}

void bind_tensor(py::module_& t) {
  bind_grad_fn(t);
  py::class_<Tensor> c(t, "Tensor", R"(A tensor (float32 unless made with another dtype) whose every operation is
pushed to the asyncscope engine and returns at once, on the GPU's stream
(device='cuda') or, unlike PyTorch, on the engine's CPU workers. item(),
numpy(), printing and torch.cuda.synchronize() wait for the work they need.)");
  c.attr("__module__") = "asyncscope.torch";
  bind_array_common(c);
  // Tensor(t) shares t's storage outside the graph (what nn.Parameter builds
  // on); Tensor(data) makes a float32 tensor of the values, as PyTorch's
  // legacy constructor does.
  c.def(py::init([](py::object data) {
    if (const Tensor* x = array_of<Tensor>(data)) return Tensor{make_view(x->a, x->a.shape())};
    const ContextPtr& context = python::context();
    return push_as<Tensor>(*context, [&] {
      return array_from(context, data, DType::float32, TypeDefaults::torch, context->device());
    });
  }), py::arg("data"));
  // For nn.UninitializedParameter: the object becomes the made parameter
  // (its array, gradient state included), so those holding it keep it.
  c.def("_rebind", [](Tensor& x, const Tensor& made) { x.a = made.a; });
  // Hashable by identity, as PyTorch's tensors are (optimizer state is keyed by parameter).
  c.attr("__hash__") = py::cpp_function([](py::handle self) { return py::hash(py::int_(reinterpret_cast<uintptr_t>(self.ptr()))); },
                                        py::is_method(c));
  c.def_property("data", [](const Tensor& x) { return Tensor{make_view(x.a, x.a.shape())}; },
                 [](py::object self, py::handle value) {
                   // x.data = y: y's values, in place (same shape), outside the graph.
                   const Tensor* v = array_of<Tensor>(value);
                   if (v == nullptr) throw py::type_error("data: assign a Tensor");
                   Tensor& x = self.cast<Tensor&>();
                   if (!(v->a.shape() == x.a.shape())) {
                     throw std::runtime_error("data: assigning a " + v->a.shape().to_string() + " tensor to a " +
                                              x.a.shape().to_string() + " one (only the same shape is supported)");
                   }
                   autograd::Pause pause;
                   Selection all;
                   all.shape = x.a.shape();
                   for (int d = all.shape.ndim() - 1, stride = 1; d >= 0; --d) {
                     all.strides[d] = stride;
                     stride *= static_cast<int>(all.shape[d]);
                   }
                   PushGuard guard(x.a.context());
                   NDArray target = make_view(x.a, x.a.shape());
                   assign(target, all, v->a);
                 },
                 "The same values, sharing storage, outside the graph (in-place changes of it reach this tensor).");
  c.def("__matmul__", [](const Tensor& x, const Tensor& y) {
    return push_as<Tensor>(x.a, [&] { return matmul(x.a, y.a, "matmul"); });
  },
        py::is_operator())
      .def("clone", [](const Tensor& x) { return push_as<Tensor>(x.a, [&] { return copy(x.a); }); },
           "A copy of the values (recorded: the gradient flows back to this tensor).")
      .def("is_contiguous", [](const Tensor& x) { return !x.a.chunk("is_contiguous")->strided; },
           "Whether its elements lie in row-major order in their storage (a strided view's, x[:, 1] of a "
           "GPU tensor, do not).")
      .def("contiguous", [](const py::object& self) -> py::object {
             const Tensor& x = self.cast<const Tensor&>();
             if (!x.a.chunk("contiguous")->strided) return self;
             return py::cast(push_as<Tensor>(x.a, [&] { return copy(x.a); }));
           },
           "This tensor if its elements lie in row-major order, else a copy that does.")
      .def("__repr__", &torch_repr)
      .def("__str__", &torch_repr)
      .def("__float__", &item_of)
      .def("item", &tensor_item, "The value of a one-element tensor as a Python number of its kind (a sync point).")
      .def("numpy", [](const Tensor& x) {
        if (x.a.device().kind != DeviceKind::cpu) {
          throw py::type_error("can't convert " + to_string(x.a.device()) +
                               " device type tensor to numpy: use Tensor.cpu() to copy it to host memory first");
        }
        return to_numpy(x.a, trace::SyncKind::to_host);
      }, "A NumPy float32 copy of the values (a sync point; PyTorch shares the memory instead).")
      .def("to", [](py::object self, py::object device, py::object dtype, bool, bool) {
        // to(dtype) or to(device, dtype): a torch dtype in the first place is the type.
        // non_blocking: every copy here is asynchronous already; copy: a move always copies.
        if (dtype.is_none() && !device.is_none() && py::hasattr(device, "_asyncscope_dtype")) std::swap(device, dtype);
        py::object moved_self = device.is_none() ? self : moved(self, device, "to");
        const std::optional<DType> t = torch_dtype_from(dtype, "to");
        const Tensor& x = moved_self.cast<const Tensor&>();
        if (!t || *t == x.a.dtype()) return moved_self;
        return py::cast(push_as<Tensor>(x.a, [&] { return astype(x.a, *t); }));
      }, py::arg("device") = py::none(), py::arg("dtype") = py::none(), py::arg("non_blocking") = false,
         py::arg("copy") = false,
         "This tensor on `device` and of `dtype` (pushed as a copy; the tensor itself when nothing changes).")
      .def("cpu", [](py::object self) { return moved(self, py::str("cpu"), "cpu"); },
           "This tensor in host memory (pushed as a copy from a GPU).")
      .def("cuda", [](py::object self, py::object device) {
        const int index = device.is_none() ? 0 : py::isinstance<py::int_>(device) ? device.cast<int>() : -1;
        if (index < 0) return moved(self, device, "cuda");
        return moved(self, py::str("cuda:" + std::to_string(index)), "cuda");
      }, py::arg("device") = py::none(), "This tensor on a GPU (cuda:0 unless told).")
      .def_property_readonly("device", [](const Tensor& x) { return torch_device_object(x.a.device()); })
      .def_property_readonly("dtype", [](const Tensor& x) { return torch_attr(name(x.a.dtype())); })
      .def_property_readonly("shape", &size_of)
      .def("size", [](const Tensor& x, py::object dim) -> py::object {
        if (dim.is_none()) return size_of(x);
        const int ndim = x.a.shape().ndim();
        int d = dim.cast<int>();
        if (d < -ndim || d >= std::max(ndim, 1)) {
          throw py::index_error("size(): dimension " + std::to_string(d) + " out of range for a " +
                                std::to_string(ndim) + "-d tensor");
        }
        return py::int_(ndim == 0 ? 1 : x.a.shape()[d < 0 ? d + ndim : d]);
      }, py::arg("dim") = py::none())
      .def("dim", [](const Tensor& x) { return x.a.shape().ndim(); })
      .def("numel", [](const Tensor& x) { return x.a.size(); })
      .def_property_readonly("T", [](const Tensor& x) { return push_as<Tensor>(x.a, [&] { return transpose(x.a); }); })
      .def("sum", [](const Tensor& x, py::object dim, bool keepdim, py::object axis, py::object keepdims) {
        return reduce_with_aliases(x, dim, keepdim, axis, keepdims, ReduceKind::sum);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("axis") = py::none(),
         py::arg("keepdims") = py::none())
      .def("mean", [](const Tensor& x, py::object dim, bool keepdim, py::object axis, py::object keepdims) {
        return reduce_with_aliases(x, dim, keepdim, axis, keepdims, ReduceKind::mean);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("axis") = py::none(),
         py::arg("keepdims") = py::none())
      .def("norm", &norm_of, py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("__int__", [](const Tensor& x) { return py::int_(tensor_item(x)); })
      .def("__bool__", [](const Tensor& x) {
        if (x.a.size() != 1) {
          throw std::runtime_error("Boolean value of Tensor with more than one value is ambiguous");
        }
        return py::cast<bool>(py::bool_(tensor_item(x)));
      })
      .def("tolist", [](const Tensor& x) -> py::object {
        return to_numpy(x.a, trace::SyncKind::to_host).attr("tolist")();
      }, "The values as (nested) Python lists of numbers of the tensor's kind (a sync point).")
      .def_property("requires_grad", [](const Tensor& x) { return x.a.requires_grad(); },
                    [](Tensor& x, bool requires_grad) { set_requires_grad(x, requires_grad); },
                    "Whether autograd records the ops on this tensor (set it on a leaf).")
      .def("requires_grad_", [](py::object self, bool requires_grad) {
        set_requires_grad(self.cast<Tensor&>(), requires_grad);
        return self;
      }, py::arg("requires_grad") = true, "Sets requires_grad in place and returns this tensor.")
      .def_property_readonly("grad_fn", [](const Tensor& x) -> py::object {
        std::shared_ptr<autograd::Node> node = grad_node(x.a);
        if (!node) return py::none();
        return py::cast(GradFn{std::move(node)});
      }, "The backward function of the op that computed this tensor (None for a leaf).")
      .def("_name_grad_fn", [](const Tensor& x, const std::string& name) {
        if (const std::shared_ptr<autograd::Node> node = grad_node(x.a)) node->display_name = trace::intern(name);
      }, py::arg("name"), "Names the backward of the op that computed this tensor as PyTorch does (a composed "
                          "function's: BinaryCrossEntropyWithLogitsBackward0); nothing for a leaf.")
      .def_property_readonly("is_leaf", [](const Tensor& x) {
        return x.a.grad_req() != autograd::GradReq::null || !x.a.requires_grad();
      })
      .def_property("grad", [](const Tensor& x) -> py::object {
        if (x.a.grad_req() == autograd::GradReq::null) return py::none();
        const NDArray& g = x.a.grad();
        return g.is_null() ? py::none() : py::cast(Tensor{g});
      }, [](Tensor& x, const std::optional<Tensor>& g) { x.a.set_grad(g ? g->a : NDArray()); },
         "The gradient backward() accumulated (None before the first).")
      .def("backward", [](const Tensor& x, const std::optional<Tensor>& gradient, std::optional<bool> retain_graph,
                          bool create_graph) {
        if (create_graph) throw std::invalid_argument("backward: create_graph=True is not supported");
        if (!x.a.requires_grad()) {
          throw std::runtime_error("element 0 of tensors does not require grad and does not have a grad_fn");
        }
        if (!gradient && x.a.size() != 1) {
          throw std::runtime_error("grad can be implicitly created only for scalar outputs (pass gradient=)");
        }
        PushGuard guard(x.a.context());
        autograd::backward(x.a, gradient ? gradient->a : NDArray(), retain_graph.value_or(false));
      }, py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
         "Pushes the gradient ops of this tensor into its leaves' .grad (accumulating).")
      .def("detach", [](const Tensor& x) { return Tensor{make_view(x.a, x.a.shape())}; },
           "The same values, sharing storage, outside the graph.")
      .def("zero_", [](py::object self) {
        in_place<Tensor>(self, [](NDArray& a) { a.fill(0.0f); });
        return self;
      }, "Sets every element to 0 in place.")
      .def("fill_", [](py::object self, float value) {
        in_place<Tensor>(self, [value](NDArray& a) { a.fill(value); });
        return self;
      }, py::arg("value"), "Sets every element to value in place.")
      .def("copy_", [](py::object self, py::handle src) {
        in_place<Tensor>(self, [&](NDArray& a) {
          const NDArray v = assigned_value<Tensor>(a, src);
          check_overlap<Tensor>(a, v);
          Selection all;
          all.shape = a.shape();
          int64_t stride = 1;
          for (int d = all.shape.ndim() - 1; d >= 0; --d) {
            all.strides[d] = stride;
            stride *= all.shape[d];
          }
          assign(a, all, v);
        });
        return self;
      }, py::arg("src"), "Copies src's values (broadcast, cast to this tensor's type) into this tensor, in place.");
  // add_ and the rest: one engine write of the tensor's var (its buffer updated in place).
  const auto update = [&c]<class Update>(const char* name, Update, bool has_alpha, const char* doc) {
    const auto f = [has_alpha, name](py::object self, py::handle other, py::handle alpha) {
      py::object operand = py::reinterpret_borrow<py::object>(other);
      if (!alpha.is_none()) {
        if (!has_alpha) throw py::type_error(std::string(name) + "() got an unexpected keyword argument 'alpha'");
        operand = operand * py::reinterpret_borrow<py::object>(alpha);
      }
      const py::object result = in_place_op<Tensor, Update>(self, operand);
      if (result.is(py::reinterpret_borrow<py::object>(Py_NotImplemented))) {
        throw py::type_error(std::string(name) + "(): argument 'other' must be a Tensor or a number, not " +
                             std::string(py::str(py::type::of(other).attr("__name__"))));
      }
      return result;
    };
    c.def(name, f, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none(), doc);
  };
  update("add_", AddInPlace{}, true, "self += alpha * other, in place.");
  update("sub_", SubInPlace{}, true, "self -= alpha * other, in place.");
  update("mul_", MulInPlace{}, false, "self *= other, in place.");
  update("div_", DivInPlace{}, false, "self /= other, in place.");
  c.def("reshape", [](const Tensor& x, const py::args& args) {
        // reshape(2, 3) or reshape((2, 3)); one dimension may be -1 (inferred).
        const py::object spec = args.size() == 1 && !py::isinstance<py::int_>(args[0]) ? py::object(args[0]) : py::object(args);
        const std::vector<int64_t> dims = dims_from(spec, "reshape");
        return push_as<Tensor>(x.a, [&] { return reshape(x.a, dims); });
      });
}

void bind_functions(py::module_& t) {
  using Fill = NDArray (*)(const ContextPtr&, const Shape&, Device);
  const auto creation = [&t](const char* name, Fill fill, const char* doc) {
    t.def(name, [fill, name](const py::args& args, const py::kwargs& kwargs) {
      const ContextPtr& context = python::context();
      const Shape shape = size_from(args, kwargs, name);
      const Device device = creation_device(kwargs, *context, name);
      const std::optional<DType> dtype = dtype_of_kwargs(kwargs, name);
      const double value = fill == static_cast<Fill>(&ones) ? 1.0 : 0.0;
      return with_requires_grad(push_as<Tensor>(*context, [&] {
        return dtype && *dtype != DType::float32 ? full(context, shape, value, *dtype, device) : fill(context, shape, device);
      }), requires_grad_of(kwargs));
    }, doc);
  };
  creation("ones", &ones, "ones(*size, device=None): a tensor of ones (pushed; returns at once).");
  creation("zeros", &zeros, "zeros(*size, device=None): a tensor of zeros (pushed; returns at once).");
  t.def("tensor", [](py::object data, py::object device, py::object dtype, bool requires_grad) {
    const ContextPtr& context = python::context();
    const Device d = torch_device(device, *context, "tensor");
    const std::optional<DType> t = torch_dtype_from(dtype, "tensor");
    return with_requires_grad(
        push_as<Tensor>(*context, [&] { return array_from(context, data, t, TypeDefaults::torch, d); }),
        requires_grad);
  }, py::arg("data"), py::arg("device") = py::none(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false,
     "A tensor with the values of a NumPy array, a (nested) list or a number (float32 of floats, int64 of ints, "
     "bool of bools, a NumPy array's own type, unless dtype= says).");
  // zeros_like(x) and the rest: x's shape, dtype and device, unless dtype= or
  // device= say otherwise (requires_grad= as creation).
  const auto like_dtype = [](const Tensor& like, const py::kwargs& kwargs, const char* op) {
    return dtype_of_kwargs(kwargs, op).value_or(like.a.dtype());
  };
  const auto like_device = [](const Tensor& like, const py::kwargs& kwargs) {
    return kwargs.contains("device") ? creation_device(kwargs, like.a.context(), "like") : like.a.device();
  };
  for (const auto& [name, value] : {std::pair<const char*, double>{"zeros_like", 0.0}, {"ones_like", 1.0}}) {
    t.def(name, [=](const Tensor& like, const py::kwargs& kwargs) {
      const ContextPtr& context = like.a.context_ptr();
      const DType dtype = like_dtype(like, kwargs, name);
      const Device device = like_device(like, kwargs);
      return with_requires_grad(push_as<Tensor>(like.a, [&] {
        return dtype == DType::float32 ? (value == 0.0 ? zeros(context, like.a.shape(), device)
                                                       : ones(context, like.a.shape(), device))
                                       : full(context, like.a.shape(), value, dtype, device);
      }), requires_grad_of(kwargs));
    }, py::arg("input"));
  }
  t.def("full_like", [=](const Tensor& like, double value, const py::kwargs& kwargs) {
    const ContextPtr& context = like.a.context_ptr();
    const DType dtype = like_dtype(like, kwargs, "full_like");
    const Device device = like_device(like, kwargs);
    return with_requires_grad(
        push_as<Tensor>(like.a, [&] { return full(context, like.a.shape(), value, dtype, device); }),
        requires_grad_of(kwargs));
  }, py::arg("input"), py::arg("fill_value"));
  t.def("full", [](py::object size, py::object fill_value, const py::kwargs& kwargs) {
    const ContextPtr& context = python::context();
    const Shape shape = shape_from(size, "full");
    const Device device = creation_device(kwargs, *context, "full");
    // PyTorch's type of a fill value: bool, int64 of an int, float32 of a float.
    const DType inferred = py::isinstance<py::bool_>(fill_value) ? DType::boolean
                           : py::isinstance<py::int_>(fill_value) ? DType::int64
                                                                  : DType::float32;
    const DType dtype = dtype_of_kwargs(kwargs, "full").value_or(inferred);
    const double value = fill_value.cast<double>();
    return with_requires_grad(push_as<Tensor>(*context, [&] { return full(context, shape, value, dtype, device); }),
                              requires_grad_of(kwargs));
  }, py::arg("size"), py::arg("fill_value"),
     "full(size, fill_value, dtype=None, device=None): a tensor of fill_value (bool, int64 or float32 as the value "
     "is, unless dtype= says).");
  // The 1-D products, on dot: x . y of two vectors (0-d), A x of a matrix and a vector.
  t.def("dot", [](const Tensor& a, const Tensor& b) {
    if (a.a.shape().ndim() != 1 || b.a.shape().ndim() != 1) {
      throw std::runtime_error("1D tensors expected, but got " + std::to_string(a.a.shape().ndim()) + "D and " +
                               std::to_string(b.a.shape().ndim()) + "D tensors");
    }
    return push_as<Tensor>(a.a, [&] {
      const int64_t n = a.a.shape()[0];
      return named_as("dot", "dot", [&] {
        return reshape(dot(reshape(a.a, Shape{1, n}), reshape(b.a, Shape{b.a.shape()[0], 1})), Shape{});
      });
    });
  }, py::arg("input"), py::arg("other"), "The inner product of two 1-D tensors (a 0-d tensor).");
  t.def("mv", [](const Tensor& m, const Tensor& v) {
    if (m.a.shape().ndim() != 2 || v.a.shape().ndim() != 1) {
      throw std::runtime_error("mv: expected a 2-D matrix and a 1-D vector, got " + m.a.shape().to_string() + " and " +
                               v.a.shape().to_string());
    }
    return push_as<Tensor>(m.a, [&] {
      return named_as("mv", "dot", [&] {
        return reshape(dot(m.a, reshape(v.a, Shape{v.a.shape()[0], 1})), Shape{m.a.shape()[0]});
      });
    });
  }, py::arg("input"), py::arg("vec"), "The product of a matrix and a vector.");
  t.def("norm", &norm_of, py::arg("input"), py::arg("p") = "fro", py::arg("dim") = py::none(),
        py::arg("keepdim") = false, "The 2-norm (Frobenius for a matrix), of everything or along dim.");
  // cat(tensors, dim=0) (also concat) and stack(tensors, dim=0).
  const auto tensors_of = [](py::handle seq, const char* op) {
    if (array_of<Tensor>(seq) != nullptr || !py::isinstance<py::sequence>(seq)) {
      throw py::type_error(std::string(op) + "(): expected a sequence of Tensors (a tuple or a list)");
    }
    std::vector<NDArray> arrays;
    for (py::handle h : seq) {
      const Tensor* x = array_of<Tensor>(h);
      if (x == nullptr) throw py::type_error(std::string(op) + "(): every element must be a Tensor");
      arrays.push_back(x->a);
    }
    if (arrays.empty()) throw std::runtime_error(std::string(op) + "(): expected a non-empty list of Tensors");
    return arrays;
  };
  for (const char* name : {"cat", "concat"}) {
    t.def(name, [tensors_of, name](py::handle tensors, int dim) {
      const std::vector<NDArray> arrays = tensors_of(tensors, name);
      return push_as<Tensor>(arrays[0], [&] { return named_as(name, "concat", [&] { return concat(arrays, dim); }); });
    }, py::arg("tensors"), py::arg("dim") = 0, "The tensors joined along dim.");
  }
  t.def("stack", [tensors_of](py::handle tensors, int dim) {
    const std::vector<NDArray> arrays = tensors_of(tensors, "stack");
    return push_as<Tensor>(arrays[0], [&] { return stack(arrays, dim); });
  }, py::arg("tensors"), py::arg("dim") = 0, "The tensors stacked along a new dim.");
  t.def("mm", [](const Tensor& a, const Tensor& b) {
    return push_as<Tensor>(a.a, [&] { return named_as("mm", "dot", [&] { return dot(a.a, b.a); }); });
  }, py::arg("input"), py::arg("other"), "Matrix product of 2-D tensors (BLAS sgemm, cuBLAS on a GPU).");
  t.def("matmul", [](const Tensor& a, const Tensor& b) {
    return push_as<Tensor>(a.a, [&] { return matmul(a.a, b.a, "matmul"); });
  }, py::arg("input"), py::arg("other"),
     "Matrix product as PyTorch's matmul: of 2-D tensors, or with a 1-D one as a vector on that side.");
  for (const auto& [name, kind] : {std::pair{"sum", ReduceKind::sum}, {"mean", ReduceKind::mean}}) {
    t.def(name, [kind](const Tensor& x, py::object dim, bool keepdim, py::object axis, py::object keepdims) {
      return reduce_with_aliases(x, dim, keepdim, axis, keepdims, kind);
    }, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("axis") = py::none(),
       py::arg("keepdims") = py::none());
  }
  t.def("is_grad_enabled", &torch_grad_enabled);
  t.def("_set_grad_enabled", &set_torch_grad_enabled, "Sets this thread's grad mode; returns the one it replaces.");
}

void bind_cuda(py::module_& t) {
  t.def("cuda_device_count", [] { return torch_cuda_device_count(*python::context()); },
        "The GPUs this run's tensors can use (0 without CUDA).");
  t.def("cuda_synchronize", [](py::object device) {
    const ContextPtr& context = python::context();
    if (device.is_none()) {
      if (torch_cuda_device_count(*context) == 0) {
        throw std::runtime_error("torch.cuda.synchronize(): " +
                                 torch_device_unusable(Device::cuda(0), *context) +
                                 " (on the CPU, pass the device: synchronize(torch.device('cpu')))");
      }
    } else {
      torch_device(device, *context, "torch.cuda.synchronize");
    }
    waiting(*context, [&] { context->wait_all(); });
  }, py::arg("device") = py::none(), "Waits for the work pushed so far (see torch.cuda.synchronize).");
  t.def("cuda_memory_allocated", [](py::object device) {
    const ContextPtr& context = python::context();
    const Device d = device.is_none() ? Device::cuda(0) : torch_device(device, *context, "torch.cuda.memory_allocated");
    if (const std::string why = torch_device_unusable(d, *context); !why.empty()) {
      throw std::runtime_error("torch.cuda.memory_allocated(): cannot use " + to_string(d) + ": " + why);
    }
    return context->allocator_for(d).live_bytes();
  }, py::arg("device") = py::none(), "Bytes of the device's arrays now (each simulated GPU its own).");
}

}  // namespace

void name_basic_index(const NDArray& made, py::handle key, const Shape& shape) {
  const std::shared_ptr<autograd::Node> node = grad_node(made);
  if (!node) return;
  const py::tuple parts = py::isinstance<py::tuple>(key) ? py::reinterpret_borrow<py::tuple>(key) : py::make_tuple(key);
  int consuming = 0;  // the parts that take a dimension each
  for (const py::handle part : parts) {
    if (py::isinstance<py::slice>(part) || (py::isinstance<py::int_>(part) && !py::isinstance<py::bool_>(part))) {
      ++consuming;
    }
  }
  const char* last = "AliasBackward0";
  int dim = 0;
  for (const py::handle part : parts) {
    if (part.ptr() == Py_Ellipsis) {
      dim += std::max(0, shape.ndim() - consuming);
    } else if (part.is_none() || py::isinstance<py::bool_>(part)) {
      last = "UnsqueezeBackward0";
    } else if (py::isinstance<py::int_>(part)) {
      last = "SelectBackward0";
      ++dim;
    } else if (py::isinstance<py::slice>(part)) {
      const int64_t length = dim < shape.ndim() ? shape[dim] : 0;
      Py_ssize_t start = 0, stop = 0, step = 0, count = 0;
      if (PySlice_GetIndicesEx(part.ptr(), length, &start, &stop, &step, &count) != 0) throw py::error_already_set();
      if (!(start == 0 && count == length && step == 1)) last = "SliceBackward0";
      ++dim;
    }
  }
  node->display_name = trace::intern(last);
}

void bind_torch(py::module_& m) {
  py::module_ t = m.def_submodule("torch", "the PyTorch edition's tensors and functions (asyncscope.torch re-exports them)");
  bind_tensor(t);
  bind_functions(t);
  bind_cuda(t);
}

}  // namespace asyncscope::python
