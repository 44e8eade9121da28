"""NumPy's argument names beside the real PyTorch: wherever a function or a
Tensor method takes `dim` / `keepdim`, `axis` / `keepdims` are accepted too
(as PyTorch's argument parser accepts them), and calls that need pybind11's
implicit conversions, or that match nothing, behave as before."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from against_pytorch import HAS_TORCH, assert_prints_the_same  # noqa: E402

PROGRAM = """
import numpy as np
import torch
x = torch.arange(12.0).reshape(3, 4) - 5
calls = [
    lambda: x.argmax(axis=1), lambda: torch.argmax(x, axis=0), lambda: x.argmin(axis=1, keepdims=True),
    lambda: x.max(axis=1), lambda: torch.min(x, axis=0, keepdims=True), lambda: x.prod(axis=0),
    lambda: torch.softmax(x, axis=1), lambda: x.softmax(axis=0), lambda: x.cumsum(axis=1),
    lambda: torch.cumsum(x, axis=0), lambda: x.std(axis=1), lambda: x.var(axis=0, keepdims=True),
    lambda: (x > 0).all(axis=1), lambda: torch.any(x > 0, axis=0), lambda: x.logsumexp(axis=1),
    lambda: x.unsqueeze(axis=0).shape, lambda: x.reshape(1, 12).squeeze(axis=0).shape,
    lambda: torch.cat((x, x), axis=0).shape, lambda: torch.stack((x, x), axis=1).shape,
    lambda: x.sum(axis=0, keepdims=True), lambda: x.mean(axis=1), lambda: x.argmax(dim=1, keepdim=True),
    lambda: x.argmax(np.int64(1)), lambda: x.sum(np.int64(0)), lambda: torch.max(x, axis=1).indices,
]
for i, call in enumerate(calls):
    try:
        print(i, call())
    except Exception as e:
        print(i, type(e).__name__)
for bad in (lambda: x.argmax(axis="one"), lambda: x.argmax(bogus=1), lambda: x.argmax(axis=1, dim=1)):
    try:
        bad()
        print("no error")
    except Exception as e:
        print(type(e).__name__)
"""


@unittest.skipUnless(HAS_TORCH, "the real PyTorch is not installed (apt-get install python3-torch)")
class NumPyArgumentNames(unittest.TestCase):
    def test_axis_and_keepdims_as_the_real_pytorch_takes_them(self):
        assert_prints_the_same(self, PROGRAM)


if __name__ == "__main__":
    unittest.main()
