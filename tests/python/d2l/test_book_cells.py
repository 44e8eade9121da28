"""The code cells of Dive into Deep Learning's Preliminaries chapter (Data
Manipulation, Linear Algebra, Automatic Differentiation) and of the
Asynchronous Computation and Automatic Parallelism sections, MXNet and
PyTorch tabs, run as a notebook runs them with only the framework imports
changed to asyncscope's: every cell must run. Automatic Parallelism runs on
two simulated GPUs with its products scaled down (4000^2 x 50 per device
takes minutes on 2 cores), and its trace must show both devices busy for at
least half of the cell that runs them together. The cells and their runner are not
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

ROOT = pathlib.Path(__file__).resolve().parents[3]
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


def dot_spans(trace_path):
    """Lane name -> (start, end) of its dot ops, in order, for the simulated GPUs' lanes."""
    with open(trace_path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    lanes = {}
    for e in events:
        name = names.get(e.get("tid"), "")
        if e.get("ph") == "X" and " sim worker " in name and e["name"] == "dot":
            lanes.setdefault(name, []).append((e["ts"], e["ts"] + e.get("dur", 0)))
    return {name: sorted(spans) for name, spans in lanes.items()}


# The runner, with each cell's time limit (its signal.alarm) multiplied by
# argv[1]: the full-size cells take minutes each on 2 cores.
LONGER_CELLS = (
    "import runpy, signal, sys\n"
    "scale = int(sys.argv.pop(1))\n"
    "alarm = signal.alarm\n"
    "signal.alarm = lambda seconds: alarm(seconds * scale)\n"
    "sys.argv.pop(0)\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n")


@unittest.skipUnless(RUNNER.exists(), "d2l's cells are not here (set ASYNCSCOPE_D2L_CELLS to their folder)")
class AutomaticParallelism(unittest.TestCase):
    SIZE, REPS = 500, 10
    CELL_LIMIT_SCALE = 1  # of the runner's 120 s per cell

    def run_section(self, name):
        cells = [c for c in json.loads((CELLS / name).read_text()) if c["chapter"].endswith("auto-parallelism.md")]
        self.assertGreater(len(cells), 4)
        for c in cells:
            c["code"] = c["code"].replace("(4000, 4000)", "(%d, %d)" % (self.SIZE, self.SIZE))
            c["code"] = c["code"].replace("range(50)", "range(%d)" % self.REPS)
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / name
            path.write_text(json.dumps(cells))
            trace = pathlib.Path(d) / "trace.json"
            env = dict(os.environ, MPLBACKEND="Agg", ASYNCSCOPE_SIMULATED_GPUS="2", ASYNCSCOPE_TRACE=str(trace))
            cmd = [sys.executable, str(RUNNER), str(path)]
            if self.CELL_LIMIT_SCALE != 1:
                cmd = [sys.executable, "-c", LONGER_CELLS, str(self.CELL_LIMIT_SCALE)] + cmd[1:]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600 * self.CELL_LIMIT_SCALE, env=env)
            match = re.search(r"(\d+) of (\d+) cells ran", done.stdout)
            self.assertIsNotNone(match, done.stdout + done.stderr)
            self.assertEqual(match.group(1), match.group(2), done.stdout)
            lanes = dot_spans(trace)
        self.assertEqual(sorted(lanes), ["cuda:0 sim worker 0", "cuda:1 sim worker 0"])
        # Each device's products: the warm-up, its own timed run, then the cell
        # that runs both devices together (the third REPS on each lane).
        together = {name: spans[2 * self.REPS:3 * self.REPS] for name, spans in lanes.items()}
        begin = min(s[0][0] for s in together.values())
        end = max(s[-1][1] for s in together.values())
        for name, spans in together.items():
            self.assertEqual(len(spans), self.REPS, name)
        # Both devices computed at the same time: the time both lanes were busy
        # at once is a fair share of the cell. (How the share splits between
        # them is the scheduler's on a loaded machine: on 2 cores with other
        # work, one simulated device may get the CPU first.)
        busy = sum(b - a for spans in together.values() for a, b in spans)
        union, reach = 0.0, begin
        for a, b in sorted(s for spans in together.values() for s in spans):
            union += max(0.0, b - max(a, reach))
            reach = max(reach, b)
        both = busy - union
        self.assertGreaterEqual(both, 0.25 * (end - begin), "both busy %.0f of %.0f us" % (both, end - begin))

    def test_pytorch_tab(self):
        self.run_section("perf-pytorch.json")

    def test_mxnet_tab(self):
        self.run_section("perf-mxnet.json")


@unittest.skipUnless(os.environ.get("ASYNCSCOPE_D2L_FULL_SIZE"),
                     "the full-size cells take minutes each on 2 cores: ctest -L stress runs them "
                     "(ASYNCSCOPE_D2L_FULL_SIZE=1)")
class AutomaticParallelismFullSize(AutomaticParallelism):
    """The section's cells as the book has them: 50 products of 4000^2 per
    device, on two simulated GPUs."""
    SIZE, REPS = 4000, 50
    CELL_LIMIT_SCALE = 10


if __name__ == "__main__":
    unittest.main()
