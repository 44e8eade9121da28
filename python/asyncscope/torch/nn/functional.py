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


# -- convolution, pooling, batch norm: windows gathered, then a product or a reduction ------

_pair = _windows.pair
_WINDOW_INDEX = {}  # (positions' key, device) -> the gather index tensor, made once


def _windows_of(x, kernel, stride, dilation):
    """x (N, C, H, W), already padded, as its windows: (N, C, K, L) with K =
    kh * kw offsets and L = Ho * Wo outputs (_windows.positions), by one
    gather (whose gradient adds each window's gradient back); and (Ho, Wo)."""
    n, c, h, w = tuple(x.shape)
    flat, (ho, wo) = _windows.positions(h, w, kernel, stride, dilation)
    key = (h, w, kernel, stride, dilation, str(x.device))
    index = _WINDOW_INDEX.get(key)
    if index is None:
        index = _WINDOW_INDEX[key] = _torch.tensor(flat.reshape(1, 1, -1), device=x.device)
    cols = _torch.take_along_dim(x.reshape(n, c, h * w), index, dim=2)
    return cols.reshape(n, c, kernel[0] * kernel[1], ho * wo), (ho, wo)


def _padding(padding, kernel, dilation):
    """(top, bottom, left, right) of an int, a pair, 'valid' or 'same'."""
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        return _windows.same_padding(kernel, dilation)
    ph, pw = _pair(padding, "padding")
    return (ph, ph, pw, pw)


def _batched(input, name):
    """input as (N, C, H, W), and whether it came without the batch dim."""
    if input.ndim == 3:
        return input.unsqueeze(0), True
    if input.ndim != 4:
        raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to %s, but got input of size: %s"
                           % (name, list(input.shape)))
    return input, False


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """The 2-D cross-correlation of input (N, C, H, W) with weight (O, C /
    groups, kh, kw), plus bias (O,): each window gathered (one gather), then
    one matrix product per group for the whole batch."""
    x, unbatched = _batched(input, "conv2d")
    n, c, _, _ = tuple(x.shape)
    o, cg, kh, kw = tuple(weight.shape)
    if c != cg * groups or o % groups:
        raise RuntimeError("Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d "
                           "channels instead" % (groups, list(weight.shape), list(input.shape), cg * groups, c))
    kernel, stride, dilation = (kh, kw), _pair(stride, "stride"), _pair(dilation, "dilation")
    if padding == "same" and stride != (1, 1):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    top, bottom, left, right = _padding(padding, kernel, dilation)
    if top or bottom or left or right:
        x = pad(x, (left, right, top, bottom))
    _, _, h, w = tuple(x.shape)
    flat = x.reshape(n, 1, c * h * w)
    outs = []
    per, k = o // groups, kh * kw
    for g in range(groups):
        # Each output position's column of this group's channels, one op: (N, L, cg K) ...
        positions, (ho, wo) = _windows.channel_positions(g * cg, (g + 1) * cg, h, w, kernel, stride, dilation)
        key = ("conv", g, cg, h, w, kernel, stride, dilation, str(x.device))
        index = _WINDOW_INDEX.get(key)
        if index is None:
            index = _WINDOW_INDEX[key] = _torch.tensor(positions, device=x.device)
        cols = _torch.take_along_dim(flat, index, dim=2)
        # ... times the weight, one product for the whole batch: (N L, cg K) x (cg K, per).
        wg = weight[g * per:(g + 1) * per] if groups > 1 else weight
        y = _torch.matmul(cols.reshape(n * ho * wo, cg * k), wg.reshape(per, cg * k).t())
        outs.append(y.reshape(n, ho * wo, per).transpose(1, 2))
    out = outs[0] if groups == 1 else _torch.cat(outs, dim=1)
    if bias is not None:
        out = out + bias.reshape(1, o, 1)
    out = out.reshape(n, o, ho, wo)
    return out.squeeze(0) if unbatched else out


def _one_d(input, name):
    """(N, C, L) or (C, L) input as (N, C, 1, L), and whether it came without the batch dim."""
    if input.ndim == 2:
        return input.unsqueeze(0).unsqueeze(2), True
    if input.ndim != 3:
        raise RuntimeError("Expected 2D (unbatched) or 3D (batched) input to %s, but got input of size: %s"
                           % (name, list(input.shape)))
    return input.unsqueeze(2), False


def _back_to_1d(out, unbatched):
    out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def _single(v, name):
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise RuntimeError("%s must be an int or a 1-element tuple, got %r" % (name, v))
        return v[0]
    return v


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """The 1-D cross-correlation of input (N, C, L) with weight (O, C /
    groups, k): conv2d over a height of 1."""
    x, unbatched = _one_d(input, "conv1d")
    pad = padding if isinstance(padding, str) else (0, _single(padding, "padding"))
    out = conv2d(x, weight.unsqueeze(2), bias, (1, _single(stride, "stride")), pad, (1, _single(dilation, "dilation")),
                 groups)
    return _back_to_1d(out, unbatched)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest of each window along the last dim."""
    x, unbatched = _one_d(input, "max_pool1d")
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None else _single(stride, "stride")
    out = max_pool2d(x, (1, k), (1, s), (0, _single(padding, "padding")), (1, _single(dilation, "dilation")),
                     ceil_mode, return_indices)
    if return_indices:
        return _back_to_1d(out[0], unbatched), _back_to_1d(out[1], unbatched)
    return _back_to_1d(out, unbatched)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window along the last dim."""
    x, unbatched = _one_d(input, "avg_pool1d")
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None else _single(stride, "stride")
    out = avg_pool2d(x, (1, k), (1, s), (0, _single(padding, "padding")), ceil_mode, count_include_pad)
    return _back_to_1d(out, unbatched)


def adaptive_avg_pool1d(input, output_size):
    """The mean over output_size windows spread along the last dim."""
    x, unbatched = _one_d(input, "adaptive_avg_pool1d")
    return _back_to_1d(adaptive_avg_pool2d(x, (1, _single(output_size, "output_size"))), unbatched)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The largest over output_size windows spread along the last dim."""
    if return_indices:
        raise NotImplementedError("adaptive_max_pool1d: return_indices is not supported")
    x, unbatched = _one_d(input, "adaptive_max_pool1d")
    n = _single(output_size, "output_size")
    length = x.shape[-1]
    cells = [x[..., (i * length) // n:-(-((i + 1) * length) // n)].amax(dim=-1) for i in range(n)]
    return _back_to_1d(_torch.stack(cells, dim=-1), unbatched)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding windows of input (N, C, H, W) as columns: (N, C kh kw, L),
    L the windows (zero padding), by the same one gather as conv2d."""
    x, unbatched = _batched(input, "unfold")
    kernel = _pair(kernel_size, "kernel_size")
    ph, pw = _pair(padding, "padding")
    if ph or pw:
        x = pad(x, (pw, pw, ph, ph))
    cols, (ho, wo) = _windows_of(x, kernel, _pair(stride, "stride"), _pair(dilation, "dilation"))
    out = cols.reshape(x.shape[0], x.shape[1] * kernel[0] * kernel[1], ho * wo)
    return out.squeeze(0) if unbatched else out


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool2d undone: each value of input (N, C, h, w) put at its index
    in a plane of zeros of output_size (by default what the pooling read).
    One comparison of every index with every position of the plane, so its
    cost grows as (h w) (H W); two windows that took the same element put
    it there once."""
    x, unbatched = _batched(input, "max_unpool2d")
    idx = indices.unsqueeze(0) if unbatched else indices
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = (kh, kw) if stride is None or stride == [] or stride == () else _pair(stride, "stride")
    ph, pw = _pair(padding, "padding")
    height, width = (x.shape[2] - 1) * sh - 2 * ph + kh, (x.shape[3] - 1) * sw - 2 * pw + kw
    if output_size is not None:
        height, width = tuple(output_size)[-2:]
    n, c = x.shape[0], x.shape[1]
    count = x.shape[2] * x.shape[3]
    plane = height * width
    hits = (idx.reshape(n, c, count, 1) == _torch.arange(plane, device=x.device)).to(x.dtype)
    times = hits.sum(2)
    out = (x.reshape(n, c, count, 1) * hits).sum(2) / _torch.clamp(times, min=1.0)
    out = out.reshape(n, c, height, width)
    return out.squeeze(0) if unbatched else out


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool1d undone (max_unpool2d over a height of 1)."""
    x, unbatched = _one_d(input, "max_unpool1d")
    idx = indices.unsqueeze(0).unsqueeze(2) if unbatched else indices.unsqueeze(2)
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None else _single(stride, "stride")
    size = None if output_size is None else (1, tuple(output_size)[-1])
    out = max_unpool2d(x, idx, (1, k), (1, s), (0, _single(padding, "padding")), size)
    return _back_to_1d(out, unbatched)


def _pool_setup(input, kernel_size, stride, padding, dilation, ceil_mode, name):
    x, unbatched = _batched(input, name)
    kernel = _pair(kernel_size, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _pair(stride, "stride")
    ph, pw = _pair(padding, "padding")
    if ph > kernel[0] // 2 or pw > kernel[1] // 2:
        raise RuntimeError("pad should be at most half of effective kernel size, but got pad=%d, kernel_size=%d"
                           % (_builtins.max(ph, pw), _builtins.max(kernel)))
    dilation = _pair(dilation, "dilation")
    extra = _windows.ceil_extra(tuple(x.shape[2:]), kernel, stride, dilation, (ph, pw)) if ceil_mode else (0, 0)
    return x, unbatched, kernel, stride, dilation, (ph, ph + extra[0], pw, pw + extra[1])


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest of each window (padding counts as -inf); the gradient goes
    to the first largest of a window, as PyTorch's."""
    x, unbatched, kernel, stride, dilation, (top, bottom, left, right) = _pool_setup(
        input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    h, w = x.shape[2], x.shape[3]
    if top or bottom or left or right:
        x = pad(x, (left, right, top, bottom), value=float("-inf"))
    cols, (ho, wo) = _windows_of(x, kernel, stride, dilation)
    first = cols.argmax(dim=2, keepdim=True)
    out = _torch.take_along_dim(cols, first, dim=2).reshape(x.shape[0], x.shape[1], ho, wo)
    if not return_indices:
        return out.squeeze(0) if unbatched else out
    # Where each largest is in the unpadded plane (row * W + col), as PyTorch gives it.
    table = _pool_index_table(h, w, tuple(x.shape[2:]), kernel, stride, dilation, top, left, x.device)
    indices = _torch.take_along_dim(table, first, dim=2).reshape(x.shape[0], x.shape[1], ho, wo)
    if unbatched:
        return out.squeeze(0), indices.squeeze(0)
    return out, indices


_POOL_INDEX = {}  # (the plane, kernel, stride, dilation, padding, device) -> the index table, made once


def _pool_index_table(h, w, padded, kernel, stride, dilation, top, left, device):
    """(1, 1, K, L) int64: for each window offset and output, the position in
    the unpadded h x w plane it reads."""
    key = (h, w, padded, kernel, stride, dilation, top, left, str(device))
    table = _POOL_INDEX.get(key)
    if table is None:
        flat, (ho, wo) = _windows.positions(padded[0], padded[1], kernel, stride, dilation)
        rows, cols = flat // padded[1] - top, flat % padded[1] - left
        table = (rows * w + cols).reshape(1, 1, kernel[0] * kernel[1], ho * wo)
        table = _POOL_INDEX[key] = _torch.tensor(table, device=device)
    return table


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window: over the whole window with count_include_pad
    (padding as zeros), else over its elements inside the input."""
    x, unbatched, kernel, stride, dilation, (top, bottom, left, right) = _pool_setup(
        input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    padded = top or bottom or left or right
    if padded:
        x = pad(x, (left, right, top, bottom))
    cols, (ho, wo) = _windows_of(x, kernel, stride, dilation)
    total = cols.sum(dim=2)
    if divisor_override:
        out = total / divisor_override
    elif count_include_pad and not (ceil_mode and (bottom > top or right > left)):
        out = total / (kernel[0] * kernel[1])
    else:
        # How many of each window's elements are inside the input (or, with
        # count_include_pad, inside the padding the user asked for).
        ph, pw = _pair(padding, "padding")
        inner = _torch.ones((1, 1) + tuple(input.shape[-2:]), device=input.device)
        if count_include_pad:
            inner = pad(inner, (pw, pw, ph, ph), value=1.0)
            inner = pad(inner, (left - pw, right - pw, top - ph, bottom - ph))
        else:
            inner = pad(inner, (left, right, top, bottom))
        counts, _ = _windows_of(inner, kernel, stride, dilation)
        out = total / counts.sum(dim=2)
    out = out.reshape(x.shape[0], x.shape[1], ho, wo)
    return out.squeeze(0) if unbatched else out


def adaptive_avg_pool2d(input, output_size):
    """The mean over each of output_size windows spread over the input, from
    floor(i * H / out) to ceil((i + 1) * H / out)."""
    x, unbatched = _batched(input, "adaptive_avg_pool2d")
    oh, ow = _pair(output_size, "output_size")
    h, w = tuple(x.shape[2:])
    if h % oh == 0 and w % ow == 0:
        out = avg_pool2d(x, (h // oh, w // ow))
    else:
        rows = []
        for i in range(oh):
            r0, r1 = (i * h) // oh, -(-((i + 1) * h) // oh)
            cells = []
            for j in range(ow):
                c0, c1 = (j * w) // ow, -(-((j + 1) * w) // ow)
                cells.append(x[:, :, r0:r1, c0:c1].mean(dim=(2, 3)))
            rows.append(_torch.stack(cells, dim=2))
        out = _torch.stack(rows, dim=2)
    return out.squeeze(0) if unbatched else out


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
    return _torch.composed._cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    return _torch.composed._pairwise_distance(x1, x2, p, eps, keepdim)


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
from .losses import *  # noqa: E402,F401,F403 (and losses)
