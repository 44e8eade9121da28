"""Autograd (MXNet edition): `with autograd.record():` records the ops of the
forward pass; `loss.backward()` after the scope pushes the gradient ops into
the .grad of every array that had attach_grad() (and every parameter).
The graph belongs to the arrays, so backward may come after the scope.

Training mode, as MXNet keeps it beside recording: record() turns it on
(train_mode=True) and pause() off, for their scope; train_mode() and
predict_mode() set it without recording; is_training() reads it. Layers
that behave differently in training (dropout) ask is_training(). Both are
per thread."""

import threading as _threading

from . import _core

is_recording = _core.autograd.is_recording
backward = _core.autograd.backward


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):
    """The gradients of heads (summed) with respect to variables, a list (as
    MXNet's autograd.grad); no variable's .grad changes. The graph is freed
    unless retain_graph."""
    if create_graph:
        raise ValueError("grad: create_graph=True (gradients of gradients) is not supported")
    return _core.autograd.grad(heads, variables, head_grads, bool(retain_graph), False)

_state = _threading.local()


def is_training():
    """Whether this thread is in training mode (inside record(), or train_mode())."""
    return getattr(_state, "training", False)


class _Mode:
    """A scope that sets the training mode and, given one, enters a recording scope too."""

    def __init__(self, training, inner=None):
        self._training = training
        self._inner = inner

    def __enter__(self):
        self._previous = is_training()
        _state.training = self._training
        if self._inner is not None:
            self._inner.__enter__()
        return self

    def __exit__(self, *exc):
        try:
            if self._inner is not None:
                self._inner.__exit__(*exc)
        finally:
            _state.training = self._previous
        return False


def record(train_mode=True):
    """Records the ops of its scope for backward(); training mode as train_mode says."""
    return _Mode(bool(train_mode), _core.autograd.record(train_mode))


def pause(train_mode=False):
    """Stops recording for its scope; training mode as train_mode says."""
    return _Mode(bool(train_mode), _core.autograd.pause(train_mode))


def train_mode():
    """Training mode for its scope, recording unchanged."""
    return _Mode(True)


def predict_mode():
    """Prediction (inference) mode for its scope, recording unchanged."""
    return _Mode(False)


__all__ = ["record", "pause", "is_recording", "is_training", "train_mode", "predict_mode", "backward"]
