"""MXNet's NumPy interface (asyncscope.np, asyncscope.npx) against NumPy on
the same values, with MXNet's differences: float32 by default (arange,
array of Python numbers), the printed form (array([0., 1.]), the type named
unless float32 or bool), 0-d results of whole-array reductions, bool
comparisons, indexing and assignment, concatenate/stack/dot/matmul with
1-D operands, the reductions, cumsum, linalg.norm, and autograd on np
arrays (attach_grad, record, backward, detach)."""

import unittest

import numpy as onp

from asyncscope import autograd, np, npx


def same(test, ours, theirs, what, dtype=None):
    theirs = onp.asarray(theirs)
    test.assertEqual(ours.shape, theirs.shape, what)
    test.assertEqual(ours.dtype, onp.dtype(dtype or theirs.dtype), what)
    onp.testing.assert_allclose(ours.asnumpy().astype(onp.float64), theirs.astype(onp.float64), rtol=1e-6,
                                err_msg=what)


class NumPyInterface(unittest.TestCase):
    def setUp(self):
        npx.set_np()

    def test_creation_is_float32_by_default(self):
        same(self, np.arange(12), onp.arange(12), "arange", "float32")
        same(self, np.arange(1, 7, 2, dtype="int32"), onp.arange(1, 7, 2, dtype=onp.int32), "arange int32")
        same(self, np.array([[2, 1], [4, 3]]), onp.array([[2, 1], [4, 3]]), "array of ints", "float32")
        same(self, np.array(onp.arange(3)), onp.arange(3), "array of a NumPy int64 array")
        same(self, np.array([True, False]), onp.array([True, False]), "array of bools")
        same(self, np.zeros((2, 3)), onp.zeros((2, 3)), "zeros", "float32")
        same(self, np.ones(3, dtype="int64"), onp.ones(3, dtype=onp.int64), "ones int64")
        same(self, np.full((2,), 7), onp.full((2,), 7), "full", "float32")
        same(self, np.zeros_like(np.arange(3, dtype="int32")), onp.zeros(3, dtype=onp.int32), "zeros_like")
        self.assertEqual(np.random.normal().shape, ())
        self.assertEqual(np.random.uniform(size=(2, 3)).shape, (2, 3))

    def test_dot_method_and_copyto(self):
        a = np.arange(6).reshape(2, 3)
        e = onp.arange(6, dtype=onp.float32).reshape(2, 3)
        same(self, a.dot(a.T), e @ e.T, "a.dot(a.T)")
        b = np.zeros((2, 3))
        self.assertIs(a.copyto(b), b)
        same(self, b, e, "copyto(array)")
        c = a.copyto(npx.cpu())
        c += 1
        same(self, a, e, "copyto(ctx) copies")
        with self.assertRaises(ValueError):
            a.copyto(np.zeros(4))

    def test_printing(self):
        self.assertEqual(repr(np.arange(12)),
                         "array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.])")
        self.assertEqual(repr(np.array(3.0)), "array(3.)")
        self.assertEqual(repr(np.arange(3, dtype="int64")), "array([0, 1, 2], dtype=int64)")
        self.assertEqual(repr(np.arange(3) > 0), "array([False,  True,  True])")
        self.assertEqual(str(np.arange(3)), "[0. 1. 2.]")

    def test_operators_reductions_and_comparisons(self):
        a = onp.arange(6, dtype=onp.float32).reshape(2, 3)
        b = onp.array([[2, 1, 4], [1, 2, 3]], dtype=onp.float32)
        for expr in ("x + y", "x - y", "x * y", "x / y", "x ** y", "x // y", "x % y", "-x", "x == y", "x > y",
                     "x.sum()", "x.sum(axis=0)", "x.sum(axis=(0, 1))", "x.mean(axis=1)", "x.max()", "x.min(axis=0)",
                     "x.prod(axis=1)", "x.argmax(axis=1)", "x.cumsum(axis=0)", "x.T", "x.sum(axis=1, keepdims=True)",
                     "np.concatenate([x, y], axis=0)", "np.concatenate([x, y], axis=1)", "np.stack([x, y])",
                     "np.exp(x)", "np.abs(x - 3)", "np.maximum(x, y)", "np.dot(x, y.T)", "np.dot(x[0], y[0])",
                     "np.dot(x, y[0])", "x @ y.T", "np.linalg.norm(x)", "np.linalg.norm(x, axis=1)",
                     "np.where(x > 2, x, y)", "np.clip(x, 1, 4)", "2 * x + 1", "x[1]", "x[:, 1]", "x[-1, ::2]"):
            ours = eval(expr, {"np": np, "x": np.array(a), "y": np.array(b)})
            theirs = eval(expr, {"np": onp, "x": a, "y": b})
            same(self, ours, theirs, expr)

    def test_shape_and_creation_functions(self):
        a = onp.arange(24, dtype=onp.float32).reshape(2, 3, 4) / 5 - 2
        for expr in ("np.expand_dims(x, 1)", "np.squeeze(x[:, :1])", "x[:, :1].squeeze(axis=1)", "x.flatten()",
                     "np.swapaxes(x, 0, 2)", "x.swapaxes(1, 2)", "np.flip(x, 1)", "np.flip(x)", "np.std(x)",
                     "x.var(axis=1)", "np.std(x, axis=2, ddof=1, keepdims=True)", "np.outer(x[0, 0], x[1, 2])",
                     "np.linspace(0, 1, 5)", "np.linspace(2, 3, 4, endpoint=False)", "np.eye(3)", "np.eye(2, 3)"):
            ours = eval(expr, {"np": np, "x": np.array(a)})
            theirs = eval(expr, {"np": onp, "x": a})
            same(self, ours, theirs, expr, "float32")
        for expr in ("np.split(x, 2, axis=2)", "np.split(x, [1], axis=1)"):
            ours = eval(expr, {"np": np, "x": np.array(a)})
            theirs = eval(expr, {"np": onp, "x": a})
            self.assertEqual(len(ours), len(theirs), expr)
            for o, t in zip(ours, theirs):
                same(self, o, t, expr)
        r = np.random.randint(2, 5, size=(1000,)).asnumpy()
        self.assertEqual(sorted(set(r.tolist())), [2, 3, 4])
        with self.assertRaises(ValueError):
            np.squeeze(np.ones((2, 3)), axis=0)

    def test_tile_repeat_permutations_norms_and_pickling(self):
        a = onp.arange(12, dtype=onp.float32).reshape(3, 4) - 5
        for expr in ("np.tile(x, (2, 2))", "np.tile(x, 2)", "np.repeat(x, 2)", "np.repeat(x, 3, axis=1)",
                     "np.linalg.norm(x[0], ord=1)", "np.linalg.norm(x, ord=np.inf, axis=1)"):
            ours = eval(expr, {"np": np, "x": np.array(a)})
            theirs = eval(expr.replace("np.inf", "float('inf')"), {"np": onp, "x": a})
            same(self, ours, theirs, expr, "float32")
        p = np.random.permutation(10)
        self.assertEqual(sorted(p.asnumpy().tolist()), list(range(10)))
        x = np.array(a)
        np.random.shuffle(x)
        self.assertEqual(sorted(map(tuple, x.asnumpy().tolist())), sorted(map(tuple, a.tolist())))
        import pickle
        y = pickle.loads(pickle.dumps(np.arange(3, dtype="int64")))
        self.assertEqual((y.dtype, y.asnumpy().tolist()), (onp.dtype("int64"), [0, 1, 2]))

    def test_training_mode(self):
        from asyncscope import autograd
        self.assertFalse(autograd.is_training())
        with autograd.record():
            self.assertTrue(autograd.is_training())
            self.assertTrue(autograd.is_recording())
            with autograd.predict_mode():
                self.assertFalse(autograd.is_training())
                self.assertTrue(autograd.is_recording())
            with autograd.pause():
                self.assertFalse(autograd.is_recording())
        with autograd.record(train_mode=False):
            self.assertFalse(autograd.is_training())
        with autograd.train_mode():
            self.assertTrue(autograd.is_training())
            self.assertFalse(autograd.is_recording())
        self.assertFalse(autograd.is_training())

    def test_assignment_and_in_place_updates_keep_the_object(self):
        x = np.arange(12).reshape(3, 4)
        expect = onp.arange(12, dtype=onp.float32).reshape(3, 4)
        x[1, 2] = 17
        x[:2, :] = 12
        expect[1, 2] = 17
        expect[:2, :] = 12
        same(self, x, expect, "x[...] = v")
        before = id(x)
        x += np.ones((3, 4))
        self.assertEqual(id(x), before)
        z = np.zeros_like(x)
        z[:] = x + 1
        same(self, z, expect + 2, "z[:] = x + 1")

    def test_conversions(self):
        a = np.array([3.5])
        self.assertEqual((a.item(), float(a), int(a)), (3.5, 3.5, 3))
        self.assertEqual(len(np.arange(3)), 3)
        self.assertIsInstance(np.arange(3).asnumpy(), onp.ndarray)
        self.assertEqual(np.arange(3, dtype="int64").tolist(), [0, 1, 2])
        self.assertEqual(np.arange(3).astype("int32").dtype, onp.dtype("int32"))
        self.assertTrue(bool(np.array(2.0) > 1))
        with self.assertRaises(ValueError):
            bool(np.arange(3))

    def test_autograd(self):
        x = np.arange(4.0)
        x.attach_grad()
        same(self, x.grad, onp.zeros(4), "grad before backward", "float32")
        with autograd.record():
            y = 2 * np.dot(x, x)
        y.backward()
        same(self, x.grad, 4 * onp.arange(4.0), "d(2 x.x)/dx", "float32")
        self.assertTrue(bool((x.grad == 4 * x).all()))
        with autograd.record():
            y = x * x
            u = y.detach()
            z = u * x
        z.backward()
        same(self, x.grad, onp.arange(4.0) ** 2, "detach", "float32")

    def test_npx(self):
        npx.waitall()
        self.assertGreaterEqual(npx.num_gpus(), 0)
        same(self, npx.relu(np.array([-1.0, 2.0])), onp.array([0.0, 2.0]), "relu", "float32")
        s = npx.softmax(np.array([[1.0, 2.0, 3.0]]))
        e = onp.exp(onp.array([[1.0, 2.0, 3.0]]))
        same(self, s, e / e.sum(), "softmax", "float32")


if __name__ == "__main__":
    unittest.main()
