"""Host vs device: the same loop of random matrices and their products, once
on the host with NumPy, once with asyncscope.torch. NumPy computes each
product before the next line runs, so its time is the work itself. The torch
loop only enqueues: its time is how long the frontend took to push the ops,
and the work is still running when the loop ends. Waiting for it
(torch.cuda.synchronize) shows what it really cost.

The torch tensors go to the GPU when there is one (d2l.try_gpu()); without
one they stay on the CPU, where, unlike PyTorch, asyncscope's engine still
runs every op asynchronously on its workers.

Run it:  asyncscope script assets/scripts/host_vs_device.py
   (or:  PYTHONPATH=build/python python3 assets/scripts/host_vs_device.py)
Other sizes: SIZE=1000 REPS=10 (the defaults).
"""
import os

import numpy as np

import asyncscope
from asyncscope import torch
from asyncscope.d2l import torch as d2l

size = int(os.environ.get("SIZE", 1000))
reps = int(os.environ.get("REPS", 10))
device = d2l.try_gpu()
print("torch tensors on", device)

# Warm up first (BLAS loads, the memory pools fill), so what follows is the loops' own.
torch.mm(torch.ones(8, 8, device=device), torch.ones(8, 8, device=device)).sum().item()
np.dot(np.ones((8, 8)), np.ones((8, 8)))

asyncscope.mark("numpy")
with d2l.Benchmark("numpy on the host"):
    for _ in range(reps):
        a = np.random.normal(size=(size, size))
        b = np.dot(a, a)

asyncscope.mark("torch")
with d2l.Benchmark("torch, the loop returned after"):
    for _ in range(reps):
        a = torch.randn(size, size, device=device)
        b = torch.mm(a, a)

asyncscope.mark("synchronize")
with d2l.Benchmark("torch, synchronize then waited"):
    torch.cuda.synchronize(device)

asyncscope.mark("torch and synchronize")
with d2l.Benchmark("torch, loop and synchronize"):
    for _ in range(reps):
        a = torch.randn(size, size, device=device)
        b = torch.mm(a, a)
    torch.cuda.synchronize(device)
