"""The op table behind both editions (`asyncscope ops`): every name it gives
a frontend is there; each elementwise function made from it, as a module
function and as an array method, against NumPy (the MXNet edition) and
against the real PyTorch (the PyTorch edition) on the same values, with
each framework's rounding rule, the gradients autograd records for them,
and `asyncscope ops` on the command line."""

import json
import math
import os
import subprocess
import unittest

import numpy as np

import asyncscope
from asyncscope import _core, autograd, nd
from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))

TABLE = _core.op_table()
UNARY = [op for op in TABLE if op["kind"] == "unary"]
BINARY = [op for op in TABLE if op["kind"] == "binary"]

# NumPy's function for each engine op (MXNet's nd.round rounds halves away
# from zero, as NumPy has no function for).
NUMPY = {
    "negative": np.negative, "relu": lambda x: np.maximum(x, np.float32(0)), "square": np.square,
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log1p": np.log1p, "abs": np.abs, "sign": np.sign,
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "floor": np.floor, "ceil": np.ceil, "rint": np.rint,
    "round": lambda x: np.sign(x) * np.floor(np.abs(x) + np.float32(0.5)),
    "expm1": np.expm1, "arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "erf": np.vectorize(math.erf, otypes=[np.float64]),
}


NUMPY_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum,
    "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "less": np.less, "less_equal": np.less_equal, "floor_divide": np.floor_divide, "mod": np.mod,
    "logical_and": np.logical_and,
}


def binary_inputs(op, seed=0):
    """A (3, 1) and a (1, 4) operand (broadcasting), with ties for the
    comparisons and a positive base for pow."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (3, 1)).astype(np.float32) + np.float32(0.5)
    b = rng.integers(-3, 4, (1, 4)).astype(np.float32) + np.float32(0.5)
    if op == "pow":
        a = np.abs(a) + np.float32(0.25)
    b[0, 0] = a[0, 0]  # a tie
    return a, b


def inputs(op, n=64, seed=0):
    rng = np.random.default_rng(seed)
    if op in ("sqrt", "log"):
        x = rng.uniform(0.01, 4.0, n)
    elif op == "log1p":
        x = rng.uniform(-0.99, 4.0, n)
    elif op in ("arcsin", "arccos"):
        x = rng.uniform(-0.99, 0.99, n)
    else:
        x = rng.uniform(-4.0, 4.0, n)
        x[:6] = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]  # the rounding rules' cases
    return x.astype(np.float32).reshape(8, n // 8)


def resolve(obj, dotted):
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


class TableNames(unittest.TestCase):
    def test_every_name_the_table_gives_a_frontend_is_there(self):
        for op in TABLE:
            for name in op["nd"]:
                self.assertTrue(resolve(nd, name) is not None or hasattr(nd.NDArray, name),
                                "nd.%s (%s)" % (name, op["name"]))
            for name in op["torch"]:
                self.assertTrue(resolve(atorch, name) is not None or hasattr(atorch.Tensor, name),
                                "torch.%s (%s)" % (name, op["name"]))

    def test_the_elementwise_functions_are_made_from_the_table(self):
        for op in UNARY:
            self.assertTrue(op["generated"], op["name"])
            for name in op["nd"]:
                self.assertIn(name, nd.__all__)
                self.assertTrue(callable(getattr(nd.NDArray, name)))
            for name in op["torch"]:
                self.assertIn(name, atorch.__all__)
                self.assertTrue(callable(getattr(atorch.Tensor, name)))


class MxnetEdition(unittest.TestCase):
    def test_each_function_and_method_matches_numpy(self):
        for op in UNARY:
            x = inputs(op["name"])
            want = NUMPY[op["name"]](x)
            for name in op["nd"]:
                a = nd.array(x)
                for how, got in (("nd.%s(x)" % name, getattr(nd, name)(a)), ("x.%s()" % name, getattr(a, name)())):
                    self.assertIsInstance(got, nd.NDArray, how)
                    self.assertEqual(got.shape, x.shape, how)
                    np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-6, atol=2e-6, err_msg=how)

    def test_each_binary_function_matches_numpy_with_arrays_or_numbers(self):
        for op in BINARY:
            a, b = binary_inputs(op["name"])
            ref = NUMPY_BINARY[op["name"]]
            for name in op["nd"]:
                fn = getattr(nd, name)
                cases = (("%s(a, b)" % name, fn(nd.array(a), nd.array(b)), ref(a, b)),
                         ("%s(a, 1.5)" % name, fn(nd.array(a), 1.5), ref(a, np.float32(1.5))),
                         ("%s(1.5, b)" % name, fn(1.5, nd.array(b)), ref(np.float32(1.5), b)))
                for how, got, want in cases:
                    self.assertIsInstance(got, nd.NDArray, how)
                    np.testing.assert_allclose(got.asnumpy(), want.astype(np.float32), rtol=2e-6, err_msg=how)
            with self.assertRaisesRegex(TypeError, "at least one operand"):
                nd.add(1.0, 2.0)

    def test_comparison_operators_give_mxnets_zeros_and_ones(self):
        a, b = binary_inputs("equal")
        x, y = nd.array(a), nd.array(b)
        for got, want in ((x == y, a == b), (x != y, a != b), (x > y, a > b), (x >= y, a >= b), (x < y, a < b),
                          (x <= y, a <= b), (x > 0, a > 0), (0.5 == x, a == 0.5)):
            self.assertIsInstance(got, nd.NDArray)
            np.testing.assert_array_equal(got.asnumpy(), want.astype(np.float32))
        self.assertFalse(x == None)  # noqa: E711 (the comparison itself is what is tested)
        # Truth values as MXNet's: one element is its value, more are ambiguous.
        self.assertTrue(nd.array([2.0]) > 1)
        self.assertFalse(nd.array([0.0]) > 1)
        with self.assertRaisesRegex(ValueError, "ambiguous"):
            bool(x > y)
        self.assertIn(x, [x])  # identity first, as for any object
        self.assertEqual(hash(x), hash(x))
        self.assertIn(x, {x: 1})

    def test_powers(self):
        a = np.array([[0.5, 1.0, 2.0]], dtype=np.float32)
        x = nd.array(a)
        for got, want in ((x ** 2, a ** 2), (x ** 0.5, a ** 0.5), (x ** x, a ** a), (2 ** x, 2 ** a),
                          (nd.power(x, 3), a ** 3)):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-6)

    def test_round_and_rint_are_mxnets(self):
        x = nd.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
        np.testing.assert_array_equal(nd.round(x).asnumpy(), [-3, -2, -1, 1, 2, 3])
        np.testing.assert_array_equal(nd.rint(x).asnumpy(), [-2, -2, 0, 0, 2, 2])
        np.testing.assert_array_equal(abs(nd.array([-1.5, 2.0])).asnumpy(), [1.5, 2.0])

    def test_gradients_are_recorded(self):
        x = nd.array([[0.3, -0.7], [1.2, -2.1]])
        x.attach_grad()
        with autograd.record():
            y = (nd.sin(x) * x.sigmoid() + nd.tanh(x).abs()).sum()
        y.backward()
        v = x.asnumpy().astype(np.float64)
        s = 1 / (1 + np.exp(-v))
        want = np.cos(v) * s + np.sin(v) * s * (1 - s) + np.sign(np.tanh(v)) * (1 - np.tanh(v) ** 2)
        np.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-5, atol=1e-6)

    def test_a_function_pushes_and_returns_at_once(self):
        x = nd.ones((256, 256))
        y = nd.sigmoid(x)  # no wait here: the value is computed on a worker
        nd.waitall()
        np.testing.assert_allclose(y.asnumpy(), 1 / (1 + np.exp(-1.0)), rtol=1e-6)


@unittest.skipIf(real_torch is None, NO_TORCH)
class PytorchEdition(unittest.TestCase):
    def test_each_function_and_method_matches_the_real_pytorch(self):
        for op in UNARY:
            x = inputs(op["name"], seed=1)
            for name in op["torch"]:
                want = getattr(real_torch, name)(real_torch.from_numpy(x)).numpy()
                t = atorch.tensor(x)
                for how, got in (("torch.%s(x)" % name, getattr(atorch, name)(t)),
                                 ("x.%s()" % name, getattr(t, name)())):
                    self.assertIsInstance(got, atorch.Tensor, how)
                    self.assertEqual(tuple(got.shape), x.shape, how)
                    np.testing.assert_allclose(got.numpy(), want, rtol=2e-6, atol=2e-6, err_msg=how)

    def test_each_binary_function_and_method_matches_the_real_pytorch(self):
        for op in BINARY:
            a, b = binary_inputs(op["name"], seed=3)
            for name in op["torch"]:
                want = getattr(real_torch, name)(real_torch.from_numpy(a), real_torch.from_numpy(b)).numpy()
                x, y = atorch.tensor(a), atorch.tensor(b)
                for how, got in (("torch.%s(a, b)" % name, getattr(atorch, name)(x, y)),
                                 ("a.%s(b)" % name, getattr(x, name)(y))):
                    self.assertIsInstance(got, atorch.Tensor, how)
                    np.testing.assert_allclose(got.numpy(), want, rtol=2e-6, err_msg=how)
                if name in ("maximum", "minimum"):
                    continue  # PyTorch takes tensors only there
                want = getattr(real_torch, name)(real_torch.from_numpy(a), 1.5).numpy()
                np.testing.assert_allclose(getattr(x, name)(1.5).numpy(), want, rtol=2e-6, err_msg=name + "(a, 1.5)")

    def test_binary_gradients_match_the_real_pytorch(self):
        a, b = binary_inputs("pow", seed=4)
        b[0, 0] = 0.75  # no tie: PyTorch splits a tie's gradient, MXNet gives it to a
        grads = []
        for lib in (atorch, real_torch):
            x = lib.tensor(a, requires_grad=True)
            y = lib.tensor(b, requires_grad=True)
            z = (lib.pow(x, y) + lib.maximum(x, y) * 2 - lib.minimum(x, y) + x ** 0.5 + 2 ** y).sum()
            z.backward()
            grads.append((x.grad.numpy(), y.grad.numpy()))
        for ours, theirs in zip(grads[0], grads[1]):
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)

    def test_gradients_match_the_real_pytorch(self):
        x = inputs("sin", n=16, seed=2)
        ours = atorch.tensor(x)
        theirs = real_torch.tensor(x, requires_grad=True)
        ours.requires_grad_()
        for t, lib in ((ours, atorch), (theirs, real_torch)):
            y = (lib.sin(t) * t.sigmoid() + lib.log1p(t.abs()) - lib.tanh(t).neg() + lib.round(t)).sum()
            y.backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-5, atol=1e-6)

    def test_inverse_hyperbolic_and_error_function_gradients_match_the_real_pytorch(self):
        x = inputs("arcsin", n=16, seed=5)
        grads = []
        for lib in (atorch, real_torch):
            t = lib.tensor(x, requires_grad=True)
            y = (lib.asin(t) * lib.acos(t * 0.5) + lib.atan(t * 3) + lib.sinh(t) * lib.cosh(t) + lib.expm1(t)
                 + lib.erf(t * 2)).sum()
            y.backward()
            grads.append(t.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)
        # in place, as PyTorch's
        t = atorch.tensor([0.5, -0.25])
        self.assertIs(t.asin_(), t)
        np.testing.assert_allclose(t.numpy(), np.arcsin([0.5, -0.25]), rtol=1e-6)


class Cli(unittest.TestCase):
    def test_asyncscope_ops_prints_the_table(self):
        text = subprocess.run([EXE, "ops"], capture_output=True, text=True, check=True).stdout
        for op in TABLE:
            self.assertRegex(text, r"(?m)^%s\s" % op["name"])
        rows = json.loads(subprocess.run([EXE, "ops", "--json"], capture_output=True, text=True, check=True).stdout)
        self.assertEqual([r["name"] for r in rows], [op["name"] for op in TABLE])
        self.assertEqual([r["torch"] for r in rows], [op["torch"] for op in TABLE])


if __name__ == "__main__":
    unittest.main()
