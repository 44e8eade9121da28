"""torch.nn.Module and Parameter of the PyTorch edition: Parameter (a leaf
tensor that requires a gradient), UninitializedParameter (a lazy layer's
before its first input), Module (children, parameters and buffers found
by attribute, state_dict / load_state_dict, train / eval, apply, to and
the dtype casts, hooks, named_* iteration, the trace scope its forward
runs in) and zero_grads.

Threading: the frontend thread, as every op of the edition.
"""

import collections as _collections

from ... import _core
from ... import torch as _torch  # partly imported when this module loads: used at call time only


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
        from .lazy import _LazyModule  # the lazy modules are made of Module
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
