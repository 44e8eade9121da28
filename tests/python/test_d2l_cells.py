"""The code cells of Dive into Deep Learning's Preliminaries chapter (Data
Manipulation, Linear Algebra, Automatic Differentiation) and of the
Asynchronous Computation section, MXNet and PyTorch tabs, run as a notebook
runs them with only the framework imports changed to asyncscope's: every
cell must run. The cells and their runner are not
part of the project: the test finds them in ASYNCSCOPE_D2L_CELLS or in
../shared/d2l beside the checkout, and is skipped without them."""

import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CELLS = pathlib.Path(os.environ.get("ASYNCSCOPE_D2L_CELLS", ROOT.parent / "shared" / "d2l"))
RUNNER = CELLS / "run_cells.py"


@unittest.skipUnless(RUNNER.exists(), "d2l's cells are not here (set ASYNCSCOPE_D2L_CELLS to their folder)")
class Preliminaries(unittest.TestCase):
    def run_tab(self, name):
        env = dict(os.environ, MPLBACKEND="Agg")
        done = subprocess.run([sys.executable, str(RUNNER), str(CELLS / name)], capture_output=True, text=True,
                              timeout=600, env=env)
        match = re.search(r"(\d+) of (\d+) cells ran", done.stdout)
        self.assertIsNotNone(match, done.stdout + done.stderr)
        self.assertEqual(match.group(1), match.group(2), done.stdout)

    def test_pytorch_tab(self):
        self.run_tab("prelim-pytorch.json")

    def test_mxnet_tab(self):
        self.run_tab("prelim-mxnet.json")


@unittest.skipUnless(RUNNER.exists(), "d2l's cells are not here (set ASYNCSCOPE_D2L_CELLS to their folder)")
class AsynchronousComputation(unittest.TestCase):
    """The section's cells only (the next section, Automatic Parallelism,
    needs two GPUs)."""

    def run_section(self, name):
        cells = [c for c in json.loads((CELLS / name).read_text()) if c["chapter"].endswith("async-computation.md")]
        self.assertGreater(len(cells), 3)
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / name
            path.write_text(json.dumps(cells))
            env = dict(os.environ, MPLBACKEND="Agg")
            done = subprocess.run([sys.executable, str(RUNNER), str(path)], capture_output=True, text=True,
                                  timeout=600, env=env)
        match = re.search(r"(\d+) of (\d+) cells ran", done.stdout)
        self.assertIsNotNone(match, done.stdout + done.stderr)
        self.assertEqual(match.group(1), match.group(2), done.stdout)
        self.assertEqual(int(match.group(2)), len(cells))

    def test_pytorch_tab(self):
        self.run_section("perf-pytorch.json")

    def test_mxnet_tab(self):
        self.run_section("perf-mxnet.json")


if __name__ == "__main__":
    unittest.main()
