"""torch.cuda for the PyTorch edition: whether a GPU can be used in this run,
and the wait for the work pushed to it.

synchronize() waits for every op pushed so far, on any device: the engine
has one wait for all its work. It also takes the CPU (device('cpu')), whose
ops are asynchronous here as well, unlike PyTorch's.
"""

from .. import _core


def is_available():
    """Whether tensors can be put on a GPU (device='cuda') in this run."""
    return _core.torch.cuda_device_count() > 0


def device_count():
    """How many GPUs this run's tensors can use."""
    return _core.torch.cuda_device_count()


def synchronize(device=None):
    """Blocks until all the work pushed so far has finished (a sync point).

    device: None (the GPU; a RuntimeError without one), 'cuda', 'cuda:0', a
    torch.device, or the CPU."""
    _core.torch.cuda_synchronize(device)


def memory_allocated(device=None):
    """Bytes held by the tensors on `device` (default cuda:0) now: a real
    GPU's device memory, or a simulated GPU's own share of host memory."""
    return _core.torch.cuda_memory_allocated(device)


__all__ = ["is_available", "device_count", "synchronize", "memory_allocated"]
