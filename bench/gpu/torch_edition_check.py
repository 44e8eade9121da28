"""The PyTorch edition on a GPU: what a reader writes, run on cuda:0 and on
the CPU with one seed, the results compared; then the chapter's loop timed
both ways. Run by scripts/gpu-check.sh through the app's interpreter
(`asyncscope script`), on a machine with a GPU:

    asyncscope script bench/gpu/torch_edition_check.py

Prints one line per case that differs and a summary; exits 1 if any differs
or if no GPU is usable.
"""
import sys

import numpy as np

from asyncscope import torch
from asyncscope.d2l import torch as d2l


def cases(dev):
    """Name -> NumPy result, every tensor made on `dev` with seed 0."""
    torch.manual_seed(0)
    out = {}
    i = torch.arange(24, device=dev)
    x = i.reshape(2, 3, 4).float() * 0.5
    m = i.reshape(2, 3, 4)
    out["arange int64"] = i
    out["int arithmetic"] = m * 3 - 7
    out["floor division and remainder"] = torch.stack([m // 5, m % 5])
    out["comparisons"] = (m > 10) & (m < 20)
    out["where"] = torch.where(m % 2 == 0, x, -x)
    out["reductions"] = torch.stack([x.sum(dim=1), x.amax(dim=1), x.mean(dim=1)])
    out["argmax"] = m.argmax(dim=2)
    out["cumsum"] = m.cumsum(dim=2)
    out["double"] = x.double().exp().sin()
    out["astype"] = (x * 3.3).int()
    v = x.clone()
    v[0, 1:3] += 100  # a contiguous view
    c = v[:, :, 1]  # a strided view
    c.zero_()
    out["views write through"] = v
    out["advanced indexing"] = x[torch.tensor([1, 0, 1], device=dev)]
    y = x.clone()
    y[torch.tensor([0], device=dev), torch.tensor([2], device=dev)] = -1.0
    out["index assignment"] = y
    out["concat and slices"] = torch.cat([x, x[:, 1:2, :]], dim=1)
    out["permute"] = x.permute(2, 0, 1)
    out["normal"] = torch.randn(50, 7, device=dev)

    w = torch.ones(4, 3, device=dev, requires_grad=True)
    loss = (x.reshape(6, 4) @ w).relu().sum()
    loss.backward()
    out["autograd"] = w.grad

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    data = x.reshape(6, 4)
    target = torch.ones(6, 1, device=dev)
    for _ in range(5):
        opt.zero_grad()
        l = torch.nn.functional.mse_loss(net(data), target)
        l.backward()
        opt.step()
    out["nn.Linear trained"] = net(data)
    return {k: v.detach().cpu().numpy() for k, v in out.items()}


def main():
    if torch.cuda.device_count() == 0:
        print("torch_edition_check: no GPU in this run (torch.cuda.device_count() is 0)")
        return 1
    gpu = cases(d2l.try_gpu())
    cpu = cases(torch.device("cpu"))
    bad = 0
    for name in cpu:
        a, b = cpu[name], gpu[name]
        same = a.shape == b.shape and a.dtype == b.dtype and (
            np.array_equal(a, b) if a.dtype.kind in "iub" else np.allclose(a, b, rtol=1e-5, atol=1e-5))
        if not same:
            bad += 1
            print(f"differs: {name}: cpu {a.dtype}{a.shape} gpu {b.dtype}{b.shape}")
    print(f"{len(cpu) - bad} of {len(cpu)} cases equal on cuda:0 and the CPU")

    # The chapter's loop, synchronised, on the GPU.
    dev = d2l.try_gpu()
    a = torch.randn(size=(1000, 1000), device=dev)
    torch.mm(a, a)
    torch.cuda.synchronize(dev)
    for _ in range(3):
        with d2l.Benchmark("chapter loop, cuda:0, synchronised"):
            for _ in range(10):
                a = torch.randn(size=(1000, 1000), device=dev)
                b = torch.mm(a, a)
            torch.cuda.synchronize(dev)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
