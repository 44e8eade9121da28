"""Gluon's convolution, pooling and batch-norm blocks (MXNet edition):
Conv1D / Conv2D, MaxPool1D / 2D, AvgPool1D / 2D, GlobalAvgPool1D / 2D,
GlobalMaxPool1D / 2D and BatchNorm, made of the nd (or np) ops: windows
gathered, then a product or a reduction (gluon.nn re-exports them).

Threading: the frontend thread that runs the script.
"""

from .. import _core, _joins, _windows
from .. import autograd as _autograd
from .. import ndarray as _nd
from .nn import _ACTIVATIONS, Activation, HybridBlock, _is_np, _np


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
