"""MXNet's NumPy interface on asyncscope's engine: `from asyncscope import
np, npx` where the current English edition of the chapter writes `from
mxnet import np, npx`.

np.array, zeros, ones, full, empty, arange (float32 by default, as MXNet's),
zeros_like, ones_like, concatenate, stack, dot, matmul, transpose, reshape,
sum, mean, max, min, prod, argmax, argmin, all, any, cumsum, sort, argsort,
take_along_axis, where, clip,
the comparisons (bool arrays), the elementwise functions of the op table
(np.exp, np.abs, np.sqrt, np.maximum, ...), np.random.normal/uniform and
np.linalg.norm; made of those (np/composed.py): where with numbers, amax,
isnan, isclose, allclose, tril, triu, diag, trace, roll, meshgrid, take,
pad, around (halves to even), hstack, vstack and more. An ndarray has NumPy's operators, indexing and assignment
through indices, 0-d arrays, .shape, .size, .dtype, .T, .reshape, .copy,
.astype, .asnumpy(), .item(), .attach_grad(), .grad, .backward(),
.detach(), .as_in_ctx(); it prints as MXNet's does (array([0., 1.]), the
type named unless it is float32).

Every op is pushed to the engine and returns at once; asnumpy(), item(),
printing and npx.waitall() wait for the work they need.
"""

from .. import _core
from . import linalg, random

_np = _core.np

ndarray = _np.ndarray
array = _np.array
zeros = _np.zeros
ones = _np.ones
empty = _np.empty
full = _np.full
zeros_like = _np.zeros_like
ones_like = _np.ones_like
arange = _np.arange
concatenate = _np.concatenate
stack = _np.stack
dot = _np.dot
matmul = _np.matmul
transpose = _np.transpose
reshape = _np.reshape
cumsum = _np.cumsum
sort = _np.sort
argsort = _np.argsort
take_along_axis = _np.take_along_axis
where = _np.where
clip = _np.clip
floor_divide = _np.floor_divide
mod = _np.mod
expand_dims = _np.expand_dims
squeeze = _np.squeeze
swapaxes = _np.swapaxes
flip = _np.flip
std = _np.std
var = _np.var
linspace = _np.linspace
eye = _np.eye
split = _np.split
outer = _np.outer
tile = _np.tile
repeat = _np.repeat

for _name in ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "all", "any", "equal", "not_equal",
              "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_xor"):
    globals()[_name] = getattr(_np, _name)

import math as _math

inf = _math.inf
nan = _math.nan
pi = _math.pi
e = _math.e
newaxis = None

float32 = "float32"
float64 = "float64"
int32 = "int32"
int64 = "int64"
uint8 = "uint8"
bool_ = "bool"

__all__ = ["ndarray", "array", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "arange", "concatenate",
           "stack", "dot", "matmul", "transpose", "reshape", "cumsum", "where", "clip", "floor_divide", "mod",
           "sum", "mean", "max", "min", "prod", "argmax", "argmin", "all", "any", "equal", "not_equal", "greater",
           "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_xor", "random", "linalg",
           "expand_dims", "squeeze", "swapaxes", "flip", "std", "var", "linspace", "eye", "split", "outer", "tile", "repeat",
           "sort", "argsort", "take_along_axis", "float32", "float64", "int32", "int64", "uint8", "bool_",
           "inf", "nan", "pi", "e", "newaxis"]
for _name in _np.__table_ops__:
    globals()[_name] = getattr(_np, _name)
    if _name not in __all__:
        __all__.append(_name)


from . import composed  # noqa: E402 (made of the names above)

for _name in composed.FUNCTIONS:
    globals()[_name] = getattr(composed, _name)
    if _name not in __all__:
        __all__.append(_name)
del _name
composed.install(ndarray)


def _rebuild(values):
    """A pickled ndarray's values as an ndarray again (of their type)."""
    return array(values, dtype=values.dtype)
