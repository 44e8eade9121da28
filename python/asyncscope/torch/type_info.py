"""torch.finfo and torch.iinfo: the limits of a floating or an integer
element type (eps, tiny, max, ...), printed as PyTorch prints them.

Threading: any thread.
"""

import numpy as _np


def _name(dtype):
    return str(dtype).replace("torch.", "")


class finfo:
    """bits, eps, max, min, tiny (= smallest_normal) and resolution of a floating type (float32 by default)."""

    def __init__(self, type=None):
        name = "float32" if type is None else _name(type)
        if name not in ("float16", "float32", "float64"):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle '%s'"
                            % name)
        info = _np.finfo(name)
        self.bits, self.dtype = info.bits, name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)

    def __repr__(self):
        return ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, dtype=%s)"
                % (self.resolution, self.min, self.max, self.eps, self.smallest_normal, self.tiny, self.dtype))


class iinfo:
    """bits, max and min of an integer type."""

    def __init__(self, type):
        name = _name(type)
        if name not in ("uint8", "int8", "int16", "int32", "int64"):
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle '%s'" % name)
        info = _np.iinfo(name)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), name

    def __repr__(self):
        return "iinfo(min=%g, max=%g, dtype=%s)" % (self.min, self.max, self.dtype)
