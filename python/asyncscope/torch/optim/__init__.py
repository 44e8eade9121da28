"""torch.optim of the PyTorch edition: SGD (momentum, dampening, Nesterov,
weight decay), Adam, AdamW, RMSprop, Adagrad and LBFGS (optim/lbfgs.py), with param_groups,
zero_grad and step, and torch.optim.lr_scheduler. A step is a
few in-place ops per parameter, pushed under no_grad like every other op:
it returns at once and shows on the timeline."""

import functools as _functools

from ... import _core
from ... import torch as _torch

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "LBFGS", "lr_scheduler"]


def _in_scope(step, label):
    """step, pushing its ops in a trace scope of its own ("SGD.step"), so
    the memory the update allocates (momentum buffers, Adam's moments) is
    named after it."""
    @_functools.wraps(step)
    def scoped(self, *args, **kwargs):
        _core._enter_scope(label)
        try:
            return step(self, *args, **kwargs)
        finally:
            _core._leave_scope()
    return scoped


class Optimizer:
    """Holds parameter groups (dicts with "params" and the settings) and the
    per-parameter state; subclasses write step() (their own too: its ops go
    in a scope named after the class, as SGD's and Adam's do)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _in_scope(cls.__dict__["step"], cls.__name__ + ".step")

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.state = {}
        self.param_groups = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group):
        group = dict(group)
        ps = group["params"]
        group["params"] = [ps] if isinstance(ps, _torch.Tensor) else list(ps)
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Forgets (or zeroes) the gradients of every parameter."""
        from ..nn import zero_grads
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def _updates(self, closure):
        """Runs closure (with grad mode on) for the loss step() returns, then
        yields (group, parameter, its gradient) for every parameter with a
        gradient, the gradient negated under maximize and with the group's
        weight decay added, all under no_grad."""
        self._loss = None
        if closure is not None:
            with _torch.enable_grad():
                self._loss = closure()
        with _torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = -p.grad if group["maximize"] else p.grad
                    if group["weight_decay"]:
                        g = g + group["weight_decay"] * p
                    yield group, p, g

    def step(self, closure=None):
        raise NotImplementedError

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append("Parameter Group %d" % i)
            for key in sorted(k for k in group if k != "params"):
                lines.append("    %s: %s" % (key, group[key]))
        return "\n".join(lines) + "\n)"


class SGD(Optimizer):
    """p -= lr * d, with d the gradient plus weight_decay * p, passed through
    a momentum buffer when momentum > 0 (PyTorch's formulation)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError("Invalid SGD setting: lr %s, momentum %s, weight_decay %s" % (lr, momentum, weight_decay))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def step(self, closure=None):
        for group, p, d in self._updates(closure):
            momentum = group["momentum"]
            if momentum:
                state = self.state.setdefault(p, {})
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = d.clone()
                else:
                    buf.mul_(momentum).add_(d, alpha=1 - group["dampening"])
                d = d + momentum * buf if group["nesterov"] else buf
            p.add_(d, alpha=-group["lr"])
        return self._loss


class Adam(Optimizer):
    """Adam: running means of the gradient and of its square, corrected for
    their start at zero (Kingma and Ba), with L2 weight decay."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, maximize=False):
        if not 0 <= betas[0] < 1 or not 0 <= betas[1] < 1 or lr < 0 or eps < 0:
            raise ValueError("Invalid Adam setting: lr %s, betas %s, eps %s" % (lr, betas, eps))
        if amsgrad:
            raise ValueError("Adam: amsgrad=True is not supported")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    def step(self, closure=None):
        for group, p, g in self._updates(closure):
            b1, b2 = group["betas"]
            state = self.state.setdefault(p, {})
            if not state:
                state["step"] = 0
                state["exp_avg"] = _torch.zeros_like(p)
                state["exp_avg_sq"] = _torch.zeros_like(p)
            state["step"] += 1
            t = state["step"]
            m, v = state["exp_avg"], state["exp_avg_sq"]
            m.mul_(b1).add_(g, alpha=1 - b1)
            v.mul_(b2).add_(g * g, alpha=1 - b2)
            denom = (v / (1 - b2 ** t)).sqrt() + group["eps"]
            p.add_(m / denom, alpha=-group["lr"] / (1 - b1 ** t))
        return self._loss


class AdamW(Adam):
    """Adam with decoupled weight decay: p -= lr weight_decay p before the
    Adam update, which sees the plain gradient (Loshchilov and Hutter)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, maximize=False):
        super().__init__(params, lr, betas, eps, 0, amsgrad, maximize)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = group.get("decoupled_weight_decay", weight_decay)
        self.defaults["decoupled_weight_decay"] = weight_decay

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with _torch.enable_grad():
                loss = closure()
        with _torch.no_grad():
            for group in self.param_groups:
                decay = group["decoupled_weight_decay"]
                if decay:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.mul_(1 - group["lr"] * decay)
        Adam.step.__wrapped__(self)  # Adam's update, in this step's scope
        return loss


class RMSprop(Optimizer):
    """p -= lr g / (sqrt(v) + eps), v a running mean of g^2 (alpha), with
    optional momentum and weight decay (PyTorch's formulation)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 maximize=False):
        if lr < 0 or eps < 0 or momentum < 0 or weight_decay < 0 or alpha < 0:
            raise ValueError("Invalid RMSprop setting: lr %s, alpha %s, eps %s" % (lr, alpha, eps))
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    def step(self, closure=None):
        for group, p, g in self._updates(closure):
            state = self.state.setdefault(p, {})
            if not state:
                state["square_avg"] = _torch.zeros_like(p)
                if group["momentum"]:
                    state["momentum_buffer"] = _torch.zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = _torch.zeros_like(p)
            v = state["square_avg"]
            v.mul_(group["alpha"]).add_(g * g, alpha=1 - group["alpha"])
            if group["centered"]:
                m = state["grad_avg"]
                m.mul_(group["alpha"]).add_(g, alpha=1 - group["alpha"])
                denom = (v - m * m).sqrt() + group["eps"]
            else:
                denom = v.sqrt() + group["eps"]
            if group["momentum"]:
                buf = state["momentum_buffer"]
                buf.mul_(group["momentum"]).add_(g / denom)
                p.add_(buf, alpha=-group["lr"])
            else:
                p.add_(g / denom, alpha=-group["lr"])
        return self._loss


class Adagrad(Optimizer):
    """p -= lr g / (sqrt(sum of g^2) + eps), the rate decayed by lr_decay per step."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 maximize=False):
        if lr < 0 or lr_decay < 0 or weight_decay < 0 or eps < 0 or initial_accumulator_value < 0:
            raise ValueError("Invalid Adagrad setting: lr %s, lr_decay %s, eps %s" % (lr, lr_decay, eps))
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, eps=eps,
                                      maximize=maximize))

    def step(self, closure=None):
        for group, p, g in self._updates(closure):
            state = self.state.setdefault(p, {})
            if not state:
                state["step"] = 0
                state["sum"] = _torch.full_like(p, group["initial_accumulator_value"])
            state["step"] += 1
            clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
            state["sum"].add_(g * g)
            p.add_(g / (state["sum"].sqrt() + group["eps"]), alpha=-clr)
        return self._loss


from . import lr_scheduler  # noqa: E402 (it uses Optimizer)
from .lbfgs import LBFGS  # noqa: E402
