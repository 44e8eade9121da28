"""dtypes and indexing in both editions. The PyTorch edition against the
real PyTorch on the same values: arange's and tensor()'s default types,
promotion, // and % on negative operands, comparisons and logical ops
giving bool, reductions' values and types (max with dim giving values and
indices), cumsum, casts (.float(), .long(), .to(dtype), .type()), item()
and tolist() of each type, printing of each type, and indexing (ints,
slices with steps, negative indices, None, Ellipsis) with assignment
through it; contiguous parts are views that write through. The MXNet edition against NumPy and MXNet's rules: float32 by
default, 0/1 comparisons of the operands' type, float32 argmax indices,
(1,)-shaped results where MXNet has no 0-d arrays."""

import itertools
import random
import unittest

import numpy as np

from asyncscope import nd
from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"


def same(test, ours, theirs, what):
    """Same shape, same dtype name, same values."""
    test.assertEqual(tuple(ours.shape), tuple(theirs.shape), what)
    test.assertEqual(repr(ours.dtype), repr(theirs.dtype), what)
    np.testing.assert_allclose(ours.numpy().astype(np.float64), theirs.detach().numpy().astype(np.float64),
                               rtol=1e-6, atol=1e-6, err_msg=what)


def both(make):
    return make(atorch), make(real_torch)


@unittest.skipIf(real_torch is None, NO_TORCH)
class TorchTypes(unittest.TestCase):
    def test_creation_defaults(self):
        for make in (lambda t: t.arange(12), lambda t: t.arange(4.0), lambda t: t.arange(1, 7, 2),
                     lambda t: t.arange(0, 1, 0.25), lambda t: t.arange(5, dtype=t.float32),
                     lambda t: t.tensor([1, 2, 3]), lambda t: t.tensor([1.5, 2]), lambda t: t.tensor([True, False]),
                     lambda t: t.tensor(np.arange(3, dtype=np.int32)), lambda t: t.tensor(np.ones(2)),
                     lambda t: t.from_numpy(np.arange(4, dtype=np.int64)), lambda t: t.zeros(2, 3, dtype=t.int64),
                     lambda t: t.ones(2, dtype=t.bool), lambda t: t.tensor(2.5), lambda t: t.tensor(7)):
            ours, theirs = both(make)
            same(self, ours, theirs, repr(theirs))

    def test_printing_of_each_type(self):
        for make in (lambda t: t.arange(12).reshape(3, 4), lambda t: t.arange(3) > 0,
                     lambda t: t.arange(4, dtype=t.float64) / 3, lambda t: t.arange(3).int(),
                     lambda t: t.arange(3).to(t.uint8), lambda t: t.tensor(-5), lambda t: t.arange(-3, 3)):
            ours, theirs = both(make)
            self.assertEqual(repr(ours), repr(theirs))

    def test_arithmetic_promotes_as_pytorch(self):
        values = np.array([7, -7, 7, -7, 0, 5])
        divisors = np.array([2, 2, -2, -2, 3, -3])
        for op in ("+", "-", "*", "/", "//", "%"):
            for left, right in (("i", "i"), ("i", "f"), ("f", "i"), ("i", "n"), ("i", "x"), ("f", "n"), ("b", "i")):
                def make(t, left=left, right=right, op=op):
                    a = t.tensor(values) if left == "i" else t.tensor(values.astype(np.float32)) \
                        if left == "f" else t.tensor(values > 0)
                    b = {"i": t.tensor(divisors), "f": t.tensor(divisors.astype(np.float32)), "n": 3, "x": 2.5}[right]
                    return eval("a %s b" % op)
                if op in ("-",) and left == "b":
                    continue
                ours, theirs = both(make)
                same(self, ours, theirs, "%s %s %s" % (left, op, right))

    def test_integer_division_by_zero_is_an_error_at_the_sync_point(self):
        q = atorch.arange(3) // atorch.zeros(3, dtype=atorch.int64)
        with self.assertRaisesRegex(RuntimeError, "division by zero"):
            q.numpy()
        with self.assertRaisesRegex(RuntimeError, "division by zero"):
            atorch.cuda.synchronize(atorch.device("cpu"))  # the run's first error since the last wait for all

    def test_comparisons_and_logic_give_bool(self):
        for expr in ("x == 2", "x > 1", "x <= y", "x != y", "(x > 1) & (y > 1)", "(x > 1) | (y > 3)", "~(x > 1)",
                     "(x > 1) ^ (y > 1)", "x == 2.5"):
            def make(t, expr=expr):
                x, y = t.arange(5), t.tensor([4, 3, 2, 1, 0])
                return eval(expr)
            ours, theirs = both(make)
            same(self, ours, theirs, expr)
        self.assertFalse(atorch.ones(2) == None)  # noqa: E711 (what PyTorch gives)

    def test_reductions_and_their_types(self):
        a = np.array([[3, 1, 4], [1, 5, 9]])
        for call in ("x.sum()", "x.sum(dim=0)", "x.max()", "x.min()", "x.argmax()", "x.argmin(dim=1)", "x.prod()",
                     "x.prod(1, keepdim=True)", "x.all()", "(x > 1).any(dim=0)", "x.cumsum(0)", "x.cumsum(dim=1)",
                     "t.cumsum(x.float(), 1)", "x.float().max(dim=1).values", "x.float().max(dim=1).indices",
                     "t.max(x, 1)[1]", "x.amax(dim=0)", "t.argmax(x.double())"):
            def make(t, call=call):
                x = t.tensor(a)
                return eval(call)
            ours, theirs = both(make)
            same(self, ours, theirs, call)

    def test_casts_items_and_lists(self):
        x = atorch.tensor([1.7, -2.2, 0.0])
        self.assertEqual(x.long().tolist(), [1, -2, 0])
        self.assertEqual(x.bool().tolist(), [True, True, False])
        self.assertEqual(x.int().dtype, atorch.int32)
        self.assertEqual(x.double().dtype, atorch.float64)
        self.assertEqual(x.to(atorch.int64).dtype, atorch.int64)
        self.assertEqual(x.type(), "torch.FloatTensor")
        self.assertEqual(x.long().type(), "torch.LongTensor")
        self.assertIs(x.float(), x)
        self.assertEqual(type(atorch.tensor(3).item()), int)
        self.assertEqual(type(atorch.tensor(True).item()), bool)
        self.assertEqual(type(atorch.tensor(2.5).item()), float)
        self.assertEqual(int(atorch.tensor(2 ** 40)), 2 ** 40)
        with self.assertRaisesRegex(TypeError, "must be torch.dtype"):
            x.to(dtype="int64")

    def test_where_clamp_and_matmul_with_vectors(self):
        for call in ("t.where(x > 0, x, t.zeros(3))", "t.clamp(x, min=-1, max=1)", "x.clamp(min=0)",
                     "m @ v", "v @ m.T", "v @ v", "t.matmul(m, v)"):
            def make(t, call=call):
                x = t.tensor([-2.0, 0.5, 3.0])
                m = t.arange(6, dtype=t.float32).reshape(2, 3)
                v = t.tensor([1.0, -1.0, 2.0])
                return eval(call)
            ours, theirs = both(make)
            same(self, ours, theirs, call)

    def test_indexing_reads_as_pytorch(self):
        keys = [0, -1, 2, slice(None), slice(1, 3), slice(None, None, 2), slice(-2, None), slice(3, 1),
                (1, 2), (slice(None), 1), (Ellipsis, 0), (None, 1), (slice(None, None, 3), slice(1, None, 2)),
                (-1, slice(None, -1)), (Ellipsis,), (1, None, slice(None))]
        for key in keys:
            def make(t, key=key):
                return t.arange(24).reshape(4, 6)[key]
            ours, theirs = both(make)
            same(self, ours, theirs, "x[%r]" % (key,))
        with self.assertRaisesRegex(IndexError, "out of bounds"):
            atorch.arange(3)[3]
        with self.assertRaisesRegex(IndexError, "too many indices"):
            atorch.arange(3)[0, 0]

    def test_assignment_through_indices_writes_in_place(self):
        cases = [((1, 2), 17), ((slice(None, 2), slice(None)), 12), (slice(None), 0), ((slice(None), 1), -1.9),
                 ((slice(None, None, 2), slice(1, None, 2)), "row"), (-1, "row")]
        for key, value in cases:
            def make(t, key=key, value=value):
                x = t.arange(12, dtype=t.float32).reshape(3, 4)
                same_object = x
                v = t.tensor([10.0, 20.0]) if value == "row" and key != -1 else \
                    t.tensor([1.0, 2.0, 3.0, 4.0]) if value == "row" else value
                x[key] = v
                assert same_object is x
                return x
            ours, theirs = both(make)
            same(self, ours, theirs, "x[%r] = %r" % (key, value))
        x = atorch.arange(4)
        x[1] = 2.7  # cast to the tensor's type
        self.assertEqual(x.tolist(), [0, 2, 2, 3])

    def test_integer_in_place_updates(self):
        for expr in ("x += 1", "x *= 3", "x -= y"):
            def make(t, expr=expr):
                x, y = t.arange(4), t.tensor([1, 1, 2, 2])
                exec(expr)
                return x
            ours, theirs = both(make)
            same(self, ours, theirs, expr)
        x = atorch.arange(3)
        with self.assertRaisesRegex(RuntimeError, "cannot be stored in place"):
            x += 0.5

    def test_float64_autograd(self):
        a = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
        b = np.array([0.5, -1.0, 2.0])
        grads = []
        for t in (atorch, real_torch):
            x = t.tensor(a, requires_grad=True)
            y = t.tensor(b, requires_grad=True)
            z = (x * y + x.exp() - y.sin() / 3).sum() + x[1, 2] * 2 + x.max()
            z.backward()
            grads.append((x.grad, y.grad))
        for ours, theirs in zip(grads[0], grads[1]):
            same(self, ours, theirs, "float64 gradient")

    def test_shape_and_creation_functions(self):
        a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 5 - 2
        for call in ("x.unsqueeze(0)", "t.unsqueeze(x, -1)", "x[:, :1].squeeze()", "x[:, :1].squeeze(1)",
                     "x.squeeze(0)", "x.flatten()", "t.flatten(x, 1)", "x.view(6, 4)", "x.view(-1)",
                     "x.permute(2, 0, 1)", "t.permute(x, (1, 0, 2))", "x.transpose(0, 2)", "x.swapaxes(1, 2)",
                     "x[0].t()", "x.flip(0)", "t.flip(x, (1, 2))", "x[:, :1].expand(2, 3, 4)",
                     "x[0, 0].expand(2, -1)", "x.std()", "x.var(dim=1)", "x.std(2, unbiased=False, keepdim=True)",
                     "x.softmax(-1)", "t.log_softmax(x, 1)", "t.outer(x[0, 0], x[0, 1])",
                     "t.linspace(0, 1, 5)", "t.linspace(-2, 3, 7)", "t.eye(3)", "t.eye(2, 4, dtype=t.int64)"):
            def make(t, call=call):
                return eval(call, {"t": t, "x": t.tensor(a)})
            ours, theirs = both(make)
            same(self, ours, theirs, call)
        for call in ("x.split(2, dim=2)", "t.split(x, [1, 2], 1)", "x.chunk(3, 1)", "t.chunk(x, 2, dim=-1)"):
            ours = eval(call, {"t": atorch, "x": atorch.tensor(a)})
            theirs = eval(call, {"t": real_torch, "x": real_torch.tensor(a)})
            self.assertEqual(len(ours), len(theirs), call)
            for o, th in zip(ours, theirs):
                same(self, o, th, call)
        r = atorch.randint(3, 9, (2000,))
        self.assertEqual(r.dtype, atorch.int64)
        values = r.numpy()
        self.assertEqual((values.min(), values.max()), (3, 8))
        self.assertEqual(sorted(set(values.tolist())), list(range(3, 9)))

    def test_integer_array_and_mask_indexing(self):
        a = np.arange(24, dtype=np.float32).reshape(4, 6) / 3
        keys = [[0, 2], [-1, 0, 0], (range(3), [1, 2, 5]), (np.array([1, 3]), slice(None)), (0, [1, 4]),
                ([[0], [3]], [1, 2]), (Ellipsis,), (slice(None), [0, 2]), (slice(1, None), [5, 0], Ellipsis),
                (slice(None, None, 2), [[0], [3]]), (slice(None), np.array([True, False, True, False, True, False])),
                (slice(0, 0), [1]), (slice(None), 3)]
        for key in keys:
            def make(t, key=key):
                return t.tensor(a)[key]
            ours, theirs = both(make)
            same(self, ours, theirs, "x[%r]" % (key,))
        for make in (lambda t: t.tensor(a)[t.tensor(a) > 4], lambda t: t.tensor(a)[t.tensor([True, False, True, False])],
                     lambda t: t.tensor(a)[t.tensor([2, 0])], lambda t: t.tensor(a)[[]]):
            ours, theirs = both(make)
            same(self, ours, theirs, "mask/tensor index")
        for key, value in (((t_mask := (a > 4)), 0.0), ([1, 3], -1.0), ((range(2), [5, 0]), 7.0),
                           ((slice(None), [0, 2]), 5.0), ((slice(1, 3), [[4], [1]]), -2.0)):
            def assign(t, key=key, value=value):
                x = t.tensor(a)
                x[t.tensor(key) if isinstance(key, np.ndarray) else key] = value
                return x
            ours, theirs = both(assign)
            same(self, ours, theirs, "x[%r] = %r" % (key, value))
        # The gather of softmax regression's loss, with its gradient.
        grads = []
        for t in (atorch, real_torch):
            y_hat = t.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]], requires_grad=True)
            y = t.tensor([0, 2])
            loss = -t.log(y_hat[range(len(y_hat)), y]).sum()
            loss.backward()
            grads.append(y_hat.grad)
        same(self, grads[0], grads[1], "gradient of -log(y_hat[range(n), y])")
        with self.assertRaises(IndexError):
            atorch.tensor(a)[[0, 1], 1:]

    def test_norms_repeats_batches_and_pickling(self):
        a = np.arange(-6, 6, dtype=np.float32).reshape(3, 4) / 4
        for call in ("x.norm(p=1)", "t.norm(x, p=float('inf'), dim=1)", "x.norm(p=3, dim=0, keepdim=True)",
                     "x.norm(p=0)", "x.repeat(2, 1)", "x.repeat(1, 2, 3)", "t.tile(x, (2,))", "x.repeat_interleave(2)",
                     "t.repeat_interleave(x, 3, dim=1)", "t.bmm(x.reshape(3, 4, 1), x.reshape(3, 1, 4))"):
            def make(t, call=call):
                return eval(call, {"t": t, "x": t.tensor(a)})
            ours, theirs = both(make)
            same(self, ours, theirs, call)
        p = atorch.randperm(50)
        self.assertEqual(p.dtype, atorch.int64)
        self.assertEqual(sorted(p.tolist()), list(range(50)))
        n = atorch.normal(1.0, 0.5, (20000,)).numpy()
        self.assertAlmostEqual(float(n.mean()), 1.0, delta=0.02)
        self.assertAlmostEqual(float(n.std()), 0.5, delta=0.02)
        import pickle
        for x in (atorch.tensor(a), atorch.arange(5), atorch.tensor([True, False])):
            y = pickle.loads(pickle.dumps(x))
            same(self, y, real_torch.tensor(x.numpy()), "pickled")

    def test_grad_fn_is_printed_as_pytorch_prints_it(self):
        for make in (lambda t: 2 * t.dot(t.arange(4.0, requires_grad=True), t.arange(4.0)),
                     lambda t: t.arange(4.0, requires_grad=True).sum(),
                     lambda t: (t.ones(2, 2, requires_grad=True) * 3).mean(),
                     lambda t: t.exp(t.ones(2, requires_grad=True)),
                     lambda t: t.ones(2, requires_grad=True) + 1):
            ours, theirs = both(make)
            self.assertEqual(repr(ours), repr(theirs))
            self.assertEqual(ours.grad_fn.name(), theirs.grad_fn.name())
        self.assertIsNone(atorch.ones(2, requires_grad=True).grad_fn)
        with atorch.no_grad():
            self.assertNotIn("grad_fn", repr(atorch.ones(2, requires_grad=True) * 2))

    def test_random_indexing_sweep(self):
        rng = random.Random(7)
        shape = (3, 4, 5)
        base_np = np.arange(60).reshape(shape)
        for _ in range(150):
            key = []
            for d in shape[:rng.randrange(1, 4)]:
                if rng.random() < 0.2:
                    key.append(None)
                kind = rng.choice(["int", "slice", "all"])
                if kind == "int":
                    key.append(rng.randrange(-d, d))
                elif kind == "slice":
                    key.append(slice(rng.choice([None, rng.randrange(-d, d)]), rng.choice([None, rng.randrange(-d, d + 1)]),
                                     rng.choice([None, 1, 2, -1, -2])))
                else:
                    key.append(slice(None))
            key = tuple(key)
            if sum(1 for k in key if k is None) + len(shape) - sum(1 for k in key if isinstance(k, int)) > 4:
                continue
            theirs = base_np[key]
            ours = atorch.tensor(base_np)[key]
            self.assertEqual(tuple(ours.shape), theirs.shape, key)
            np.testing.assert_array_equal(ours.numpy(), theirs, err_msg=str(key))


class MXNetTypes(unittest.TestCase):
    def test_nd_defaults_and_comparisons(self):
        x = nd.arange(5)
        self.assertEqual(x.dtype, np.float32)
        np.testing.assert_array_equal(x.asnumpy(), np.arange(5, dtype=np.float32))
        self.assertEqual(nd.arange(2, 10, 3, dtype="int32").asnumpy().tolist(), [2, 5, 8])
        self.assertEqual(nd.arange(2, 10, 3, dtype="int32").dtype, np.int32)
        self.assertEqual(nd.array([1, 2]).dtype, np.float32)
        self.assertEqual((x > 2).dtype, np.float32)
        i = x.astype("int64")
        self.assertEqual(i.dtype, np.int64)
        self.assertEqual((i == 2).asnumpy().tolist(), [0, 0, 1, 0, 0])
        self.assertEqual((i // 2).asnumpy().tolist(), [0, 0, 1, 1, 2])
        self.assertEqual((i % 3).asnumpy().tolist(), [0, 1, 2, 0, 1])

    def test_nd_reductions(self):
        a = nd.array([[3, 1, 4], [1, 5, 9]])
        self.assertEqual(a.argmax(axis=1).asnumpy().tolist(), [2.0, 2.0])
        self.assertEqual(a.argmax(axis=1).dtype, np.float32)
        self.assertEqual(a.max().shape, (1,))
        self.assertEqual(a.max().asscalar(), 9.0)
        self.assertEqual(nd.min(a, axis=0).asnumpy().tolist(), [1.0, 1.0, 4.0])
        self.assertEqual(a.prod(axis=1).asnumpy().tolist(), [12.0, 45.0])

    def test_nd_shape_and_creation_functions(self):
        a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        x = nd.array(a)
        np.testing.assert_array_equal(nd.expand_dims(x, 1).asnumpy(), np.expand_dims(a, 1))
        np.testing.assert_array_equal(nd.squeeze(x[:, :1]).asnumpy(), np.squeeze(a[:, :1]))
        np.testing.assert_array_equal(nd.swapaxes(x, 0, 2).asnumpy(), np.swapaxes(a, 0, 2))
        np.testing.assert_array_equal(nd.flip(x, axis=1).asnumpy(), np.flip(a, 1))
        parts = nd.split(x, num_outputs=2, axis=2)
        for ours, theirs in zip(parts, np.split(a, 2, axis=2)):
            np.testing.assert_array_equal(ours.asnumpy(), theirs)
        np.testing.assert_allclose(nd.linspace(0, 1, 5).asnumpy(), np.linspace(0, 1, 5, dtype=np.float32))
        np.testing.assert_array_equal(nd.eye(3).asnumpy(), np.eye(3, dtype=np.float32))
        r = nd.random.randint(0, 4, shape=(500,)).asnumpy()
        self.assertEqual(sorted(set(r.tolist())), [0, 1, 2, 3])

    def test_nd_repeats_batches_shuffles_and_pickling(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        np.testing.assert_array_equal(nd.tile(nd.array(a), (2, 1)).asnumpy(), np.tile(a, (2, 1)))
        np.testing.assert_array_equal(nd.repeat(nd.array(a), 2, axis=0).asnumpy(), np.repeat(a, 2, axis=0))
        b = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        c = np.arange(8, dtype=np.float32).reshape(2, 4, 1)
        np.testing.assert_allclose(nd.batch_dot(nd.array(b), nd.array(c)).asnumpy(), b @ c)
        np.testing.assert_allclose(nd.batch_dot(nd.array(b), nd.array(b), transpose_a=True).asnumpy(),
                                   b.transpose(0, 2, 1) @ b)
        np.testing.assert_allclose(nd.batch_dot(nd.array(c), nd.array(b), True, True).asnumpy(),
                                   c.transpose(0, 2, 1) @ b.transpose(0, 2, 1))
        s = nd.random.shuffle(nd.array(a)).asnumpy()
        self.assertEqual(sorted(map(tuple, s.tolist())), sorted(map(tuple, a.tolist())))
        import pickle
        x = pickle.loads(pickle.dumps(nd.arange(4, dtype="int32")))
        self.assertEqual((x.dtype, x.asnumpy().tolist()), (np.int32, [0, 1, 2, 3]))

    def test_nd_indexing(self):
        x = nd.arange(12).reshape((3, 4))
        np.testing.assert_array_equal(x[1].asnumpy(), np.arange(4, 8))
        np.testing.assert_array_equal(x[1:3].asnumpy(), np.arange(4, 12).reshape(2, 4))
        np.testing.assert_array_equal(x[:, 1].asnumpy(), [1, 5, 9])
        self.assertEqual(x[1, 2].shape, (1,))  # MXNet has no 0-d arrays
        x[1, 2] = 9
        x[0:2, :] = 12
        expect = np.arange(12, dtype=np.float32).reshape(3, 4)
        expect[1, 2] = 9
        expect[0:2, :] = 12
        np.testing.assert_array_equal(x.asnumpy(), expect)
        y = nd.ones((2, 3))
        before = id(y)
        y[:] = x[1:, :3]
        self.assertEqual(id(y), before)
        np.testing.assert_array_equal(y.asnumpy(), expect[1:, :3])


if __name__ == "__main__":
    unittest.main()


@unittest.skipIf(real_torch is None, NO_TORCH)
class Views(unittest.TestCase):
    """Basic indexing whose result lies contiguous in the array (x[1],
    x[1:3], x[2, 1:3]) gives a view: writes through it reach the array and
    writes to the array are seen through it, as in PyTorch, NumPy and
    MXNet. Each script runs in both PyTorch editions and the results match."""

    def check(self, script):
        ours, theirs = script(atorch), script(real_torch)
        self.assertEqual(len(ours), len(theirs))
        for (what, a), (_, b) in zip(ours, theirs):
            same(self, a, b, what)

    def test_a_slice_of_rows_writes_through(self):
        def script(t):
            x = t.arange(12).reshape(3, 4)
            x[1:3][:] = 0
            y = x[0]
            y += 100
            x[0, 0] = -5
            z = x[2, 1:3]
            z.mul_(7)
            z.add_(1)
            return [("x", x), ("y", y), ("z", z)]
        self.check(script)

    def test_strided_parts_write_through_too(self):
        def script(t):
            x = t.arange(20).reshape(4, 5)
            col = x[:, 1]
            col[:] = 0
            col += 3
            x[2, 1] = 99
            corners = x[::3, ::4]
            corners.mul_(-1)
            every_other = x[1, ::2]
            every_other.copy_(t.tensor([7, 8, 9]))
            block = x[1:3, 2:4]
            block.fill_(-5)
            seen = col + 0
            return [("x", x), ("col", col), ("corners", corners), ("seen", seen), ("sum", block.sum()),
                    ("flat", corners.reshape(-1))]
        self.check(script)

    def test_a_view_of_a_float_row_and_reshape_of_it(self):
        def script(t):
            x = t.zeros(4, 3)
            r = x[1].reshape(3, 1)
            r.fill_(2.5)
            x[1:] += 1
            v = x[3:4].view(-1)
            v.zero_()
            return [("x", x), ("r", r), ("v", v)]
        self.check(script)

    def test_an_input_overlapping_the_written_part_is_refused_as_pytorch_does(self):
        for t in atorch, real_torch:
            x = t.arange(8.0)
            with self.assertRaisesRegex(RuntimeError, "single memory location"):
                x[1:] = x[:-1]
            m = t.arange(6.0).reshape(2, 3)
            with self.assertRaisesRegex(RuntimeError, "single memory location"):
                m += m[0]
            with self.assertRaisesRegex(RuntimeError, "single memory location"):
                m.add_(m[1])

        def script(t):
            x = t.arange(8.0)
            x[1:] = x[:-1].clone()
            m = t.arange(6.0).reshape(2, 3)
            m += m  # the same elements: allowed
            m[0] = m[0]
            m[1, :2] = m[0, 1:]  # disjoint parts: allowed
            return [("x", x), ("m", m)]
        self.check(script)

    def test_in_place_variants(self):
        def script(t):
            x = t.arange(6.0).reshape(2, 3)
            y = x[1]
            y.add_(t.ones(3), alpha=2).mul_(3).sub_(1).div_(2)
            x.clamp_(min=1.5, max=9).sqrt_().neg_().abs_()
            z = t.tensor([-1.5, 0.25, 2.0])
            z.exp_().log_().relu_().pow_(2).sigmoid_().round_()
            w = t.zeros(2, 3)
            w.copy_(t.tensor([1, 2, 3]))
            return [("x", x), ("y", y), ("z", z), ("w", w)]
        self.check(script)
        for t in atorch, real_torch:
            with self.assertRaisesRegex(RuntimeError, "can't be cast to the desired output type Long"):
                t.arange(3).exp_()

    def test_numpy_editions_read_an_overlapping_input_first(self):
        from asyncscope import np as anp
        x = anp.arange(8)
        x[1:] = x[:-1]
        expected = np.arange(8, dtype=np.float32)
        expected[1:] = expected[:-1]
        np.testing.assert_array_equal(x.asnumpy(), expected)
        m = anp.arange(6).reshape(2, 3)
        m += m[0]
        e = np.arange(6, dtype=np.float32).reshape(2, 3)
        e += e[0]
        np.testing.assert_array_equal(m.asnumpy(), e)

    def test_indexing_a_tensor_that_needs_a_gradient_keeps_the_graph(self):
        def script(t):
            w = t.arange(6.0).reshape(2, 3).requires_grad_()
            loss = (w[1] * w[1]).sum()
            loss.backward()
            return [("grad", w.grad)]
        self.check(script)

    def test_mxnet_editions_give_views_of_contiguous_parts(self):
        a = nd.arange(10)
        b = a[2:5]
        b[:] = 1
        np.testing.assert_array_equal(a.asnumpy(), [0, 1, 1, 1, 1, 5, 6, 7, 8, 9])
        m = nd.arange(6).reshape((2, 3))
        row = m[1]
        m[1, 0] = 42
        np.testing.assert_array_equal(row.asnumpy(), [42, 4, 5])
        from asyncscope import np as anp
        c = anp.arange(6).reshape(2, 3)
        d = c[1]
        d += 10
        expected = np.arange(6, dtype=np.float32).reshape(2, 3)
        e = expected[1]
        e += 10
        np.testing.assert_array_equal(c.asnumpy(), expected)
        # MXNet's arrays have no strides: a strided part is a copy, as there.
        m = nd.arange(6).reshape((2, 3))
        col = m[:, 1]
        col[:] = -1
        np.testing.assert_array_equal(m.asnumpy(), np.arange(6).reshape(2, 3))


class Sampling(unittest.TestCase):
    """multinomial and choice in the three editions: each category drawn about
    as often as its weight says, no repeats without replacement, and the
    same draws again after the same seed (checked by distribution and
    reproducibility, not against another library's stream)."""

    def test_draws_follow_the_weights(self):
        weights = [0.1, 0.0, 0.6, 0.3]
        n = 40000
        counts = np.bincount(atorch.multinomial(atorch.tensor(weights), n, replacement=True).numpy(), minlength=4)
        for c, w in enumerate(weights):
            # 5 standard deviations of a binomial count.
            self.assertLess(abs(counts[c] - n * w), 5 * (n * w * (1 - w)) ** 0.5 + 1, (c, counts))
        from asyncscope import np as anp
        picks = anp.random.choice(anp.array([10.0, 20.0, 30.0]), n, p=[0.5, 0.25, 0.25]).asnumpy()
        self.assertLess(abs((picks == 10).sum() - n / 2), 5 * (n / 4) ** 0.5)
        rows = nd.random.multinomial(nd.array([[0.0, 1.0], [1.0, 0.0]]), shape=(2, 3))
        self.assertEqual(rows.shape, (2, 2, 3))
        self.assertEqual(rows.dtype, np.int32)
        np.testing.assert_array_equal(rows.asnumpy()[0], np.ones((2, 3)))
        np.testing.assert_array_equal(rows.asnumpy()[1], np.zeros((2, 3)))

    def test_without_replacement_no_category_repeats(self):
        for _ in range(20):
            draw = atorch.multinomial(atorch.ones(3, 10), 10).numpy()
            self.assertEqual(draw.shape, (3, 10))
            for row in draw:
                self.assertEqual(sorted(row.tolist()), list(range(10)))
        from asyncscope import np as anp
        s = anp.random.choice(6, (2, 3), replace=False).asnumpy()
        self.assertEqual(sorted(s.ravel().tolist()), list(range(6)))
        # A zero weight is never drawn, even without replacement.
        first = atorch.multinomial(atorch.tensor([0.0, 1.0, 1.0]), 2).numpy()
        self.assertNotIn(0, first.tolist())

    def test_refusals(self):
        with self.assertRaisesRegex(RuntimeError, "without replacement"):
            atorch.multinomial(atorch.ones(3), 4)
        with self.assertRaisesRegex(RuntimeError, "floating-point dtypes"):
            atorch.multinomial(atorch.ones(3, dtype=atorch.int64), 1)
        from asyncscope import OpError
        with self.assertRaisesRegex(OpError, "element < 0"):
            atorch.multinomial(atorch.tensor([1.0, -1.0]), 1).numpy()
        try:
            nd.waitall()  # the run's first error since the last waitall: forget it here
        except OpError:
            pass
        from asyncscope import np as anp
        with self.assertRaisesRegex(ValueError, "larger sample"):
            anp.random.choice(3, 4, replace=False)

    def test_the_same_seed_draws_the_same_again(self):
        from asyncscope import np as anp

        def draws():
            return [atorch.multinomial(atorch.ones(50), 5).tolist(), atorch.randn(4).tolist(),
                    atorch.randperm(6).tolist(), anp.random.choice(100, 5).asnumpy().tolist(),
                    nd.random.uniform(shape=(3,)).asnumpy().tolist()]
        atorch.manual_seed(7)
        first = draws()
        anp.random.seed(7)
        self.assertEqual(draws(), first)
        nd.random.seed(8)
        self.assertNotEqual(draws(), first)
