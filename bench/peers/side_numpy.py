"""The workloads in NumPy, float32. NumPy is synchronous: each op has
finished when its call returns, so the "wait" of the asyncscope loops has
nothing to mirror (both sync-vs-async phases are the same loop here).
Same rows and return shape as side_asyncscope.py.

Two flavours of the scalar in `x + 1` and `maximum(x, 0)`: NumPy's own
float32 scalar (side "numpy", NumPy's fastest: no Python number to convert
and no type to resolve per call), or the Python number the other sides and
the chapter write, 1.0 and 0.0 (side "numpy-python-scalar"). The result is
float32 either way (NumPy 1.x casts a Python scalar by value).
"""

import sys
import time

import numpy as np

import common

# The scalars the loops use; set_python_scalars() switches the flavour.
ONE, ZERO = np.float32(1), np.float32(0)


def set_python_scalars():
    global ONE, ZERO
    ONE, ZERO = 1.0, 0.0


def run_sync_vs_async(p):
    n, iterations = p["sva_size"], p["sva_iterations"]
    one = ONE
    x = np.ones((n, n), dtype=np.float32)
    y = x + one
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        y = x + one
    sync_ns = time.perf_counter_ns() - t0
    check_sync = common.check_of(y)
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        y = x + one
    async_ns = time.perf_counter_ns() - t0
    return {
        "sva_sync": {"value": sync_ns / 1e6, **check_sync},
        "sva_async": {"value": async_ns / 1e6, **common.check_of(y)},
    }


def run_gemm(p, row):
    n = p["gemm_size"]
    np.dot(np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)).sum()
    x = common.pattern(n, signed=False)
    rates = []
    for _ in range(p["gemm_reps"]):
        t0 = time.perf_counter_ns()
        z = np.dot(x, x)
        rates.append(2.0 * n ** 3 / (time.perf_counter_ns() - t0))
    return {row: {"value": float(np.median(rates)), **common.check_of(z),
                  "sum": float(z.sum())}}


def run_tiny_loop(p):
    ops = p["tiny_ops"]
    one = ONE
    y = np.ones((1,), dtype=np.float32) + one
    t0 = time.perf_counter_ns()
    for _ in range(ops):
        y = y + one
    ns = time.perf_counter_ns() - t0
    return {"tiny_loop": {"value": ns / ops / 1e3, **common.check_of(y)}}


def run_elementwise(n, reps, prefix):
    x = common.pattern(n, signed=True)
    y = common.second_pattern(n)
    one, zero = ONE, ZERO
    out = {}

    def row(name, ns, z, scale=None):
        out[prefix + name] = {"value": ns / reps / 1e3, **common.check_of(z, scale)}

    # Two untimed ops before each loop, as on asyncscope's side (side_asyncscope.py).
    for _ in range(2):
        z = x + one
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x + one
    row("add_scalar", time.perf_counter_ns() - t0, z)

    for _ in range(2):
        z = x * y
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x * y
    row("mul", time.perf_counter_ns() - t0, z)

    maximum = np.maximum  # relu
    for _ in range(2):
        z = maximum(x, zero)
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = maximum(x, zero)
    row("relu", time.perf_counter_ns() - t0, z)

    total = np.sum
    for _ in range(2):
        z = total(x)
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = total(x)
    row("sum", time.perf_counter_ns() - t0, z, common.input_scale(common.pattern(n, signed=True)))
    return out


def run_roundtrip(p):
    one = ONE
    x = np.ones((1,), dtype=np.float32)
    y = x + one
    samples = []
    for _ in range(p["rt_reps"]):
        t0 = time.perf_counter_ns()
        y = x + one
        samples.append(time.perf_counter_ns() - t0)
    return {"roundtrip": {"value": float(np.median(samples)) / 1e3, **common.check_of(y)}}


def run_typed(n, reps, prefix):
    xi = common.int_pattern(n)
    x = common.pattern(n, signed=True)
    out = {}

    def row(name, ns, z, scale=None):
        out[prefix + name] = {"value": ns / reps / 1e3, **common.check_of(z, scale)}

    for _ in range(2):
        z = xi + 1
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = xi + 1
    row("int_add", time.perf_counter_ns() - t0, z)

    for _ in range(2):
        z = x.max(axis=1)
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x.max(axis=1)
    row("max_axis", time.perf_counter_ns() - t0, z)

    # NumPy's x[:, ::2] is a view: copied out, as the other sides' selection is.
    for _ in range(2):
        z = x[:, ::2].copy()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x[:, ::2].copy()
    row("take", time.perf_counter_ns() - t0, z)

    w = x.copy()
    for _ in range(2):
        w[::2, :] = 0.0
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        w[::2, :] = 0.0
    row("assign", time.perf_counter_ns() - t0, w)

    for _ in range(2):
        z = np.sort(x, axis=1)
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = np.sort(x, axis=1)
    row("sort", time.perf_counter_ns() - t0, z)
    return out


def run(group, p):
    return common.run_group(group, p, sys.modules[__name__])


def describe():
    return {"version": np.__version__}
