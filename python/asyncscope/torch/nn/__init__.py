"""torch.nn of the PyTorch edition: Module, Sequential, ModuleList and
ModuleDict, the layers a reader writes first (Linear, LazyLinear, ReLU,
Sigmoid, Tanh, Softmax, Flatten, Unflatten, Dropout, Identity), more
activations (LeakyReLU, ELU, SiLU, Softplus, GELU), LayerNorm, Embedding,
Conv1d / Conv2d, MaxPool1d / 2d, AvgPool1d / 2d, AdaptiveAvgPool1d / 2d,
AdaptiveMaxPool1d, BatchNorm1d / 2d, the
recurrent RNN, LSTM, GRU and their cells (nn/rnn.py), Parameter, the losses (MSELoss, L1Loss, CrossEntropyLoss, NLLLoss,
BCELoss, BCEWithLogitsLoss, HuberLoss, SmoothL1Loss) and nn.functional /
nn.init.

Every layer is made of the engine's ops: a forward pass is pushed and
returns at once, is recorded for autograd when a parameter needs a
gradient, and each op shows on the timeline with the script line that ran
it. Modules are plain Python objects, as in PyTorch: subclass Module, set
layers and Parameters as attributes in __init__, and write forward."""

import builtins as _builtins
import collections as _collections
import itertools as _itertools
import math as _math

from ... import _core
from ... import torch as _torch  # partly imported when this module loads: used at call time only
from . import functional, init

__all__ = ["Module", "Sequential", "ModuleList", "Parameter", "UninitializedParameter", "Linear", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "ReLU", "Sigmoid", "Tanh",
           "Softmax", "LogSoftmax", "Flatten", "Dropout", "Identity", "MSELoss", "L1Loss", "CrossEntropyLoss",
           "BCEWithLogitsLoss", "functional", "init"]


class Parameter(_core.torch.Tensor):
    """A tensor that is a module's parameter: a leaf that requires a
    gradient (unless requires_grad=False), sharing data's storage."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _torch.zeros(0)
        super().__init__(data)
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce__(self):
        return Parameter, (_torch.tensor(self.detach().numpy()), self.requires_grad)


def zero_grads(params, set_to_none=True):
    """Forgets (set_to_none) or zeroes the gradients of params (Module's and
    the optimizers' zero_grad)."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            p.grad.zero_()


class Module:
    """The base of every layer and network: holds parameters, buffers and
    submodules (set as attributes), and maps inputs to outputs (forward)."""

    def __init__(self):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", _collections.OrderedDict())
        object.__setattr__(self, "_buffers", _collections.OrderedDict())
        object.__setattr__(self, "_modules", _collections.OrderedDict())

    # -- attributes: parameters and submodules are kept in order ---------------
    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__ and isinstance(value, (Parameter, Module)):
            raise AttributeError("cannot assign a parameter or module before Module.__init__() call")
        for table in ("_parameters", "_buffers", "_modules"):
            self.__dict__.get(table, {}).pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
            value.__dict__["_scope_label"] = "%s (%s)" % (name, type(value).__name__)
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __delattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        """Adds a parameter (None: a declared parameter without a value)."""
        if param is None:
            self._parameters[name] = None
        else:
            setattr(self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a tensor that is state but not a parameter (it goes into state_dict)."""
        self._buffers[name] = tensor

    def add_module(self, name, module):
        """Adds a submodule under name."""
        if module is not None and not isinstance(module, Module):
            raise TypeError("%s is not a Module subclass" % type(module).__name__)
        self._modules[name] = module
        if module is not None:
            module.__dict__["_scope_label"] = "%s (%s)" % (name, type(module).__name__)

    register_module = add_module

    # -- running ------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError('Module [%s] is missing the required "forward" function' % type(self).__name__)

    def __call__(self, *args, **kwargs):
        # Its ops are pushed in its scope on the trace ("hidden (Linear)", as
        # its parent names it), so the memory they hold is named after it.
        _core._enter_scope(self.__dict__.get("_scope_label") or type(self).__name__)
        try:
            return self.forward(*args, **kwargs)
        finally:
            _core._leave_scope()

    def train(self, mode=True):
        """Training mode (dropout active) for this module and its children."""
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self):
        """Evaluation mode: train(False)."""
        return self.train(False)

    # -- walking the tree ------------------------------------------------------
    def named_children(self):
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix=""):
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self.named_children():
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, m in modules:
            for name, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield module_prefix + ("." if module_prefix else "") + name, p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, m in modules:
            for name, b in m._buffers.items():
                if b is not None:
                    yield module_prefix + ("." if module_prefix else "") + name, b

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn):
        """Calls fn on every submodule (children first) and on this module."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- gradients and state ---------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Forgets (or zeroes) every parameter's gradient."""
        zero_grads(self.parameters(), set_to_none)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """The parameters and buffers by dotted name, as tensors outside the graph."""
        out = _collections.OrderedDict() if destination is None else destination
        for name, p in self.named_parameters(prefix=prefix.rstrip(".")):
            out[name] = p if keep_vars else p.detach()
        for name, b in self.named_buffers(prefix=prefix.rstrip(".")):
            out[name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Copies the values of state_dict into the parameters and buffers of
        the same names (in place, so optimizers holding them keep working);
        a lazy module takes its size from the state and becomes its concrete
        class first."""
        for prefix, module in list(self.named_modules()):
            if isinstance(module, _LazyModule):
                module._load_sizes(state_dict, prefix + "." if prefix else "")
        own = dict(self.named_parameters())
        own.update(dict(self.named_buffers()))
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError("Error(s) in loading state_dict for %s: missing keys %s, unexpected keys %s"
                               % (type(self).__name__, missing, unexpected))
        with _torch.no_grad():
            for name, value in state_dict.items():
                if name not in own:
                    continue
                target = own[name]
                if tuple(target.shape) != tuple(value.shape):
                    raise RuntimeError("size mismatch for %s: copying a param with shape %s, the shape in the "
                                       "current model is %s" % (name, tuple(value.shape), tuple(target.shape)))
                target.copy_(value)
        return _collections.namedtuple("IncompatibleKeys", "missing_keys unexpected_keys")(missing, unexpected)

    def _apply(self, fn):
        """Applies fn to each parameter's values (the Parameter objects stay,
        so an optimizer made before holds them still), gradient and buffer."""
        for m in self.modules():
            for p in m._parameters.values():
                if p is None:
                    continue
                made = fn(p.detach())
                if made is p:
                    continue
                requires_grad, grad = p.requires_grad, p.grad
                p._rebind(made)
                p.requires_grad_(requires_grad)
                if grad is not None:
                    p.grad = fn(grad)
            for name, b in list(m._buffers.items()):
                if b is not None:
                    m._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(device, dtype), to(tensor), to(device=, dtype=):
        moves the parameters and buffers, and casts the floating ones to dtype."""
        device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError("to() got an unexpected keyword argument '%s'" % next(iter(kwargs)))
        for a in args:
            if isinstance(a, _torch.dtype):
                dtype = a
            elif isinstance(a, _torch.Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, (str, _torch.device)):
                device = a
            elif a is not None and not isinstance(a, bool):
                raise TypeError("to() received an invalid combination of arguments: %r" % (a,))
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point dtypes, but got desired dtype=%r" % dtype)

        def move(t):
            if device is not None:
                t = t.to(device)
            if dtype is not None and t.is_floating_point() and t.dtype != dtype:
                t = t.to(dtype)
            return t
        return self._apply(move)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else "cuda:%d" % device)

    def double(self):
        """Casts the floating-point parameters and buffers to float64."""
        return self.to(_torch.float64)

    def float(self):
        """Casts the floating-point parameters and buffers to float32."""
        return self.to(_torch.float32)

    # -- printing ----------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, m in self._modules.items():
            child = repr(m).replace("\n", "\n  ")
            lines.append("(" + name + "): " + child)
        if not lines:
            return type(self).__name__ + "()"
        if len(lines) == 1 and not self._modules:
            return type(self).__name__ + "(" + lines[0] + ")"
        return type(self).__name__ + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._modules) | set(self._buffers))


class Sequential(Module):
    """Modules applied in order: Sequential(a, b, c)(x) is c(b(a(x)));
    indexing gives a module (an int) or a Sequential (a slice)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], _collections.OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Sequential(_collections.OrderedDict(list(self._modules.items())[index]))
        n = len(self)
        if not -n <= index < n:
            raise IndexError("index %d is out of range" % index)
        return list(self._modules.values())[index % n]

    def __setitem__(self, index, module):
        key = list(self._modules)[index]
        self._modules[key] = module

    def __delitem__(self, index):
        keys = list(self._modules)
        for k in (keys[index] if isinstance(index, slice) else [keys[index]]):
            del self._modules[k]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    """A list of modules whose parameters belong to the module holding it."""

    def __init__(self, modules=None):
        super().__init__()
        for m in modules or []:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, index):
        return list(self._modules.values())[index]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class Identity(Module):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b, with W of shape (out_features, in_features) and b of
    (out_features,), both U(-1/sqrt(in_features), 1/sqrt(in_features)) at
    first, as PyTorch initializes them."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_torch.zeros(out_features, in_features))
        if bias:
            self.bias = Parameter(_torch.zeros(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # PyTorch's: He-uniform with slope sqrt(5) (bound 1 / sqrt(fan_in), as PyTorch rounds it).
        init.kaiming_uniform_(self.weight, a=_math.sqrt(5))
        if self.bias is not None:
            bound = 1 / _math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return "in_features=%d, out_features=%d, bias=%s" % (self.in_features, self.out_features,
                                                            self.bias is not None)


class UninitializedParameter(Parameter):
    """A lazy layer's parameter before its first input, when its shape is not
    known yet (an empty placeholder). In-place initializations of it
    (p.data.normal_(0, 0.01), p.fill_(0)) are kept and applied, in order,
    when the layer makes it; an optimizer given it before then updates the
    made parameter, as it is the same object."""

    def __init__(self, requires_grad=True):
        super().__init__(_torch.zeros(0), requires_grad)
        self._pending = []

    @property
    def data(self):
        return self

    def _record(name):
        def method(self, *args, **kwargs):
            self._pending.append((name, args, kwargs))
            return self
        method.__name__ = name
        return method

    normal_ = _record("normal_")
    uniform_ = _record("uniform_")
    fill_ = _record("fill_")
    zero_ = _record("zero_")
    del _record

    def materialize(self, shape, reset, device=None):
        """Becomes a Parameter of `shape` (on `device`, else the CPU):
        reset(parameter) initializes it, then the kept initializations run
        on it."""
        pending = self._pending
        made = Parameter(_torch.zeros(*shape, device=device), self.requires_grad)
        reset(made)
        self._rebind(made)
        self.__class__ = Parameter
        del self._pending
        with _torch.no_grad():
            for name, args, kwargs in pending:
                getattr(self.data, name)(*args, **kwargs)

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__


class _LazyModule(Module):
    """A module whose input size (in_features, in_channels, num_features) is
    read from its first input, or from the state loaded into it; then it
    becomes its concrete class (LazyLinear a Linear, as PyTorch's
    cls_to_become), initialized as that class initializes itself. Its
    parameters are UninitializedParameters until then: initializations
    applied to them before (nn.init.normal_(m.weight)) run after the
    class's own, and an optimizer made before holds the same objects."""

    _concrete = None  # the class it becomes
    _parameter_names = ("weight", "bias")

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        self._lazy_args, self._lazy_kwargs = args, kwargs
        for name in self._parameter_names:
            if self._has(name):
                setattr(self, name, UninitializedParameter())
            else:
                self.register_parameter(name, None)

    def _has(self, name):
        return True

    def _size_of_input(self, input):
        raise NotImplementedError

    def _size_of_state(self, shapes):
        """The input size from the loaded shapes ({name: shape}), or None."""
        raise NotImplementedError

    def _become(self, size, device=None):
        made = self._concrete(size, *self._lazy_args, **self._lazy_kwargs)
        if device is not None and str(device) != "cpu":
            made.to(device)
        for name in list(self._parameters):
            mine, theirs = self._parameters[name], made._parameters.get(name)
            if isinstance(mine, UninitializedParameter) and theirs is not None:
                with _torch.no_grad():
                    mine.materialize(tuple(theirs.shape), lambda p, v=theirs: p.copy_(v.detach()), theirs.device)
        for key, value in made.__dict__.items():
            if key not in ("_parameters", "_modules"):
                self.__dict__[key] = value
        del self.__dict__["_lazy_args"], self.__dict__["_lazy_kwargs"]
        self.__class__ = self._concrete

    def _load_sizes(self, state_dict, prefix):
        shapes = {k[len(prefix):]: tuple(v.shape) for k, v in state_dict.items() if k.startswith(prefix)
                  and "." not in k[len(prefix):]}
        size = self._size_of_state(shapes)
        if size is not None:
            self._become(size)

    def forward(self, input):
        self._become(self._size_of_input(input), input.device)
        return self(input)


class LazyLinear(_LazyModule):
    """Linear whose in_features is read from the first input it is given."""

    _concrete = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(out_features, bias)

    def _has(self, name):
        return name == "weight" or self._lazy_args[1]

    def _size_of_input(self, input):
        return input.shape[-1]

    def _size_of_state(self, shapes):
        return shapes["weight"][1] if "weight" in shapes else None


class ReLU(Module):
    """max(x, 0) elementwise."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return functional.relu(input, self.inplace)


class Sigmoid(Module):
    """1 / (1 + exp(-x)) elementwise."""

    def forward(self, input):
        return functional.sigmoid(input)


class Tanh(Module):
    """tanh(x) elementwise."""

    def forward(self, input):
        return functional.tanh(input)


class Softmax(Module):
    """softmax along dim."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return functional.softmax(input, self.dim)

    def extra_repr(self):
        return "dim=%s" % self.dim


class LogSoftmax(Softmax):
    """log_softmax along dim."""

    def forward(self, input):
        return functional.log_softmax(input, self.dim)


class Flatten(Module):
    """Flattens dimensions start_dim..end_dim into one (by default all but the batch's)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return "start_dim=%d, end_dim=%d" % (self.start_dim, self.end_dim)


class Dropout(Module):
    """In training mode, zeroes each element with probability p and scales
    the rest by 1 / (1 - p); the identity in evaluation mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return functional.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return "p=%s, inplace=%s" % (self.p, self.inplace)


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError("%s is not a valid value for reduction" % reduction)
        self.reduction = reduction


class MSELoss(_Loss):
    """The mean (or sum) of the squared differences."""

    def forward(self, input, target):
        return functional.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """The mean (or sum) of the absolute differences."""

    def forward(self, input, target):
        return functional.l1_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """Softmax cross-entropy of logits (N, C) or (N, C, d1, ...) against class
    indices (ignore_index left out) or probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(reduction=reduction)
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return functional.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                                        reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of sigmoid(input) against target, computed stably."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(reduction=reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def forward(self, input, target):
        return functional.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                           pos_weight=self.pos_weight)


class _Activation(Module):
    """An elementwise function of nn.functional as a module."""

    _function = None
    _settings = ()

    def __init__(self, **settings):
        super().__init__()
        for name, value in settings.items():
            setattr(self, name, value)

    def forward(self, input):
        return type(self)._function(input, **{name: getattr(self, name) for name in self._settings})

    def extra_repr(self):
        return ", ".join("%s=%s" % (name, getattr(self, name)) for name in self._settings)


class LeakyReLU(_Activation):
    """x where x > 0, negative_slope * x elsewhere."""

    _function = staticmethod(functional.leaky_relu)
    _settings = ("negative_slope", "inplace")

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(negative_slope=negative_slope, inplace=inplace)


class ELU(_Activation):
    """x where x > 0, alpha (exp(x) - 1) elsewhere."""

    _function = staticmethod(functional.elu)
    _settings = ("alpha", "inplace")

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha, inplace=inplace)


class SiLU(_Activation):
    """x sigmoid(x)."""

    _function = staticmethod(functional.silu)
    _settings = ("inplace",)

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class Softplus(_Activation):
    """log(1 + exp(beta x)) / beta."""

    _function = staticmethod(functional.softplus)
    _settings = ("beta", "threshold")

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__(beta=beta, threshold=threshold)


class GELU(_Activation):
    """x Phi(x) (approximate='tanh': PyTorch's tanh formula)."""

    _function = staticmethod(functional.gelu)
    _settings = ("approximate",)

    def __init__(self, approximate="none"):
        super().__init__(approximate=approximate)


class LayerNorm(Module):
    """Normalises over the last dims (normalized_shape), then a learnt scale
    (ones at first) and shift (zeros)."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_torch.ones(self.normalized_shape))
            if bias:
                self.bias = Parameter(_torch.zeros(self.normalized_shape))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "%s, eps=%s, elementwise_affine=%s" % (self.normalized_shape, self.eps, self.elementwise_affine)


class Conv2d(Module):
    """A 2-D convolution (cross-correlation, as PyTorch's): weight (out,
    in / groups, kh, kw) and bias (out,), both U(-1/sqrt(fan_in),
    1/sqrt(fan_in)) at first, fan_in = in / groups * kh * kw, as PyTorch
    initializes them. Zero padding only."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise NotImplementedError("Conv2d: padding_mode %r is not supported (zeros only)" % (padding_mode,))
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = functional._pair(kernel_size, "kernel_size")
        self.stride, self.dilation = functional._pair(stride, "stride"), functional._pair(dilation, "dilation")
        self.padding = padding if isinstance(padding, str) else functional._pair(padding, "padding")
        self.weight = Parameter(_torch.zeros(out_channels, in_channels // groups, *self.kernel_size))
        if bias:
            self.bias = Parameter(_torch.zeros(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=_math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_channels // self.groups * self.kernel_size[0] * self.kernel_size[1]
            bound = 1 / _math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return functional.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                                 self.groups)

    def extra_repr(self):
        text = "%d, %d, kernel_size=%s, stride=%s" % (self.in_channels, self.out_channels, self.kernel_size,
                                                      self.stride)
        if self.padding not in ((0, 0), "valid"):
            text += ", padding=%s" % (self.padding,)
        if self.dilation != (1, 1):
            text += ", dilation=%s" % (self.dilation,)
        if self.groups != 1:
            text += ", groups=%d" % self.groups
        return text + ("" if self.bias is not None else ", bias=False")


class Conv1d(Conv2d):
    """A 1-D convolution of (N, C, L) input: weight (out, in / groups, k),
    bias (out,), U(-1/sqrt(fan_in), 1/sqrt(fan_in)) at first as PyTorch's;
    Conv2d's work over a height of 1."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        one = functional._single
        super().__init__(in_channels, out_channels, (1, one(kernel_size, "kernel_size")), (1, one(stride, "stride")),
                         padding if isinstance(padding, str) else (0, one(padding, "padding")),
                         (1, one(dilation, "dilation")), groups, bias, padding_mode)
        with _torch.no_grad():
            self.weight = Parameter(self.weight.detach().reshape(out_channels, in_channels // groups,
                                                                 self.kernel_size[1]))

    def forward(self, input):
        return functional.conv1d(input, self.weight, self.bias, self.stride[1],
                                 self.padding if isinstance(self.padding, str) else self.padding[1], self.dilation[1],
                                 self.groups)

    def extra_repr(self):
        text = "%d, %d, kernel_size=(%d,), stride=(%d,)" % (self.in_channels, self.out_channels, self.kernel_size[1],
                                                            self.stride[1])
        if isinstance(self.padding, str) or self.padding[1]:
            text += ", padding=%s" % (self.padding if isinstance(self.padding, str) else "(%d,)" % self.padding[1])
        if self.dilation[1] != 1:
            text += ", dilation=(%d,)" % self.dilation[1]
        if self.groups != 1:
            text += ", groups=%d" % self.groups
        return text + ("" if self.bias is not None else ", bias=False")


class MaxPool1d(Module):
    """The largest of each kernel_size window along the last dim."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, input):
        return functional.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                     self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return "kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s" % (
            self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class AvgPool1d(Module):
    """The mean of each kernel_size window along the last dim."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return functional.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                     self.count_include_pad)

    def extra_repr(self):
        return "kernel_size=(%s,), stride=(%s,), padding=(%s,)" % (self.kernel_size, self.stride, self.padding)


class AdaptiveAvgPool1d(Module):
    """The mean over output_size windows spread along the last dim."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return functional.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self):
        return "output_size=%s" % (self.output_size,)


class AdaptiveMaxPool1d(AdaptiveAvgPool1d):
    """The largest over output_size windows spread along the last dim."""

    def forward(self, input):
        return functional.adaptive_max_pool1d(input, self.output_size)


class MaxPool2d(Module):
    """The largest of each kernel_size window, stride apart (kernel_size by default)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, input):
        return functional.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                     self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return "kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s" % (
            self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class AvgPool2d(Module):
    """The mean of each kernel_size window, stride apart (kernel_size by default)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, input):
        return functional.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                     self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return "kernel_size=%s, stride=%s, padding=%s" % (self.kernel_size, self.stride, self.padding)


class AdaptiveAvgPool2d(Module):
    """The mean over output_size windows spread over the input."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return functional.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return "output_size=%s" % (self.output_size,)


class _BatchNorm(Module):
    """Per-channel normalisation with a learnt scale (ones) and shift (zeros):
    by the batch's statistics in training, which also move the running mean
    and variance (buffers, saved with the state), by the running ones in eval."""

    _DIMS = ()

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(_torch.ones(num_features))
            self.bias = Parameter(_torch.zeros(num_features))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _torch.zeros(num_features))
            self.register_buffer("running_var", _torch.ones(num_features))
            self.register_buffer("num_batches_tracked", _torch.tensor(0))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def forward(self, input):
        if input.ndim not in self._DIMS:
            raise ValueError("expected %s input (got %dD input)"
                             % (" or ".join("%dD" % d for d in self._DIMS), input.ndim))
        if input.shape[1] != self.num_features:
            raise RuntimeError("running_mean should contain %d elements not %d" % (input.shape[1], self.num_features))
        use_batch = self.training or not self.track_running_stats
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
        return functional.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, use_batch,
                                     self.momentum, self.eps)

    def extra_repr(self):
        return "%d, eps=%s, momentum=%s, affine=%s, track_running_stats=%s" % (
            self.num_features, self.eps, self.momentum, self.affine, self.track_running_stats)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) input."""
    _DIMS = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) input."""
    _DIMS = (4,)


class _LazyConv(_LazyModule):
    """A convolution whose in_channels is read from its first input (dim 1, or 0 unbatched)."""

    _batched_ndim = 4

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode)

    def _has(self, name):
        return name == "weight" or self._lazy_args[6]

    def _size_of_input(self, input):
        return input.shape[1] if input.ndim == self._batched_ndim else input.shape[0]

    def _size_of_state(self, shapes):
        return shapes["weight"][1] * self._lazy_args[5] if "weight" in shapes else None


class LazyConv2d(_LazyConv):
    """Conv2d whose in_channels is read from the first input."""

    _concrete = Conv2d


class LazyConv1d(_LazyConv):
    """Conv1d whose in_channels is read from the first input."""

    _concrete = Conv1d
    _batched_ndim = 3


class _LazyBatchNorm(_LazyModule):
    """A batch norm whose num_features is read from its first input (dim 1)."""

    def __init__(self, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        super().__init__(eps, momentum, affine, track_running_stats)

    def _has(self, name):
        return self._lazy_args[2]

    def _size_of_input(self, input):
        return input.shape[1]

    def _size_of_state(self, shapes):
        for name in ("weight", "running_mean"):
            if name in shapes:
                return shapes[name][0]
        return None


class LazyBatchNorm1d(_LazyBatchNorm):
    """BatchNorm1d whose num_features is read from the first input."""

    _concrete = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm):
    """BatchNorm2d whose num_features is read from the first input."""

    _concrete = BatchNorm2d


class Embedding(Module):
    """A table of num_embeddings rows of embedding_dim, N(0, 1) at first: the
    rows at the indices given."""

    def __init__(self, num_embeddings, embedding_dim, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.weight = Parameter(_torch.zeros(num_embeddings, embedding_dim))
        init.normal_(self.weight)

    def forward(self, input):
        return functional.embedding(input, self.weight)

    def extra_repr(self):
        return "%d, %d" % (self.num_embeddings, self.embedding_dim)


class Unflatten(Module):
    """Splits dimension dim into unflattened_size."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input):
        shape = list(input.shape)
        d = self.dim % input.ndim
        return input.reshape(tuple(shape[:d]) + self.unflattened_size + tuple(shape[d + 1:]))


class ModuleDict(Module):
    """Modules by name, registered as children (in insertion order)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def update(self, modules):
        pairs = modules.items() if hasattr(modules, "items") else modules
        for key, module in pairs:
            self.add_module(key, module)


class NLLLoss(_Loss):
    """The negative log-likelihood of log-probabilities (N, C) or (N, C, d1,
    ...) at the class indices, weighted per class, ignore_index left out."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(reduction=reduction)
        self.weight = weight
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return functional.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                                   reduction=self.reduction)


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities against targets."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction=reduction)
        self.weight = weight

    def forward(self, input, target):
        return functional.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class HuberLoss(_Loss):
    """Squared below delta, linear above."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return functional.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    """Squared (over beta) below beta, linear above."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(reduction=reduction)
        self.beta = beta

    def forward(self, input, target):
        return functional.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


__all__ += ["Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "Conv1d",
            "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d"]
__all__ += ["LeakyReLU", "ELU", "SiLU", "Softplus", "GELU", "LayerNorm", "Embedding", "Unflatten", "ModuleDict",
            "NLLLoss", "BCELoss", "HuberLoss", "SmoothL1Loss"]

from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell  # noqa: E402 (made of Module and Parameter above)

__all__ += ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

from . import utils  # noqa: E402
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder,  # noqa: E402
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)

__all__ += ["utils", "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerEncoderLayer",
            "TransformerDecoder", "TransformerDecoderLayer"]
