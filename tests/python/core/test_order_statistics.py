"""Order statistics, positions and unique values, made of the sorting op
and indexing (torch/composed.py, np/composed.py, _order.py): median,
nanmedian, kthvalue, quantile / percentile by every interpolation method,
nonzero / argwhere / flatnonzero / count_nonzero / where(condition) and
unique with its index, inverse and counts, against the real PyTorch and
NumPy: the same values, shapes and dtypes, NaN where they give NaN, and the
same exception class where they refuse."""

import unittest
import warnings

import numpy as onp

from asyncscope import np
from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

RNG = onp.random.default_rng(11)
EVEN = RNG.permutation(24).reshape(4, 6).astype(onp.float32) - 9  # distinct values, even lines
ODD = RNG.integers(-4, 5, (3, 5, 7)).astype(onp.float32)  # ties, odd lines
WITH_NAN = ODD[0].copy()
WITH_NAN[1, 3] = WITH_NAN[4, 0] = onp.nan
SPARSE = onp.where(RNG.random((3, 4, 2)) < 0.6, 0, RNG.integers(1, 9, (3, 4, 2))).astype(onp.int64)
METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


def as_numpy(v):
    if isinstance(v, (tuple, list)):
        return [as_numpy(x) for x in v]
    if isinstance(v, np.ndarray):
        return v.asnumpy()
    if hasattr(v, "numpy"):
        return v.detach().numpy() if hasattr(v, "detach") else v.numpy()
    return onp.asarray(v)


class Check(unittest.TestCase):
    def same(self, ours, theirs, what, exact_dtype=True):
        ours, theirs = as_numpy(ours), as_numpy(theirs)
        if isinstance(theirs, list):
            self.assertEqual(len(ours), len(theirs), what)
            for i, (o, t) in enumerate(zip(ours, theirs)):
                self.same(o, t, "%s [%d]" % (what, i), exact_dtype)
            return
        self.assertEqual(ours.shape, theirs.shape, what)
        if exact_dtype:
            self.assertEqual(ours.dtype, theirs.dtype, what)
        onp.testing.assert_allclose(ours.astype(onp.float64), theirs.astype(onp.float64), rtol=1e-6, atol=1e-6,
                                    equal_nan=True, err_msg=what)


@unittest.skipIf(real_torch is None, NO_TORCH)
class Pytorch(Check):
    CASES = {
        "median": lambda T, t: T.median(t(ODD)),
        "median even": lambda T, t: T.median(t(EVEN)),
        "median nan": lambda T, t: T.median(t(WITH_NAN)),
        "median dim": lambda T, t: tuple(T.median(t(ODD), dim=1)),
        "median dim even keepdim": lambda T, t: tuple(T.median(t(EVEN), 0, keepdim=True)),
        "median dim nan": lambda T, t: tuple(T.median(t(WITH_NAN), dim=1)),  # the first NaN, as PyTorch
        "median method": lambda T, t: tuple(t(EVEN).median(-1)),
        "median int": lambda T, t: T.median(t(SPARSE)),
        "nanmedian": lambda T, t: T.nanmedian(t(WITH_NAN)),
        "nanmedian dim": lambda T, t: tuple(T.nanmedian(t(WITH_NAN), dim=0)),
        "kthvalue": lambda T, t: tuple(T.kthvalue(t(EVEN), 3)),
        "kthvalue dim keepdim": lambda T, t: tuple(t(EVEN).kthvalue(1, 0, True)),
        "quantile": lambda T, t: T.quantile(t(ODD), 0.37),
        "quantile dim q tensor": lambda T, t: T.quantile(t(EVEN), T.tensor([0.0, 0.25, 0.5, 0.9, 1.0]), dim=1),
        "quantile keepdim": lambda T, t: T.quantile(t(ODD), 0.6, dim=2, keepdim=True),
        "quantile none keepdim": lambda T, t: T.quantile(t(EVEN), 0.5, keepdim=True),
        "quantile nan": lambda T, t: T.quantile(t(WITH_NAN), 0.5, dim=1),
        "quantile method": lambda T, t: t(EVEN).quantile(0.3, 0),
        "nonzero": lambda T, t: T.nonzero(t(SPARSE)),
        "nonzero as_tuple": lambda T, t: T.nonzero(t(SPARSE), as_tuple=True),
        "nonzero method bool": lambda T, t: (t(EVEN) > 0).nonzero(),
        "argwhere": lambda T, t: T.argwhere(t(SPARSE[0])),
        "count_nonzero": lambda T, t: T.count_nonzero(t(SPARSE)),
        "count_nonzero dim": lambda T, t: T.count_nonzero(t(SPARSE), dim=1),
        "unique": lambda T, t: T.unique(t(ODD)),
        "unique all": lambda T, t: T.unique(t(SPARSE), return_inverse=True, return_counts=True),
        "unique method int": lambda T, t: t(SPARSE).unique(return_counts=True),
        "unique empty": lambda T, t: T.unique(t(EVEN[:0])),
    }

    def test_each_against_the_real_pytorch(self):
        for what, case in self.CASES.items():
            ours = case(atorch, atorch.tensor)
            theirs = case(real_torch, lambda v: real_torch.tensor(v))
            self.same(ours, theirs, what)

    def test_every_interpolation_method(self):
        for method in METHODS:
            for q in (0.0, 0.1, 0.5, 0.625, 1.0):
                what = "%s q=%s" % (method, q)
                self.same(atorch.quantile(atorch.tensor(ODD), q, dim=1, interpolation=method),
                          real_torch.quantile(real_torch.tensor(ODD), q, dim=1, interpolation=method), what)

    def test_named_tuples(self):
        r = atorch.median(atorch.tensor(EVEN), 1)
        self.assertEqual(r._fields, ("values", "indices"))
        self.assertEqual(type(r).__name__, "median")
        self.assertEqual(type(atorch.kthvalue(atorch.tensor(EVEN), 1)).__name__, "kthvalue")

    def test_refusals_are_pytorchs(self):
        calls = [
            lambda T, t: T.quantile(t(ODD), 1.5),
            lambda T, t: T.quantile(t(SPARSE), 0.5),
            lambda T, t: T.quantile(t(ODD), 0.5, interpolation="cubic"),
            lambda T, t: T.quantile(t(ODD), T.tensor([[0.5]])),
            lambda T, t: T.kthvalue(t(EVEN), 7),
            lambda T, t: T.median(t(EVEN), dim=2),
        ]
        for i, call in enumerate(calls):
            with self.assertRaises(Exception) as theirs:
                call(real_torch, lambda v: real_torch.tensor(v))
            with self.assertRaises(type(theirs.exception), msg="call %d" % i):
                call(atorch, atorch.tensor)


class Numpy(Check):
    CASES = {
        "median": lambda N, a: N.median(a(ODD)),
        "median even axis": lambda N, a: N.median(a(EVEN), axis=1),
        "median keepdims": lambda N, a: N.median(a(ODD), axis=(0), keepdims=True),
        "median none keepdims": lambda N, a: N.median(a(EVEN), keepdims=True),
        "median nan": lambda N, a: N.median(a(WITH_NAN), axis=0),
        "nanmedian": lambda N, a: N.nanmedian(a(WITH_NAN), axis=1),
        "nanmedian all": lambda N, a: N.nanmedian(a(WITH_NAN)),
        "quantile": lambda N, a: N.quantile(a(ODD), 0.37),
        "quantile list axis": lambda N, a: N.quantile(a(EVEN), [0.0, 0.25, 0.9, 1.0], axis=0),
        "percentile": lambda N, a: N.percentile(a(ODD), 62.5, axis=2, keepdims=True),
        "percentile nan": lambda N, a: N.percentile(a(WITH_NAN), [10, 90], axis=1),
        "nonzero": lambda N, a: N.nonzero(a(SPARSE)),
        "nonzero method": lambda N, a: a(SPARSE[1]).nonzero(),
        "where(condition)": lambda N, a: N.where(a(EVEN) > 3),
        "flatnonzero": lambda N, a: N.flatnonzero(a(SPARSE)),
        "argwhere": lambda N, a: N.argwhere(a(SPARSE)),
        "count_nonzero axis": lambda N, a: N.count_nonzero(a(SPARSE), axis=2),
        "unique": lambda N, a: N.unique(a(ODD)),
        "unique all": lambda N, a: N.unique(a(SPARSE), return_index=True, return_inverse=True, return_counts=True),
        "unique nan": lambda N, a: N.unique(a(WITH_NAN), return_counts=True),
    }

    def test_each_against_numpy(self):
        for what, case in self.CASES.items():
            ours = case(np, lambda v: np.array(v, dtype=v.dtype))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's warning of an all-NaN line
                theirs = case(onp, lambda v: v)
            # NumPy gives float64 medians and quantiles of float32 input in places, and
            # its own int for indices; the values must agree, and ours stay float32 / int64.
            self.same(ours, theirs, what, exact_dtype=False)

    def test_every_method_and_the_unique_nan_rule(self):
        for method in METHODS:
            for q in (0.0, 0.1, 0.5, 0.625, 1.0):
                self.same(np.quantile(np.array(ODD), q, axis=1, method=method),
                          onp.quantile(ODD, q, axis=1, method=method), "%s q=%s" % (method, q), exact_dtype=False)
        self.assertEqual(np.unique(np.array(WITH_NAN), equal_nan=False).shape[0],
                         onp.unique(WITH_NAN, equal_nan=False).shape[0])
        self.assertEqual(str(np.median(np.array(SPARSE)).dtype), "float32")

    def test_refusals_are_numpys(self):
        calls = [
            lambda N, a: N.quantile(a(ODD), 1.5),
            lambda N, a: N.percentile(a(ODD), -1),
            lambda N, a: N.quantile(a(ODD), 0.5, method="cubic"),
            lambda N, a: N.median(a(ODD), axis=3),
            lambda N, a: N.where(a(ODD) > 0, 1.0),
        ]
        for i, call in enumerate(calls):
            with self.assertRaises(Exception) as theirs:
                call(onp, lambda v: v)
            with self.assertRaises(type(theirs.exception), msg="call %d" % i):
                call(np, lambda v: np.array(v))


if __name__ == "__main__":
    unittest.main()
