"""One LeNet training step (forward, cross-entropy, backward, SGD) on a
batch of 28x28 images, in the PyTorch edition or the real PyTorch on the
CPU, for paired runs in alternating processes (docs/PERFORMANCE.md,
"Convolution and pooling"). Prints the median milliseconds per step of
three runs of STEPS steps each, after two warm-up steps, and the last loss
(the two sides start from the same seeded weights, so their losses agree).

    PYTHONPATH=build/python /usr/bin/python3 bench/python/lenet_step.py asyncscope|torch [BATCH] [STEPS]
"""
import sys
import time

import numpy as np

side = sys.argv[1]
batch = int(sys.argv[2]) if len(sys.argv) > 2 else 256
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
if side == "asyncscope":
    from asyncscope import torch
else:
    import torch
    torch.set_num_threads(2)
nn = torch.nn

rng = np.random.default_rng(0)
net = nn.Sequential(nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, stride=2),
                    nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(), nn.MaxPool2d(2, stride=2), nn.Flatten(),
                    nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(), nn.Linear(84, 10))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.1, 0.1, size=tuple(p.shape)).astype(np.float32)))
images = torch.tensor(rng.normal(size=(batch, 1, 28, 28)).astype(np.float32))
labels = torch.tensor(rng.integers(0, 10, size=batch))
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def step():
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(images), labels)
    loss.backward()
    opt.step()
    return float(loss)  # a sync point: the step has finished


for _ in range(2):
    step()
runs = []
for _ in range(3):
    t0 = time.perf_counter_ns()
    for _ in range(steps):
        loss = step()
    runs.append((time.perf_counter_ns() - t0) / steps / 1e6)
print(f"{side} batch {batch}: {sorted(runs)[1]:.2f} ms/step, loss {loss:.6f}")
