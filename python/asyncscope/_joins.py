"""Shared by the frontends' roll and pad (torch/composed.py,
torch/nn/functional.py, np/composed.py): an array cut into slices, or
given blocks of a value, and joined again with the frontend's own
concatenation.

Threading: the frontend thread, as every op.
"""


def rolled(array, shifts, axes, axis_index, joined):
    """array with its elements moved shifts[i] places along axes[i], those
    pushed off the end coming back at the start. axis_index(array, axis)
    gives the axis in [0, ndim) (or raises the frontend's error);
    joined(parts, axis) is the frontend's concatenation."""
    out = array
    for shift, axis in zip(shifts, axes):
        d = axis_index(out, axis)
        size = out.shape[d]
        s = shift % size if size else 0
        if s:
            head = (slice(None),) * d
            out = joined([out[head + (slice(size - s, size),)], out[head + (slice(0, size - s),)]], d)
    return out


def padded(array, widths, block, joined):
    """array with widths[axis] = (before, after) elements added along each
    axis named in widths (a dict), block(shape) making them (the fill value
    in the array's type) and joined(parts, axis) the frontend's concatenation."""
    out = array
    for axis, (before, after) in widths.items():
        parts = []
        for n in (before, None, after):
            if n is None:
                parts.append(out)
            elif n:
                shape = list(out.shape)
                shape[axis] = n
                parts.append(block(tuple(shape)))
        if len(parts) > 1:
            out = joined(parts, axis)
    return out
