"""np.linalg: the norm."""

from .. import _core


def norm(x, ord=None, axis=None, keepdims=False):
    """The 2-norm of everything (Frobenius for a matrix) or along axis (integers as float32)."""
    return _core.np.linalg_norm(x, ord, axis, keepdims)
