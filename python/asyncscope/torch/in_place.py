"""In-place updates while gradients are recorded, as PyTorch records them:
`x /= 2`, `x.mul_(w)`, `x.relu_()` inside a forward pass, on a tensor that
needs a gradient (or with an operand that does), make the op's result the
tensor's new value and grad_fn (x is then a non-leaf, its grad_fn the op's
backward), where the engine's in-place ops refuse to change an array the
recorded graph may read. A leaf that requires grad is refused with
PyTorch's error. Outside recording (torch.no_grad(), or nothing needing a
gradient), each stays the bindings' own in-place op, one engine write of
the tensor's var.

One difference from PyTorch: the values an op saved for its backward are
never changed by a later in-place update here (the update makes a new
array), so `x *= x` then backward gives the gradient of the out-of-place
form, where PyTorch raises "one of the variables needed for gradient
computation has been modified by an inplace operation". A view updated in
place while recording does not change its base here.

Threading: the frontend thread, as every op of the edition; install at import.
"""

import operator as _operator

from .. import torch as _torch  # partly imported when this module loads: used at call time only

# In-place methods that are not an op's result written back: fills from a
# value or a random stream, a copy, and the flag.
_NOT_RECORDED = {"copy_", "fill_", "zero_", "normal_", "uniform_", "random_", "bernoulli_", "exponential_",
                 "requires_grad_", "put_"}

_OPERATORS = {"__iadd__": _operator.add, "__isub__": _operator.sub, "__imul__": _operator.mul,
              "__itruediv__": _operator.truediv}


def _scaled(op):
    """add / sub with PyTorch's alpha (other scaled first), for add_ and sub_."""
    def out_of_place(self, other, *, alpha=1):
        return op(self, other * alpha if alpha != 1 else other)
    return out_of_place


_OUT_OF_PLACE = {"add_": _scaled(_operator.add), "sub_": _scaled(_operator.sub)}


def _needs_recording(self, args):
    if not _torch.is_grad_enabled():
        return False
    return self.requires_grad or any(getattr(a, "requires_grad", False) for a in args)


def _rebase(self, result):
    """self becomes result (its values and grad_fn), as PyTorch rebases an in-place op's history."""
    if self.requires_grad and self.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError("output with shape %s doesn't match the broadcast shape %s"
                           % (list(self.shape), list(result.shape)))
    if result.dtype != self.dtype:
        result = result.to(self.dtype)
    self._rebind(result)
    return self


def _recorded(native, out_of_place, name):
    def method(self, *args, **kwargs):
        if _needs_recording(self, args):
            return _rebase(self, out_of_place(self, *args, **kwargs))
        return native(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = native.__doc__
    return method


def install(tensor_class):
    """Wraps the class's in-place methods and operators (once, after every other install)."""
    for name in [n for n in dir(tensor_class) if n.endswith("_") and not n.startswith("_")]:
        if name in _NOT_RECORDED or not hasattr(tensor_class, name[:-1]):
            continue
        out_of_place = _OUT_OF_PLACE.get(name) or getattr(tensor_class, name[:-1])
        setattr(tensor_class, name, _recorded(getattr(tensor_class, name), out_of_place, name))
    for name, op in _OPERATORS.items():
        native = getattr(tensor_class, name)
        setattr(tensor_class, name, _recorded(native, lambda self, other, op=op: op(self, other), name))
