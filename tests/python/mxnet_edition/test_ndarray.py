"""The MXNet edition's arrays against NumPy on the same data: creation,
shapes, arithmetic with arrays and numbers on either side, broadcasting,
dot, reductions (shape (1,) as in MXNet 1.x), printing, asnumpy/asscalar,
and the errors a script can make."""

import unittest

import numpy as np

from asyncscope import nd


def values(shape, seed):
    return np.random.default_rng(seed).uniform(-2, 2, size=shape).astype(np.float32)


class Creation(unittest.TestCase):
    def test_ones_zeros_full_array(self):
        self.assertEqual(nd.ones((2, 3)).shape, (2, 3))
        self.assertEqual(nd.ones(4).shape, (4,))
        np.testing.assert_array_equal(nd.zeros((2, 2)).asnumpy(), np.zeros((2, 2), np.float32))
        np.testing.assert_array_equal(nd.full((3,), 2.5).asnumpy(), np.full(3, 2.5, np.float32))
        a = values((3, 4), 1)
        np.testing.assert_array_equal(nd.array(a).asnumpy(), a)
        np.testing.assert_array_equal(nd.array([[1, 2], [3, 4]]).asnumpy(), np.array([[1, 2], [3, 4]], np.float32))

    def test_random_distributions_and_their_arguments(self):
        u = nd.random.uniform(2, 4, shape=(100000,)).asnumpy()
        self.assertTrue((u >= 2).all() and (u < 4).all())
        self.assertAlmostEqual(float(u.mean()), 3.0, delta=0.02)
        n = nd.random.normal(loc=-1, scale=0.5, shape=(100000,)).asnumpy()
        self.assertAlmostEqual(float(n.mean()), -1.0, delta=0.02)
        self.assertAlmostEqual(float(n.std()), 0.5, delta=0.02)
        self.assertEqual(nd.random.uniform(shape=(2000, 2000)).shape, (2000, 2000))

    def test_bad_shapes_are_value_and_type_errors(self):
        with self.assertRaises(ValueError):
            nd.ones((2, -1))
        with self.assertRaises(TypeError):
            nd.ones("2x3")
        with self.assertRaises(ValueError):
            nd.ones((1, 2, 3, 4, 5))


class Arithmetic(unittest.TestCase):
    def test_matches_numpy_with_numbers_on_either_side(self):
        a, b = values((3, 4), 2), values((3, 4), 3) + 5
        x, y = nd.array(a), nd.array(b)
        cases = [(x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (x + 1, a + 1), (1 - x, 1 - a),
                 (2 * x, 2 * a), (x / 4, a / 4), (3 / y, 3 / b), (-x, -a), (x ** 2, a * a)]
        for got, want in cases:
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)

    def test_broadcasting_as_numpy(self):
        a, row, col = values((3, 4), 4), values((4,), 5), values((3, 1), 6)
        np.testing.assert_allclose((nd.array(a) + nd.array(row)).asnumpy(), a + row, rtol=1e-6)
        np.testing.assert_allclose((nd.array(col) * nd.array(a)).asnumpy(), col * a, rtol=1e-6)
        with self.assertRaisesRegex(ValueError, "add: shapes 3x4 and 3 do not broadcast"):
            nd.array(a) + nd.ones((3,))

    def test_operators_and_their_dunder_methods_agree_and_refuse_what_is_not_a_number(self):
        # Python calls the operators through the class's number slots; the
        # bound __add__ and the rest are what an explicit call reaches.
        a = values((2, 3), 9)
        x = nd.array(a)
        for got, want in [(x.__add__(2), a + 2), (x.__radd__(2), 2 + a), (x.__sub__(x), a - a), (x.__rsub__(1), 1 - a),
                          (x.__mul__(x), a * a), (x.__rmul__(3), 3 * a), (x.__truediv__(2), a / 2),
                          (x.__rtruediv__(1), 1 / a), (x + np.float32(2), a + 2), (np.float64(2) * x, 2 * a)]:
            self.assertIsInstance(got, nd.NDArray)
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
        class Half:  # a number to float(), as NumPy's scalars are: through its __float__
            def __float__(self):
                return 0.5

        np.testing.assert_allclose((x * Half()).asnumpy(), a * 0.5, rtol=1e-6)
        np.testing.assert_allclose((Half() - x).asnumpy(), 0.5 - a, rtol=1e-6)
        self.assertIs(x.__add__("a"), NotImplemented)
        for bad in (lambda: x + "a", lambda: "a" - x, lambda: x * None, lambda: [1] / x):
            with self.assertRaisesRegex(TypeError, "unsupported operand"):
                bad()

    def test_in_place_updates_keep_the_object(self):
        x = nd.ones((2,))
        before = x
        x += nd.ones((2,))
        x *= 3
        self.assertIs(x, before)
        np.testing.assert_array_equal(x.asnumpy(), [6, 6])

    def test_dot_and_transposes(self):
        a, b = values((5, 3), 7), values((3, 4), 8)
        np.testing.assert_allclose(nd.dot(nd.array(a), nd.array(b)).asnumpy(), a @ b, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(nd.dot(nd.array(a), nd.array(a), transpose_a=True).asnumpy(), a.T @ a, rtol=1e-5,
                                   atol=1e-5)
        np.testing.assert_allclose(nd.array(a).T.asnumpy(), a.T)
        with self.assertRaisesRegex(ValueError, "inner dimensions differ"):
            nd.dot(nd.array(a), nd.array(a))


class Reductions(unittest.TestCase):
    def test_whole_array_reductions_have_shape_one(self):
        a = values((3, 4), 9)
        x = nd.array(a)
        for got, want in [(x.sum(), a.sum()), (x.mean(), a.mean()), (x.norm(), np.linalg.norm(a)),
                          (nd.sum(x), a.sum())]:
            self.assertEqual(got.shape, (1,))
            self.assertAlmostEqual(float(got.asscalar()), float(want), places=4)

    def test_along_axes(self):
        a = values((2, 3, 4), 10)
        x = nd.array(a)
        np.testing.assert_allclose(x.sum(axis=1).asnumpy(), a.sum(axis=1), rtol=1e-5)
        np.testing.assert_allclose(x.mean(axis=(0, 2), keepdims=True).asnumpy(), a.mean(axis=(0, 2), keepdims=True),
                                   rtol=1e-5)
        self.assertEqual(nd.ones((3,)).sum(axis=0).shape, (1,))

    def test_reshape_is_a_view(self):
        x = nd.array(np.arange(6, dtype=np.float32))
        self.assertEqual(x.reshape((2, 3)).shape, (2, 3))
        self.assertEqual(x.reshape(3, 2).shape, (3, 2))
        self.assertEqual(x.reshape(-1, 1).shape, (6, 1))


class SyncPoints(unittest.TestCase):
    def test_asscalar_is_a_numpy_float32_of_a_one_element_array(self):
        v = nd.full((1,), 3.5).asscalar()
        self.assertIsInstance(v, np.float32)
        self.assertEqual(v, 3.5)
        with self.assertRaisesRegex(ValueError, "not a scalar"):
            nd.ones((2,)).asscalar()

    def test_asnumpy_is_a_copy(self):
        x = nd.ones((2,))
        a = x.asnumpy()
        a[0] = 7
        self.assertEqual(x.asnumpy()[0], 1)
        self.assertEqual(a.dtype, np.float32)

    def test_printing_in_mxnets_form(self):
        self.assertEqual(repr(nd.ones((1, 2)) * 3), "\n[[3. 3.]]\n<NDArray 1x2 @cpu(0)>")
        self.assertEqual(str(nd.ones((2,)).sum()), "\n[2.]\n<NDArray 1 @cpu(0)>")
        big = repr(nd.zeros((2000, 2000)))
        self.assertIn("...", big)
        self.assertTrue(big.endswith("<NDArray 2000x2000 @cpu(0)>"))
        self.assertEqual(big[1:].split("\n<")[0], str(np.zeros((2000, 2000), np.float32)))

    def test_wait_to_read_and_waitall(self):
        y = nd.dot(nd.ones((200, 200)), nd.ones((200, 200)))
        y.wait_to_read()
        nd.waitall()
        self.assertEqual(float(y.asnumpy()[0, 0]), 200.0)


class Modules(unittest.TestCase):
    def test_nd_and_ndarray_are_one_module(self):
        import asyncscope.ndarray as ndarray
        import asyncscope.nd as nd2
        self.assertIs(nd, ndarray)
        self.assertIs(nd2, ndarray)
        from asyncscope.gluon import loss, nn  # noqa: F401
        import asyncscope.gluon.nn  # noqa: F401
        self.assertIs(asyncscope.gluon.nn, nn)


if __name__ == "__main__":
    unittest.main()
