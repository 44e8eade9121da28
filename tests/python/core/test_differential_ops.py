"""A differential sweep of the typed ops: the PyTorch edition against the
real PyTorch, and MXNet's np interface against NumPy, on random shapes
(0-d, empty, broadcasting pairs) and every pair of dtypes (every dtype for
the elementwise functions): the same values,
shape and dtype, or the same exception class when the framework refuses.
The default run samples the combinations (seeded, a few hundred cases);
ASYNCSCOPE_EXHAUSTIVE=1 (the `python.DifferentialExhaustive` test, labelled
stress) runs all of them."""

import itertools
import os
import random
import unittest

import numpy as onp

from asyncscope import np as anp
from asyncscope import npx
from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

EXHAUSTIVE = os.environ.get("ASYNCSCOPE_EXHAUSTIVE") == "1"
DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool"]
SHAPE_PAIRS = [((), ()), ((3,), ()), ((), (4,)), ((2, 3), (2, 3)), ((2, 1), (1, 4)), ((3, 1, 2), (4, 1)),
               ((0,), (0,)), ((2, 0), (1, 0)), ((0, 3), (3,)), ((5,), (1,)), ((2, 3), (3, 2))]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">="]
REDUCTIONS = ["sum", "prod", "max", "min", "argmax", "argmin", "all", "any"]
UNARY = ["abs", "neg", "sign", "sqrt", "exp", "log", "log1p", "sin", "cos", "tanh", "sigmoid", "relu", "floor", "ceil",
         "round", "square", "expm1", "asin", "acos", "atan", "sinh", "cosh", "erf"]


def values(rng, shape, dtype):
    """Small values, no zeros in the integer types (// and % by zero are refused differently)."""
    v = rng.integers(1, 5, size=shape) * rng.choice([-1, 1], size=shape)
    if dtype == "bool":
        return v > 0
    if dtype == "uint8":
        return onp.abs(v).astype(onp.uint8)
    if dtype.startswith("float"):
        return (v + rng.uniform(-0.4, 0.4, size=shape)).astype(dtype)
    return v.astype(dtype)


def cases(kind):
    if kind == "binary":
        every = list(itertools.product(BINARY, DTYPES, DTYPES, SHAPE_PAIRS))
        count = 300
    else:
        every = list(itertools.product(REDUCTIONS, DTYPES, [(), (4,), (2, 3), (0, 3), (2, 3, 4)], [None, 0, -1]))
        count = 120
    if EXHAUSTIVE:
        return every
    return random.Random(11).sample(every, min(count, len(every)))


class Drained(unittest.TestCase):
    """Ops refused at the sync point (an integer division by zero) stay the
    run's first error until a waitall: each test takes them with it."""

    def tearDown(self):
        try:
            npx.waitall()
        except RuntimeError:
            pass


def outcome(fn, materialize):
    """The value, or the exception, including one raised at the sync point
    (an op's error, such as an integer to a negative power, is the
    engine's at the sync point where PyTorch's CPU ops raise at the call)."""
    try:
        value = fn()
        return "value", (value, materialize(value))
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return "error", e


@unittest.skipIf(real_torch is None, NO_TORCH)
class TorchDifferential(Drained):
    def check(self, what, ours_fn, theirs_fn):
        ours = outcome(ours_fn, lambda t: t.numpy())
        theirs = outcome(theirs_fn, lambda t: t.detach().numpy())
        if theirs[0] == "error":
            self.assertEqual(ours[0], "error", "%s: PyTorch refuses (%s), asyncscope gave %r" % (what, theirs[1], ours[1]))
            self.assertIsInstance(ours[1], type(theirs[1]), "%s: %r vs %r" % (what, ours[1], theirs[1]))
            return
        self.assertEqual(ours[0], "value", "%s: asyncscope refused: %r" % (what, ours[1]))
        (got, g), (want, w) = ours[1], theirs[1]
        self.assertEqual(tuple(got.shape), tuple(want.shape), what)
        self.assertEqual(repr(got.dtype), repr(want.dtype), what)
        g, w = g.astype(onp.float64), w.astype(onp.float64)
        onp.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-5, equal_nan=True, err_msg=what)

    def test_binary_operators(self):
        rng = onp.random.default_rng(5)
        for op, ta, tb, (sa, sb) in cases("binary"):
            a, b = values(rng, sa, ta), values(rng, sb, tb)
            what = "%s%s %s %s%s" % (ta, sa, op, tb, sb)
            self.check(what, lambda: eval("x %s y" % op, {"x": atorch.tensor(a), "y": atorch.tensor(b)}),
                       lambda: eval("x %s y" % op, {"x": real_torch.tensor(a), "y": real_torch.tensor(b)}))

    def test_binary_operators_with_python_numbers(self):
        rng = onp.random.default_rng(6)
        for op, t, number in itertools.product(BINARY, DTYPES, [2, -3, 1.5, True]):
            if not EXHAUSTIVE and rng.random() < 0.5:
                continue
            a = values(rng, (2, 3), t)
            what = "%s %s %r" % (t, op, number)
            self.check(what, lambda: eval("x %s n" % op, {"x": atorch.tensor(a), "n": number}),
                       lambda: eval("x %s n" % op, {"x": real_torch.tensor(a), "n": number}))

    def test_reductions(self):
        rng = onp.random.default_rng(7)
        for name, t, shape, dim in cases("reduce"):
            a = values(rng, shape, t)
            kwargs = {} if dim is None else {"dim": dim}
            what = "%s%s.%s(%s)" % (t, shape, name, kwargs)

            def ours():
                r = getattr(atorch.tensor(a), name)(**kwargs)
                return r[0] if isinstance(r, tuple) else r

            def theirs():
                r = getattr(real_torch.tensor(a), name)(**kwargs)
                return r[0] if isinstance(r, tuple) else r
            self.check(what, ours, theirs)

    def test_elementwise_functions(self):
        rng = onp.random.default_rng(10)
        for name, t in itertools.product(UNARY, DTYPES):
            a = values(rng, (2, 3), t)
            if t.startswith("float") and name in ("sqrt", "log", "log1p"):
                a = onp.abs(a)
            self.check("%s(%s)" % (name, t), lambda: getattr(atorch, name)(atorch.tensor(a)),
                       lambda: getattr(real_torch, name)(real_torch.tensor(a)))

    def test_casts(self):
        rng = onp.random.default_rng(8)
        for ta, tb in itertools.product(DTYPES, DTYPES):
            a = values(rng, (7,), ta)
            dt_ours, dt_theirs = getattr(atorch, tb), getattr(real_torch, tb)
            self.check("%s to %s" % (ta, tb), lambda: atorch.tensor(a).to(dt_ours),
                       lambda: real_torch.tensor(a).to(dt_theirs))


class NumPyDifferential(Drained):
    """MXNet's np against NumPy, for arrays of one type (NumPy promotes
    mixed int/float pairs to float64 where MXNet keeps float32)."""

    def test_binary_operators(self):
        rng = onp.random.default_rng(9)
        for op, t, _, (sa, sb) in cases("binary"):
            if t == "bool" and op in ("-", "/", "//", "%", "**"):
                continue
            a, b = values(rng, sa, t), values(rng, sb, t)
            if op == "**" and t != "bool" and not t.startswith("float"):
                b = onp.abs(b)  # NumPy refuses negative integer powers at the call (ValueError), the engine at the sync point
            what = "%s%s %s %s%s" % (t, sa, op, t, sb)
            try:
                onp.broadcast_shapes(sa, sb)
            except ValueError:
                if op in ("==", "!="):
                    continue  # NumPy answers a scalar False/True here, with a warning
            try:
                want = eval("x %s y" % op, {"x": a, "y": b})
            except Exception as e:  # noqa: BLE001
                with self.assertRaises(type(e), msg=what):
                    eval("x %s y" % op, {"x": anp.array(a), "y": anp.array(b)}).asnumpy()
                continue
            got = eval("x %s y" % op, {"x": anp.array(a, dtype=t), "y": anp.array(b, dtype=t)})
            want = onp.asarray(want)
            if want.dtype == onp.float64 and t not in ("float64",):
                want = want.astype(onp.float32)  # MXNet: true division of integers gives float32
            if want.dtype == onp.int8 or want.dtype == onp.int16:
                continue
            self.assertEqual(got.shape, want.shape, what)
            self.assertEqual(got.dtype, want.dtype, what)
            onp.testing.assert_allclose(got.asnumpy().astype(onp.float64), want.astype(onp.float64), rtol=2e-5,
                                        atol=1e-5, err_msg=what)


if __name__ == "__main__":
    unittest.main()
