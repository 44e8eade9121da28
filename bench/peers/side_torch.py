"""The workloads in PyTorch on the CPU, float32. Like NumPy, CPU ops are
synchronous: each has finished when its call returns. Same rows and return
shape as side_asyncscope.py.
"""

import sys
import time

import numpy as np
import torch

import common


def run_sync_vs_async(p):
    n, iterations = p["sva_size"], p["sva_iterations"]
    x = torch.ones((n, n), dtype=torch.float32)
    y = x + 1.0
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        y = x + 1.0
    sync_ns = time.perf_counter_ns() - t0
    check_sync = common.check_of(y.numpy())
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        y = x + 1.0
    async_ns = time.perf_counter_ns() - t0
    return {
        "sva_sync": {"value": sync_ns / 1e6, **check_sync},
        "sva_async": {"value": async_ns / 1e6, **common.check_of(y.numpy())},
    }


def run_gemm(p, row):
    n = p["gemm_size"]
    torch.mm(torch.ones((8, 8)), torch.ones((8, 8))).sum()
    x = torch.from_numpy(common.pattern(n, signed=False))
    rates = []
    for _ in range(p["gemm_reps"]):
        t0 = time.perf_counter_ns()
        z = torch.mm(x, x)
        rates.append(2.0 * n ** 3 / (time.perf_counter_ns() - t0))
    return {row: {"value": float(np.median(rates)), **common.check_of(z.numpy()),
                  "sum": float(z.sum())}}


def run_tiny_loop(p):
    ops = p["tiny_ops"]
    y = torch.ones((1,), dtype=torch.float32) + 1.0
    t0 = time.perf_counter_ns()
    for _ in range(ops):
        y = y + 1.0
    ns = time.perf_counter_ns() - t0
    return {"tiny_loop": {"value": ns / ops / 1e3, **common.check_of(y.numpy())}}


def run_elementwise(n, reps, prefix):
    x = torch.from_numpy(common.pattern(n, signed=True))
    y = torch.from_numpy(common.second_pattern(n))
    out = {}

    def row(name, ns, z, scale=None):
        out[prefix + name] = {"value": ns / reps / 1e3, **common.check_of(z.numpy(), scale)}

    # Two untimed ops before each loop, as on asyncscope's side (side_asyncscope.py).
    for _ in range(2):
        z = x + 1.0
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x + 1.0
    row("add_scalar", time.perf_counter_ns() - t0, z)

    for _ in range(2):
        z = x * y
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x * y
    row("mul", time.perf_counter_ns() - t0, z)

    relu = torch.relu
    for _ in range(2):
        z = relu(x)
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = relu(x)
    row("relu", time.perf_counter_ns() - t0, z)

    total = torch.sum
    for _ in range(2):
        z = total(x)
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = total(x)
    row("sum", time.perf_counter_ns() - t0, z, common.input_scale(common.pattern(n, signed=True)))
    return out


def run_roundtrip(p):
    x = torch.ones((1,), dtype=torch.float32)
    y = x + 1.0
    samples = []
    for _ in range(p["rt_reps"]):
        t0 = time.perf_counter_ns()
        y = x + 1.0
        samples.append(time.perf_counter_ns() - t0)
    return {"roundtrip": {"value": float(np.median(samples)) / 1e3, **common.check_of(y.numpy())}}


def run_typed(n, reps, prefix):
    xi = torch.from_numpy(common.int_pattern(n))
    x = torch.from_numpy(common.pattern(n, signed=True))
    out = {}

    def row(name, ns, z, scale=None):
        out[prefix + name] = {"value": ns / reps / 1e3, **common.check_of(z.numpy(), scale)}

    for _ in range(2):
        z = xi + 1
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = xi + 1
    row("int_add", time.perf_counter_ns() - t0, z)

    for _ in range(2):
        z = x.amax(dim=1)
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x.amax(dim=1)
    row("max_axis", time.perf_counter_ns() - t0, z)

    # PyTorch's x[:, ::2] is a view: copied out, as the other sides' selection is.
    for _ in range(2):
        z = x[:, ::2].clone()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x[:, ::2].clone()
    row("take", time.perf_counter_ns() - t0, z)

    w = x.clone()
    for _ in range(2):
        w[::2, :] = 0.0
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        w[::2, :] = 0.0
    row("assign", time.perf_counter_ns() - t0, w)

    for _ in range(2):
        z = torch.sort(x, dim=1).values
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = torch.sort(x, dim=1).values
    row("sort", time.perf_counter_ns() - t0, z)
    return out


def run(group, p):
    with torch.no_grad():  # no autograd bookkeeping: plain tensors, like the other sides
        return common.run_group(group, p, sys.modules[__name__])


def describe():
    return {"version": torch.__version__, "intra_op_threads": torch.get_num_threads(),
            "blas_info": torch.__config__.show().split("BLAS_INFO=")[-1].split(",")[0]}
