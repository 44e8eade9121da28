"""torch.nn.functional of the PyTorch edition: activations (relu, sigmoid,
tanh, softmax, log_softmax, leaky_relu, elu, silu, softplus, gelu), losses
(mse, l1, cross_entropy, nll, binary_cross_entropy(_with_logits), huber,
smooth_l1), dropout, linear, layer_norm, embedding, one_hot, normalize,
cosine_similarity, pairwise_distance, pad, conv1d / conv2d, max_pool1d /
max_pool2d, avg_pool1d / avg_pool2d, adaptive_avg_pool1d / 2d,
adaptive_max_pool1d and batch_norm as functions of tensors. Each is made of the engine's ops, so
every call is pushed and returns at once, is recorded for autograd, and
shows on the timeline with the line that called it."""

import builtins as _builtins
import math as _math

from ... import _joins, _windows
from ... import torch as _torch


def relu(input, inplace=False):
    """max(x, 0) elementwise."""
    return input.relu_() if inplace else _torch.relu(input)


def sigmoid(input):
    """1 / (1 + exp(-x)) elementwise."""
    return _torch.sigmoid(input)


def tanh(input):
    """tanh(x) elementwise."""
    return _torch.tanh(input)


def softmax(input, dim=None):
    """exp(x) / sum(exp(x)) along dim (the last one when None, as for 1-d and 2-d input)."""
    return _torch.softmax(input, -1 if dim is None else dim)


def log_softmax(input, dim=None):
    """log(softmax(x)) along dim, computed stably."""
    return _torch.log_softmax(input, -1 if dim is None else dim)


def linear(input, weight, bias=None):
    """input @ weight.T + bias."""
    out = _torch.matmul(input, weight.t())
    return out if bias is None else out + bias


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, zeroes each element with probability p and scales the
    rest by 1 / (1 - p); the identity otherwise."""
    if p < 0 or p > 1:
        raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    # PyTorch's order: a Bernoulli(1 - p) mask of input's type, scaled, then the product.
    noise = _torch._t._bernoulli_like(input, 1.0 - p, None) / (1 - p)
    return input.mul_(noise) if inplace else input * noise


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError("%s is not a valid value for reduction" % reduction)


def _check_same_shape(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        raise RuntimeError("%s: the input %s and the target %s differ in shape (broadcasting them is not supported)"
                           % (name, tuple(input.shape), tuple(target.shape)))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The squared differences, averaged (or summed, or kept)."""
    _check_same_shape(input, target, "mse_loss")
    return _reduce((input - target) ** 2, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The absolute differences, averaged (or summed, or kept)."""
    _check_same_shape(input, target, "l1_loss")
    return _reduce((input - target).abs(), reduction)


def _classes_last(x):
    """(N, C, d1, ...) as (N d1 ..., C): the class dim last, one row per sample and position."""
    if x.dim() == 2:
        return x
    order = [0] + list(_builtins.range(2, x.dim())) + [1]
    return x.permute(*order).reshape(-1, x.shape[1])


def _class_hits(target, classes, ignore_index):
    """(M, C): 1 at each row's class, a row of zeros for a target equal to ignore_index."""
    flat = target.reshape(-1, 1)
    return (flat == _torch.arange(classes, device=target.device)) & (flat != ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """-log softmax(input)[target] per sample, for logits (N, C) or (N, C,
    d1, ...) (or one sample (C,)) and class indices of shape (N, d1, ...)
    (int64; ignore_index is left out) or class probabilities of input's
    shape; averaged over the samples (weighted by weight[target] when weight
    is given), label_smoothing mixing in the uniform distribution."""
    single = input.dim() == 1
    if single:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    logp = log_softmax(input, 1)
    classes = input.shape[1]
    if not target.is_floating_point() and not label_smoothing:
        loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
        return loss.squeeze(0) if single and reduction == "none" else loss
    rows = _classes_last(logp)
    w = weight if weight is not None else _torch.ones(classes, dtype=rows.dtype, device=rows.device)
    if target.is_floating_point():  # class probabilities
        probs = _classes_last(target)
        if label_smoothing:
            probs = probs * (1 - label_smoothing) + label_smoothing / classes
        loss = -(rows * probs * w).sum(1)
        count = None
    else:
        hits = _class_hits(target, classes, ignore_index).to(rows.dtype)
        kept = hits.sum(1)  # 0 for an ignored target
        picked = -(rows * hits * w).sum(1)
        smooth = -(rows * w).sum(1) * kept
        loss = picked * (1 - label_smoothing) + smooth * (label_smoothing / classes)
        count = (hits * w).sum()
    shape = tuple(target.shape) if not target.is_floating_point() else (input.shape[0],) + tuple(input.shape[2:])
    if reduction == "none":
        loss = loss.reshape(shape)
        return loss.squeeze(0) if single else loss
    if reduction == "mean" and count is not None:
        return loss.sum() / count
    return _reduce(loss, reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-weight[c] input[i, c] for each sample's class c = target[i], for
    log-probabilities (N, C) or (N, C, d1, ...) (or one sample (C,)); a
    target equal to ignore_index counts for nothing; the mean divides by
    the weights of the targets counted."""
    single = input.dim() == 1
    if single:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    classes = input.shape[1]
    rows = _classes_last(input)
    hits = _class_hits(target, classes, ignore_index).to(rows.dtype)
    if weight is not None:
        hits = hits * weight
    loss = -(rows * hits).sum(1)
    if reduction == "none":
        loss = loss.reshape(tuple(target.shape))
        return loss.squeeze(0) if single else loss
    if reduction == "mean":
        return loss.sum() / hits.sum()
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """The binary cross-entropy of sigmoid(input) against target, computed
    stably: max(x, 0) - x * y + log(1 + exp(-|x|))."""
    _check_same_shape(input, target, "binary_cross_entropy_with_logits")
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * (_torch.log1p(_torch.exp(-input.abs())) + _torch.relu(-input))
    else:
        loss = _torch.relu(input) - input * target + _torch.log1p(_torch.exp(-input.abs()))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


# -- more activations, normalisation and lookups, made of the same ops ----------------

def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, negative_slope * x elsewhere."""
    out = _torch.where(input > 0, input, input * negative_slope)
    return input.copy_(out) if inplace else out


def elu(input, alpha=1.0, inplace=False):
    """x where x > 0, alpha (exp(x) - 1) elsewhere."""
    out = _torch.where(input > 0, input, (_torch.exp(input) - 1) * alpha)
    return input.copy_(out) if inplace else out


def silu(input, inplace=False):
    """x sigmoid(x) (the swish)."""
    out = input * _torch.sigmoid(input)
    return input.copy_(out) if inplace else out


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta; x itself where beta x > threshold (as PyTorch)."""
    scaled = input * beta
    soft = _torch.log1p(_torch.exp(_torch.clamp(scaled, max=threshold))) / beta
    return _torch.where(scaled > threshold, input, soft)


def gelu(input, approximate="none"):
    """x Phi(x), Phi the standard normal's distribution function: through erf
    (approximate='none') or PyTorch's tanh formula ('tanh')."""
    if approximate == "tanh":
        inner = (input + 0.044715 * input * input * input) * _math.sqrt(2 / _math.pi)
        return 0.5 * input * (1 + _torch.tanh(inner))
    if approximate != "none":
        raise RuntimeError("approximate argument must be either none or tanh.")
    return 0.5 * input * (1 + _torch.erf(input * (1 / _math.sqrt(2))))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """(x - mean) / sqrt(var + eps) over the last len(normalized_shape) dims
    (the biased variance, as PyTorch), then * weight + bias."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError("Given normalized_shape=%s, expected input with shape [*, %s], but got input of size %s"
                           % (list(shape), ", ".join(str(d) for d in shape), list(input.shape)))
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    mean = input.mean(dim=dims, keepdim=True)
    centred = input - mean
    var = (centred * centred).mean(dim=dims, keepdim=True)
    out = centred / _torch.sqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def embedding(input, weight):
    """The rows of weight at the indices in input (an integer tensor)."""
    if input.is_floating_point():
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           "Long, Int; but got %s instead" % (input.dtype,))
    return weight[input]


def one_hot(tensor, num_classes=-1):
    """int64 rows with a 1 at each index of tensor (num_classes=-1: max + 1,
    which reads the values first: a sync point, as in PyTorch)."""
    if tensor.is_floating_point():
        raise RuntimeError("one_hot is only applicable to index tensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() else 0
    classes = _torch.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).long()


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p along dim, eps)."""
    norm = _torch.norm(input, p=p, dim=dim, keepdim=True)
    return input / _torch.clamp(norm, min=eps)


# -- batch norm and the rest --------------------------------------------------------

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """(x - mean) / sqrt(var + eps) per channel (dim 1), then * weight + bias:
    in training the batch's mean and biased variance, the running ones moved
    towards them (by momentum; the unbiased variance, as PyTorch); otherwise
    the running ones."""
    if input.ndim < 2:
        raise ValueError("expected at least 2D input (got %dD input)" % input.ndim)
    dims = (0,) + tuple(range(2, input.ndim))
    shape = (1, input.shape[1]) + (1,) * (input.ndim - 2)
    if training:
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError("Expected more than 1 value per channel when training, got input size %s"
                             % list(input.shape))
        mean = input.mean(dim=dims, keepdim=True)
        centred = input - mean
        var = (centred * centred).mean(dim=dims, keepdim=True)
        if running_mean is not None:
            with _torch.no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach().reshape(-1) * momentum)
                running_var.mul_(1 - momentum).add_(var.detach().reshape(-1) * (momentum * count / (count - 1)))
        out = centred / _torch.sqrt(var + eps)
    else:
        out = (input - running_mean.reshape(shape)) / _torch.sqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / sqrt(max(|x1|^2 |x2|^2, eps^2)) along dim (broadcasting)."""
    return _torch.searching._cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    return _torch.searching._pairwise_distance(x1, x2, p, eps, keepdim)


def pad(input, pad, mode="constant", value=0.0):
    """input padded with value: pad = (left, right) for the last dim, then
    (top, bottom) for the one before, and so on (mode 'constant' only)."""
    if mode != "constant":
        raise NotImplementedError("pad: only mode='constant' is supported, not %r" % (mode,))
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length must be divisible by 2 and at most twice the dimensions of the input")
    if _builtins.min(pad, default=0) < 0:
        raise NotImplementedError("pad: negative padding (cropping) is not supported")
    widths = {input.ndim - 1 - i: (pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)}
    return _joins.padded(input, widths,
                         lambda shape: _torch.full(shape, value, dtype=input.dtype, device=input.device),
                         lambda parts, dim: _torch.cat(parts, dim=dim))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log p + (1 - t) log(1 - p)) of probabilities p, each log clamped at
    -100 (as PyTorch, so p = 0 or 1 gives a finite loss)."""
    _check_same_shape(input, target, "binary_cross_entropy")
    log_p = _torch.clamp(_torch.log(input), min=-100)
    log_q = _torch.clamp(_torch.log(1 - input), min=-100)
    loss = -(target * log_p + (1 - target) * log_q)
    return _reduce(loss * weight if weight is not None else loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere, d = input - target."""
    _check_same_shape(input, target, "huber_loss")
    d = (input - target).abs()
    return _reduce(_torch.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere, d = input - target."""
    _check_same_shape(input, target, "smooth_l1_loss")
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(_torch.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


from .activations import *  # noqa: E402,F401,F403 (torch.nn.functional's further activations)
from .convolution import *  # noqa: E402,F401,F403 (the convolutions and pools)
from .losses import *  # noqa: E402,F401,F403 (and losses)
