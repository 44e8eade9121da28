"""The d2l helpers of the chapter's PyTorch edition: Benchmark, Timer,
try_gpu, try_all_gpus, num_gpus, cpu, gpu. The timings they print are wall-clock time on the
frontend: with asynchronous ops, that is the time to enqueue the work unless
a sync point (item(), printing, torch.cuda.synchronize()) waited for it."""

from .. import torch
from ._common import Benchmark, Timer


def try_gpu(i=0):
    """cuda:i if this run can use it, else the CPU."""
    if torch.cuda.device_count() >= i + 1:
        return torch.device("cuda", i)
    return torch.device("cpu")


def try_all_gpus():
    """Every GPU this run can use, or [cpu] without one."""
    gpus = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    return gpus or [torch.device("cpu")]


def num_gpus():
    """How many GPUs this run can use."""
    return torch.cuda.device_count()


def cpu():
    """The CPU device."""
    return torch.device("cpu")


def gpu(i=0):
    """cuda:i (whether or not this run can use it)."""
    return torch.device("cuda", i)


__all__ = ["Timer", "Benchmark", "try_gpu", "try_all_gpus", "num_gpus", "cpu", "gpu"]
