"""The d2l helpers of the MXNet edition (`from asyncscope.d2l import mxnet
as d2l`): Benchmark, Timer, try_gpu, try_all_gpus, num_gpus, cpu, gpu. The
timings Benchmark prints are wall-clock time on the frontend: with
asynchronous ops, that is the time to enqueue the work unless a sync point
(npx.waitall(), wait_to_read(), asnumpy(), item(), printing) waited for it."""

from .. import npx
from ._common import Benchmark, Timer


def num_gpus():
    """How many GPUs this run can use."""
    return npx.num_gpus()


def cpu():
    """The CPU context."""
    return npx.cpu()


def gpu(i=0):
    """gpu(i) (whether or not this run can use it)."""
    return npx.gpu(i)


def try_gpu(i=0):
    """gpu(i) if this run can use it, else the CPU."""
    return npx.gpu(i) if npx.num_gpus() >= i + 1 else npx.cpu()


def try_all_gpus():
    """Every GPU this run can use, or [cpu()] without one."""
    return [npx.gpu(i) for i in range(npx.num_gpus())] or [npx.cpu()]


__all__ = ["Timer", "Benchmark", "try_gpu", "try_all_gpus", "num_gpus", "cpu", "gpu"]
