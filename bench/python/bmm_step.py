"""An attention-shaped step, two torch.bmm of a (64, 128, 32) batch with a
softmax between and a backward, in the PyTorch edition or the real PyTorch
on the CPU, for paired runs in alternating processes (docs/PERFORMANCE.md,
"Convolution and pooling"). Prints the median milliseconds per step of
three runs of 10 steps each, after three warm-up steps.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bmm_step.py asyncscope|torch
"""
import sys
import time

import numpy as np

side = sys.argv[1]
if side == "asyncscope":
    from asyncscope import torch
else:
    import torch
    torch.set_num_threads(2)

rng = np.random.default_rng(0)
q = torch.tensor(rng.normal(size=(64, 128, 32)).astype(np.float32), requires_grad=True)
k = torch.tensor(rng.normal(size=(64, 128, 32)).astype(np.float32), requires_grad=True)


def step():
    scores = torch.bmm(q, k.transpose(1, 2)).softmax(dim=-1)
    loss = torch.bmm(scores, k).sum()
    loss.backward()
    return float(loss)  # a sync point: the step has finished


for _ in range(3):
    step()
runs = []
for _ in range(3):
    t0 = time.perf_counter_ns()
    for _ in range(10):
        step()
    runs.append((time.perf_counter_ns() - t0) / 10 / 1e6)
print(f"{side}: {sorted(runs)[1]:.2f} ms/step")
