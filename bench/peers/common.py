"""Shared pieces of the side-by-side benchmark (bench/peers): the workload
sizes, the deterministic inputs every side starts from, and the probes that
say which BLAS kernel a process runs.

Nothing here times anything; the side modules (side_asyncscope.py,
side_numpy.py, side_torch.py) hold the loops, written out once per library
so no side pays for an adapter call the others do not.
"""

import ctypes
import os

import numpy as np

# Workload groups. Each group runs in one fresh process per side and round;
# a group yields one or more rows (name -> value).
GROUPS = ["sync-vs-async", "gemm", "gemm-1worker", "tiny-loop", "elementwise-128", "elementwise-2000", "roundtrip",
          "typed-2000"]

# The rows whose code has a scalar in it (`x + 1`, `maximum(x, 0)`), and the
# groups they come from: the side "numpy-python-scalar" (side_numpy.py with
# Python scalars) runs only these groups and reports only these rows.
SCALAR_ROWS = ["sva_sync", "sva_async", "tiny_loop", "ew_small_add_scalar", "ew_small_relu",
               "ew_large_add_scalar", "ew_large_relu", "roundtrip"]
SCALAR_GROUPS = ["sync-vs-async", "tiny-loop", "elementwise-128", "elementwise-2000", "roundtrip"]

# Sizes of a real run, and of --quick (the ctest check: tiny, one round).
FULL = {
    "sva_size": 128, "sva_iterations": 1000,
    "gemm_size": 2000, "gemm_reps": 3,
    "tiny_ops": 20000,
    "ew_small": 128, "ew_small_reps": 2000,
    "ew_large": 2000, "ew_large_reps": 40,
    "rt_reps": 3000,
}
QUICK = {
    "sva_size": 8, "sva_iterations": 20,
    "gemm_size": 64, "gemm_reps": 1,
    "tiny_ops": 50,
    "ew_small": 4, "ew_small_reps": 5,
    "ew_large": 16, "ew_large_reps": 3,
    "rt_reps": 20,
}

# The element-wise and reduction ops, in the order a process runs them.
EW_OPS = ["add_scalar", "mul", "relu", "sum"]
# The ops of other dtypes and indexing (group typed-2000): int64 x + 1, the
# max along an axis, a strided selection copied out, an assignment through
# a strided selection, and the rows sorted (PyTorch's sort gives the indices
# as well: it has no values-only sort).
TYPED_OPS = [("int_add", "int64 x + 1"), ("max_axis", "x.max(axis=1)"), ("take", "x[:, ::2] (a copy)"),
             ("assign", "x[::2, :] = 0"), ("sort", "sort(x, axis=1)")]


def run_group(group, p, side):
    """Runs one group's measurements through the side's functions (each side
    module, or a namespace of them: run_sync_vs_async(p), run_gemm(p, row),
    run_tiny_loop(p), run_elementwise(n, reps, prefix), run_roundtrip(p),
    run_typed(n, reps, prefix))."""
    if group == "sync-vs-async":
        return side.run_sync_vs_async(p)
    if group == "gemm":
        return side.run_gemm(p, "gemm")
    if group == "gemm-1worker":  # the same product on one worker; the peers have no workers to set
        return side.run_gemm(p, "gemm_1worker")
    if group == "tiny-loop":
        return side.run_tiny_loop(p)
    if group == "elementwise-128":
        return side.run_elementwise(p["ew_small"], p["ew_small_reps"], "ew_small_")
    if group == "elementwise-2000":
        return side.run_elementwise(p["ew_large"], p["ew_large_reps"], "ew_large_")
    if group == "roundtrip":
        return side.run_roundtrip(p)
    if group == "typed-2000":
        return side.run_typed(p["ew_large"], p["ew_large_reps"], "typed_")
    raise ValueError(group)


def int_pattern(n):
    """The int64 operand of the typed rows: the signed pattern in sixteenths, as integers."""
    return (pattern(n, signed=True) * 16).astype(np.int64)


def params(quick):
    return dict(QUICK if quick else FULL)


def pattern(n, signed):
    """An n x n float32 matrix every side builds the same way: values on a
    grid of sixteenths, in [-0.5, 0.5] (signed, so relu has work to do) or in
    [1/16, 1] (for the matrix product, so its sum does not cancel)."""
    i = np.arange(n, dtype=np.int64).reshape(n, 1)
    j = np.arange(n, dtype=np.int64).reshape(1, n)
    k = (i * 7 + j * 3) % 17  # 0..16
    if signed:
        return ((k - 8) / 16.0).astype(np.float32)
    return ((k % 16 + 1) / 16.0).astype(np.float32)


def second_pattern(n):
    """The other operand of x * y: a different grid, also exact in float32."""
    i = np.arange(n, dtype=np.int64).reshape(n, 1)
    j = np.arange(n, dtype=np.int64).reshape(1, n)
    return (((i * 5 + j * 11) % 13 - 6) / 8.0).astype(np.float32)


def check_of(values, scale=None):
    """The check of a result: its sum and its sum of magnitudes, both in
    float64 (a sum alone can cancel), and the scale their tolerance is
    relative to: the result's own sum of magnitudes, or for a reduction
    the sum of magnitudes of its input (pass it as `scale`)."""
    v = np.asarray(values, dtype=np.float64)
    magnitude = float(np.sum(np.abs(v)))
    return {"check": [float(np.sum(v)), magnitude], "scale": magnitude if scale is None else float(scale)}


def input_scale(x):
    """Sum of magnitudes of an input, the scale of a reduction's check."""
    return float(np.sum(np.abs(np.asarray(x, dtype=np.float64))))


def close(a, b, scale):
    """Whether two checks agree. The inputs are exact in float32 and every
    side computes in float32, so the results differ only by rounding (a GEMM
    or a sum may add in another order): to 1e-5 of the scale."""
    tol = 1e-5 * max(1.0, scale)
    return all(abs(x - y) <= tol for x, y in zip(a, b))


# --- which BLAS this process runs -------------------------------------------

def _mapped(predicate):
    paths = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and predicate(os.path.basename(fields[-1])) and fields[-1] not in paths:
                paths.append(fields[-1])
    return paths


def openblas_in_process():
    """The OpenBLAS this process has loaded (from /proc/self/maps), asked
    through ctypes for its kernel (openblas_get_corename), thread count and
    build config. Opening an already mapped library returns the same copy,
    so this reads the state the library really runs with. None if no
    OpenBLAS is mapped."""
    for path in _mapped(lambda name: name.startswith("libopenblas")):
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            continue
        out = {"library": os.path.realpath(path)}
        for key, symbol, kind in (("core", "openblas_get_corename", ctypes.c_char_p),
                                  ("config", "openblas_get_config", ctypes.c_char_p),
                                  ("threads", "openblas_get_num_threads", ctypes.c_int)):
            fn = getattr(lib, symbol, None)
            if fn is None:
                out[key] = None
                continue
            fn.restype = kind
            fn.argtypes = []
            value = fn()
            out[key] = value.decode().strip() if isinstance(value, bytes) else value
        return out
    return None


def other_blas_in_process():
    """Other BLAS-like libraries mapped (oneDNN, MKL, BLIS), for the record."""
    keys = ("dnnl", "mkl", "blis", "libblas", "liblapack")
    return [os.path.realpath(p) for p in _mapped(lambda name: any(k in name for k in keys))]
