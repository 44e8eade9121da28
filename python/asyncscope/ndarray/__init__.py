"""The MXNet edition's ndarray: NDArray and the functions that make and
combine arrays. `asyncscope.nd` is this module.

Every function pushes its work to the engine and returns at once. Whole-array
reductions have shape (1,), as in MXNet 1.x.
"""

from .. import _core
from . import random

_nd = _core.nd

NDArray = _nd.NDArray
ones = _nd.ones
zeros = _nd.zeros
ones_like = _nd.ones_like
zeros_like = _nd.zeros_like
full = _nd.full
array = _nd.array
dot = _nd.dot
waitall = _nd.waitall
sum = _nd.sum
mean = _nd.mean
norm = _nd.norm
transpose = _nd.transpose
concat = _nd.concat
stack = _nd.stack
slice_axis = _nd.slice_axis
reshape = _nd.reshape
arange = _nd.arange
argmax = _nd.argmax
argmin = _nd.argmin
max = _nd.max
min = _nd.min
prod = _nd.prod
expand_dims = _nd.expand_dims
squeeze = _nd.squeeze
swapaxes = _nd.swapaxes
flip = _nd.flip
split = _nd.split
linspace = _nd.linspace
eye = _nd.eye
batch_dot = _nd.batch_dot
tile = _nd.tile
repeat = _nd.repeat
broadcast_to = _nd.broadcast_to
sort = _nd.sort
argsort = _nd.argsort
topk = _nd.topk

__all__ = ["NDArray", "concat", "stack", "slice_axis", "ones", "zeros", "ones_like", "zeros_like", "full", "array", "dot", "waitall", "sum", "mean", "norm", "transpose", "reshape",
           "broadcast_to", "random", "arange", "argmax", "argmin", "max", "min", "prod",
           "expand_dims", "squeeze", "swapaxes", "flip", "split", "linspace", "eye", "batch_dot", "tile", "repeat",
           "sort", "argsort", "topk"]

# The elementwise functions made from the op table (`asyncscope ops`): relu,
# sigmoid, exp, sin, round, ...
for _name in _nd.__table_ops__:
    globals()[_name] = getattr(_nd, _name)
    __all__.append(_name)
del _name


def _rebuild(values):
    """A pickled NDArray's values as an NDArray again (of their type)."""
    return array(values, dtype=values.dtype)
