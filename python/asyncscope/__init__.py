"""asyncscope: the chapter's frameworks on asyncscope's asynchronous engine.

Every array operation is pushed to a C++ dependency engine and returns at
once; worker threads compute; sync points (wait_to_read, asnumpy, asscalar,
printing, waitall) wait for exactly the work they need. Run a script under
`asyncscope script FILE.py` or in the app to see every op, wait and source
line on a timeline; under plain python3, set ASYNCSCOPE_TRACE=run.json (or
call export_trace) to save the trace for Perfetto or `asyncscope view`.

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

# NumPy is imported now, not by the first asnumpy() or print: importing it
# takes a tenth of a second, which would land inside whatever the script times.
import numpy as _numpy  # noqa: F401

from . import _core
from ._core import OpError, configure, export_trace, hosted, line_table, mark

# The package's own frames are skipped when an op or a wait is traced back to
# the line of the user's script that caused it.
_core._set_package_dir(_os.path.dirname(__file__), _os.path.dirname(_os.path.abspath(__file__)))
from . import ndarray
from . import autograd, gluon, init
from . import d2l, torch
from .context import Context, cpu, gpu

nd = ndarray
_sys.modules[__name__ + ".nd"] = ndarray

# The process's own run (plain python3) finishes its work, and writes
# $ASYNCSCOPE_TRACE, when the interpreter exits.
_atexit.register(_core._shutdown)

__all__ = ["OpError", "configure", "export_trace", "hosted", "line_table", "mark", "ndarray", "nd", "autograd", "gluon", "init",
           "torch", "d2l", "Context", "cpu", "gpu"]
