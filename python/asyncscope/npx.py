"""MXNet's npx: the extensions beside its NumPy interface (`from asyncscope
import np, npx`). set_np() is accepted (asyncscope's np arrays are always
NumPy-style); waitall() is the sync point that waits for everything;
relu, sigmoid, softmax, log_softmax, one_hot and pick are pushed as the
ops they are made of; batch_dot is the engine's batch_dot op and topk its
sorting op."""

from . import _core
from .context import Context, cpu, gpu

_np_mode = [False]


def set_np(shape=True, array=True, dtype=False):
    """Accepted for MXNet's programs: np arrays here always have NumPy's semantics."""
    _np_mode[0] = bool(shape or array)
    _core.gluon._set_np_mode(_np_mode[0])


def reset_np():
    """Undoes set_np()."""
    _np_mode[0] = False
    _core.gluon._set_np_mode(False)


def is_np_array():
    """Whether set_np() is in effect."""
    return _np_mode[0]


def waitall():
    """Blocks until every op pushed so far has finished (a sync point)."""
    _core.np.waitall()


def num_gpus():
    """The GPUs this run's arrays can use (0 without CUDA)."""
    return _core.torch.cuda_device_count()


def current_context():
    """The device arrays are made on unless told: the CPU."""
    return cpu()


def relu(data):
    """max(data, 0) (pushed; returns at once)."""
    return _core.np.npx_relu(data)


def sigmoid(data):
    """1 / (1 + exp(-data)) (pushed; returns at once)."""
    return _core.np.npx_sigmoid(data)


def softmax(data, axis=-1):
    """exp(data) / sum(exp(data)) along axis (pushed; returns at once)."""
    return _core.np.npx_softmax(data, axis)


def log_softmax(data, axis=-1):
    """log(softmax(data)) along axis, computed as data - max - log(sum(exp(data - max))) (no overflow)."""
    np = _core.np
    top = np.max(data, axis=axis, keepdims=True)
    shifted = data - top
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def one_hot(data, depth, on_value=1.0, off_value=0.0, dtype="float32"):
    """An array with one more axis of size depth: on_value where the index in
    data is, off_value elsewhere (an index outside [0, depth) gives none)."""
    np = _core.np
    hit = np.expand_dims(data, -1) == np.arange(depth, dtype=data.dtype, ctx=data.ctx)
    on = np.full((), on_value, dtype=dtype, ctx=data.ctx)
    off = np.full((), off_value, dtype=dtype, ctx=data.ctx)
    return np.where(hit, on, off)


def pick(data, index, axis=-1, keepdims=False, mode="clip"):
    """data's elements at index along axis (index has data's shape without
    that axis): out[i] = data[i, index[i]] for a matrix. mode='clip' clips an
    index into range, 'wrap' wraps it."""
    np = _core.np
    n = data.ndim
    if not -n <= axis < n:
        raise IndexError("pick: axis %d is out of bounds for array of dimension %d" % (axis, n))
    axis %= n
    size = data.shape[axis]
    idx = index.astype("int64")
    if mode == "clip":
        idx = np.clip(idx, 0, size - 1)
    elif mode == "wrap":
        idx = np.mod(idx, size)
    else:
        raise ValueError("pick: mode must be 'clip' or 'wrap', not %r" % (mode,))
    if idx.ndim == n:  # index with the axis kept (size 1)
        idx = np.squeeze(idx, axis=axis)
    where = []
    rest = [d for d in range(n) if d != axis]
    for d in range(n):
        if d == axis:
            where.append(idx)
            continue
        shape = [1] * (n - 1)
        shape[rest.index(d)] = data.shape[d]
        where.append(np.arange(data.shape[d], dtype="int64", ctx=data.ctx).reshape(tuple(shape)))
    out = data[tuple(where)]
    return np.expand_dims(out, axis) if keepdims else out


def batch_dot(a, b, transpose_a=False, transpose_b=False):
    """The matrix product of each pair of matrices of two batches (3-D arrays)."""
    if a.ndim != 3 or b.ndim != 3:
        raise ValueError("batch_dot: 3-D arrays are needed, got %d-D and %d-D" % (a.ndim, b.ndim))
    return _core.np._batch_dot(a, b, transpose_a, transpose_b)  # one op, the transposes without copies


topk = _core.np.topk  # the k largest along an axis; ret_typ 'indices', 'value', 'both' or 'mask', as nd.topk

__all__ = ["set_np", "reset_np", "is_np_array", "waitall", "num_gpus", "current_context", "cpu", "gpu", "Context",
           "relu", "sigmoid", "softmax", "log_softmax", "one_hot", "pick", "batch_dot", "topk"]
