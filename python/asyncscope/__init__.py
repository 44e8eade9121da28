"""asyncscope: the chapter's frameworks on asyncscope's asynchronous engine.

Every array operation is pushed to a C++ dependency engine and returns at
once; worker threads compute; sync points (wait_to_read, asnumpy, asscalar,
printing, waitall) wait for exactly the work they need. Run a script under
`asyncscope script FILE.py` or in the app to see every op, wait and source
line on a timeline; under plain python3, set ASYNCSCOPE_TRACE=run.json (or
call export_trace) to save the trace for Perfetto or `asyncscope view`; to
follow it live in the app, set ASYNCSCOPE_SERVE=1 or call serve() (see
help(asyncscope.live)). In Jupyter, `%load_ext asyncscope` and `%%asyncscope` show a cell's timeline
inline (see help(asyncscope.notebook)); asyncscope.show() the whole run.

The MXNet edition:   from asyncscope import autograd, gluon, nd
                     from asyncscope.gluon import loss as gloss, nn
The PyTorch edition: from asyncscope import torch
                     from asyncscope.torch import nn
                     from asyncscope.d2l import torch as d2l
                     (unlike PyTorch, ops on the CPU are asynchronous too:
                     see help(asyncscope.torch))
"""

import atexit as _atexit
import os as _os
import sys as _sys

from . import _core
from ._core import OpError, configure, export_trace, hosted, line_table, mark, seed


def _openblas_settings():
    # Importing NumPy loads OpenBLAS, whose constructor reads these two
    # variables once; the engine shares that library. Unless the user set
    # them (theirs win), they get the engine's choices for the load only:
    # the CPU kernel (Debian's OpenBLAS 0.3.21 misdetects newer CPUs and
    # runs far slower) and how long OpenBLAS's idle threads spin (2^18
    # cycles, not 2^28: their spinning takes a core from the workers).
    if "numpy" in _sys.modules:
        return {}
    wanted = {"OPENBLAS_CORETYPE": _core._recommended_blas_core(), "OPENBLAS_THREAD_TIMEOUT": "18"}
    return {k: v for k, v in wanted.items() if v and not _os.environ.get(k)}


_blas_env = _openblas_settings()
_os.environ.update(_blas_env)
try:
    # NumPy is imported now, not by the first asnumpy() or print: importing it
    # takes a tenth of a second, which would land inside whatever the script times.
    import numpy as _numpy  # noqa: F401
finally:
    # Only for the load: child processes do not inherit our choice as theirs.
    for _name in _blas_env:
        _os.environ.pop(_name, None)


def blas_info():
    """The OpenBLAS the engine multiplies with, as a dict: library, core (the
    CPU kernel it runs), forced_core and reason (what the engine chose and
    why, when it loaded the library itself), thread_timeout, threads, and
    set_at_import: the OPENBLAS_* variables this package set for NumPy's
    load of the library (empty when the user set them or NumPy came first).
    Raises RuntimeError, saying what to install, without OpenBLAS."""
    info = _core.blas_info()
    info["set_at_import"] = dict(_blas_env)
    return info

# The package's own frames are skipped when an op or a wait is traced back to
# the line of the user's script that caused it.
_core._set_package_dir(_os.path.dirname(__file__), _os.path.dirname(_os.path.abspath(__file__)))
from . import ndarray
from . import autograd, gluon, init
from . import d2l, torch
from .context import Context, cpu, gpu
from .notebook import load_ipython_extension, show, unload_ipython_extension
from .live import serve, serving
from . import live as _live

nd = ndarray
_sys.modules[__name__ + ".nd"] = ndarray

# The process's own run (plain python3) finishes its work, and writes
# $ASYNCSCOPE_TRACE, when the interpreter exits (never over the script itself).
def _main_file():
    main = getattr(_sys.modules.get("__main__"), "__file__", None)
    return _os.path.abspath(main) if isinstance(main, str) else ""


_main_at_import = _main_file()  # at exit __main__ may no longer say
_program_file = ""  # the program `python3 -m asyncscope FILE` runs (its __main__ is not FILE's)


def _shutdown():
    _core._shutdown(_program_file or _main_file() or _main_at_import)


_atexit.register(_shutdown)
# ASYNCSCOPE_SERVE=1: published from the run's start.
_live._serve_if_asked()

__all__ = ["OpError", "blas_info", "configure", "export_trace", "hosted", "line_table", "mark", "ndarray", "nd", "autograd", "gluon", "init",
           "torch", "d2l", "Context", "cpu", "gpu", "show", "serve", "serving"]
