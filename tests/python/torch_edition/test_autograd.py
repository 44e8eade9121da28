"""The PyTorch edition's autograd beside the real PyTorch on the same
values: requires_grad on creation and requires_grad_(), .grad None until a
backward and accumulating after, zero_() and `x.grad = None`, backward with
a gradient= for a non-scalar, detach(), an update under torch.no_grad(),
the errors PyTorch raises (RuntimeError), and the printed form of a leaf."""

import unittest

import numpy as np

from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)


def both(fn):
    """fn(lib, tensor_factory) run on asyncscope's torch and on the real one."""
    return fn(atorch, lambda v, **kw: atorch.tensor(v, **kw)), fn(real_torch, lambda v, **kw: real_torch.tensor(v, **kw))


def as_numpy(t):
    return None if t is None else t.detach().numpy() if hasattr(t, "detach") else t.numpy()


@unittest.skipIf(real_torch is None, NO_TORCH)
class TorchAutograd(unittest.TestCase):
    def test_grad_is_none_until_backward_then_accumulates(self):
        def run(lib, tensor):
            x = tensor(X, requires_grad=True)
            seen = [x.grad is None, x.requires_grad, x.is_leaf]
            (x * x).sum().backward()
            first = x.grad.numpy().copy()
            (lib.sin(x) * 3).sum().backward()
            second = x.grad.numpy().copy()
            x.grad.zero_()
            zeroed = x.grad.numpy().copy()
            x.grad = None
            return seen, first, second, zeroed, x.grad is None
        ours, theirs = both(run)
        self.assertEqual(ours[0], theirs[0])
        for a, b in zip(ours[1:4], theirs[1:4]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        self.assertEqual(ours[4], theirs[4])

    def test_requires_grad_on_every_creation_function_and_requires_grad_(self):
        for name in ("ones", "zeros", "rand", "randn"):
            t = getattr(atorch, name)(2, 3, requires_grad=True)
            self.assertTrue(t.requires_grad, name)
            self.assertIsNone(t.grad, name)
        t = atorch.ones(2)
        self.assertFalse(t.requires_grad)
        self.assertIs(t.requires_grad_(), t)
        self.assertTrue(t.requires_grad)
        t.requires_grad_(False)
        self.assertFalse(t.requires_grad)

    def test_backward_with_a_gradient_for_a_non_scalar(self):
        g = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)

        def run(lib, tensor):
            x = tensor(X, requires_grad=True)
            (x * x).backward(gradient=tensor(g))
            return x.grad.numpy()
        ours, theirs = both(run)
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)

    def test_detach_and_an_update_under_no_grad(self):
        def run(lib, tensor):
            w = tensor(X, requires_grad=True)
            loss = (w * w).sum()
            loss.backward()
            with lib.no_grad():
                w -= 0.1 * w.grad
            d = (w * 2).detach()
            return w.detach().numpy(), d.requires_grad, w.requires_grad, d.numpy()
        ours, theirs = both(run)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
        self.assertEqual(ours[1:3], theirs[1:3])
        np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-6)

    def test_errors_are_pytorchs(self):
        for lib, tensor in ((atorch, atorch.tensor), (real_torch, real_torch.tensor)):
            x = tensor(X, requires_grad=True)
            with self.assertRaisesRegex(RuntimeError, "implicitly created only for scalar outputs"):
                (x * 2).backward()
            with self.assertRaisesRegex(RuntimeError, "does not require grad"):
                tensor(X).sum().backward()
            with self.assertRaisesRegex(RuntimeError, "leaf variables"):
                (x * 2).requires_grad_(False)

    def test_split_and_chunk_keep_the_graph(self):
        def grads(lib, t):
            x = t(X, requires_grad=True)
            a, b = (x * 2).chunk(2, dim=1)
            c = lib.split(x, [1, 2], dim=1)[1]
            (a.sum() * 3 + (b * b).sum() + c.exp().sum()).backward()
            return x.grad
        ours, theirs = both(grads)
        np.testing.assert_allclose(as_numpy(ours), as_numpy(theirs), rtol=1e-6)

    def test_a_leaf_prints_requires_grad(self):
        self.assertEqual(repr(atorch.tensor([1.0, 2.0], requires_grad=True)), repr(real_torch.tensor([1.0, 2.0], requires_grad=True)))


if __name__ == "__main__":
    unittest.main()


@unittest.skipIf(real_torch is None, NO_TORCH)
class TorchAutogradGrad(unittest.TestCase):
    """torch.autograd.grad beside the real one: gradients of one or several
    outputs with respect to leaves and to intermediate tensors, weighted by
    grad_outputs, without touching .grad; unused inputs; the graph freed
    unless retain_graph."""

    def test_gradients_with_respect_to_leaves_and_intermediates(self):
        def run(lib, tensor):
            x = tensor(X, requires_grad=True)
            w = tensor(X[0], requires_grad=True)
            h = lib.tanh(x * w)
            y = (h * h).sum()
            z = (x * 3).sum()
            gx, gh, gw = lib.autograd.grad(y, (x, h, w), retain_graph=True)
            both_heads = lib.autograd.grad([y, z], [x])
            weighted = lib.autograd.grad(x * 2, x, grad_outputs=tensor(X))
            return [gx, gh, gw, both_heads[0], weighted[0], x.grad, w.grad]
        ours, theirs = both(run)
        for a, b in zip(ours, theirs):
            if b is None:
                self.assertIsNone(a)
            else:
                np.testing.assert_allclose(as_numpy(a), as_numpy(b), rtol=1e-5, atol=1e-6)

    def test_unused_inputs_and_a_freed_graph(self):
        for lib, tensor in (atorch, atorch.tensor), (real_torch, real_torch.tensor):
            x = tensor(X, requires_grad=True)
            u = tensor(X, requires_grad=True)
            y = (x * x).sum()
            with self.assertRaises(RuntimeError):
                lib.autograd.grad(y, [x, u], retain_graph=True)
            gx, gu = lib.autograd.grad(y, [x, u], allow_unused=True)
            self.assertIsNone(gu)
            np.testing.assert_allclose(as_numpy(gx), 2 * X)
            with self.assertRaises(RuntimeError):
                lib.autograd.grad(y, [x])  # the graph went with the first grad without retain_graph
            with self.assertRaises(RuntimeError):
                lib.autograd.grad((tensor(X) * 2).sum(), [tensor(X)])
