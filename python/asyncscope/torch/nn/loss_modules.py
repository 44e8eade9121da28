"""torch.nn's losses as modules in the PyTorch edition: MSELoss, L1Loss,
CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, HuberLoss and
SmoothL1Loss, each the nn.functional loss with its reduction.

Threading: the frontend thread, as every op of the edition.
"""

from . import functional
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError("%s is not a valid value for reduction" % reduction)
        self.reduction = reduction


class MSELoss(_Loss):
    """The mean (or sum) of the squared differences."""

    def forward(self, input, target):
        return functional.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """The mean (or sum) of the absolute differences."""

    def forward(self, input, target):
        return functional.l1_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """Softmax cross-entropy of logits (N, C) or (N, C, d1, ...) against class
    indices (ignore_index left out) or probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(reduction=reduction)
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return functional.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                                        reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of sigmoid(input) against target, computed stably."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(reduction=reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def forward(self, input, target):
        return functional.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                           pos_weight=self.pos_weight)


class NLLLoss(_Loss):
    """The negative log-likelihood of log-probabilities (N, C) or (N, C, d1,
    ...) at the class indices, weighted per class, ignore_index left out."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(reduction=reduction)
        self.weight = weight
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return functional.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                                   reduction=self.reduction)


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities against targets."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction=reduction)
        self.weight = weight

    def forward(self, input, target):
        return functional.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class HuberLoss(_Loss):
    """Squared below delta, linear above."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return functional.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    """Squared (over beta) below beta, linear above."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(reduction=reduction)
        self.beta = beta

    def forward(self, input, target):
        return functional.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)
