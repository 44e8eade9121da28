"""The arithmetic of sliding windows shared by the two editions' convolution
and pooling layers (torch/nn/functional.py, gluon/nn.py): sizes and
padding from the arguments as PyTorch and MXNet take them, and the flat
positions each window reads, computed once per shape on the host. Each
layer gathers those positions with one op of its edition, then multiplies
(convolution) or reduces (pooling) along the window.

Threading: the frontend thread, as every op of the editions.
"""

import numpy as _numpy

_POSITIONS = {}  # (h, w, kernel, stride, dilation) -> (positions, (ho, wo))


def pair(v, name):
    """(h, w) of an int or a pair of ints."""
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    if len(v) != 2 or not all(isinstance(k, int) for k in v):
        raise RuntimeError("%s must be an int or a pair of ints, got %r" % (name, v))
    return v


def positions(h, w, kernel, stride, dilation):
    """The flat positions (row-major in an h x w plane) each window reads,
    K = kh * kw offsets (row-major) times L = ho * wo outputs (row-major), as
    a NumPy int64 array of K * L; and (ho, wo). RuntimeError when no window fits."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho, wo = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
    if ho <= 0 or wo <= 0:
        raise RuntimeError("Calculated output size: (%d x %d). Output size is too small" % (max(ho, 0), max(wo, 0)))
    key = (h, w, kernel, stride, dilation)
    known = _POSITIONS.get(key)
    if known is None:
        i = (_numpy.arange(kh) * dh).reshape(kh, 1, 1, 1) + (_numpy.arange(ho) * sh).reshape(1, 1, ho, 1)
        j = (_numpy.arange(kw) * dw).reshape(1, kw, 1, 1) + (_numpy.arange(wo) * sw).reshape(1, 1, 1, wo)
        known = ((i * w + j).reshape(-1).astype(_numpy.int64), (ho, wo))
        _POSITIONS[key] = known
    return known


def channel_positions(c0, c1, h, w, kernel, stride, dilation):
    """For a convolution: where in a (C, h, w) sample, flattened, output l
    reads its column of channels c0..c1 times K kernel offsets, as a NumPy
    int64 array (1, L, (c1 - c0) * K) (channel major, then the offsets,
    as a weight (O, C, kh, kw) is laid out); and (ho, wo). Picking along
    the last dim of a (N, 1, C h w) view gives (N, L, (c1 - c0) K): rows
    that one matrix product multiplies by the weight."""
    flat, (ho, wo) = positions(h, w, kernel, stride, dilation)
    k, l = kernel[0] * kernel[1], ho * wo
    key = ("channels", c0, c1, h, w, kernel, stride, dilation)
    known = _POSITIONS.get(key)
    if known is None:
        planes = (_numpy.arange(c0, c1) * (h * w)).reshape(1, c1 - c0, 1)
        known = ((planes + flat.reshape(k, l).T.reshape(l, 1, k)).reshape(1, l, (c1 - c0) * k).astype(_numpy.int64),
                 (ho, wo))
        _POSITIONS[key] = known
    return known


def same_padding(kernel, dilation):
    """(top, bottom, left, right) that keep the size at stride 1 (the extra one at the end)."""
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return (total[0] // 2, total[0] - total[0] // 2, total[1] // 2, total[1] - total[1] // 2)


def ceil_extra(size, kernel, stride, dilation, pad):
    """With ceil_mode, the padding past `pad` at the end of each of the two
    dims that makes room for a last window starting inside the input or its
    first padding, as PyTorch and MXNet's 'full' convention count them."""
    extra = []
    for k in range(2):
        span = size[k] + 2 * pad[k] - dilation[k] * (kernel[k] - 1) - 1
        out = -(-span // stride[k]) + 1
        if (out - 1) * stride[k] >= size[k] + pad[k]:
            out -= 1
        extra.append(max(0, (out - 1) * stride[k] + dilation[k] * (kernel[k] - 1) + 1 - (size[k] + 2 * pad[k])))
    return tuple(extra)
