"""autograd in the chapter's shape: record() as a context manager, backward()
after it, gradients against NumPy, and the clear error of a second backward."""

import unittest

import numpy as np

from asyncscope import autograd, nd


class Autograd(unittest.TestCase):
    def test_backward_after_the_record_scope(self):
        rng = np.random.default_rng(0)
        a = rng.normal(size=(8, 3)).astype(np.float32)
        w0 = rng.normal(size=(3, 1)).astype(np.float32)
        y = rng.normal(size=(8,)).astype(np.float32)
        w = nd.array(w0)
        w.attach_grad()
        x, label = nd.array(a), nd.array(y)
        with autograd.record():
            self.assertTrue(autograd.is_recording())
            loss = ((nd.dot(x, w).reshape((-1,)) - label) ** 2) / 2
        self.assertFalse(autograd.is_recording())
        loss.backward()  # a per-sample loss: the gradient of its sum
        want = a.T @ (a @ w0 - y[:, None])
        np.testing.assert_allclose(w.grad.asnumpy(), want, rtol=1e-4, atol=1e-5)

    def test_a_second_backward_is_a_clear_error(self):
        x = nd.ones((2,))
        x.attach_grad()
        with autograd.record():
            y = x * 3
        y.backward()
        with self.assertRaisesRegex(RuntimeError, "already used by an earlier backward"):
            y.backward()

    def test_pause_and_grad_req(self):
        x = nd.ones((2,))
        x.attach_grad(grad_req="add")
        for _ in range(2):
            with autograd.record():
                y = x * 2
                with autograd.pause():
                    self.assertFalse(autograd.is_recording())
            autograd.backward(y)
        np.testing.assert_array_equal(x.grad.asnumpy(), [4, 4])
        with self.assertRaises(ValueError):
            x.attach_grad(grad_req="sometimes")
        z = nd.ones((1,))
        self.assertIsNone(z.grad)


if __name__ == "__main__":
    unittest.main()


class AutogradGrad(unittest.TestCase):
    def test_grad_returns_the_gradients_and_leaves_grad_alone(self):
        x = nd.array([[1.0, 2.0], [3.0, 4.0]])
        x.attach_grad()
        with autograd.record():
            h = x * x
            y = (h * x).sum()
        gx, gh = autograd.grad(y, [x, h], retain_graph=True)
        np.testing.assert_allclose(gx.asnumpy(), 3 * x.asnumpy() ** 2)
        np.testing.assert_allclose(gh.asnumpy(), x.asnumpy())
        np.testing.assert_array_equal(x.grad.asnumpy(), np.zeros((2, 2)))
        (only,) = autograd.grad(y, [x])
        np.testing.assert_allclose(only.asnumpy(), 3 * x.asnumpy() ** 2)
        with self.assertRaises(ValueError):
            autograd.grad(y, [x], create_graph=True)
