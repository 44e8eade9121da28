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
(engine/nn); Sequential, HybridSequential, Activation, Dropout, Flatten,
Conv1D, Conv2D, MaxPool1D / 2D, AvgPool1D / 2D, GlobalAvgPool1D / 2D,
GlobalMaxPool1D / 2D and BatchNorm are defined here, out of the nd (or
np) ops. save_parameters() writes a NumPy .npz
file of the parameters by their names below the block; load_parameters()
reads one back into a block of the same structure.

Threading: the frontend thread that runs the script.
"""

import re as _re
from collections import OrderedDict as _OrderedDict

from .. import _core
from .. import autograd as _autograd
from .. import _joins, _windows
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


# -- convolution, pooling, batch norm: windows gathered, then a product or a reduction ------

class _Edition:
    """What the window layers need from the edition of an input (nd or np
    arrays): index arrays on its device, padding, and the window gather."""

    _INDEX = {}  # (edition, device, what) -> index arrays, made once

    def __init__(self, x):
        self.is_np = _is_np(x)
        self.F = _np() if self.is_np else _nd
        self.ctx = x.ctx if self.is_np else x.context

    def _index(self, key, values):
        full_key = (self.is_np, str(self.ctx)) + key
        known = self._INDEX.get(full_key)
        if known is None:
            known = self._INDEX[full_key] = self.F.array(values, dtype="int64", ctx=self.ctx)
        return known

    def pad(self, x, top, bottom, left, right, value=0.0):
        if not (top or bottom or left or right):
            return x
        concat = (lambda parts, d: self.F.concatenate(parts, axis=d)) if self.is_np else \
            (lambda parts, d: _nd.concat(*parts, dim=d))
        return _joins.padded(x, {2: (top, bottom), 3: (left, right)},
                             lambda shape: self.F.full(shape, value, dtype=x.dtype, ctx=self.ctx), concat)

    def along(self, x, index, axis):
        """x's values at index along axis (take_along_axis, one op)."""
        return self.F.take_along_axis(x, index, axis) if self.is_np else _core.nd._take_along_axis(x, index, axis)

    def windows(self, x, kernel, stride, dilation):
        """x (N, C, H, W) as its windows (N, C, K, L), by one op; and (Ho, Wo)."""
        n, c, h, w = tuple(x.shape)
        flat, (ho, wo) = _windows.positions(h, w, kernel, stride, dilation)
        where = self._index(("w", h, w, kernel, stride, dilation), flat.reshape(1, 1, -1))
        cols = self.along(x.reshape((n, c, h * w)), where, 2)
        return cols.reshape((n, c, kernel[0] * kernel[1], ho * wo)), (ho, wo)

    def first_largest(self, cols):
        """(N, C, L): the largest of each window (N, C, K, L), picked where it
        first occurs, so only that element gets the gradient (as MXNet's)."""
        n, c, _, l = tuple(cols.shape)
        at = self.F.argmax(cols, axis=2).reshape((n, c, 1, l))
        if not self.is_np:
            at = at.astype("int64")
        return self.along(cols, at, 2).reshape((n, c, l))


def _initializer(value):
    """An initializer of a block's argument: None, an initializer, or a name."""
    from .. import init as _init
    named = {"zeros": _init.Zero, "ones": _init.One, "uniform": _init.Uniform, "normal": _init.Normal,
             "xavier": _init.Xavier}
    if isinstance(value, str):
        if value.lower() not in named:
            raise ValueError("unknown initializer '%s' (known: %s)" % (value, ", ".join(sorted(named))))
        return named[value.lower()]()
    return value


class Conv2D(HybridBlock):
    """A 2-D convolution of (N, C, H, W) input: `channels` filters of
    kernel_size, strides and padding (symmetric) as MXNet's, then the
    activation. Its weight (channels, in_channels / groups, kh, kw) is made
    at the first forward when in_channels is 0; the bias starts at zero.
    Each window is gathered by one op, then one matrix product per group."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 layout="NCHW", activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        if layout != "NCHW":
            raise ValueError("Conv2D: layout %r is not supported (NCHW only)" % (layout,))
        if activation is not None and activation not in _ACTIVATIONS:
            raise ValueError("Conv2D: unknown activation '%s' (known: %s)"
                             % (activation, ", ".join(sorted(_ACTIVATIONS))))
        super().__init__(**kwargs)
        self._channels, self._groups, self._act = channels, groups, activation
        self._kernel = _windows.pair(kernel_size, "kernel_size")
        self._strides, self._padding = _windows.pair(strides, "strides"), _windows.pair(padding, "padding")
        self._dilation = _windows.pair(dilation, "dilation")
        self.weight = self.params.get("weight", shape=(channels, in_channels // groups) + self._kernel,
                                      init=_initializer(weight_initializer))
        if use_bias:
            self.bias = self.params.get("bias", shape=(channels,), init=_initializer(bias_initializer))

    def forward(self, x, *args):
        if x.ndim != 4:
            raise ValueError("Conv2D: needs input (batch, channels, height, width), got shape %s" % (x.shape,))
        if self.weight.shape[1] == 0:
            if x.shape[1] % self._groups:
                raise ValueError("Conv2D: %d input channels do not split into %d groups" % (x.shape[1], self._groups))
            self.weight._set_shape((self._channels, x.shape[1] // self._groups) + self._kernel)
        return super().forward(x, *args)

    def hybrid_forward(self, F, x, weight, bias=None):
        ed = _Edition(x)
        n, c = x.shape[0], x.shape[1]
        o, cg = weight.shape[0], weight.shape[1]
        if c != cg * self._groups:
            raise ValueError("Conv2D: the input has %d channels, the layer was built for %d" % (c, cg * self._groups))
        ph, pw = self._padding
        x = ed.pad(x, ph, ph, pw, pw)
        h, w = x.shape[2], x.shape[3]
        flat = x.reshape((n, 1, c * h * w))
        k = self._kernel[0] * self._kernel[1]
        per = o // self._groups
        outs = []
        for g in range(self._groups):
            # Each output position's column of this group's channels, one op: (N, L, cg K) ...
            positions, (ho, wo) = _windows.channel_positions(g * cg, (g + 1) * cg, h, w, self._kernel, self._strides,
                                                             self._dilation)
            index = ed._index(("conv", g, cg, h, w, self._kernel, self._strides, self._dilation), positions)
            cols = ed.along(flat, index, 2)
            # ... times the weight, one product for the whole batch: (N L, cg K) x (cg K, per).
            wg = weight[g * per:(g + 1) * per] if self._groups > 1 else weight
            y = F.dot(cols.reshape((n * ho * wo, cg * k)), wg.reshape((per, cg * k)).T)
            outs.append(F.swapaxes(y.reshape((n, ho * wo, per)), 1, 2))
        out = outs[0] if self._groups == 1 else (F.concatenate(outs, axis=1) if ed.is_np else _nd.concat(*outs, dim=1))
        if bias is not None:
            out = out + bias.reshape((1, o, 1))
        out = out.reshape((n, o, ho, wo))
        return _ACTIVATIONS[self._act](out) if self._act else out

    def __repr__(self):
        shape = self.weight.shape
        return "Conv2D(%s -> %d, kernel_size=%s, stride=%s%s%s)" % (
            shape[1] * self._groups if shape[1] else None, self._channels, self._kernel, self._strides,
            ", padding=%s" % (self._padding,) if self._padding != (0, 0) else "",
            ", Activation(%s)" % self._act if self._act else "")


def _widths(v):
    """The width of an int or a 1-element tuple (MXNet's 1-D arguments)."""
    return v[0] if isinstance(v, (tuple, list)) else v


class Conv1D(Conv2D):
    """A 1-D convolution of (N, C, W) input: Conv2D over a height of 1, its
    weight (channels, in_channels / groups, k)."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout="NCW",
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros", in_channels=0,
                 **kwargs):
        if layout != "NCW":
            raise ValueError("Conv1D: layout %r is not supported (NCW only)" % (layout,))
        k = _widths(kernel_size)
        super().__init__(channels, (1, k), (1, _widths(strides)), (0, _widths(padding)), (1, _widths(dilation)),
                         groups, "NCHW", activation, use_bias, weight_initializer, bias_initializer, in_channels,
                         **kwargs)
        # MXNet's Conv1D weight is (channels, in_channels / groups, k): made again in that shape.
        self._reg_params.pop("weight")
        self.weight = self.params.get("weight", shape=(channels, in_channels // groups, k),
                                      init=_initializer(weight_initializer))
        object.__setattr__(self, "_k1", k)

    def forward(self, x, *args):
        if x.ndim != 3:
            raise ValueError("Conv1D: needs input (batch, channels, width), got shape %s" % (x.shape,))
        if self.weight.shape[1] == 0:
            if x.shape[1] % self._groups:
                raise ValueError("Conv1D: %d input channels do not split into %d groups" % (x.shape[1], self._groups))
            self.weight._set_shape((self._channels, x.shape[1] // self._groups, self._k1))
        params = {name: p.data() for name, p in self._reg_params.items()}
        weight = params.pop("weight")
        w4 = weight.reshape((weight.shape[0], weight.shape[1], 1, weight.shape[2]))
        x4 = x.reshape((x.shape[0], x.shape[1], 1, x.shape[2]))
        out = self.hybrid_forward(_np() if _is_np(x) else _nd, x4, w4, **params)
        return out.reshape((out.shape[0], out.shape[1], out.shape[3]))

    def __repr__(self):
        shape = self.weight.shape
        return "Conv1D(%s -> %d, kernel_size=(%d,), stride=(%d,)%s%s)" % (
            shape[1] * self._groups if shape[1] else None, self._channels, self._k1, self._strides[1],
            ", padding=(%d,)" % self._padding[1] if self._padding[1] else "",
            ", Activation(%s)" % self._act if self._act else "")


class _Pool1D(HybridBlock):
    def __init__(self, two_d, kind, **kwargs):
        super().__init__(**kwargs)
        self._pool, self._kind = two_d, kind

    def hybrid_forward(self, F, x):
        if x.ndim != 3:
            raise ValueError("%s: needs input (batch, channels, width), got shape %s" % (self._kind, x.shape))
        out = self._pool.hybrid_forward(F, x.reshape((x.shape[0], x.shape[1], 1, x.shape[2])))
        return out.reshape((out.shape[0], out.shape[1], out.shape[3]))

    def __repr__(self):
        p = self._pool
        return "%s(size=(%d,), stride=(%d,), padding=(%d,), ceil_mode=%s)" % (
            self._kind, p._kernel[1], p._strides[1], p._padding[1], p._ceil)


class MaxPool1D(_Pool1D):
    """The largest of each pool_size window along the width."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False, **kwargs):
        if layout != "NCW":
            raise ValueError("MaxPool1D: layout %r is not supported (NCW only)" % (layout,))
        pool = MaxPool2D((1, _widths(pool_size)), None if strides is None else (1, _widths(strides)),
                         (0, _widths(padding)), ceil_mode=ceil_mode)
        super().__init__(pool, "MaxPool1D", **kwargs)


class AvgPool1D(_Pool1D):
    """The mean of each pool_size window along the width."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False, count_include_pad=True,
                 **kwargs):
        if layout != "NCW":
            raise ValueError("AvgPool1D: layout %r is not supported (NCW only)" % (layout,))
        pool = AvgPool2D((1, _widths(pool_size)), None if strides is None else (1, _widths(strides)),
                         (0, _widths(padding)), ceil_mode=ceil_mode, count_include_pad=count_include_pad)
        super().__init__(pool, "AvgPool1D", **kwargs)


class GlobalMaxPool1D(HybridBlock):
    """The largest along each channel's width: (N, C, 1)."""

    def hybrid_forward(self, F, x):
        return F.max(x, axis=2, keepdims=True)

    def __repr__(self):
        return "GlobalMaxPool1D"


class GlobalAvgPool1D(HybridBlock):
    """The mean along each channel's width: (N, C, 1)."""

    def hybrid_forward(self, F, x):
        return F.mean(x, axis=2, keepdims=True)

    def __repr__(self):
        return "GlobalAvgPool1D"


class _Pool2D(HybridBlock):
    def __init__(self, pool_size, strides, padding, ceil_mode, layout, kind, count_include_pad=True, **kwargs):
        if layout != "NCHW":
            raise ValueError("%s: layout %r is not supported (NCHW only)" % (kind, layout))
        super().__init__(**kwargs)
        self._kernel = _windows.pair(pool_size, "pool_size")
        self._strides = self._kernel if strides is None else _windows.pair(strides, "strides")
        self._padding = _windows.pair(padding, "padding")
        self._ceil, self._kind, self._count_pad = ceil_mode, kind, count_include_pad

    def hybrid_forward(self, F, x):
        if x.ndim != 4:
            raise ValueError("%s: needs input (batch, channels, height, width), got shape %s" % (self._kind, x.shape))
        ed = _Edition(x)
        (ph, pw), one = self._padding, (1, 1)
        eh, ew = _windows.ceil_extra(tuple(x.shape[2:]), self._kernel, self._strides, one, (ph, pw)) \
            if self._ceil else (0, 0)
        largest = self._kind == "MaxPool2D"
        padded = ed.pad(x, ph, ph + eh, pw, pw + ew, float("-inf") if largest else 0.0)
        cols, (ho, wo) = ed.windows(padded, self._kernel, self._strides, one)
        n, c = x.shape[0], x.shape[1]
        if largest:
            return ed.first_largest(cols).reshape((n, c, ho, wo))
        total = F.sum(cols, axis=2)
        if self._count_pad and not (eh or ew):
            return (total / (self._kernel[0] * self._kernel[1])).reshape((n, c, ho, wo))
        inner = ed.pad(F.ones((1, 1) + tuple(x.shape[2:]), ctx=ed.ctx), ph, ph, pw, pw, 1.0 if self._count_pad else 0.0)
        counts, _ = ed.windows(ed.pad(inner, 0, eh, 0, ew), self._kernel, self._strides, one)
        return (total / F.sum(counts, axis=2)).reshape((n, c, ho, wo))

    def __repr__(self):
        return "%s(size=%s, stride=%s, padding=%s, ceil_mode=%s)" % (self._kind, self._kernel, self._strides,
                                                                    self._padding, self._ceil)


class MaxPool2D(_Pool2D):
    """The largest of each pool_size window, strides apart (pool_size by
    default); padding counts as -inf; the gradient goes to a window's first
    largest element, as MXNet's."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW", ceil_mode=False, **kwargs):
        super().__init__(pool_size, strides, padding, ceil_mode, layout, "MaxPool2D", **kwargs)


class AvgPool2D(_Pool2D):
    """The mean of each pool_size window, strides apart (pool_size by
    default): over the whole window with count_include_pad (padding as
    zeros), else over its elements inside the input."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW", ceil_mode=False,
                 count_include_pad=True, **kwargs):
        super().__init__(pool_size, strides, padding, ceil_mode, layout, "AvgPool2D", count_include_pad, **kwargs)


class GlobalAvgPool2D(HybridBlock):
    """The mean over each channel's plane: (N, C, 1, 1)."""

    def hybrid_forward(self, F, x):
        return F.mean(x, axis=(2, 3), keepdims=True)

    def __repr__(self):
        return "GlobalAvgPool2D"


class GlobalMaxPool2D(HybridBlock):
    """The largest of each channel's plane: (N, C, 1, 1)."""

    def hybrid_forward(self, F, x):
        return F.max(x, axis=(2, 3), keepdims=True)

    def __repr__(self):
        return "GlobalMaxPool2D"


class BatchNorm(HybridBlock):
    """Normalises each channel (axis 1) by the batch's mean and variance
    while training (inside autograd.record()), which also move the running
    ones (running = momentum * running + (1 - momentum) * batch, as MXNet),
    and by the running ones otherwise (or always, with use_global_stats);
    then gamma (ones) and beta (zeros). Shapes are made at the first forward
    when in_channels is 0."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer="zeros", gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", in_channels=0, **kwargs):
        if axis != 1:
            raise ValueError("BatchNorm: axis %r is not supported (the channel axis 1 only)" % (axis,))
        super().__init__(**kwargs)
        self._momentum, self._eps, self._global = momentum, epsilon, use_global_stats
        self._center, self._scale = center, scale
        self.gamma = self.params.get("gamma", shape=(in_channels,), init=_initializer(gamma_initializer),
                                     grad_req="write" if scale else "null")
        self.beta = self.params.get("beta", shape=(in_channels,), init=_initializer(beta_initializer),
                                    grad_req="write" if center else "null")
        self.running_mean = self.params.get("running_mean", shape=(in_channels,),
                                            init=_initializer(running_mean_initializer), grad_req="null")
        self.running_var = self.params.get("running_var", shape=(in_channels,),
                                           init=_initializer(running_variance_initializer), grad_req="null")

    def forward(self, x, *args):
        if x.ndim < 2:
            raise ValueError("BatchNorm: needs input (batch, channels, ...), got shape %s" % (x.shape,))
        if self.gamma.shape[0] == 0:
            for p in (self.gamma, self.beta, self.running_mean, self.running_var):
                p._set_shape((x.shape[1],))
        return super().forward(x, *args)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        if x.shape[1] != gamma.shape[0]:
            raise ValueError("BatchNorm: the input has %d channels, the layer was built for %d"
                             % (x.shape[1], gamma.shape[0]))
        axes = (0,) + tuple(range(2, x.ndim))
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        if _autograd.is_training() and not self._global:
            mean = F.mean(x, axis=axes, keepdims=True)
            centred = x - mean
            var = F.mean(centred * centred, axis=axes, keepdims=True)
            with _autograd.pause():
                m = self._momentum
                self.running_mean.set_data(running_mean * m + mean.reshape((-1,)) * (1 - m))
                self.running_var.set_data(running_var * m + var.reshape((-1,)) * (1 - m))
            out = centred / F.sqrt(var + self._eps)
        else:
            out = (x - running_mean.reshape(shape)) / F.sqrt(running_var.reshape(shape) + self._eps)
        if self._scale:
            out = out * gamma.reshape(shape)
        if self._center:
            out = out + beta.reshape(shape)
        return out

    def __repr__(self):
        return "BatchNorm(axis=1, eps=%s, momentum=%s, in_channels=%s)" % (self._eps, self._momentum,
                                                                          self.gamma.shape[0] or None)


__all__ = ["Block", "HybridBlock", "Sequential", "HybridSequential", "Dense", "ReLU", "Activation", "Dropout",
           "Flatten", "Conv2D", "MaxPool2D", "AvgPool2D", "GlobalAvgPool2D", "GlobalMaxPool2D", "BatchNorm", "Conv1D",
           "MaxPool1D", "AvgPool1D", "GlobalMaxPool1D", "GlobalAvgPool1D"]
