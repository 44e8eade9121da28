"""torch.nn's convolutions, pools and batch normalisation in the PyTorch
edition: Conv1d / Conv2d, MaxPool1d / 2d, AvgPool1d / 2d, AdaptiveAvgPool1d
/ 2d, AdaptiveMaxPool1d, BatchNorm1d / 2d.

Threading: the frontend thread, as every op of the edition.
"""


from ... import torch as _torch  # partly imported when this module loads: used at call time only
from . import convolution, functional, init
from .module import Module, Parameter


class Conv2d(Module):
    """A 2-D convolution (cross-correlation, as PyTorch's): weight (out,
    in / groups, kh, kw) and bias (out,), both U(-1/sqrt(fan_in),
    1/sqrt(fan_in)) at first, fan_in = in / groups * kh * kw, as PyTorch
    initializes them. Zero padding only."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        self._configure(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode)
        self.weight = Parameter(_torch.zeros(self.out_channels, self.in_channels // groups, *self.kernel_size))
        if bias:
            self.bias = Parameter(_torch.zeros(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _configure(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                   padding_mode="zeros", device=None, dtype=None):
        """The settings that are not tensors, checked (a LazyConv2d sets them too, with in_channels 0)."""
        if padding_mode != "zeros":
            raise NotImplementedError("%s: padding_mode %r is not supported (zeros only)"
                                      % (type(self).__name__, padding_mode))
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = convolution._pair(kernel_size, "kernel_size")
        self.stride, self.dilation = convolution._pair(stride, "stride"), convolution._pair(dilation, "dilation")
        self.padding = padding if isinstance(padding, str) else convolution._pair(padding, "padding")

    def reset_parameters(self):
        init._reset_layer(self.weight, self.bias)

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
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode)
        with _torch.no_grad():
            self.weight = Parameter(self.weight.detach().reshape(out_channels, in_channels // groups,
                                                                 self.kernel_size[1]))

    def _configure(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                   padding_mode="zeros", device=None, dtype=None):
        """Conv2d's settings over a height of 1 (explicitly Conv2d's: a LazyConv1d is no Conv2d)."""
        one = convolution._single
        Conv2d._configure(self, in_channels, out_channels, (1, one(kernel_size, "kernel_size")),
                          (1, one(stride, "stride")), padding if isinstance(padding, str) else (0, one(padding, "padding")),
                          (1, one(dilation, "dilation")), groups, bias, padding_mode)

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
        self._configure(num_features, eps, momentum, affine, track_running_stats)
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

    def _configure(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
                   dtype=None):
        """The settings that are not tensors (a lazy batch norm sets them too, with num_features 0)."""
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats

    def forward(self, input):
        if input.ndim not in self._DIMS:
            raise ValueError("expected %s input (got %dD input)"
                             % (" or ".join("%dD" % d for d in self._DIMS), input.ndim))
        # The channels the state holds (num_features stays 0 in a lazy batch norm made from a loaded state, as PyTorch's).
        held = next((t.shape[0] for t in (self.running_mean, self.weight) if t is not None), input.shape[1])
        if input.shape[1] != held:
            raise RuntimeError("running_mean should contain %d elements not %d" % (input.shape[1], held))
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
