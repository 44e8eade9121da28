"""Gluon's losses, one value per sample (the mean over the other axes):
L2Loss (weight/2 * (label - pred)^2; as in MXNet, the label is viewed in
the prediction's shape, so the chapter's loss(y, net(X)) works), L1Loss,
SoftmaxCrossEntropyLoss (sparse or dense labels, from logits or
log-probabilities) and SigmoidBinaryCrossEntropyLoss (from logits or
probabilities). Each is made of the engine's ops, recorded for autograd,
for arrays of MXNet's nd and of its NumPy interface alike."""

from .. import _core
from .. import ndarray as _nd

__all__ = ["Loss", "L2Loss", "L1Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "SigmoidBinaryCrossEntropyLoss",
           "SigmoidBCELoss"]

L2Loss = _core.gluon.L2Loss


def _ops(x):
    """The functions of x's flavour (asyncscope.np or asyncscope.nd)."""
    if isinstance(x, _core.np.ndarray):
        from .. import np
        return np
    return _nd


def _per_sample(loss, batch_axis):
    """The mean over every axis but the batch axis."""
    if batch_axis != 0:
        raise ValueError("batch_axis other than 0 is not supported")
    return loss.reshape((loss.shape[0], -1)).mean(axis=1)


class Loss:
    """The base of the losses: a weight multiplying the loss, and the batch axis."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        self._weight = weight
        self._batch_axis = batch_axis

    def _finish(self, loss, sample_weight):
        if sample_weight is not None:
            loss = loss * sample_weight
        if self._weight is not None:
            loss = loss * self._weight
        return _per_sample(loss, self._batch_axis)

    def __call__(self, pred, label, sample_weight=None):
        _core._enter_scope(type(self).__name__)  # its ops' scope on the trace
        try:
            return self.forward(pred, label, sample_weight)
        finally:
            _core._leave_scope()

    def __repr__(self):
        return "%s(batch_axis=%d, w=%s)" % (type(self).__name__, self._batch_axis, self._weight)


class L1Loss(Loss):
    """weight * |label - pred|, averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis)

    def forward(self, pred, label, sample_weight=None):
        return self._finish((label.reshape(pred.shape) - pred).abs(), sample_weight)


class SoftmaxCrossEntropyLoss(Loss):
    """-log softmax(pred)[label] per sample, along axis: sparse labels are
    class indices, dense ones (sparse_label=False) distributions; with
    from_logits pred is already log-probabilities."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def forward(self, pred, label, sample_weight=None):
        ops = _ops(pred)
        axis = self._axis
        if self._from_logits:
            logp = pred
        else:
            from .. import autograd
            with autograd.pause():  # the shift's gradient is zero: not recorded
                top = pred.max(axis=axis, keepdims=True)
            shifted = pred - top
            logp = shifted - ops.log(ops.exp(shifted).sum(axis=axis, keepdims=True))
        if self._sparse_label:
            if axis not in (-1, pred.ndim - 1):
                raise ValueError("SoftmaxCrossEntropyLoss: sparse labels need the class axis last")
            classes = pred.shape[-1]
            picks = label.reshape(tuple(pred.shape[:-1]) + (1,)) == ops.arange(classes).reshape(
                (1,) * (pred.ndim - 1) + (classes,))
            loss = -(logp * picks.astype(pred.dtype)).sum(axis=axis, keepdims=True)
        else:
            loss = -(logp * label.reshape(pred.shape)).sum(axis=axis, keepdims=True)
        return self._finish(loss, sample_weight)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class SigmoidBinaryCrossEntropyLoss(Loss):
    """The binary cross-entropy of sigmoid(pred) (or of pred, from_sigmoid)
    against labels in [0, 1], computed stably from logits:
    max(x, 0) - x * y + log(1 + exp(-|x|))."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis)
        self._from_sigmoid = from_sigmoid

    def forward(self, pred, label, sample_weight=None, pos_weight=None):
        ops = _ops(pred)
        label = label.reshape(pred.shape)
        if self._from_sigmoid:
            eps = 1e-12
            loss = -(ops.log(pred + eps) * label + ops.log(1.0 - pred + eps) * (1.0 - label))
        else:
            loss = ops.maximum(pred, pred * 0.0) - pred * label + ops.log(1.0 + ops.exp(-pred.abs()))
        return self._finish(loss, sample_weight)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss
