"""torch.jit of the PyTorch edition: script and trace accept a module or a
function and give it back unchanged, so a program that compiles its model
runs it eagerly here, as every op of the edition runs (a warning says so
once); ignore, unused and export are decorators that change nothing.
Saving and loading TorchScript (save, load) is not in this edition: they
raise NotImplementedError.

Threading: the frontend thread.
"""

import warnings as _warnings

_warned = set()


def _eager(name):
    if name not in _warned:
        _warned.add(name)
        _warnings.warn("torch.jit.%s: asyncscope's PyTorch edition runs the model eagerly, op by op (TorchScript "
                       "is not compiled here)" % name, stacklevel=3)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """obj itself (a module, a function or a class), run eagerly."""
    _eager("script")
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None):
    """func itself, run eagerly (the example inputs are not run)."""
    _eager("trace")
    return func


def _unchanged(fn=None, **_):
    if fn is None:
        return lambda f: f
    return fn


ignore = unused = export = _unchanged


def _not_here(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError("torch.jit.%s: TorchScript files are not in asyncscope's PyTorch edition; save "
                                  "the state_dict with torch.save instead" % name)
    refuse.__name__ = name
    return refuse


save = _not_here("save")
load = _not_here("load")

__all__ = ["script", "trace", "ignore", "unused", "export", "save", "load"]
