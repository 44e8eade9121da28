"""A reader's program, unmodified, under `asyncscope script FILE ARGS` and
`python3 -m asyncscope FILE ARGS`: `import torch` / `mxnet` / `d2l` give the
editions (traced), the program's own arguments reach sys.argv, the real
torchvision stays on the real PyTorch; and the keyword forms such programs
use everywhere (out=, the factories' requires_grad=) and the grad_fn they
print, against the real PyTorch where it is installed."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from against_pytorch import HAS_TORCH, assert_prints_the_same, package_folder

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))

PACKAGE = package_folder()


def _importable(name):
    return subprocess.run([sys.executable, "-c", "import " + name], capture_output=True).returncode == 0


HAS_TORCHVISION = HAS_TORCH and _importable("torchvision")


class Programs(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = self.folder.name

    def tearDown(self):
        self.folder.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path

    def script(self, *args, env=None):
        return subprocess.run([EXE, "script", *args], cwd=self.dir, capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, **(env or {})))

    def module(self, *args, env=None):
        environment = dict(os.environ, PYTHONPATH=PACKAGE, **(env or {}))
        return subprocess.run([sys.executable, "-m", "asyncscope", *args], cwd=self.dir, capture_output=True,
                              text=True, timeout=300, env=environment)

    # ------------------------------------------------------------ arguments

    def test_the_programs_arguments_reach_sys_argv_and_ours_are_taken_either_side(self):
        self.write("args.py", "import sys\nprint(sys.argv[1:])\n")
        cases = [
            (["args.py", "--epochs", "1", "--dry-run"], ["--epochs", "1", "--dry-run"]),
            (["--workers", "2", "args.py", "a", "--lr=0.1", "--json", "r.json", "b"], ["a", "--lr=0.1", "b"]),
            (["args.py", "x", "--", "--trace", "t.json", "-h"], ["x", "--trace", "t.json", "-h"]),
            (["--", "args.py", "--workers", "3"], ["--workers", "3"]),
        ]
        for args, program_args in cases:
            done = self.script(*args)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(done.stdout.splitlines()[0], repr(program_args), args)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "r.json")))  # --json after FILE was asyncscope's
        self.assertFalse(os.path.exists(os.path.join(self.dir, "t.json")))  # --trace after -- was the program's

    def test_an_unknown_option_before_the_file_is_refused_in_one_line(self):
        self.write("args.py", "print('ran')\n")
        done = self.script("--epochs", "1", "args.py")
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stdout, "")
        self.assertEqual(done.stderr.strip().splitlines(), [
            "asyncscope: script: unknown option '--epochs' before FILE (the program's own options go after FILE; "
            "run 'asyncscope script --help')"])

    # ------------------------------------------------------------ imports

    def test_torch_mxnet_and_d2l_are_the_editions_and_their_ops_are_traced(self):
        self.write("prog.py", """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            from torch import optim
            import mxnet as mx
            from mxnet import nd, np, npx, gluon, autograd
            from d2l import torch as d2l
            from d2l import mxnet as d2l_mx
            import asyncscope
            print(torch is asyncscope.torch, nn is asyncscope.torch.nn, F is asyncscope.torch.nn.functional,
                  optim is asyncscope.torch.optim, mx is asyncscope, nd is asyncscope.nd, gluon is asyncscope.gluon,
                  d2l is asyncscope.d2l.torch, d2l_mx is asyncscope.d2l.mxnet)
            net = nn.Linear(3, 2)
            opt = optim.SGD(net.parameters(), lr=0.1)
            loss = F.mse_loss(net(torch.ones(4, 3)), torch.zeros(4, 2))
            loss.backward()
            opt.step()
            print(type(loss).__module__, float(nd.ones((2,)).sum().asscalar()))
            try:
                import torch.fft
            except ModuleNotFoundError as e:
                print(e.name)
        """)
        done = self.script("prog.py", "--trace", "t.json")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0], "True True True True True True True True True")
        self.assertEqual(lines[1], "asyncscope.torch 2.0")
        self.assertEqual(lines[2], "torch.fft")
        with open(os.path.join(self.dir, "t.json")) as f:
            names = {e.get("name") for e in json.load(f)["traceEvents"]}
        self.assertIn("dot", names)  # the Linear's product ran on the engine

    def test_a_missing_submodule_says_what_the_edition_lacks(self):
        self.write("prog.py", "import torch.fft\n")
        done = self.script("prog.py")
        self.assertEqual(done.returncode, 1)
        self.assertIn("ModuleNotFoundError: No module named 'torch.fft': asyncscope's PyTorch edition has "
                      "no asyncscope.torch.fft", done.stderr)

    @unittest.skipUnless(HAS_TORCH, "python3-torch is not installed")
    def test_no_redirect_imports_the_real_torch(self):
        self.write("prog.py", "import torch\nprint(torch.__name__, torch.__file__.startswith('/usr'))\n")
        done = self.script("--no-redirect", "prog.py")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines()[0], "torch True")

    @unittest.skipUnless(HAS_TORCHVISION, "python3-torchvision is not installed")
    def test_torchvision_is_the_real_package_on_the_real_torch(self):
        self.write("prog.py", """
            import numpy
            import torch
            from torchvision import transforms
            image = transforms.ToTensor()(numpy.zeros((2, 2, 3), dtype=numpy.uint8))
            print(type(image).__module__, type(torch.ones(1)).__module__, torch.ones(1).__class__.__name__)
            print(torch.tensor(image.numpy()).shape)
        """)
        done = self.script("prog.py")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines(), ["torch asyncscope.torch Tensor", "torch.Size([3, 2, 2])"])
        self.assertIn("asyncscope: torchvision is the real package on the real PyTorch: its tensors are torch's own",
                      done.stderr)

    def test_python3_m_asyncscope_runs_a_program_with_its_arguments_and_writes_its_trace(self):
        self.write("prog.py", """
            import sys
            import torch
            print(sys.argv, torch.__name__, (torch.ones(3) * 2).sum().item())
        """)
        done = self.module("prog.py", "--steps", "2", env={"ASYNCSCOPE_TRACE": "run.json"})
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "['prog.py', '--steps', '2'] asyncscope.torch 6.0")
        with open(os.path.join(self.dir, "run.json")) as f:
            self.assertIn("mul_scalar", {e.get("name") for e in json.load(f)["traceEvents"]})
        plain = self.module("--no-redirect", "prog.py") if HAS_TORCH else None
        if plain is not None:
            self.assertEqual(plain.returncode, 0, plain.stderr)
            self.assertIn(" torch 6.0", plain.stdout)
        missing = self.module("nothing.py")
        self.assertEqual((missing.returncode, missing.stderr.strip()), (2, "asyncscope: cannot read nothing.py: no such file"))


class KeywordForms(unittest.TestCase):
    """out= and the factories' requires_grad=, in process."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, PACKAGE)
        from asyncscope import torch
        cls.torch = torch

    def test_out_writes_the_given_tensor_and_returns_it(self):
        torch = self.torch
        a = torch.ones(4, 4)
        y = torch.rand_like(a)
        self.assertIs(torch.matmul(a, a.T, out=y), y)
        self.assertEqual(y.tolist(), [[4.0] * 4] * 4)
        z = torch.zeros(4, 4)
        torch.mul(a, 3, out=z)
        self.assertEqual(z.sum().item(), 48.0)
        view = torch.zeros(2, 4)
        torch.add(a[0], 1, out=view[1])  # into a view: the base sees it
        self.assertEqual(view.tolist(), [[0.0] * 4, [2.0] * 4])
        d = torch.zeros(4, dtype=torch.float64)
        torch.sum(a, 0, out=d)
        self.assertEqual((d.dtype, d.tolist()), (torch.float64, [4.0] * 4))
        values, indices = torch.zeros(4), torch.zeros(4, dtype=torch.int64)
        result = torch.max(torch.arange(8.0).reshape(2, 4), 0, out=(values, indices))
        self.assertIs(result.values, values)
        self.assertEqual((values.tolist(), indices.tolist()), ([4.0, 5.0, 6.0, 7.0], [1, 1, 1, 1]))
        with self.assertWarns(UserWarning):  # resized
            torch.linalg.inv(torch.eye(2) * 2, out=values)
        self.assertEqual(values.tolist(), [[0.5, 0.0], [0.0, 0.5]])

    def test_out_refuses_what_pytorch_refuses(self):
        torch = self.torch
        i = torch.zeros(2, dtype=torch.int64)
        with self.assertRaisesRegex(RuntimeError, "result type Float can't be cast to the desired output type Long"):
            torch.add(torch.ones(2), 0.5, out=i)
        w = torch.ones(2, requires_grad=True)
        with self.assertRaisesRegex(RuntimeError, r"mul\(\): functions with out=\.\.\. arguments don't support "
                                                  "automatic differentiation"):
            torch.mul(w, 2, out=torch.zeros(2))
        with self.assertRaisesRegex(TypeError, "argument 'out' must be Tensor, not list"):
            torch.exp(torch.ones(2), out=[1, 2])
        with self.assertWarnsRegex(UserWarning, r"out had shape \[3\], the result has shape \[2\]"):
            torch.exp(torch.zeros(2), out=torch.zeros(3))

    def test_the_factories_make_leaves_that_require_grad(self):
        torch = self.torch
        for made in (torch.eye(4, 5, requires_grad=True), torch.linspace(0, 1, 5, requires_grad=True),
                     torch.full((2,), 3.0, requires_grad=True), torch.arange(3.0, requires_grad=True),
                     torch.zeros(2, requires_grad=True, layout=torch.strided, pin_memory=False)):
            self.assertTrue(made.requires_grad and made.is_leaf and made.grad_fn is None)
        inp = torch.eye(4, 5, requires_grad=True)
        out = (inp + 1).pow(2).t()
        out.backward(torch.ones_like(out), retain_graph=True)
        out.backward(torch.ones_like(out))
        self.assertEqual(inp.grad[0].tolist(), [8.0, 4.0, 4.0, 4.0, 4.0])


LBFGS_RUN = """
import numpy as np
import torch
rng = np.random.RandomState(0)
X, W1, b1, W2 = rng.randn(40, 3), rng.randn(8, 3) * 0.5, rng.randn(8) * 0.1, rng.randn(1, 8) * 0.5
x, y = torch.tensor(X), torch.tensor(np.sin(X.sum(1, keepdims=True)))
for search in (None, "strong_wolfe"):
    w1, c1, w2 = (torch.tensor(v, requires_grad=True) for v in (W1, b1, W2))
    opt = torch.optim.LBFGS([w1, c1, w2], lr=0.8, line_search_fn=search)
    losses = []
    def closure():
        opt.zero_grad()
        loss = ((torch.tanh(x @ w1.T + c1) @ w2.T - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        return loss
    for i in range(2):
        opt.step(closure)
    print(search, len(losses), " ".join("%.5f" % v for v in losses))
"""


class ProgramsCalls(unittest.TestCase):
    """What pytorch/examples' programs call, in process."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, PACKAGE)
        from asyncscope import torch
        cls.torch = torch

    def test_a_module_casts_to_float64_keeping_its_parameter_objects(self):
        torch = self.torch
        cell = torch.nn.LSTMCell(1, 4)
        params = list(cell.parameters())
        opt = torch.optim.SGD(cell.parameters(), lr=0.1)
        self.assertIs(cell.double(), cell)
        self.assertEqual([p.dtype for p in cell.parameters()], [torch.float64] * 4)
        self.assertTrue(all(a is b and a.requires_grad for a, b in zip(cell.parameters(), params)))
        h, c = cell(torch.ones(2, 1, dtype=torch.double), (torch.zeros(2, 4, dtype=torch.double),) * 2)
        (h.sum() + c.sum()).backward()
        opt.step()
        self.assertEqual(params[0].grad.dtype, torch.float64)
        self.assertEqual(cell.to(torch.float32).weight_ih.dtype, torch.float32)
        with self.assertRaisesRegex(TypeError, "only accepts floating point dtypes"):
            cell.to(torch.int64)
        lstm = torch.nn.LSTM(2, 3)
        self.assertIsNone(lstm.flatten_parameters())  # cuDNN's packing: nothing to do here
        lstm(torch.ones(4, 1, 2))[0].sum().backward()
        torch.nn.utils.clip_grad_value_(lstm.parameters(), 0.01)
        self.assertLessEqual(max(float(p.grad.abs().max()) for p in lstm.parameters()), 0.01)

    def test_a_0d_tensor_formats_as_its_value(self):
        torch = self.torch
        self.assertEqual("{:+.2f} {}".format(torch.tensor(3.14159), torch.tensor(2)), "+3.14 2")
        self.assertEqual("{}".format(torch.ones(2)), str(torch.ones(2)))
        with self.assertRaisesRegex(TypeError, "unsupported format string"):
            "{:.2f}".format(torch.ones(2))

    @unittest.skipUnless(HAS_TORCH, "python3-torch is not installed")
    def test_lbfgs_takes_pytorchs_steps(self):
        assert_prints_the_same(self, LBFGS_RUN)

GRAD_FNS = """
import torch
import torch.nn.functional as F
x = torch.rand(4, 5, requires_grad=True)
t = torch.rand(4, 5)
w = torch.rand(3, 5, requires_grad=True)
b = torch.rand(3, requires_grad=True)
c = torch.tensor([0, 1, 2, 3])
made = {
    "linear": F.linear(x, w, b), "mse": F.mse_loss(x, t), "bce": F.binary_cross_entropy_with_logits(x, t),
    "cross_entropy": F.cross_entropy(x, c), "softmax": F.softmax(x, dim=1), "log_softmax": x.log_softmax(1),
    "slice": x[:2], "select": x[1], "last": x[..., -1], "rows": x[1:3, 2], "unsqueeze": x.unsqueeze(0),
    "transpose": x.transpose(0, 1), "stack": torch.stack([x, x]), "pow": x.pow(3), "split": x.split(2)[1],
    "add": x + t, "sum": x.sum(), "mm": x @ w.T, "leaf": x,
}
for key, value in made.items():
    fn = value.grad_fn
    print(key, None if fn is None else fn.name(), repr(value).rsplit("grad_fn=", 1)[-1] if fn else "")
fn = F.mse_loss(x * 2, t).grad_fn
print("next", [(None if f is None else f.name(), i) for f, i in (x * t).grad_fn.next_functions])
print("chain", [(None if f is None else f.name(), i) for f, i in (x.exp() + w.sum()).grad_fn.next_functions])
leaf = (x * t).grad_fn.next_functions[0][0]
print("variable", leaf.name(), leaf.variable.shape, leaf.variable.requires_grad, leaf.next_functions)
"""


class GradFns(unittest.TestCase):
    @unittest.skipUnless(HAS_TORCH, "python3-torch is not installed")
    def test_grad_fn_names_and_next_functions_are_pytorchs(self):
        assert_prints_the_same(self, GRAD_FNS)

if __name__ == "__main__":
    unittest.main()
