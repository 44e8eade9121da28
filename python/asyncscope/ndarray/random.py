"""Random arrays (nd.random), seeded by the run: the same seed and the same
program give the same numbers, whatever the workers."""

from .. import _core


def seed(seed_state, ctx="all"):
    """Starts the run's random stream again from seed_state (an int), as
    mx.random.seed: what follows draws the same numbers each time."""
    _core.seed(seed_state)


def uniform(low=0, high=1, shape=(1,), ctx=None, dtype=None):
    """Samples of U(low, high) (pushed; returns at once)."""
    return _core.nd.random_uniform(low, high, shape, ctx)


def normal(loc=0, scale=1, shape=(1,), ctx=None, dtype=None):
    """Samples of N(loc, scale^2) (pushed; returns at once)."""
    return _core.nd.random_normal(loc, scale, shape, ctx)


def randint(low, high, shape=(1,), ctx=None, dtype=None):
    """Integers uniform in [low, high), int64 (pushed; returns at once)."""
    out = _core.nd.random_randint(low, high, shape, ctx)
    return out if dtype is None else out.astype(dtype)


def shuffle(data):
    """The array with its first axis in a random order (a new array; pushed, returns at once)."""
    return _core.nd.random_shuffle(data)


def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32"):
    """Category indices drawn from each row of the probabilities `data`
    (1-d: one row), `shape` samples per row (one when None), of type dtype
    (pushed, returns at once)."""
    if out is not None:
        raise ValueError("multinomial: out= is not supported; use the returned array")
    return _core.nd.random_multinomial(data, shape, get_prob, dtype)
