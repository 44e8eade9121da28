"""A notebook with the chapter's three patterns, executed for real by
Jupyter (`jupyter nbconvert --execute`, Debian's IPython kernel): each
%%asyncscope cell shows its timeline inline, an SVG with the lanes and the
verdict as text. Skipped, saying why, where Jupyter is not installed (make
test installs it)."""

import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))

try:
    import nbformat
except ImportError:
    nbformat = None

JUPYTER = shutil.which("jupyter-nbconvert") or shutil.which("jupyter")

CELLS = [
    "%load_ext asyncscope\nfrom asyncscope import autograd, gluon, nd\nfrom asyncscope.gluon import nn",
    # The queued-vs-finished product: the call returns at once, the sum waits for the GEMM.
    "%%asyncscope --width 1000\nx = nd.random.uniform(shape=(600, 600))\ny = nd.dot(x, x).sum()\nprint(y.asscalar() > 0)",
    # The loop with a wait in every iteration, then without.
    "%%asyncscope\nx = nd.ones((128, 128))\nfor i in range(200):\n    y = x + 1\n    y.wait_to_read()\n"
    "for i in range(200):\n    y = x + 1\nnd.waitall()",
    # The training loop, with a per-batch sync and without.
    "%%asyncscope\nnet = nn.Sequential()\nnet.add(nn.Dense(64, activation='relu'), nn.Dense(1))\n"
    "net.initialize()\ntrainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.01})\n"
    "loss = gluon.loss.L2Loss()\nX, Y = nd.random.normal(shape=(256, 32)), nd.random.normal(shape=(256, 1))\n"
    "for sync in (True, False):\n    for batch in range(10):\n        with autograd.record():\n"
    "            l = loss(net(X), Y)\n        l.backward()\n        trainer.step(256)\n"
    "        if sync:\n            l.mean().asscalar()\nnd.waitall()",
    # The whole run so far.
    "import asyncscope\n_ = asyncscope.show(width=900)",
    # The per-line figures name the cells' lines (IPython compiles each cell as a file of its own).
    "rows = asyncscope.line_table()\nprint('LINES', len({r['file'] for r in rows}), max(r['ops'] for r in rows))",
]


@unittest.skipIf(nbformat is None or JUPYTER is None, "Jupyter is not installed (Debian: jupyter-nbconvert "
                                                      "python3-nbformat python3-ipykernel; make test installs them)")
@unittest.skipUnless(os.path.exists(EXE), "no asyncscope executable at " + EXE)
class Notebook(unittest.TestCase):
    def execute(self, cells, allow_errors=False):
        """Runs the cells with nbconvert; (its exit status, the executed notebook, what it printed)."""
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
        with tempfile.TemporaryDirectory() as d:
            src, out = os.path.join(d, "chapter.ipynb"), os.path.join(d, "executed.ipynb")
            nbformat.write(nb, src)
            env = dict(os.environ, ASYNCSCOPE_EXE=EXE, PYDEVD_DISABLE_FILE_VALIDATION="1")
            # The kernel runs in the temporary folder: the package's path must not be relative.
            env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
            cmd = [JUPYTER] if JUPYTER.endswith("nbconvert") else [JUPYTER, "nbconvert"]
            extra = ["--allow-errors"] if allow_errors else []
            done = subprocess.run(cmd + ["--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=300"] + extra +
                                  [src, "--output", out], capture_output=True, text=True, env=env, timeout=600, cwd=d)
            executed = nbformat.read(out, 4) if os.path.exists(out) else None
        return done.returncode, executed, done.stdout + done.stderr

    def test_a_cell_that_raises_fails_as_the_cell_with_its_picture_drawn(self):
        cells = [
            "%load_ext asyncscope\nfrom asyncscope import nd",
            "%%asyncscope\nx = nd.ones((8, 8)) + 1\nraise ValueError('the cell failed')",
            "print('a later cell')",
        ]
        code, _, printed = self.execute(cells)
        self.assertNotEqual(code, 0, "nbconvert reported a failing cell as a success")
        self.assertIn("ValueError", printed)
        self.assertIn("the cell failed", printed)
        code, executed, printed = self.execute(cells, allow_errors=True)
        self.assertEqual(code, 0, printed)
        outputs = executed.cells[1].outputs
        errors = [o for o in outputs if o.get("output_type") == "error"]
        self.assertEqual([(e["ename"], e["evalue"]) for e in errors], [("ValueError", "the cell failed")])
        self.assertTrue(any("image/svg+xml" in o.get("data", {}) for o in outputs), "what ran is still drawn")

    def test_a_cell_ending_in_an_expression_shows_its_value_and_bad_options_say_why(self):
        cells = ["%load_ext asyncscope\nfrom asyncscope import nd", "%%asyncscope\ny = nd.ones((2,)) * 3\ny.sum().asscalar()",
                 "%%asyncscope --width abc\npass"]
        code, executed, printed = self.execute(cells, allow_errors=True)
        self.assertEqual(code, 0, printed)
        values = [o for o in executed.cells[1].outputs if o.get("output_type") == "execute_result"]
        self.assertEqual([v["data"]["text/plain"] for v in values], ["6.0"])
        errors = [o for o in executed.cells[2].outputs if o.get("output_type") == "error"]
        self.assertEqual(len(errors), 1)
        self.assertIn("--width 'abc': expected a number of pixels", errors[0]["evalue"])

    def test_each_asyncscope_cell_shows_its_timeline_inline(self):
        code, executed, printed = self.execute(CELLS)
        self.assertEqual(code, 0, printed)
        pictures = []
        for i, cell in enumerate(executed.cells):
            errors = [o for o in cell.outputs if o.get("output_type") == "error"]
            self.assertFalse(errors, f"cell {i}: {errors}")
            svgs = [o["data"]["image/svg+xml"] for o in cell.outputs if "image/svg+xml" in o.get("data", {})]
            if i in (1, 2, 3, 4):
                self.assertEqual(len(svgs), 1, f"cell {i} has {len(svgs)} pictures")
                pictures.append(svgs[0])
        for i, svg in enumerate(pictures):
            self.assertIn("<svg", svg)
            # A cell's picture shows the workers that ran its ops: which ones is the scheduler's choice.
            for text in (">frontend</text>", ">CPU worker ", ">queue depth</text>", "-bound: "):
                self.assertIn(text, svg, f"picture {i}")
        lines = "".join(o.get("text", "") for o in executed.cells[5].outputs)
        self.assertRegex(lines, r"LINES [3-9]\d* \d+", lines)  # ops from at least three cells' files
        # Each cell's picture is its own window: the first (one GEMM) pushed far fewer ops than the loops.
        self.assertIn("True", "".join(o.get("text", "") for o in executed.cells[1].outputs))
        self.assertLess(len(pictures[0]), len(pictures[1]))


if __name__ == "__main__":
    unittest.main()
