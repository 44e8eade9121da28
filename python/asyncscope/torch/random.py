"""torch.random of the PyTorch edition, and torch.Generator.

The random functions draw from PyTorch's CPU stream (an mt19937 seeded as
PyTorch 1.13 seeds it, drawn as its CPU kernels draw): after
torch.manual_seed(s), rand, randn, randint, randperm, normal, the in-place
fills (uniform_, normal_, random_, bernoulli_, exponential_), bernoulli,
multinomial, dropout, the layers' initial parameters and a shuffling DataLoader give the
real PyTorch's numbers for s (normal samples to a few float32 ulps, as
PyTorch's vectorised log, sin and cos round their own way). A run that sets
no seed starts from the run's seed (asyncscope.configure's, 0 by default), not
from a fresh one as PyTorch does. A tensor on a GPU gets asyncscope's own
GPU stream (PyTorch's CUDA stream is not its CPU one either).

Threading: the thread that runs the program, as every torch function.
"""

import contextlib as _contextlib
import os as _os

from .. import _core

_t = _core.torch

# What PyTorch seeds a new torch.Generator() with.
_NEW_GENERATOR_SEED = 67280421310721

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]


class Generator:
    """A random stream of its own, for the generator= of the random
    functions (torch.Generator(): seeded with PyTorch's default seed)."""

    def __init__(self, device="cpu"):
        from . import device as _device
        self.device = _device(device)
        if self.device.type != "cpu":
            raise RuntimeError("Generator: this edition has CPU generators only, not %s ones" % self.device.type)
        self._impl = _t._Generator(_NEW_GENERATOR_SEED)

    def _stream(self):
        return self._impl

    def manual_seed(self, seed):
        """Starts the stream again from seed (an int); returns the generator."""
        self._stream().manual_seed(int(seed))
        return self

    def seed(self):
        """Seeds the stream from the operating system's randomness and returns that seed."""
        s = int.from_bytes(_os.urandom(8), "little") & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed the stream last started from."""
        return self._stream().initial_seed()

    def get_state(self):
        """The stream's state, as a uint8 tensor (for set_state)."""
        from . import tensor, uint8
        return tensor(list(self._stream().get_state()), dtype=uint8)

    def set_state(self, new_state):
        """Puts back a state get_state gave; returns the generator."""
        self._stream().set_state(bytes(int(v) for v in new_state.tolist()))
        return self

    def __repr__(self):
        return "<torch._C.Generator object at 0x%x>" % id(self)


class _DefaultGenerator(Generator):
    """torch.default_generator: the run's own stream, the one the random
    functions use without generator=."""

    def __init__(self):
        from . import device as _device
        self.device = _device("cpu")
        self._impl = None

    def _stream(self):
        return _t._default_generator()


default_generator = _DefaultGenerator()


def manual_seed(seed):
    """Starts the run's random streams again from seed (an int): PyTorch's
    CPU stream, whose numbers after it are the real PyTorch's for that seed,
    and asyncscope's own (GPU tensors, the other editions). Returns
    torch.default_generator."""
    _core.seed(int(seed))
    return default_generator


def seed():
    """Seeds the run's streams from the operating system's randomness and returns that seed."""
    s = int.from_bytes(_os.urandom(8), "little") & ((1 << 63) - 1)
    manual_seed(s)
    return s


def initial_seed():
    """The seed the run's CPU stream last started from."""
    return default_generator.initial_seed()


def get_rng_state():
    """The run's CPU stream's state, as a uint8 tensor (for set_rng_state)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Puts back a state get_rng_state gave."""
    default_generator.set_state(new_state)


@_contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices"):
    """with torch.random.fork_rng(): ... puts the CPU stream's state back on leaving."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
