"""Autograd (MXNet edition): `with autograd.record():` records the ops of the
forward pass; `loss.backward()` after the scope pushes the gradient ops into
the .grad of every array that had attach_grad() (and every parameter).
The graph belongs to the arrays, so backward may come after the scope."""

from . import _core

record = _core.autograd.record
pause = _core.autograd.pause
is_recording = _core.autograd.is_recording
backward = _core.autograd.backward

__all__ = ["record", "pause", "is_recording", "backward"]
