"""The inputs the composed-function tests (test_torch_composed,
test_np_composed) give both their frontend and the reference: a matrix, a
square, a vector, integers, a batch, and the special values, seeded."""

import numpy as onp

rng = onp.random.default_rng(5)
M = rng.normal(size=(3, 4)).astype(onp.float32)
SQ = rng.normal(size=(4, 4)).astype(onp.float32)
V = rng.normal(size=(4,)).astype(onp.float32)
I = rng.integers(-5, 5, size=(3, 4)).astype(onp.int64)
B = rng.normal(size=(2, 3, 4)).astype(onp.float32)
SPECIAL = onp.array([0.0, -1.5, onp.inf, -onp.inf, onp.nan, 3.0], dtype=onp.float32)
