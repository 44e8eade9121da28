"""torch.nn.functional of the PyTorch edition: activations, losses, dropout
and linear as functions of tensors. Each is made of the engine's ops, so
every call is pushed and returns at once, is recorded for autograd, and
shows on the timeline with the line that called it."""

import builtins as _builtins

from ... import torch as _torch


def relu(input, inplace=False):
    """max(x, 0) elementwise."""
    return input.relu_() if inplace else _torch.relu(input)


def sigmoid(input):
    """1 / (1 + exp(-x)) elementwise."""
    return _torch.sigmoid(input)


def tanh(input):
    """tanh(x) elementwise."""
    return _torch.tanh(input)


def softmax(input, dim=None):
    """exp(x) / sum(exp(x)) along dim (the last one when None, as for 1-d and 2-d input)."""
    return _torch.softmax(input, -1 if dim is None else dim)


def log_softmax(input, dim=None):
    """log(softmax(x)) along dim, computed stably."""
    return _torch.log_softmax(input, -1 if dim is None else dim)


def linear(input, weight, bias=None):
    """input @ weight.T + bias."""
    out = _torch.matmul(input, weight.t())
    return out if bias is None else out + bias


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, zeroes each element with probability p and scales the
    rest by 1 / (1 - p); the identity otherwise."""
    if p < 0 or p > 1:
        raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    mask = (_torch.rand_like(input) >= p).float()
    out = input * mask / (1 - p)
    return input.copy_(out) if inplace else out


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError("%s is not a valid value for reduction" % reduction)


def _check_same_shape(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        raise RuntimeError("%s: the input %s and the target %s differ in shape (broadcasting them is not supported)"
                           % (name, tuple(input.shape), tuple(target.shape)))


def mse_loss(input, target, reduction="mean"):
    """The squared differences, averaged (or summed, or kept)."""
    _check_same_shape(input, target, "mse_loss")
    return _reduce((input - target) ** 2, reduction)


def l1_loss(input, target, reduction="mean"):
    """The absolute differences, averaged (or summed, or kept)."""
    _check_same_shape(input, target, "l1_loss")
    return _reduce((input - target).abs(), reduction)


def cross_entropy(input, target, weight=None, reduction="mean", label_smoothing=0.0):
    """-log softmax(input)[target] per sample, for logits (N, C) and class
    indices (N,) (int64) or class probabilities (N, C); averaged over the
    samples (weighted by weight[target] when weight is given)."""
    if input.dim() == 1:
        input = input.unsqueeze(0)
        target = target.unsqueeze(0)
    if input.dim() != 2:
        raise RuntimeError("cross_entropy: expected logits of shape (N, C), got %s" % (tuple(input.shape),))
    classes = input.shape[1]
    logp = log_softmax(input, 1)
    if target.is_floating_point():  # class probabilities
        probs = target
    else:
        probs = (target.unsqueeze(1) == _torch.arange(classes, device=target.device)).float()
    if label_smoothing:
        probs = probs * (1 - label_smoothing) + label_smoothing / classes
    per_class = -(logp * probs)
    if weight is not None:
        per_class = per_class * weight
    loss = per_class.sum(1)
    if reduction == "mean" and weight is not None and not target.is_floating_point():
        return loss.sum() / (probs * weight).sum()
    return _reduce(loss, reduction)


def nll_loss(input, target, reduction="mean"):
    """-input[i, target[i]] (input: log-probabilities (N, C))."""
    picked = input[_builtins.range(input.shape[0]), target]
    return _reduce(-picked, reduction)


def binary_cross_entropy_with_logits(input, target, reduction="mean", pos_weight=None):
    """The binary cross-entropy of sigmoid(input) against target, computed
    stably: max(x, 0) - x * y + log(1 + exp(-|x|))."""
    _check_same_shape(input, target, "binary_cross_entropy_with_logits")
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * (_torch.log1p(_torch.exp(-input.abs())) + _torch.relu(-input))
    else:
        loss = _torch.relu(input) - input * target + _torch.log1p(_torch.exp(-input.abs()))
    return _reduce(loss, reduction)
