"""MXNet's npx: the extensions beside its NumPy interface (`from asyncscope
import np, npx`). set_np() is accepted (asyncscope's np arrays are always
NumPy-style); waitall() is the sync point that waits for everything."""

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


__all__ = ["set_np", "reset_np", "is_np_array", "waitall", "num_gpus", "current_context", "cpu", "gpu", "Context",
           "relu", "sigmoid", "softmax"]
