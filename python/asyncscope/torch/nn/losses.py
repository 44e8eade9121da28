"""torch.nn.functional's further losses, made of the edition's ops:
gaussian_nll_loss, poisson_nll_loss, kl_div, margin_ranking_loss,
hinge_embedding_loss, soft_margin_loss, multilabel_soft_margin_loss,
cosine_embedding_loss and triplet_margin_loss (re-exported by
torch.nn.functional), each with PyTorch's arguments and reductions
('mean', 'sum', 'none').

Threading: the frontend thread, as every op of the edition.
"""

import math as _math

from ... import torch as _torch
from .functional import _reduce  # defined before functional imports this module


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log-likelihood of target under N(input, var): 0.5 (log
    var + (input - target)^2 / var), var held at least eps (its gradient
    passes as if it were not)."""
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    held = var + (var.clamp(min=eps) - var).detach()
    loss = (held.log() + (input - target) ** 2 / held) * 0.5
    if full:
        loss = loss + 0.5 * _math.log(2 * _math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """The Poisson negative log-likelihood of target with rate exp(input)
    (log_input) or input; `full` adds Stirling's term for target > 1."""
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * _math.pi * target).log()
        loss = loss + _torch.where(target > 1, stirling, _torch.zeros_like(stirling))
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence of target from input (log-probabilities):
    target (log target - input), 0 where target is 0; 'batchmean' divides the sum by the batch size."""
    if log_target:
        loss = target.exp() * (target - input)
    else:
        pointwise = target * (target.log() - input)
        loss = _torch.where(target > 0, pointwise, _torch.zeros_like(pointwise))
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target (input1 - input2) + margin)."""
    return _reduce(_torch.relu(-target * (input1 - input2) + margin), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    zero = _torch.zeros_like(input)
    positive = _torch.where(target == 1, input, zero)
    negative = _torch.where(target == -1, _torch.relu(margin - input), zero)
    return _reduce(positive + negative, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target input))."""
    z = -target * input
    return _reduce(_torch.relu(z) + (-z.abs()).exp().log1p(), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The binary cross-entropy of sigmoid(input) per class, averaged over the classes."""
    log_p = -(_torch.relu(-input) + (-input.abs()).exp().log1p())
    log_q = -(_torch.relu(input) + (-input.abs()).exp().log1p())
    loss = -(target * log_p + (1 - target) * log_q)
    if weight is not None:
        loss = loss * weight
    loss = loss.mean(-1) if input.ndim else loss
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    eps = 1e-12
    dim = input1.ndim - 1
    prod = (input1 * input2).sum(dim)
    mag = ((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)
    cos = prod / mag.sqrt()
    zero = _torch.zeros_like(cos)
    loss = _torch.where(target == 1, 1 - cos, zero) + _torch.where(target == -1, _torch.relu(cos - margin), zero)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0), d the p-norm distance."""
    def distance(a, b):
        dim = a.ndim - 1 if a.ndim else 0
        return ((a - b + eps).abs() ** p).sum(dim) ** (1.0 / p)
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = _torch.minimum(d_neg, distance(positive, negative))
    return _reduce(_torch.relu(d_pos - d_neg + margin), reduction)


__all__ = ["gaussian_nll_loss", "poisson_nll_loss", "kl_div", "margin_ranking_loss", "hinge_embedding_loss",
           "soft_margin_loss", "multilabel_soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss"]
