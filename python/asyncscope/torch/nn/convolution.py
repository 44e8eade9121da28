"""torch.nn.functional's convolutions and pools in the PyTorch edition:
conv1d / conv2d, max_pool1d / 2d, avg_pool1d / 2d, adaptive_avg_pool1d / 2d,
adaptive_max_pool1d, unfold and max_unpool1d / 2d (re-exported by
torch.nn.functional). Windows are gathered, then a product or a reduction,
each the ops it is made of on the timeline.

Threading: the frontend thread, as every op of the edition.
"""

import builtins as _builtins

from ... import _windows
from ... import torch as _torch
from .functional import pad  # defined before functional imports this module

__all__ = ["conv2d", "conv1d", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "unfold", "max_unpool2d", "max_unpool1d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"]

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
