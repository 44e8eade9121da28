"""Gluon's blocks (MXNet edition).

Define a model as Gluon does, by subclassing Block (or HybridBlock):

    class MLP(nn.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.hidden = nn.Dense(256, activation='relu')
            self.output = nn.Dense(10)

        def forward(self, x):
            return self.output(self.hidden(x))

Blocks assigned as attributes are the block's children, in assignment order;
parameters made with self.params.get(name, shape=...) (or assigned as
gluon.Parameter attributes) are its own. collect_params() gathers them by
full name (mlp0_dense0_weight; select= filters them by a regular
expression), initialize() initializes them, and parameters whose input size
is unknown are made at the first forward. HybridBlock's hybrid_forward(F, x,
**params) gets the nd module as F (asyncscope.np for np arrays) and its own
parameters' arrays by name. Blocks take nd arrays and, as the current
edition writes them after npx.set_np(), np arrays; parameters' data() are
np arrays after npx.set_np().

hybridize() is accepted and changes nothing: asyncscope runs every block
imperatively, so the timeline shows each op as the frontend pushed it (a
hybridized MXNet block would run as one cached graph).

Dense (its input size taken from the first batch), ReLU and the names of
blocks made inside `with net.name_scope():` are the C++ layers'
(engine/nn); Sequential, HybridSequential, Activation, Dropout and Flatten
are defined here, and Conv1D, Conv2D, MaxPool1D / 2D, AvgPool1D / 2D,
GlobalAvgPool1D / 2D, GlobalMaxPool1D / 2D and BatchNorm in gluon/conv.py,
out of the nd (or np) ops. save_parameters() writes a NumPy .npz
file of the parameters by their names below the block; load_parameters()
reads one back into a block of the same structure.

Threading: the frontend thread that runs the script.
"""

import re as _re
from collections import OrderedDict as _OrderedDict

from .. import _core
from .. import autograd as _autograd
from .. import ndarray as _nd

_CppBlock = _core.gluon.Block
_Parameter = _core.gluon.Parameter
_ParameterDict = _core.gluon.ParameterDict
ReLU = _core.gluon.ReLU
_CppDense = _core.gluon.Dense


def _is_block(value):
    return isinstance(value, (Block, _CppBlock))


class _Params:
    """A block's own parameters (block.params): get() makes one."""

    def __init__(self, owner):
        self._owner = owner

    def get(self, name, shape=None, init=None, grad_req="write", **kwargs):
        """The parameter `name` of this block, made on the first call."""
        own = self._owner._reg_params
        if name not in own:
            own[name] = _Parameter(self._owner.prefix + name, shape, init, grad_req)
        return own[name]

    def __iter__(self):
        return iter(self._owner._reg_params.values())

    def __len__(self):
        return len(self._owner._reg_params)


class Block:
    """A layer or a model: subclass it, make children in __init__ and write
    forward(x). Children (blocks assigned as attributes) and own parameters
    are found by collect_params()."""

    def __init__(self, prefix=None, params=None):
        object.__setattr__(self, "_children", _OrderedDict())
        object.__setattr__(self, "_reg_params", _OrderedDict())
        object.__setattr__(self, "_prefix", prefix if prefix is not None
                           else _core.gluon._next_prefix(type(self).__name__.lower()))
        object.__setattr__(self, "_active", False)

    def __setattr__(self, name, value):
        if not hasattr(self, "_children"):
            raise RuntimeError("%s: call super().__init__() in __init__ before assigning attributes"
                               % type(self).__name__)
        if _is_block(value):
            self._children[name] = value
        elif isinstance(value, _Parameter):
            self._reg_params[name] = value
        object.__setattr__(self, name, value)

    @property
    def prefix(self):
        """What this block's parameter and child names start with ('mlp0_')."""
        return self._prefix

    @property
    def name(self):
        return self._prefix[:-1]

    @property
    def params(self):
        """This block's own parameters; params.get(name, shape=...) makes one."""
        return _Params(self)

    def name_scope(self):
        """A scope (use it with `with`) in which new blocks are named as this block's children."""
        return _core.gluon._NameScope(self._prefix)

    def register_child(self, block, name=None):
        """Makes `block` a child (what assigning it as an attribute does)."""
        self._children[name if name is not None else str(len(self._children))] = block
        return block

    def collect_params(self, select=None):
        """Every parameter of this block and its children, by full name; with
        `select`, those whose name matches the regular expression."""
        every = _ParameterDict()
        for p in self._reg_params.values():
            every._add(p)
        for child in self._children.values():
            every.update(child.collect_params())
        if select is None:
            return every
        pattern = _re.compile(select)
        chosen = _ParameterDict()
        for name in every.keys():
            if pattern.match(name):
                chosen._add(every[name])
        return chosen  # its parameters keep `every`, and so the blocks, alive

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initializes every parameter (Dense's weights U(-0.07, 0.07) and
        biases zeros by default); those of unknown shape at the first forward."""
        self.collect_params().initialize(init, ctx, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Accepted, and changes nothing: every block runs imperatively here."""
        object.__setattr__(self, "_active", bool(active))
        for child in self._children.values():
            if hasattr(child, "hybridize"):
                child.hybridize(active, **kwargs)

    def zero_grad(self):
        self.collect_params().zero_grad()

    def __call__(self, *args):
        # Its ops are pushed in its scope on the trace (its name, "mlp0"), so
        # the memory they hold is named after it.
        _core._enter_scope(self.name)
        try:
            return self.forward(*args)
        finally:
            _core._leave_scope()

    def forward(self, *args):
        raise NotImplementedError("%s.forward is not defined" % type(self).__name__)

    def _structural_params(self, path=""):
        """Parameters by their path below this block ('hidden.weight'): the
        names save_parameters writes, the same in every instance."""
        out = _OrderedDict((path + name, p) for name, p in self._reg_params.items())
        for child_name, child in self._children.items():
            below = path + child_name + "."
            if isinstance(child, Block):
                out.update(child._structural_params(below))
            else:
                params = child.collect_params()
                for name in params.keys():
                    short = name[len(child.prefix):] if name.startswith(child.prefix) else name
                    out[below + short] = params[name]
        return out

    def save_parameters(self, filename):
        """Writes the parameters to a NumPy .npz file, named by their path
        below this block ('hidden.weight', '0.bias')."""
        import numpy
        arrays = {name: p.data().asnumpy() for name, p in self._structural_params().items()}
        with open(filename, "wb") as f:
            numpy.savez(f, **arrays)

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Reads parameters written by save_parameters into this block
        (initializing them if needed); names and shapes must match."""
        import numpy
        with numpy.load(filename) as saved:
            stored = {k: saved[k] for k in saved.files}
        mine = self._structural_params()
        missing = [n for n in mine if n not in stored]
        extra = [n for n in stored if n not in mine]
        if missing and not allow_missing:
            raise ValueError("load_parameters: %s has no %s" % (filename, ", ".join(missing)))
        if extra and not ignore_extra:
            raise ValueError("load_parameters: %s holds %s, which this block does not have"
                             % (filename, ", ".join(extra)))
        for name, p in mine.items():
            if name not in stored:
                continue
            value = stored[name]
            if tuple(p.shape) != tuple(value.shape) and 0 not in tuple(p.shape):
                raise ValueError("load_parameters: %s is %s in %s, %s here"
                                 % (name, tuple(value.shape), filename, tuple(p.shape)))
            if 0 in tuple(p.shape):
                p._set_shape(value.shape)
            if not p._initialized:
                p.initialize(ctx=ctx)
            p.set_data(_nd.array(value))

    def __repr__(self):
        lines = ["%s(" % type(self).__name__]
        for name, child in self._children.items():
            text = repr(child).replace("\n", "\n  ")
            lines.append("  (%s): %s" % (name, text))
        return "\n".join(lines) + "\n)" if len(lines) > 1 else type(self).__name__ + "()"


class HybridBlock(Block):
    """A Block whose forward is hybrid_forward(F, x, *args, **params): F is
    the nd module and params this block's own parameters' arrays by name."""

    def forward(self, x, *args):
        params = {name: p.data() for name, p in self._reg_params.items()}
        return self.hybrid_forward(_np() if _is_np(x) else _nd, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("%s.hybrid_forward is not defined" % type(self).__name__)


class Sequential(Block):
    """Blocks applied in order: add(*blocks), net[i], len(net)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix, params)

    def add(self, *blocks):
        """Appends blocks, in order."""
        for block in blocks:
            if not _is_block(block):
                raise TypeError("Sequential.add: %r is not a block" % (block,))
            self.register_child(block)
        return self

    def forward(self, x, *args):
        for block in self._children.values():
            x = block(x)
        return x

    def __getitem__(self, i):
        children = list(self._children.values())
        if isinstance(i, slice):
            net = type(self)()
            net.add(*children[i])
            return net
        return children[i]

    def __len__(self):
        return len(self._children)


class HybridSequential(Sequential):
    """Sequential, hybridizable (hybridize() changes nothing here)."""


def Dense(units, activation=None, use_bias=True, flatten=True, dtype="float32", weight_initializer=None,
          bias_initializer="zeros", in_units=0, **kwargs):
    """y = activation(x W^T + b) (the C++ layer). flatten=True (the default)
    flattens an input of more dimensions to (batch, rest); flatten=False
    applies the layer to the last axis, keeping the others."""
    if activation is not None and activation not in _ACTIVATIONS:
        raise ValueError("Dense: unknown activation '%s' (known: %s)" % (activation, ", ".join(sorted(_ACTIVATIONS))))
    fused = activation in (None, "relu")  # the C++ layer applies relu itself
    layer = _CppDense(units, activation if fused else None, use_bias, True, in_units)
    if not fused:
        layer = _Activated(layer, activation)
    return layer if flatten else _LastAxis(layer)


class _Activated(Block):
    """A Dense followed by an activation the C++ layer does not fuse."""

    def __init__(self, dense, activation):
        super().__init__(prefix=dense.prefix)
        self.dense = dense
        object.__setattr__(self, "_act", activation)

    @property
    def weight(self):
        return self.dense.weight

    @property
    def bias(self):
        return self.dense.bias

    def forward(self, x):
        return _ACTIVATIONS[self._act](self.dense(x))

    def __repr__(self):
        return "Dense(%r, Activation(%s))" % (self.dense, self._act)


class _LastAxis(Block):
    """A Dense applied along the last axis (Dense(flatten=False))."""

    def __init__(self, dense):
        super().__init__(prefix=dense.prefix)
        self.dense = dense

    @property
    def weight(self):
        return self.dense.weight

    @property
    def bias(self):
        return self.dense.bias

    def forward(self, x):
        shape = x.shape
        y = self.dense(x.reshape((-1, shape[-1])))
        return y.reshape(tuple(shape[:-1]) + (y.shape[-1],))

    def __repr__(self):
        return "Dense(flatten=False, %r)" % (self.dense,)


def _is_np(x):
    return isinstance(x, _core.np.ndarray)


def _np():
    from .. import np as np_module  # after the package has loaded
    return np_module


def _npx():
    from .. import npx as npx_module
    return npx_module


_ACTIVATIONS = {
    "relu": lambda x: _npx().relu(x) if _is_np(x) else _nd.relu(x),
    "sigmoid": lambda x: _npx().sigmoid(x) if _is_np(x) else _nd.sigmoid(x),
    "tanh": lambda x: _np().tanh(x) if _is_np(x) else _nd.tanh(x),
    "softrelu": lambda x: _np().log1p(_np().exp(x)) if _is_np(x) else _nd.log1p(_nd.exp(x)),
    "softsign": lambda x: x / (1 + (_np().abs(x) if _is_np(x) else _nd.abs(x))),
}


class Activation(HybridBlock):
    """An activation function by name: relu, sigmoid, tanh, softrelu, softsign."""

    def __init__(self, activation, **kwargs):
        if activation not in _ACTIVATIONS:
            raise ValueError("Activation: unknown activation '%s' (known: %s)"
                             % (activation, ", ".join(sorted(_ACTIVATIONS))))
        super().__init__(**kwargs)
        self._act = activation

    def hybrid_forward(self, F, x):
        return _ACTIVATIONS[self._act](x)

    def __repr__(self):
        return "Activation(%s)" % self._act


class Dropout(HybridBlock):
    """Zeroes each element with probability `rate` while training (inside
    autograd.record()) and scales the rest by 1 / (1 - rate); the identity
    otherwise."""

    def __init__(self, rate, axes=(), **kwargs):
        if not 0 <= rate < 1:
            raise ValueError("Dropout: rate must be in [0, 1), got %r" % (rate,))
        super().__init__(**kwargs)
        self._rate = float(rate)

    def hybrid_forward(self, F, x):
        if self._rate == 0 or not _autograd.is_training():
            return x
        if _is_np(x):
            keep = (_np().random.uniform(0, 1, size=x.shape) >= self._rate).astype("float32")
        else:
            keep = _nd.random.uniform(0, 1, shape=x.shape) >= self._rate
        return x * keep / (1 - self._rate)

    def __repr__(self):
        return "Dropout(p = %g)" % self._rate


class Flatten(HybridBlock):
    """(batch, ...) to (batch, rest)."""

    def hybrid_forward(self, F, x):
        return x.reshape((x.shape[0], -1))

    def __repr__(self):
        return "Flatten"


from .conv import (AvgPool1D, AvgPool2D, BatchNorm, Conv1D, Conv2D, GlobalAvgPool1D,  # noqa: E402 (made of the blocks above)
                   GlobalAvgPool2D, GlobalMaxPool1D, GlobalMaxPool2D, MaxPool1D, MaxPool2D, _initializer)

__all__ = ["Block", "HybridBlock", "Sequential", "HybridSequential", "Dense", "ReLU", "Activation", "Dropout",
           "Flatten", "Conv2D", "MaxPool2D", "AvgPool2D", "GlobalAvgPool2D", "GlobalMaxPool2D", "BatchNorm", "Conv1D",
           "MaxPool1D", "AvgPool1D", "GlobalMaxPool1D", "GlobalAvgPool1D"]
