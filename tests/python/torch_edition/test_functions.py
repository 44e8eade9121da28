"""The PyTorch edition's functions a reader writes beside the chapter,
against the real PyTorch on the same values: sum and mean with dim or the
axis/keepdims spelling, norm (function and method), the 1-D products dot
and mv (values and gradients), cat and stack (values and gradients), the
*_like creation functions, and a one-element tensor as a Python int, bool
or list. The MXNet edition's concat, stack and slice_axis against NumPy."""

import unittest

import numpy as np

from asyncscope import nd
from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

A = np.arange(12, dtype=np.float32).reshape(3, 4) / np.float32(4) - np.float32(1)
V = np.array([0.5, -1.0, 2.0, 1.5], dtype=np.float32)


def close(test, ours, theirs, what):
    test.assertEqual(tuple(ours.shape), tuple(theirs.shape), what)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=what)


@unittest.skipIf(real_torch is None, NO_TORCH)
class TorchFunctions(unittest.TestCase):
    def test_reductions_take_dim_or_axis(self):
        for lib_call in ("sum", "mean"):
            for kwargs in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"axis": 1, "keepdims": True},
                           {"axis": (0, 1)}):
                what = "%s(%s)" % (lib_call, kwargs)
                close(self, getattr(atorch.tensor(A), lib_call)(**kwargs),
                      getattr(real_torch.tensor(A), lib_call)(**kwargs), what)
                close(self, getattr(atorch, lib_call)(atorch.tensor(A), **kwargs),
                      getattr(real_torch, lib_call)(real_torch.tensor(A), **kwargs), "torch." + what)

    def test_products_as_methods_and_asynchronous_moves(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        x = atorch.tensor(a)
        np.testing.assert_allclose(x.mm(x.t()).numpy(), a @ a.T)
        np.testing.assert_allclose(x.mv(atorch.ones(3)).numpy(), a.sum(1))
        np.testing.assert_allclose(x.matmul(atorch.ones(3)).numpy(), a.sum(1))
        np.testing.assert_allclose(atorch.ones(3).dot(atorch.ones(3)).numpy(), 3.0)
        np.testing.assert_allclose(x.to("cpu", non_blocking=True).numpy(), a)

    def test_norm(self):
        for kwargs in ({}, {"p": 2}, {"p": "fro"}, {"dim": 1}, {"dim": 0, "keepdim": True}):
            close(self, atorch.norm(atorch.tensor(A), **kwargs), real_torch.norm(real_torch.tensor(A), **kwargs),
                  "norm(%s)" % kwargs)
            close(self, atorch.tensor(A).norm(**kwargs), real_torch.tensor(A).norm(**kwargs), "x.norm(%s)" % kwargs)
        close(self, atorch.norm(atorch.tensor(A), p=1), real_torch.norm(real_torch.tensor(A), p=1), "norm(p=1)")
        with self.assertRaisesRegex(ValueError, "p must be a number or 'fro'"):
            atorch.norm(atorch.tensor(A), p="nuc")

    def test_dot_and_mv_with_their_gradients(self):
        results = []
        for lib in (atorch, real_torch):
            m = lib.tensor(A, requires_grad=True)
            v = lib.tensor(V, requires_grad=True)
            y = lib.mv(m, v)
            z = lib.dot(y, lib.tensor(V[:3]))
            z.backward()
            results.append((y, z, m.grad, v.grad))
        for ours, theirs, what in zip(results[0], results[1], ("mv", "dot", "grad of the matrix", "grad of the vector")):
            close(self, ours, theirs, what)
        with self.assertRaisesRegex(RuntimeError, "1D tensors expected"):
            atorch.dot(atorch.tensor(A), atorch.tensor(A))

    def test_cat_and_stack_with_their_gradients(self):
        b = np.ones((3, 2), dtype=np.float32)
        results = []
        for lib in (atorch, real_torch):
            x = lib.tensor(A, requires_grad=True)
            y = lib.tensor(b, requires_grad=True)
            joined = lib.cat((x, y), dim=1)
            stacked = lib.stack([x, x * 2], dim=-1)
            (joined * joined).sum().backward()
            (stacked * stacked).sum().backward()
            results.append((joined, lib.cat([x, x], 0), stacked, x.grad, y.grad))
        for ours, theirs, what in zip(results[0], results[1], ("cat dim 1", "cat dim 0", "stack", "grad x", "grad y")):
            close(self, ours, theirs, what)
        self.assertEqual(tuple(atorch.concat([atorch.tensor(A)], dim=0).shape), A.shape)
        with self.assertRaisesRegex(RuntimeError, "cat: array 1"):
            atorch.cat((atorch.tensor(A), atorch.tensor(b)), dim=0)

    def test_like_functions_take_shape_and_device(self):
        x = atorch.tensor(A)
        for name in ("zeros_like", "ones_like", "rand_like", "randn_like"):
            ours = getattr(atorch, name)(x)
            theirs = getattr(real_torch, name)(real_torch.tensor(A))
            self.assertEqual(tuple(ours.shape), tuple(theirs.shape), name)
            self.assertEqual(ours.device, x.device, name)
            self.assertTrue(getattr(atorch, name)(x, requires_grad=True).requires_grad, name)
        close(self, atorch.zeros_like(x), real_torch.zeros_like(real_torch.tensor(A)), "zeros_like")
        close(self, atorch.ones_like(x), real_torch.ones_like(real_torch.tensor(A)), "ones_like")
        close(self, atorch.full_like(x, 7.5), real_torch.full_like(real_torch.tensor(A), 7.5), "full_like")
        u = atorch.rand_like(x).numpy()
        self.assertTrue(((u >= 0) & (u < 1)).all())
        np.testing.assert_array_equal(nd.zeros_like(nd.array(A)).asnumpy(), np.zeros_like(A))
        np.testing.assert_array_equal(nd.ones_like(nd.array(A)).asnumpy(), np.ones_like(A))

    def test_one_element_as_python_values(self):
        for v in (3.5, -2.7, 0.0):
            ours, theirs = atorch.tensor([v]), real_torch.tensor([v])
            self.assertEqual(int(ours), int(theirs))
            self.assertEqual(bool(ours), bool(theirs))
            self.assertEqual(float(ours), float(theirs))
        self.assertEqual(atorch.tensor(A).tolist(), real_torch.tensor(A).tolist())
        with self.assertRaisesRegex(RuntimeError, "ambiguous"):
            bool(atorch.tensor(A))


class MxnetJoins(unittest.TestCase):
    def test_concat_stack_and_slice_axis_match_numpy(self):
        a, b = nd.array(A), nd.array(A * 2)
        np.testing.assert_array_equal(nd.concat(a, b).asnumpy(), np.concatenate([A, A * 2], axis=1))  # dim=1 by default
        np.testing.assert_array_equal(nd.concat(a, b, dim=0).asnumpy(), np.concatenate([A, A * 2], axis=0))
        np.testing.assert_array_equal(nd.stack(a, b).asnumpy(), np.stack([A, A * 2]))
        np.testing.assert_array_equal(nd.stack(a, b, axis=2).asnumpy(), np.stack([A, A * 2], axis=2))
        np.testing.assert_array_equal(nd.slice_axis(a, axis=1, begin=1, end=3).asnumpy(), A[:, 1:3])
        np.testing.assert_array_equal(nd.slice_axis(a, axis=0, begin=-2, end=None).asnumpy(), A[-2:])


if __name__ == "__main__":
    unittest.main()
