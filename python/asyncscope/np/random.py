"""Random arrays (np.random), seeded by the run: the same seed and the same
program give the same numbers, whatever the workers."""

from .. import _core


def seed(seed=None):
    """Starts the run's random stream again from seed (an int): what follows
    draws the same numbers each time (not NumPy's numbers)."""
    if seed is None:
        raise ValueError("seed: give an int (a seed from the clock would not reproduce)")
    _core.seed(seed)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None):
    """Samples of N(loc, scale^2), of shape `size` (a 0-d array for None; pushed, returns at once)."""
    return _core.np.random_normal(loc, scale, size, dtype, ctx)


def randn(*size, **kwargs):
    """Standard normal values of shape `size` (normal(0, 1, size))."""
    return normal(0.0, 1.0, size=tuple(size) if size else None, dtype=kwargs.get("dtype"), ctx=kwargs.get("ctx"))


def rand(*size, **kwargs):
    """Uniform values in [0, 1) of shape `size` (uniform(0, 1, size))."""
    return uniform(0.0, 1.0, size=tuple(size) if size else None, dtype=kwargs.get("dtype"), ctx=kwargs.get("ctx"))


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None):
    """Samples of U(low, high), of shape `size` (a 0-d array for None; pushed, returns at once)."""
    return _core.np.random_uniform(low, high, size, dtype, ctx)


def randint(low, high=None, size=None, dtype=None, ctx=None):
    """Integers uniform in [low, high) ([0, low) without high), int64 (pushed, returns at once)."""
    out = _core.np.random_randint(low, high, size, ctx)
    return out if dtype is None else out.astype(dtype)


def permutation(x):
    """A random permutation of range(x) (int64), or of x's first axis (a new array)."""
    return _core.np.random_permutation(x)


def shuffle(x):
    """Shuffles x along its first axis, in place (pushed; returns at once)."""
    _core.np.random_shuffle(x)


def choice(a, size=None, replace=True, p=None, ctx=None):
    """Samples of range(a) (int64) or of the 1-d array a, of shape `size` (a
    0-d array for None), with probabilities p (uniform when None), with or
    without replacement (pushed, returns at once)."""
    return _core.np.random_choice(a, size, replace, p)
