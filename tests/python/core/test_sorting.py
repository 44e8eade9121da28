"""Sorting in the three editions: PyTorch's sort / argsort / msort / topk /
take_along_dim against the real PyTorch (values, indices, dtypes, named
tuples, gradients, refusals), MXNet nd's sort / argsort / topk (ret_typ,
float32 indices) and MXNet np's sort / argsort / take_along_axis / in-place
ndarray.sort and npx.topk against NumPy."""

import unittest

import numpy as onp

from asyncscope import nd, np, npx
from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

RNG = onp.random.default_rng(3)
DISTINCT = RNG.permutation(60).reshape(3, 4, 5).astype(onp.float32) * 0.5 - 7  # no ties: any sort agrees
TIED = RNG.integers(-3, 4, (4, 9)).astype(onp.float32)
TIED[1, 2] = TIED[3, 0] = onp.nan
TYPES = ["float32", "float64", "int32", "int64", "uint8", "bool"]


def typed(values, dtype):
    return (values > 0) if dtype == "bool" else onp.abs(values).astype(dtype) if dtype == "uint8" else values.astype(dtype)


@unittest.skipIf(real_torch is None, NO_TORCH)
class Pytorch(unittest.TestCase):
    def same(self, ours, theirs, what):
        self.assertEqual(tuple(ours.shape), tuple(theirs.shape), what)
        self.assertEqual(str(ours.dtype), str(theirs.dtype), what)
        onp.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=what)

    def test_sort_and_argsort_of_every_type_along_every_dim_both_ways(self):
        for t in ["float32", "float64", "int32", "int64", "uint8"]:
            a = typed(DISTINCT, t)
            for dim in (0, 1, -1):
                for descending in (False, True):
                    what = "%s dim=%d descending=%s" % (t, dim, descending)
                    ours = atorch.sort(atorch.tensor(a), dim=dim, descending=descending)
                    theirs = real_torch.sort(real_torch.tensor(a), dim=dim, descending=descending)
                    self.same(ours.values, theirs.values, what)
                    self.same(ours[1], theirs[1], what)
                    self.same(atorch.tensor(a).argsort(dim, descending=descending),
                              real_torch.tensor(a).argsort(dim, descending=descending), what)

    def test_ties_keep_their_order_and_nan_is_the_largest(self):
        for descending in (False, True):
            ours = atorch.tensor(TIED).sort(dim=1, descending=descending, stable=True)
            theirs = real_torch.tensor(TIED).sort(dim=1, descending=descending, stable=True)
            self.same(ours.values, theirs.values, "values descending=%s" % descending)
            self.same(ours.indices, theirs.indices, "indices descending=%s" % descending)
        self.same(atorch.argsort(atorch.tensor(TIED), stable=True), real_torch.argsort(real_torch.tensor(TIED), stable=True),
                  "argsort")
        b = TIED > 0
        self.same(atorch.tensor(b).sort(stable=True).indices, real_torch.tensor(b).sort(stable=True).indices, "bool")

    def test_topk_msort_and_take_along_dim(self):
        x, rx = atorch.tensor(DISTINCT), real_torch.tensor(DISTINCT)
        for k, dim, largest in ((1, -1, True), (3, 1, True), (2, 0, False), (5, 2, False), (0, 1, True)):
            ours, theirs = atorch.topk(x, k, dim=dim, largest=largest), real_torch.topk(rx, k, dim=dim, largest=largest)
            self.assertEqual(ours._fields, ("values", "indices"))
            self.same(ours.values, theirs.values, "topk %d %d" % (k, dim))
            self.same(ours.indices, theirs.indices, "topk %d %d" % (k, dim))
        self.same(x.topk(2).values, rx.topk(2).values, "method")
        self.same(atorch.msort(x), real_torch.msort(rx), "msort")
        idx = x.argsort(dim=1)
        self.same(atorch.take_along_dim(x, idx, dim=1), real_torch.take_along_dim(rx, real_torch.tensor(idx.numpy()), dim=1),
                  "take_along_dim")
        flat = atorch.tensor(onp.array([5, 0, 59], dtype=onp.int64))
        self.same(x.take_along_dim(flat), rx.take_along_dim(real_torch.tensor(flat.numpy())), "flattened")
        self.same(atorch.sort(atorch.tensor(2.5)).values, real_torch.sort(real_torch.tensor(2.5)).values, "0-d")

    def test_gradients_go_back_where_the_values_came_from(self):
        head = RNG.uniform(0.5, 1.5, (3, 2, 5)).astype(onp.float32)
        grads = []
        for lib in (atorch, real_torch):
            x = lib.tensor(DISTINCT, requires_grad=True)
            top = lib.topk(x, 2, dim=1).values
            loss = (top * lib.tensor(head)).sum() + (lib.sort(x, dim=2, descending=True).values ** 2).sum()
            loss.backward()
            grads.append(x.grad.numpy())
        onp.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)

    def test_refusals_are_pytorchs(self):
        x, rx = atorch.tensor(DISTINCT), real_torch.tensor(DISTINCT)
        for call in (lambda T, t: T.topk(t, 6), lambda T, t: T.sort(t, dim=3), lambda T, t: T.topk(t, -1)):
            with self.assertRaises(Exception) as theirs:
                call(real_torch, rx)
            with self.assertRaises(type(theirs.exception)):
                call(atorch, x)
        with self.assertRaisesRegex(RuntimeError, "selected index k out of range"):
            atorch.topk(x, 6)


class Mxnet(unittest.TestCase):
    def test_nd_sort_and_argsort(self):
        a = nd.array(TIED)
        onp.testing.assert_array_equal(nd.sort(a).asnumpy(), onp.sort(TIED, kind="stable"))
        # descending: NumPy's ascending order reversed, NaN first
        onp.testing.assert_array_equal(a.sort(axis=0, is_ascend=False).asnumpy(), onp.flip(onp.sort(TIED, axis=0), 0))
        got = nd.argsort(a)
        self.assertEqual(got.dtype, onp.float32)  # MXNet's default
        onp.testing.assert_array_equal(got.asnumpy(), onp.argsort(TIED, kind="stable"))
        self.assertEqual(a.argsort(dtype="int64").dtype, onp.int64)
        onp.testing.assert_array_equal(nd.sort(a, axis=None).asnumpy(), onp.sort(TIED, axis=None))

    def test_nd_topk_ret_typ(self):
        x = nd.array(DISTINCT)
        want_idx = onp.argsort(-DISTINCT, axis=-1, kind="stable")[..., :2]
        onp.testing.assert_array_equal(nd.topk(x, k=2).asnumpy(), want_idx.astype(onp.float32))
        values, indices = nd.topk(x, k=2, ret_typ="both")
        onp.testing.assert_array_equal(values.asnumpy(), onp.take_along_axis(DISTINCT, want_idx, -1))
        onp.testing.assert_array_equal(indices.asnumpy(), want_idx)
        onp.testing.assert_array_equal(x.topk(axis=1, k=1, ret_typ="value", is_ascend=True).asnumpy(),
                                       DISTINCT.min(axis=1, keepdims=True))
        mask = nd.topk(x, axis=0, k=2, ret_typ="mask").asnumpy()
        self.assertEqual(mask.shape, DISTINCT.shape)
        onp.testing.assert_array_equal(mask.sum(axis=0), onp.full((4, 5), 2.0))
        onp.testing.assert_array_equal(mask, (DISTINCT >= onp.sort(DISTINCT, axis=0)[1:2]).astype(onp.float32))
        onp.testing.assert_array_equal(nd.topk(x, k=0, ret_typ="value").asnumpy(), -onp.sort(-DISTINCT, axis=-1))
        with self.assertRaisesRegex(ValueError, "ret_typ"):
            nd.topk(x, ret_typ="values")
        with self.assertRaisesRegex(ValueError, "out of range"):
            nd.topk(x, k=6)

    def test_np_as_numpy(self):
        for t in TYPES:
            a = typed(TIED if t.startswith("float") else onp.nan_to_num(TIED), t)
            for axis in (0, 1, -1, None):
                what = "%s axis=%s" % (t, axis)
                got = np.sort(np.array(a, dtype=t), axis=axis)
                self.assertEqual(str(got.dtype), str(a.dtype), what)
                onp.testing.assert_array_equal(got.asnumpy(), onp.sort(a, axis=axis, kind="stable"), err_msg=what)
                idx = np.argsort(np.array(a, dtype=t), axis=axis)
                self.assertEqual(str(idx.dtype), "int64", what)
                onp.testing.assert_array_equal(idx.asnumpy(), onp.argsort(a, axis=axis, kind="stable"), err_msg=what)
        x = np.array(TIED)
        self.assertIsNone(x.sort(axis=0))  # in place, as NumPy's
        onp.testing.assert_array_equal(x.asnumpy(), onp.sort(TIED, axis=0))
        onp.testing.assert_array_equal(np.array(TIED).argsort().asnumpy(), onp.argsort(TIED, kind="stable"))
        idx = onp.argsort(DISTINCT, axis=1)
        onp.testing.assert_array_equal(np.take_along_axis(np.array(DISTINCT), np.array(idx), axis=1).asnumpy(),
                                       onp.take_along_axis(DISTINCT, idx, axis=1))
        with self.assertRaisesRegex(ValueError, "order"):
            np.sort(x, order="f")
        onp.testing.assert_array_equal(npx.topk(np.array(DISTINCT), k=3, ret_typ="value").asnumpy(),
                                       -onp.sort(-DISTINCT, axis=-1)[..., :3])

    def test_gradient_through_nd_sort(self):
        from asyncscope import autograd
        x = nd.array(DISTINCT[0])
        x.attach_grad()
        with autograd.record():
            y = (nd.sort(x, axis=1, is_ascend=False) * nd.array(onp.arange(5, dtype=onp.float32))).sum()
        y.backward()
        rank = onp.argsort(onp.argsort(-DISTINCT[0], axis=1, kind="stable"), axis=1, kind="stable")
        onp.testing.assert_array_equal(x.grad.asnumpy(), rank.astype(onp.float32))


if __name__ == "__main__":
    unittest.main()
