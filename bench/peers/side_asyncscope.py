"""The workloads on asyncscope's engine, through our Python package
(`asyncscope.nd`, the MXNet edition). Every op is pushed and returns at once;
wait_to_read() / waitall() are the sync points, as in the demos
(engine/demos/sync_vs_async.cpp, queued_vs_finished.cpp).

Each run_* function returns {row: {"value", "check", "scale"}}: the
measured value in the row's unit, and the check of the result, read back
after timing (common.check_of: its float64 sum and sum of magnitudes, and
the scale of their tolerance).
"""

import functools
import time
import types

import numpy as np

import common

GROUP_WORKERS = {
    # The sync-vs-async demo's default: one worker, the textbook model.
    "sync-vs-async": 1,
    # One worker: a Context gives OpenBLAS cores / workers threads, so the
    # one GEMM gets every core (the default, one worker per core, gives it 1).
    "gemm-1worker": 1,
}


def setup(group):
    import asyncscope
    asyncscope.configure(workers=GROUP_WORKERS.get(group, 0))
    from asyncscope import nd
    return nd


def run_sync_vs_async(nd, p):
    n, iterations = p["sva_size"], p["sva_iterations"]
    x = nd.ones((n, n))
    y = x + 1.0
    y.wait_to_read()
    # Phase 1: a wait in every iteration.
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        y = x + 1.0
        y.wait_to_read()
    sync_ns = time.perf_counter_ns() - t0
    check_sync = common.check_of(y.asnumpy())
    # Phase 2: run ahead, one waitall at the end.
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        y = x + 1.0
    nd.waitall()
    async_ns = time.perf_counter_ns() - t0
    check_async = common.check_of(y.asnumpy())
    return {
        "sva_sync": {"value": sync_ns / 1e6, **check_sync},
        "sva_async": {"value": async_ns / 1e6, **check_async},
    }


def run_gemm(nd, p, row):
    n = p["gemm_size"]
    # Load BLAS and start its threads first, as the queued-vs-finished demo does.
    nd.sum(nd.dot(nd.ones((8, 8)), nd.ones((8, 8)))).wait_to_read()
    x = nd.array(common.pattern(n, signed=False))
    x.wait_to_read()
    rates = []
    for _ in range(p["gemm_reps"]):
        t0 = time.perf_counter_ns()
        z = nd.dot(x, x)
        z.wait_to_read()
        rates.append(2.0 * n ** 3 / (time.perf_counter_ns() - t0))  # flop/ns = GFLOP/s
    s = nd.sum(z)
    return {row: {"value": float(np.median(rates)), **common.check_of(z.asnumpy()),
                  "sum": float(s.asscalar())}}


def run_tiny_loop(nd, p):
    ops = p["tiny_ops"]
    y = nd.ones((1,))
    y = y + 1.0
    y.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(ops):
        y = y + 1.0
    y.wait_to_read()
    ns = time.perf_counter_ns() - t0
    return {"tiny_loop": {"value": ns / ops / 1e3, **common.check_of(y.asnumpy())}}


def run_elementwise(nd, n, reps, prefix):
    x = nd.array(common.pattern(n, signed=True))
    y = nd.array(common.second_pattern(n))
    nd.waitall()
    out = {}

    def row(name, ns, z, scale=None):
        out[prefix + name] = {"value": ns / reps / 1e3, **common.check_of(z.asnumpy(), scale)}

    # One loop per op, written out: no call on the hot path but the op's own.
    # Each starts with two untimed ops, as on the peers' side: the loop holds two
    # outputs at once (the new one is written while the last is still
    # referenced), so the second warms the allocator (our pool, malloc's heap,
    # torch's) and the first dispatch; a fresh 16 MB output page-faults.
    for _ in range(2):
        z = x + 1.0
        z.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x + 1.0
        z.wait_to_read()
    row("add_scalar", time.perf_counter_ns() - t0, z)

    for _ in range(2):
        z = x * y
        z.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x * y
        z.wait_to_read()
    row("mul", time.perf_counter_ns() - t0, z)

    relu = nd.relu
    for _ in range(2):
        z = relu(x)
        z.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = relu(x)
        z.wait_to_read()
    row("relu", time.perf_counter_ns() - t0, z)

    total = nd.sum
    for _ in range(2):
        z = total(x)
        z.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = total(x)
        z.wait_to_read()
    row("sum", time.perf_counter_ns() - t0, z, common.input_scale(common.pattern(n, signed=True)))
    return out


def run_roundtrip(nd, p):
    x = nd.ones((1,))
    (x + 1.0).wait_to_read()
    samples = []
    for _ in range(p["rt_reps"]):
        t0 = time.perf_counter_ns()
        y = x + 1.0
        y.wait_to_read()
        samples.append(time.perf_counter_ns() - t0)
    return {"roundtrip": {"value": float(np.median(samples)) / 1e3, **common.check_of(y.asnumpy())}}


def run_typed(nd, n, reps, prefix):
    xi = nd.array(common.int_pattern(n), dtype="int64")
    x = nd.array(common.pattern(n, signed=True))
    nd.waitall()
    out = {}

    def row(name, ns, z, scale=None):
        out[prefix + name] = {"value": ns / reps / 1e3, **common.check_of(z.asnumpy(), scale)}

    for _ in range(2):
        z = xi + 1
        z.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = xi + 1
        z.wait_to_read()
    row("int_add", time.perf_counter_ns() - t0, z)

    for _ in range(2):
        z = x.max(axis=1)
        z.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x.max(axis=1)
        z.wait_to_read()
    row("max_axis", time.perf_counter_ns() - t0, z)

    for _ in range(2):
        z = x[:, ::2]
        z.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = x[:, ::2]
        z.wait_to_read()
    row("take", time.perf_counter_ns() - t0, z)

    w = x.copy()
    for _ in range(2):
        w[::2, :] = 0.0
        w.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        w[::2, :] = 0.0
        w.wait_to_read()
    row("assign", time.perf_counter_ns() - t0, w)

    for _ in range(2):
        z = nd.sort(x, axis=1)
        z.wait_to_read()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        z = nd.sort(x, axis=1)
        z.wait_to_read()
    row("sort", time.perf_counter_ns() - t0, z)
    return out


def run(group, p):
    nd = setup(group)
    side = types.SimpleNamespace(
        run_sync_vs_async=functools.partial(run_sync_vs_async, nd),
        run_gemm=functools.partial(run_gemm, nd),
        run_tiny_loop=functools.partial(run_tiny_loop, nd),
        run_elementwise=functools.partial(run_elementwise, nd),
        run_typed=functools.partial(run_typed, nd),
        run_roundtrip=functools.partial(run_roundtrip, nd))
    rows = common.run_group(group, p, side)
    nd.waitall()
    return rows


def describe():
    import asyncscope
    return {"module": asyncscope.__file__}
