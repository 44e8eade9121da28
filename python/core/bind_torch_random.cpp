// The torch edition's random functions, drawing from PyTorch's CPU streams
// (engine/tensor/torch_random.h): rand, randn, randint, randperm, normal,
// rand_like and randn_like, the fills behind Tensor.uniform_ / normal_ / random_ /
// bernoulli_, torch.bernoulli, and the generator objects (_Generator; the
// run's default generator is its context's). A tensor on a GPU keeps the
// engine's counter-based GPU kernels, or is drawn on the CPU and copied.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/tensor/context.h"
#include "engine/tensor/torch_random.h"
#include "python/core/arrays.h"
#include "python/core/bindings.h"
#include "python/core/runtime.h"
#include "python/core/shape_ops.h"
#include "python/core/torch_creation.h"
#include "python/core/torch_devices.h"

namespace asyncscope::python {
namespace {

// generator=: None (the run's default), a torch.Generator (its _impl: None
// for torch.default_generator) or a _Generator.
TorchGenerator& generator_of(py::handle g, Context& context) {
  if (g.is_none()) return context.torch_generator();
  py::object impl = py::reinterpret_borrow<py::object>(g);
  if (py::hasattr(impl, "_impl")) impl = impl.attr("_impl");
  if (impl.is_none()) return context.torch_generator();
  if (!py::isinstance<TorchGenerator>(impl)) {
    throw py::type_error("generator must be a torch.Generator, not " +
                         std::string(py::str(py::type::handle_of(g).attr("__name__"))));
  }
  return impl.cast<TorchGenerator&>();
}

py::object generator_kwarg(const py::kwargs& kwargs) {
  return kwargs.contains("generator") ? py::object(kwargs["generator"]) : py::object(py::none());
}

// PyTorch's name of a type in its messages ("not implemented for 'Long'").
const char* torch_type_name(DType t) {
  switch (t) {
    case DType::float32: return "Float";
    case DType::float64: return "Double";
    case DType::int32: return "Int";
    case DType::int64: return "Long";
    case DType::uint8: return "Byte";
    case DType::boolean: return "Bool";
  }
  return "?";
}

DType floating_dtype(std::optional<DType> dtype, const char* op) {
  const DType t = dtype.value_or(DType::float32);
  if (!is_floating(t)) {
    throw std::runtime_error(std::string("\"") + op + "\" not implemented for '" + torch_type_name(t) + "'");
  }
  return t;
}

NDArray on_device(NDArray a, Device device) { return device == Device::cpu() ? a : to(a, device); }

// The draws, by where the tensor lives.
NDArray draw_uniform(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, double from,
                     double to_value, Device device) {
  if (device != Device::cpu() && from < to_value) {
    return in_dtype(uniform(ctx, shape, static_cast<float>(from), static_cast<float>(to_value), device), dtype);
  }
  return on_device(torch_uniform(ctx, gen, shape, dtype, from, to_value), device);
}

NDArray draw_normal(const ContextPtr& ctx, TorchGenerator& gen, const Shape& shape, DType dtype, double mean,
                    double std_dev, Device device) {
  if (device != Device::cpu()) {
    return in_dtype(normal(ctx, shape, static_cast<float>(mean), static_cast<float>(std_dev), device), dtype);
  }
  return torch_normal(ctx, gen, shape, dtype, mean, std_dev);
}

// randint's arguments: (high, size) or (low, high, size), by position or name.
struct IntRange {
  int64_t low = 0;
  int64_t high = 0;
  Shape shape;
};

IntRange int_range(const py::tuple& args, const py::dict& kwargs, const char* op) {
  size_t total = args.size();
  for (const char* k : {"low", "high", "size"}) total += kwargs.contains(k) ? 1 : 0;
  if (total != 2 && total != 3) {
    throw py::type_error(std::string(op) + "() takes (high, size) or (low, high, size)");
  }
  const std::vector<const char*> names =
      total == 3 ? std::vector<const char*>{"low", "high", "size"} : std::vector<const char*>{"high", "size"};
  std::vector<py::object> values(names.size());
  if (args.size() > names.size()) throw py::type_error(std::string(op) + "(): too many positional arguments");
  for (size_t i = 0; i < args.size(); ++i) values[i] = args[i];
  for (size_t i = 0; i < names.size(); ++i) {
    if (!kwargs.contains(names[i])) continue;
    if (values[i]) throw py::type_error(std::string(op) + "() got multiple values for argument '" + names[i] + "'");
    values[i] = kwargs[names[i]];
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!values[i]) throw py::type_error(std::string(op) + "() missing argument '" + names[i] + "'");
  }
  IntRange r;
  r.low = total == 3 ? py::cast<int64_t>(values[0]) : 0;
  r.high = py::cast<int64_t>(values[total == 3 ? 1 : 0]);
  r.shape = shape_from(values.back(), op);
  return r;
}

void check_keywords(const py::kwargs& kwargs, std::initializer_list<const char*> allowed, const char* op) {
  for (auto [key, value] : kwargs) {
    const std::string k = py::str(key);
    bool known = false;
    for (const char* a : allowed) known = known || k == a;
    if (!known) throw py::type_error(std::string(op) + "() got an unexpected keyword argument '" + k + "'");
  }
}

Device device_kwarg(const py::kwargs& kwargs, const Context& context, const char* op) {
  return torch_device(kwargs.contains("device") ? py::object(kwargs["device"]) : py::object(py::none()), context, op);
}

}  // namespace

void bind_torch_random(py::module_& m) {
  py::module_ t = m.attr("torch");
  py::class_<TorchGenerator, std::shared_ptr<TorchGenerator>>(
      t, "_Generator", "A generator of PyTorch's CPU random stream (torch.Generator holds one).")
      .def(py::init([](py::int_ seed) {
        return std::make_shared<TorchGenerator>(PyLong_AsUnsignedLongLongMask(seed.ptr()));
      }), py::arg("seed"))
      .def("manual_seed", [](TorchGenerator& g, py::int_ seed) {
        g.manual_seed(PyLong_AsUnsignedLongLongMask(seed.ptr()));
      }, py::arg("seed"))
      .def("initial_seed", &TorchGenerator::initial_seed)
      .def("get_state", [](const TorchGenerator& g) { return py::bytes(g.to_bytes()); })
      .def("set_state", [](TorchGenerator& g, const py::bytes& state) { g.from_bytes(std::string(state)); },
           py::arg("state"));
  // The run's default generator, for torch.default_generator's calls: held
  // only for the call (a new run has a new one).
  t.def("_default_generator", [] { return &python::context()->torch_generator(); },
        py::return_value_policy::reference);

  // torch.empty((), dtype=torch.int64).random_(generator=g).item() without
  // the op and the sync: the draw is made here, on the frontend (the
  // DataLoader's seeds).
  t.def("_random_seed", [](py::object generator) {
    TorchGenerator& gen = generator_of(generator, *python::context());
    return static_cast<int64_t>(torch_random_int64(gen));
  }, py::arg("generator") = py::none());
  // rand and randn: samples uniform in [0, 1), or standard normal ones.
  for (const bool is_normal : {false, true}) {
    const char* name = is_normal ? "randn" : "rand";
    const char* kernel = is_normal ? "normal_kernel_cpu" : "check_uniform_bounds";
    t.def(name, [name, kernel, is_normal](const py::args& args, const py::kwargs& kwargs) {
      const ContextPtr& context = python::context();
      const Shape shape = size_from(args, kwargs, name);
      const Device device = creation_device(kwargs, *context, name);
      const DType dtype = floating_dtype(dtype_of_kwargs(kwargs, name), kernel);
      TorchGenerator& gen = generator_of(generator_kwarg(kwargs), *context);
      return with_requires_grad(push_as<Tensor>(*context, [&] {
        return is_normal ? draw_normal(context, gen, shape, dtype, 0.0, 1.0, device)
                         : draw_uniform(context, gen, shape, dtype, 0.0, 1.0, device);
      }), requires_grad_of(kwargs));
    }, is_normal ? "randn(*size, generator=None, dtype=None, device=None, requires_grad=False): standard normal "
                   "samples, PyTorch's numbers for its seed (pushed; returns at once)."
                 : "rand(*size, generator=None, dtype=None, device=None, requires_grad=False): samples uniform in "
                   "[0, 1), PyTorch's numbers for its seed (pushed; returns at once).");
  }
  for (const char* name : {"rand_like", "randn_like"}) {
    const bool is_normal = name[4] == 'n';
    t.def(name, [name, is_normal](const Tensor& like, const py::kwargs& kwargs) {
      check_keywords(kwargs, {"dtype", "device", "requires_grad", "memory_format", "layout"}, name);
      const ContextPtr& context = like.a.context_ptr();
      const DType dtype = floating_dtype(dtype_of_kwargs(kwargs, name).value_or(like.a.dtype()),
                                         is_normal ? "normal_kernel_cpu" : "check_uniform_bounds");
      const Device device = kwargs.contains("device") ? device_kwarg(kwargs, *context, name) : like.a.device();
      TorchGenerator& gen = context->torch_generator();
      return with_requires_grad(push_as<Tensor>(like.a, [&] {
        return is_normal ? draw_normal(context, gen, like.a.shape(), dtype, 0.0, 1.0, device)
                         : draw_uniform(context, gen, like.a.shape(), dtype, 0.0, 1.0, device);
      }), requires_grad_of(kwargs));
    }, py::arg("input"));
  }
  t.def("randint", [](const py::args& args, const py::kwargs& kwargs) {
    check_keywords(kwargs, {"low", "high", "size", "generator", "dtype", "device", "requires_grad", "layout"}, "randint");
    const IntRange r = int_range(args, kwargs, "randint");
    const ContextPtr& context = python::context();
    const Device device = device_kwarg(kwargs, *context, "randint");
    const DType dtype = dtype_of_kwargs(kwargs, "randint").value_or(DType::int64);
    TorchGenerator& gen = generator_of(generator_kwarg(kwargs), *context);
    return with_requires_grad(push_as<Tensor>(*context, [&] {
      return on_device(torch_random_range(context, gen, r.shape, dtype, r.low, r.high), device);
    }), requires_grad_of(kwargs));
  }, "randint(low=0, high, size, generator=None, dtype=torch.int64, device=None): integers uniform in [low, high), "
     "PyTorch's numbers for its seed.");
  t.def("randperm", [](int64_t n, const py::kwargs& kwargs) {
    check_keywords(kwargs, {"generator", "dtype", "device", "requires_grad", "layout", "pin_memory"}, "randperm");
    const ContextPtr& context = python::context();
    const Device device = device_kwarg(kwargs, *context, "randperm");
    const DType dtype = dtype_of_kwargs(kwargs, "randperm").value_or(DType::int64);
    TorchGenerator& gen = generator_of(generator_kwarg(kwargs), *context);
    return with_requires_grad(push_as<Tensor>(*context, [&] {
      return on_device(torch_randperm(context, gen, n, dtype), device);
    }), requires_grad_of(kwargs));
  }, py::arg("n"), "randperm(n, generator=None, dtype=torch.int64, device=None): a random permutation of 0..n-1, "
                   "PyTorch's for its seed.");
  t.def("normal", [](double mean, double std_dev, py::object size, const py::kwargs& kwargs) {
    check_keywords(kwargs, {"generator", "dtype", "device", "requires_grad", "layout", "out"}, "normal");
    const ContextPtr& context = python::context();
    const Device device = device_kwarg(kwargs, *context, "normal");
    const DType dtype = floating_dtype(dtype_of_kwargs(kwargs, "normal"), "normal_kernel_cpu");
    TorchGenerator& gen = generator_of(generator_kwarg(kwargs), *context);
    const Shape shape = shape_from(size, "normal");
    return with_requires_grad(push_as<Tensor>(*context, [&] {
      return draw_normal(context, gen, shape, dtype, mean, std_dev, device);
    }), requires_grad_of(kwargs));
  }, py::arg("mean"), py::arg("std"), py::arg("size"),
     "normal(mean, std, size, generator=None): samples of N(mean, std^2) (numbers for mean and std), PyTorch's "
     "numbers for its seed.");

  py::object c = t.attr("Tensor");
  const auto draw = [](const Tensor& input, int64_t num_samples, bool replacement, py::object generator) {
    // PyTorch's stream on the CPU (generator= too); a GPU tensor draws the run's own.
    if (input.a.device() != Device::cpu() && generator.is_none()) {
      return push_as<Tensor>(input.a, [&] { return multinomial(input.a, num_samples, replacement); });
    }
    TorchGenerator& gen = generator_of(generator, input.a.context());
    return push_as<Tensor>(input.a, [&] {
      const NDArray drawn = torch_multinomial(gen, input.a, num_samples, replacement);
      return input.a.device() == Device::cpu() ? drawn : to(drawn, input.a.device());
    });
  };
  t.def("multinomial", draw, py::arg("input"), py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
        py::arg("generator") = py::none(),
        "num_samples indices drawn from each row of input's weights (int64), PyTorch's for its seed.");
  c.attr("multinomial") = py::cpp_function(draw, py::is_method(c), py::arg("num_samples"),
                                           py::arg("replacement") = false, py::kw_only(), py::arg("generator") = py::none());
  // The fills behind the in-place methods: a fresh tensor of like's shape,
  // dtype and device, drawn as the method would (python/asyncscope/torch
  // copies it in).
  t.def("_uniform_like", [](const Tensor& like, double from, double to_value, py::object generator) {
    const ContextPtr& context = like.a.context_ptr();
    floating_dtype(like.a.dtype(), "check_uniform_bounds");
    TorchGenerator& gen = generator_of(generator, *context);
    return push_as<Tensor>(like.a, [&] {
      return draw_uniform(context, gen, like.a.shape(), like.a.dtype(), from, to_value, like.a.device());
    });
  }, py::arg("like"), py::arg("from"), py::arg("to"), py::arg("generator") = py::none());
  t.def("_normal_like", [](const Tensor& like, double mean, double std_dev, py::object generator) {
    const ContextPtr& context = like.a.context_ptr();
    floating_dtype(like.a.dtype(), "normal_kernel_cpu");
    TorchGenerator& gen = generator_of(generator, *context);
    return push_as<Tensor>(like.a, [&] {
      return draw_normal(context, gen, like.a.shape(), like.a.dtype(), mean, std_dev, like.a.device());
    });
  }, py::arg("like"), py::arg("mean"), py::arg("std"), py::arg("generator") = py::none());
  t.def("_random_like", [](const Tensor& like, py::object low, py::object high, py::object generator) {
    const ContextPtr& context = like.a.context_ptr();
    TorchGenerator& gen = generator_of(generator, *context);
    return push_as<Tensor>(like.a, [&] {
      const NDArray drawn =
          high.is_none() && low.is_none()
              ? torch_random_full(context, gen, like.a.shape(), like.a.dtype())
              : high.is_none() ? torch_random_range(context, gen, like.a.shape(), like.a.dtype(), 0, py::cast<int64_t>(low))
                               : torch_random_range(context, gen, like.a.shape(), like.a.dtype(),
                                                    low.is_none() ? 0 : py::cast<int64_t>(low), py::cast<int64_t>(high));
      return on_device(drawn, like.a.device());
    });
  }, py::arg("like"), py::arg("low") = py::none(), py::arg("high") = py::none(), py::arg("generator") = py::none());
  t.def("_bernoulli_like", [](const Tensor& like, double p, py::object generator) {
    const ContextPtr& context = like.a.context_ptr();
    TorchGenerator& gen = generator_of(generator, *context);
    return push_as<Tensor>(like.a, [&] {
      return on_device(torch_bernoulli(context, gen, like.a.shape(), like.a.dtype(), p), like.a.device());
    });
  }, py::arg("like"), py::arg("p"), py::arg("generator") = py::none());
  t.def("_bernoulli", [](const Tensor& probabilities, py::object dtype, py::object generator) {
    const ContextPtr& context = probabilities.a.context_ptr();
    const DType out = torch_dtype_from(dtype, "bernoulli").value_or(probabilities.a.dtype());
    TorchGenerator& gen = generator_of(generator, *context);
    return push_as<Tensor>(probabilities.a, [&] {
      return on_device(torch_bernoulli(gen, probabilities.a, out), probabilities.a.device());
    });
  }, py::arg("probabilities"), py::arg("dtype") = py::none(), py::arg("generator") = py::none());
}

}  // namespace asyncscope::python
