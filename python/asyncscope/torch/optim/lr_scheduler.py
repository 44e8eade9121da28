"""torch.optim.lr_scheduler of the PyTorch edition: StepLR, MultiStepLR,
ExponentialLR, CosineAnnealingLR and LambdaLR. A scheduler sets each
parameter group's "lr" from the number of step() calls (epochs) so far, as
PyTorch's closed forms do; it pushes nothing (the rate is a Python number
the optimizer's next step uses).

Threading: the frontend thread, as the optimizer it drives.
"""

import math as _math

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR"]


class LRScheduler:
    """The base: remembers each group's initial rate, counts epochs, and
    sets the groups' rates to rate_at(epoch) at each step()."""

    def __init__(self, optimizer, last_epoch=-1):
        if not hasattr(optimizer, "param_groups"):
            raise TypeError("%s is not an Optimizer" % type(optimizer).__name__)
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def rates_at(self, epoch):
        raise NotImplementedError

    def step(self, epoch=None):
        """Moves to the next epoch (or to `epoch`) and sets the groups' rates."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        for group, lr in zip(self.optimizer.param_groups, self.rates_at(self.last_epoch)):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self):
        """The rates the last step() set."""
        return list(self._last_lr)

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """base * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def rates_at(self, epoch):
        return [base * self.gamma ** (epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """base * gamma ** (the milestones passed)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def rates_at(self, epoch):
        passed = sum(1 for m in self.milestones if m <= epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """base * gamma ** epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def rates_at(self, epoch):
        return [base * self.gamma ** epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """eta_min + (base - eta_min) (1 + cos(pi epoch / T_max)) / 2."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def rates_at(self, epoch):
        return [self.eta_min + (base - self.eta_min) * (1 + _math.cos(_math.pi * epoch / self.T_max)) / 2
                for base in self.base_lrs]


class LambdaLR(LRScheduler):
    """base * lr_lambda(epoch) (a function per group, or one for all)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        groups = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * groups
        if len(self.lr_lambdas) != groups:
            raise ValueError("Expected %d lr_lambdas, but got %d" % (groups, len(self.lr_lambdas)))
        super().__init__(optimizer, last_epoch)

    def rates_at(self, epoch):
        return [base * f(epoch) for base, f in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
