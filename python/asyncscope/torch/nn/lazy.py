"""torch.nn's lazy layers in the PyTorch edition: LazyLinear, LazyConv1d /
2d and LazyBatchNorm1d / 2d take their input size from their first input
(or their tensors from a loaded state), then become their concrete class (a
LazyLinear is a Linear after its first call, as in PyTorch).

Threading: the frontend thread, as every op of the edition.
"""

from ... import torch as _torch  # partly imported when this module loads: used at call time only
from . import init
from .conv import BatchNorm1d, BatchNorm2d, Conv1d, Conv2d
from .layers import Linear
from .module import Module, UninitializedParameter


class _LazyModule(Module):
    """A module whose input size (in_features, in_channels, num_features) is
    read from its first input, or whose tensors come from a state loaded into
    it; at its first call it becomes its concrete class (LazyLinear a Linear,
    as PyTorch's cls_to_become). Until then it has the concrete class's
    settings with the size 0 (as PyTorch prints it), and its parameters are
    UninitializedParameters: initializations applied to them before
    (nn.init.normal_(m.weight)) run after the class's own, and an optimizer
    made before holds the same objects.

    As PyTorch 1.13's: a state loaded into it gives it its tensors at once
    (their shapes from the state) and it stays lazy until its first call,
    which then draws nothing and keeps the size setting at 0."""

    _concrete = None  # the class it becomes
    _parameter_names = ("weight", "bias")
    _buffer_names = ()  # the concrete class's buffers, which a loaded state gives

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        self._lazy_args, self._lazy_kwargs, self._lazy_loaded = args, kwargs, False
        self._concrete._configure(self, 0, *args, **kwargs)
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

    def has_uninitialized_params(self):
        """Whether a parameter still waits for its shape (PyTorch's LazyModuleMixin)."""
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def extra_repr(self):
        return self._concrete.extra_repr(self)

    def _become(self, size, device=None):
        """Makes the concrete class at `size` (its initialization, its draws)
        and takes its tensors and settings."""
        made = self._concrete(size, *self._lazy_args, **self._lazy_kwargs)
        if device is not None and str(device) != "cpu":
            made.to(device)
        for name in list(self._parameters):
            mine, theirs = self._parameters[name], made._parameters.get(name)
            if isinstance(mine, UninitializedParameter) and theirs is not None:
                with _torch.no_grad():
                    mine.materialize(tuple(theirs.shape), lambda p, v=theirs: p.copy_(v.detach()), theirs.device)
        for key, value in made.__dict__.items():
            if key not in ("_parameters", "_modules", "training"):
                self.__dict__[key] = value
        self._settle()

    def _settle(self):
        for key in ("_lazy_args", "_lazy_kwargs", "_lazy_loaded"):
            del self.__dict__[key]
        for name in self._buffer_names:
            if name not in self._buffers:
                object.__setattr__(self, name, None)  # as the concrete class without running statistics
        self.__class__ = self._concrete

    def _load_sizes(self, state_dict, prefix):
        """Before a state is copied in: the parameters and buffers made in
        the state's shapes (the copy then fills them)."""
        state = {k[len(prefix):]: v for k, v in state_dict.items() if k.startswith(prefix)
                 and "." not in k[len(prefix):]}
        if self._size_of_state({k: tuple(v.shape) for k, v in state.items()}) is None:
            return
        with _torch.no_grad():
            for name in self._parameter_names:
                mine = self._parameters.get(name)
                if isinstance(mine, UninitializedParameter) and name in state:
                    mine.materialize(tuple(state[name].shape), lambda p: None)
            for name in self._buffer_names:
                if name in state and name not in self._buffers:
                    self.register_buffer(name, _torch.zeros(tuple(state[name].shape), dtype=state[name].dtype))
        self._lazy_loaded = True

    def forward(self, input):
        if self._lazy_loaded and not self.has_uninitialized_params():
            self._settle()
        else:
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

    _buffer_names = ("running_mean", "running_var", "num_batches_tracked")

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
