"""The PyTorch edition against NumPy on the same data: creation (size as
ints, a tuple, a list or size=), arithmetic with tensors and numbers on
either side, mm and @, 0-d reductions, item(), numpy(), shape as a
torch.Size, devices, PyTorch's printed form, the d2l helpers; and the
chapter's PyTorch code (imports changed) run by python3 and by
`asyncscope script`. CUDA paths are skipped without a GPU."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import asyncscope
from asyncscope import torch
from asyncscope.d2l import torch as d2l
from asyncscope.torch import nn  # noqa: F401  (the chapter imports it)

from trace_reader import Trace

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))
HAS_GPU = torch.cuda.is_available()
NO_GPU = "no usable GPU here (CUDA unavailable or no stream for it)"


def values(shape, seed):
    return np.random.default_rng(seed).uniform(-2, 2, size=shape).astype(np.float32)


class Creation(unittest.TestCase):
    def test_every_way_of_giving_the_size(self):
        for t in (torch.ones(2, 3), torch.ones((2, 3)), torch.ones([2, 3]), torch.ones(size=(2, 3))):
            self.assertEqual(t.shape, (2, 3))
            np.testing.assert_array_equal(t.numpy(), np.ones((2, 3), np.float32))
        self.assertEqual(torch.zeros(4).shape, (4,))
        np.testing.assert_array_equal(torch.zeros(2, 2).numpy(), np.zeros((2, 2), np.float32))
        self.assertEqual(torch.randn(size=(3, 5)).shape, (3, 5))
        self.assertEqual(torch.rand(7).shape, (7,))

    def test_bad_sizes_and_arguments(self):
        with self.assertRaises(TypeError):
            torch.ones()
        with self.assertRaises(TypeError):
            torch.ones(2, size=(2,))
        with self.assertRaises(TypeError):
            torch.ones("2x3")
        with self.assertRaises(ValueError):
            torch.zeros(2, -1)
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'colour'"):
            torch.ones(2, colour="red")
        with self.assertRaisesRegex(TypeError, "must be torch.dtype, not str"):
            torch.ones(2, dtype="int64")
        self.assertEqual(torch.ones(2, dtype=torch.float32).dtype, torch.float32)

    def test_randn_and_rand_distributions(self):
        n = torch.randn(200000).numpy()
        self.assertAlmostEqual(float(n.mean()), 0.0, delta=0.02)
        self.assertAlmostEqual(float(n.std()), 1.0, delta=0.02)
        u = torch.rand(size=(100000,)).numpy()
        self.assertTrue((u >= 0).all() and (u < 1).all())

    def test_tensor_from_data(self):
        a = values((3, 4), 1)
        np.testing.assert_array_equal(torch.tensor(a).numpy(), a)
        np.testing.assert_array_equal(torch.tensor([[1, 2], [3, 4]]).numpy(), np.array([[1, 2], [3, 4]], np.float32))
        self.assertEqual(torch.tensor(2.5).shape, ())


class Arithmetic(unittest.TestCase):
    def test_matches_numpy_with_numbers_on_either_side(self):
        a, b = values((3, 4), 2), values((3, 4), 3) + 5
        x, y = torch.tensor(a), torch.tensor(b)
        cases = [(x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (x + 1, a + 1), (1 + x, 1 + a),
                 (x - 2.5, a - 2.5), (1 - x, 1 - a), (2 * x, 2 * a), (x * 3, a * 3), (x / 4, a / 4), (3 / y, 3 / b),
                 (-x, -a), (x ** 2, a * a)]
        for got, want in cases:
            self.assertIsInstance(got, torch.Tensor)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)

    def test_broadcasting_as_numpy(self):
        a, row = values((3, 4), 4), values((4,), 5)
        np.testing.assert_allclose((torch.tensor(a) + torch.tensor(row)).numpy(), a + row, rtol=1e-6)
        with self.assertRaises(RuntimeError):
            torch.tensor(a) + torch.ones(3)

    def test_mm_matmul_and_the_operator(self):
        a, b = values((5, 3), 6), values((3, 4), 7)
        want = a @ b
        for got in (torch.mm(torch.tensor(a), torch.tensor(b)), torch.matmul(torch.tensor(a), torch.tensor(b)),
                    torch.tensor(a) @ torch.tensor(b)):
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
        with self.assertRaises(RuntimeError):
            torch.mm(torch.ones(2, 3), torch.ones(2, 3))

    def test_in_place_updates_keep_the_object(self):
        x = torch.ones(2, 2)
        before = id(x)
        x += torch.ones(2, 2)
        x *= 3
        self.assertEqual(id(x), before)
        np.testing.assert_array_equal(x.numpy(), np.full((2, 2), 6, np.float32))

    def test_reductions_are_0_d_as_in_pytorch(self):
        a = values((4, 5), 8)
        x = torch.tensor(a)
        for got, want in ((x.sum(), a.sum()), (x.mean(), a.mean()), (torch.sum(x), a.sum()), (torch.mean(x), a.mean())):
            self.assertEqual(got.shape, ())
            self.assertEqual(got.dim(), 0)
            self.assertAlmostEqual(got.item(), float(want), places=4)
        np.testing.assert_allclose(x.sum(dim=0).numpy(), a.sum(axis=0), rtol=1e-5)
        np.testing.assert_allclose(x.mean(1, keepdim=True).numpy(), a.mean(axis=1, keepdims=True), rtol=1e-5)

    def test_transpose_reshape_relu(self):
        a = values((2, 3), 9)
        x = torch.tensor(a)
        np.testing.assert_array_equal(x.T.numpy(), a.T)
        np.testing.assert_array_equal(x.reshape(3, 2).numpy(), a.reshape(3, 2))
        np.testing.assert_array_equal(x.reshape((6,)).numpy(), a.reshape(6))
        np.testing.assert_array_equal(x.relu().numpy(), np.maximum(a, 0))


class Conversions(unittest.TestCase):
    def test_item_is_a_python_float(self):
        v = torch.tensor([2.5]).item()
        self.assertIs(type(v), float)
        self.assertEqual(v, 2.5)
        self.assertEqual(float(torch.ones(1, 1) * 4), 4.0)

    def test_item_on_several_elements_raises(self):
        with self.assertRaisesRegex(RuntimeError, "a Tensor with 6 elements cannot be converted to Scalar"):
            torch.ones(2, 3).item()

    def test_numpy_is_a_float32_copy(self):
        x = torch.ones(2, 3)
        n = x.numpy()
        self.assertIsInstance(n, np.ndarray)
        self.assertEqual(n.dtype, np.float32)
        n[0, 0] = 7
        self.assertEqual(x.numpy()[0, 0], 1.0)

    def test_shape_is_a_torch_size(self):
        s = torch.ones(2, 3).shape
        self.assertIsInstance(s, tuple)
        self.assertIsInstance(s, torch.Size)
        self.assertEqual(repr(s), "torch.Size([2, 3])")
        self.assertEqual(s.numel(), 6)
        x = torch.zeros(4, 5)
        self.assertEqual(x.size(), (4, 5))
        self.assertEqual((x.size(0), x.size(-1), x.numel(), x.dim(), len(x)), (4, 5, 20, 2, 4))
        with self.assertRaises(IndexError):
            x.size(2)


class Printing(unittest.TestCase):
    def text(self, a):
        return repr(torch.tensor(np.array(a, np.float32)))

    def test_whole_numbers_fixed_and_scientific(self):
        self.assertEqual(repr(torch.ones(1, 2) * 3), "tensor([[3., 3.]])")
        self.assertEqual(str(torch.ones(1, 2) * 3), "tensor([[3., 3.]])")
        self.assertEqual(self.text([0.5, 1.25]), "tensor([0.5000, 1.2500])")
        self.assertEqual(self.text([-1.5, 10.0]), "tensor([-1.5000, 10.0000])")
        self.assertEqual(self.text([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])")
        self.assertEqual(self.text([0.0, 2.0]), "tensor([0., 2.])")
        self.assertEqual(repr(torch.ones(2, 2).sum()), "tensor(4.)")
        self.assertEqual(repr(torch.zeros(0)), "tensor([])")
        self.assertEqual(repr(torch.zeros(0, 3)), "tensor([], size=(0, 3))")

    def test_rows_line_up_under_the_first(self):
        self.assertEqual(repr(torch.ones(2, 3)), "tensor([[1., 1., 1.],\n        [1., 1., 1.]])")
        self.assertEqual(repr(torch.zeros(2, 1, 2)), "tensor([[[0., 0.]],\n\n        [[0., 0.]]])")

    def test_large_tensors_are_summarised(self):
        text = repr(torch.tensor(np.arange(100, 2100, dtype=np.float32)))
        self.assertEqual(text, "tensor([ 100.,  101.,  102.,  ..., 2097., 2098., 2099.])")
        # A range wider than 1000x is scientific, whole numbers or not, as in PyTorch.
        text = repr(torch.tensor(np.arange(2000, dtype=np.float32)))
        self.assertEqual(text, "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
                               "        1.9990e+03])")
        lines = repr(torch.ones(100, 100)).split("\n")
        self.assertEqual(lines[0], "tensor([[1., 1., 1.,  ..., 1., 1., 1.],")
        self.assertEqual(lines[3], "        ...,")
        self.assertEqual(len(lines), 7)

    def test_long_rows_wrap(self):
        text = repr(torch.tensor(np.arange(30, dtype=np.float32) + 0.5))
        first, second = text.split("\n")[:2]
        self.assertLessEqual(len(first), 80)
        self.assertTrue(second.startswith("        "))


class Devices(unittest.TestCase):
    def test_device_objects(self):
        self.assertEqual(str(torch.device("cpu")), "cpu")
        self.assertEqual(repr(torch.device("cpu")), "device(type='cpu')")
        self.assertEqual(repr(torch.device("cuda")), "device(type='cuda')")
        self.assertEqual(repr(torch.device("cuda:0")), "device(type='cuda', index=0)")
        self.assertEqual(torch.device("cuda", 1), torch.device("cuda:1"))
        self.assertEqual(str(torch.device("cuda", 1)), "cuda:1")
        with self.assertRaises(RuntimeError):
            torch.device("tpu")
        with self.assertRaises(RuntimeError):
            torch.device("cuda:x")

    def test_cpu_tensors(self):
        x = torch.ones(2, device="cpu")
        self.assertEqual(x.device, torch.device("cpu"))
        self.assertIs(x.to("cpu"), x)
        self.assertIs(x.cpu(), x)
        self.assertIs(x.to(torch.device("cpu")), x)
        self.assertEqual(torch.zeros(2, device=torch.device("cpu")).device.type, "cpu")

    def test_cuda_availability_agrees_with_try_gpu(self):
        self.assertEqual(torch.cuda.is_available(), torch.cuda.device_count() > 0)
        want = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
        self.assertEqual(d2l.try_gpu(), want)
        self.assertEqual(d2l.try_gpu(99), torch.device("cpu"))
        self.assertEqual(d2l.try_all_gpus()[0], want)

    def test_synchronize_waits_for_the_work(self):
        x = torch.ones(300, 300)
        for _ in range(5):
            x = torch.mm(x, x) / 300
        torch.cuda.synchronize(torch.device("cpu"))
        torch.cuda.synchronize("cpu")
        self.assertEqual(x.sum().item(), 90000.0)

    @unittest.skipIf(HAS_GPU, "there is a GPU here")
    def test_without_a_gpu_cuda_is_a_clear_error(self):
        with self.assertRaisesRegex(RuntimeError, "cannot use cuda:0"):
            torch.ones(2, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "cannot use cuda:0"):
            torch.ones(2).to("cuda")
        with self.assertRaisesRegex(RuntimeError, "cannot use cuda:0"):
            torch.ones(2).cuda()
        with self.assertRaisesRegex(RuntimeError, "CUDA"):
            torch.cuda.synchronize()

    @unittest.skipUnless(HAS_GPU, NO_GPU)
    def test_on_the_gpu(self):
        a, b = values((30, 20), 10), values((20, 10), 11)
        x = torch.tensor(a, device="cuda")
        self.assertEqual(x.device, torch.device("cuda", 0))
        y = torch.mm(x, torch.tensor(b).to(torch.device("cuda:0"))) * 2 + 1
        torch.cuda.synchronize()
        torch.cuda.synchronize(torch.device("cuda"))
        np.testing.assert_allclose(y.cpu().numpy(), (a @ b) * 2 + 1, rtol=1e-4, atol=1e-4)
        self.assertIs(y.cuda(), y)
        self.assertEqual(y.cpu().device, torch.device("cpu"))
        with self.assertRaisesRegex(TypeError, "cpu()"):
            y.numpy()
        z = torch.ones((1, 2), device="cuda") * torch.ones((1, 2), device="cuda") + 2
        self.assertEqual(repr(z), "tensor([[3., 3.]], device='cuda:0')")
        self.assertEqual(z.sum().item(), 6.0)


class GradMode(unittest.TestCase):
    def test_no_grad_turns_the_mode_off_for_its_body(self):
        self.assertTrue(torch.is_grad_enabled())
        with torch.no_grad():
            self.assertFalse(torch.is_grad_enabled())
            np.testing.assert_array_equal((torch.ones(2) + 1).numpy(), [2, 2])
        self.assertTrue(torch.is_grad_enabled())


class D2l(unittest.TestCase):
    def test_timer(self):
        t = d2l.Timer()
        for _ in range(3):
            t.start()
            self.assertGreaterEqual(t.stop(), 0.0)
        self.assertEqual(len(t.times), 3)
        self.assertAlmostEqual(t.sum(), sum(t.times))
        self.assertAlmostEqual(t.avg(), sum(t.times) / 3)
        self.assertEqual(len(t.cumsum()), 3)
        self.assertAlmostEqual(t.cumsum()[-1], t.sum())

    def test_benchmark_prints_its_description_and_time(self):
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            with d2l.Benchmark("torch"):
                pass
            with d2l.Benchmark():
                pass
        lines = out.getvalue().splitlines()
        self.assertRegex(lines[0], r"^torch: \d+\.\d{4} sec$")
        self.assertRegex(lines[1], r"^Done: \d+\.\d{4} sec$")


class Documentation(unittest.TestCase):
    def test_the_docstring_says_cpu_ops_are_asynchronous(self):
        self.assertIn("every operation is asynchronous, on the CPU too", " ".join(torch.__doc__.split()))
        self.assertIn("help(asyncscope.torch)", asyncscope.__doc__)
        self.assertTrue(torch.nn.__doc__)


# The chapter's PyTorch code, its imports changed to this package's; smaller
# matrices so that it is quick on a loaded machine.
CHAPTER = """\
import os
import subprocess
import numpy as np
from asyncscope import torch
from asyncscope.torch import nn
from asyncscope.d2l import torch as d2l

device = d2l.try_gpu()
a = torch.randn(size=({n}, {n}), device=device)
b = torch.mm(a, a)

with d2l.Benchmark('numpy'):
    for _ in range(10):
        a = np.random.normal(size=({n}, {n}))
        b = np.dot(a, a)

with d2l.Benchmark('torch'):
    for _ in range(10):
        a = torch.randn(size=({n}, {n}), device=device)
        b = torch.mm(a, a)

with d2l.Benchmark():
    for _ in range(10):
        a = torch.randn(size=({n}, {n}), device=device)
        b = torch.mm(a, a)
    torch.cuda.synchronize(device)

x = torch.ones((1, 2), device=device)
y = torch.ones((1, 2), device=device)
z = x * y + 2
print(z)
"""


class Chapter(unittest.TestCase):
    def check_output(self, out):
        lines = out.splitlines()
        for label in ("numpy", "torch", "Done"):
            self.assertTrue(any(re.fullmatch(label + r": \d+\.\d{4} sec", line) for line in lines), out)
        suffix = ", device='cuda:0'" if HAS_GPU else ""
        self.assertEqual(lines[-1], "tensor([[3., 3.]]%s)" % suffix)

    def run_chapter(self, *command):
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, "chapter.py")
            with open(script, "w") as f:
                f.write(CHAPTER.format(n=200))
            trace = os.path.join(d, "trace.json")
            done = subprocess.run([*command, script] + (["--trace", trace] if command[0] == EXE else []),
                                  capture_output=True, text=True, timeout=300,
                                  env=dict(os.environ, ASYNCSCOPE_TRACE=trace))
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            return done.stdout, Trace(trace)

    def check_trace(self, t):
        # The warm-up, then two loops of 10: every product is an op, and the one
        # wait in the loops is synchronize's, after every product of both.
        self.assertEqual(len(t.named("normal")), 21)
        dots = t.named("dot")
        self.assertEqual(len(dots), 21)
        waits = [w for w in t.waits if w.kind == "wait_all" and w.begin > dots[0].enqueue]
        self.assertGreaterEqual(len(waits), 1)
        self.assertGreaterEqual(waits[0].end, max(op.end for op in dots[:21]))
        self.assertEqual(len([w for w in t.waits if w.kind == "print"]), 1)

    def test_from_python3(self):
        out, t = self.run_chapter(sys.executable)
        self.check_output(out)
        self.check_trace(t)

    @unittest.skipUnless(os.path.exists(EXE), "the asyncscope executable is not built")
    def test_from_asyncscope_script(self):
        out, t = self.run_chapter(EXE, "script")
        self.check_output(out)
        self.check_trace(t)


class AsAnIndex(unittest.TestCase):
    # A sampled word's id indexes a Python list (word_language_model's generate.py).
    def test_a_one_element_integer_tensor_is_a_python_index(self):
        words = ["a", "b", "c"]
        self.assertEqual(words[torch.tensor(2)], "c")
        self.assertEqual(words[torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 1)[0]], "b")
        self.assertEqual(list(range(torch.tensor([3]))), [0, 1, 2])
        self.assertEqual(words[torch.tensor(True)], "b")
        x = torch.arange(5.0)
        x[torch.tensor(1)] = 9
        self.assertEqual(x.tolist(), [0.0, 9.0, 2.0, 3.0, 4.0])

    def test_a_float_or_longer_tensor_is_refused(self):
        for t in (torch.tensor(1.0), torch.tensor([1, 2])):
            with self.assertRaisesRegex(TypeError, "only integer tensors of a single element"):
                [0, 1, 2][t]


if __name__ == "__main__":
    unittest.main()
