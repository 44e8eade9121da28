"""Shared by the frontends' roll (torch/composed.py, np/composed.py): an
array's elements moved along axes, as slices of it joined again.

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
