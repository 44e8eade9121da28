"""MXNet's np interface's functions made of its own ops (np/composed.py) and
npx's log_softmax, one_hot, pick and batch_dot against NumPy: the same
values, shape and dtype on the same inputs, the same exception class where
NumPy refuses, and gradients where the ops they are made of have them."""

import unittest

import numpy as onp

from asyncscope import autograd
from asyncscope import np as anp
from asyncscope import npx

from composed_inputs import B, I, M, SPECIAL, SQ, V
HALVES = onp.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.25, 2.675], dtype=onp.float32)

# name -> f(N, a): the same code on either module; a makes an array of N from NumPy's.
CASES = {
    "where with numbers": lambda N, a: N.where(a(M) > 0, a(M), 0),
    "where number first": lambda N, a: N.where(a(M) > 0, -1, a(M)),
    "amax amin": lambda N, a: N.stack([N.amax(a(M), axis=1), N.amin(a(M), axis=1)]),
    "isnan isinf isfinite": lambda N, a: N.stack([N.isnan(a(SPECIAL)), N.isinf(a(SPECIAL)), N.isfinite(a(SPECIAL))]),
    "isfinite of ints": lambda N, a: N.isfinite(a(I)),
    "isclose": lambda N, a: N.isclose(a(M), a(M) + 1e-6),
    "isclose equal_nan": lambda N, a: N.isclose(a(SPECIAL), a(SPECIAL), equal_nan=True),
    "logical_not": lambda N, a: N.logical_not(a(I)),
    "reciprocal": lambda N, a: N.reciprocal(a(M)),
    "true_divide": lambda N, a: N.true_divide(a(M), a(M) + 3),
    "log2 log10": lambda N, a: N.stack([N.log2(N.abs(a(M)) + 1), N.log10(N.abs(a(M)) + 1)]),
    "tan sinh cosh": lambda N, a: N.stack([N.tan(a(M)), N.sinh(a(M)), N.cosh(a(M))]),
    "round halves to even": lambda N, a: N.round(a(HALVES)),
    "around decimals": lambda N, a: N.around(a(M), 2),
    "round method": lambda N, a: a(HALVES).round(),
    "ravel": lambda N, a: N.ravel(a(B)),
    "copy": lambda N, a: N.copy(a(M)),
    "full_like": lambda N, a: N.full_like(a(I), 7),
    "broadcast_to": lambda N, a: N.broadcast_to(a(V), (3, 4)),
    "hstack": lambda N, a: N.hstack([a(M), a(M)]),
    "hstack 1-D": lambda N, a: N.hstack((a(V), a(V))),
    "vstack": lambda N, a: N.vstack([a(V), a(M)]),
    "moveaxis": lambda N, a: N.moveaxis(a(B), 0, -1),
    "moveaxis two": lambda N, a: N.moveaxis(a(B), [0, 1], [-1, 0]),
    "append flat": lambda N, a: N.append(a(M), a(V)),
    "append axis": lambda N, a: N.append(a(M), a(M), axis=0),
    "pad": lambda N, a: N.pad(a(M), 1),
    "pad widths": lambda N, a: N.pad(a(M), ((0, 1), (2, 0)), constant_values=5),
    "take flat": lambda N, a: N.take(a(M), a(onp.array([0, 5, 11]))),
    "take axis": lambda N, a: a(M).take(a(onp.array([3, 0])), axis=1),
    "roll": lambda N, a: N.roll(a(M), 1, axis=1),
    "roll flat": lambda N, a: N.roll(a(M), -5),
    "roll two axes": lambda N, a: N.roll(a(M), (1, -2), axis=(0, 1)),
    "diagonal": lambda N, a: N.diagonal(a(M), 1),
    "diag of a vector": lambda N, a: N.diag(a(V)),
    "diag above": lambda N, a: N.diag(a(V), 2),
    "diag below": lambda N, a: N.diag(a(V), -1),
    "diag of a matrix": lambda N, a: N.diag(a(M), -1),
    "trace": lambda N, a: N.trace(a(SQ)),
    "trace method": lambda N, a: a(SQ).trace(),
    "identity": lambda N, a: N.identity(3, dtype="float32"),  # MXNet's default type is float32, NumPy's float64
    "tril triu": lambda N, a: N.stack([N.tril(a(M)), N.triu(a(M), 1)]),
    "tril batched": lambda N, a: N.tril(a(B), -1),
    "meshgrid xy": lambda N, a: N.stack(N.meshgrid(a(onp.arange(3.0)), a(onp.arange(4.0)))),
    "meshgrid ij": lambda N, a: N.stack(N.meshgrid(a(onp.arange(3.0)), a(onp.arange(4.0)), indexing="ij")),
    "ravel method": lambda N, a: a(M).ravel(),
    "transpose method": lambda N, a: a(B).transpose(2, 0, 1),
    "clip method": lambda N, a: a(M).clip(-0.5, 0.5),
    "repeat method": lambda N, a: a(V).repeat(2),
    # matmul beyond 2-D: the batch broadcasts, a 1-D operand's dimension is dropped.
    "matmul batch @ matrix": lambda N, a: N.matmul(a(B), a(SQ)),
    "matmul matrix @ batch": lambda N, a: N.matmul(a(M), a(B.transpose(0, 2, 1))),
    "matmul broadcast batches": lambda N, a: N.matmul(a(B.reshape(2, 1, 3, 4)), a(onp.ones((3, 4, 2), onp.float32))),
    "matmul vector @ batch": lambda N, a: N.matmul(a(M[0]), a(B.transpose(0, 2, 1))),
    "matmul batch @ vector": lambda N, a: N.matmul(a(B), a(V)),
    "matmul empty batch": lambda N, a: N.matmul(a(onp.ones((0, 3, 4), onp.float32)), a(SQ)),
    "einsum matmul": lambda N, a: N.einsum("ij,jk->ik", a(M), a(SQ)),
    "einsum batched": lambda N, a: N.einsum("bij,bkj->bik", a(B), a(B)),
    "einsum trace diagonal": lambda N, a: N.stack([N.einsum("ii->i", a(SQ)), N.einsum("ij,j", a(SQ), a(V))]),
    "einsum implicit": lambda N, a: N.einsum("ji", a(M)),
    "einsum ellipsis": lambda N, a: N.einsum("...j,j->...", a(B), a(V)),
    "einsum ints": lambda N, a: N.einsum("ij,ik->jk", a(I), a(I)),
    "einsum three": lambda N, a: N.einsum("i,ij,j->", a(M[:, 0].copy()), a(M), a(V)),
}

REFUSED = {
    "axis out of range": lambda N, a: N.roll(a(M), 1, axis=2),
    "diag of 3-D": lambda N, a: N.diag(a(B)),
    "meshgrid indexing": lambda N, a: N.meshgrid(a(V), indexing="ji"),
    "moveaxis mismatch": lambda N, a: N.moveaxis(a(B), [0, 1], [0]),
    "matmul inner sizes": lambda N, a: N.matmul(a(B), a(M)),
    "matmul batches": lambda N, a: N.matmul(a(B), a(onp.ones((3, 4, 2), onp.float32))),
    "einsum operands": lambda N, a: N.einsum("ij,jk", a(M)),
    "einsum subscripts": lambda N, a: N.einsum("ijk", a(M)),
}


def ours(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else onp.asarray(x)


class ComposedAgainstNumPy(unittest.TestCase):
    def test_the_same_values_shape_and_type(self):
        for name, f in CASES.items():
            with self.subTest(name):
                got = ours(f(anp, lambda x: anp.array(x, dtype=x.dtype)))
                want = f(onp, lambda x: x)
                self.assertEqual(got.shape, want.shape)
                self.assertEqual(got.dtype, want.dtype)
                onp.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)

    def test_the_same_refusals(self):
        for name, f in REFUSED.items():
            with self.subTest(name):
                with self.assertRaises(Exception) as real:
                    f(onp, lambda x: x)
                with self.assertRaises(type(real.exception)):
                    f(anp, lambda x: anp.array(x, dtype=x.dtype))

    def test_the_bool_answers_are_python_bools(self):
        a = anp.array(M)
        for b in (M + 1e-7, M + 1e-2):
            self.assertIs(anp.allclose(a, anp.array(b)), onp.allclose(M, b))
        self.assertIs(anp.array_equal(a, anp.array(M)), True)
        self.assertIs(anp.array_equal(a, anp.array(M[:2])), False)
        self.assertIs(anp.array_equal(anp.array(SPECIAL), anp.array(SPECIAL)), False)
        self.assertIs(anp.array_equal(anp.array(SPECIAL), anp.array(SPECIAL), equal_nan=True), True)

    def test_where_of_the_condition_alone_is_nonzero(self):
        got = anp.where(anp.array(M) > 0)
        for ours, theirs in zip(got, onp.where(M > 0)):
            onp.testing.assert_array_equal(ours.asnumpy(), theirs)

    def test_gradients_flow_through_them(self):
        x = anp.array(M)
        x.attach_grad()
        with autograd.record():
            y = (anp.tril(x).sum() * 2 + anp.roll(x, 1, axis=0)[0].sum() + anp.diagonal(x).sum()
                 + anp.pad(x, 1).sum() + npx.pick(x, anp.array([0, 3, 1])).sum())
        y.backward()
        want = onp.tril(onp.ones_like(M)) * 2 + onp.eye(3, 4) + 1
        want[2] += 1  # roll(x, 1)[0] is x[2]
        for row, col in enumerate([0, 3, 1]):
            want[row, col] += 1
        onp.testing.assert_allclose(x.grad.asnumpy(), want)


def np_log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - onp.log(onp.exp(shifted).sum(axis=axis, keepdims=True))


class Npx(unittest.TestCase):
    def test_log_softmax(self):
        for axis in (-1, 0):
            got = npx.log_softmax(anp.array(M * 40), axis=axis).asnumpy()
            onp.testing.assert_allclose(got, np_log_softmax(M * 40, axis), rtol=1e-5, atol=1e-5)

    def test_one_hot(self):
        labels = anp.array(onp.array([0, 2, 5, -1, 1]), dtype="int64")
        got = npx.one_hot(labels, 3).asnumpy()
        want = onp.zeros((5, 3), dtype=onp.float32)
        for row, label in enumerate([0, 2, 5, -1, 1]):
            if 0 <= label < 3:
                want[row, label] = 1
        onp.testing.assert_array_equal(got, want)
        self.assertEqual(got.dtype, onp.float32)
        self.assertEqual(npx.one_hot(labels, 3, 5, -1, dtype="int64").asnumpy()[1].tolist(), [-1, -1, 5])

    def test_pick(self):
        x = anp.array(B)
        index = onp.array([[0, 3, 9], [1, -2, 2]])  # out of range: clipped (mode='clip'), or wrapped
        got = npx.pick(x, anp.array(index), axis=2).asnumpy()
        want = onp.take_along_axis(B, onp.clip(index, 0, 3)[..., None], axis=2)[..., 0]
        onp.testing.assert_array_equal(got, want)
        wrapped = npx.pick(x, anp.array(index), axis=-1, mode="wrap", keepdims=True).asnumpy()
        onp.testing.assert_array_equal(wrapped, onp.take_along_axis(B, (index % 4)[..., None], axis=2))
        rows = npx.pick(anp.array(M), anp.array(onp.array([1.0, 0.0, 2.0, 2.0])), axis=0).asnumpy()
        onp.testing.assert_array_equal(rows, M[[1, 0, 2, 2], range(4)])

    def test_batch_dot(self):
        got = npx.batch_dot(anp.array(B), anp.array(B), transpose_b=True).asnumpy()
        onp.testing.assert_allclose(got, B @ B.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
        got = npx.batch_dot(anp.array(B), anp.array(B), transpose_a=True).asnumpy()
        onp.testing.assert_allclose(got, B.transpose(0, 2, 1) @ B, rtol=1e-5, atol=1e-5)
        with self.assertRaises(ValueError):
            npx.batch_dot(anp.array(M), anp.array(M))


if __name__ == "__main__":
    unittest.main()
