"""Two devices at once: the same products pushed to cuda:0 and cuda:1 run
side by side, each on its device's lane, and copying results to the host
overlaps with the products still running. Without two GPUs, simulate them:

    asyncscope --simulated-gpus 2 --script assets/scripts/two_devices.py --run
    ASYNCSCOPE_SIMULATED_GPUS=2 asyncscope script assets/scripts/two_devices.py

(simulated GPUs keep their arrays in host memory and run their ops on host
threads of their own, so both lanes fill on a machine with 2 or more cores).
Other sizes: SIZE=400 REPS=8 (the defaults).
"""
import os

import asyncscope
from asyncscope import torch
from asyncscope.d2l import torch as d2l

size = int(os.environ.get("SIZE", 400))
reps = int(os.environ.get("REPS", 8))
devices = d2l.try_all_gpus()
if len(devices) < 2:
    raise SystemExit("two_devices.py needs two GPUs: run it with --simulated-gpus 2 "
                     "(or ASYNCSCOPE_SIMULATED_GPUS=2)")
print("devices:", devices[0], devices[1])


def run(x):
    return [x.mm(x) / size for _ in range(reps)]


x0 = torch.rand(size=(size, size), device=devices[0])
x1 = torch.rand(size=(size, size), device=devices[1])
run(x0), run(x1)  # warm up both devices
torch.cuda.synchronize()

asyncscope.mark("one device, then the other")
with d2l.Benchmark("cuda:0, then cuda:1, each waited for"):
    run(x0)
    torch.cuda.synchronize(devices[0])
    run(x1)
    torch.cuda.synchronize(devices[1])

asyncscope.mark("both devices at once")
with d2l.Benchmark("cuda:0 and cuda:1 together"):
    run(x0)
    run(x1)
    torch.cuda.synchronize()

asyncscope.mark("compute and copy")
with d2l.Benchmark("products on cuda:0, each copied to the host as it is done"):
    ys = run(x0)
    host = [y.to("cpu", non_blocking=True) for y in ys]
    torch.cuda.synchronize()
print("last result's sum:", round(float(host[-1].sum()), 3))
