"""Runs one program under the real PyTorch and, through `python3 -m
asyncscope`, under the PyTorch edition, for tests that compare what the
two print. The package is the build's, as ctest puts it on PYTHONPATH."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def package_folder():
    """The folder the asyncscope package is imported from (build/python when run by hand)."""
    for folder in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if folder and os.path.isdir(os.path.join(folder, "asyncscope")):
            return folder
    return os.path.join(HERE, "..", "..", "..", "build", "python")


HAS_TORCH = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0


def outputs_of_both(test, program, timeout=300, real_path=None):
    """What `program` (Python text) prints under the real PyTorch and under
    the edition, in that order; fails `test` unless both exit 0. real_path:
    a folder put first on the real run's PYTHONPATH (the real d2l library);
    the edition's run gets the edition's d2l, as `python3 -m asyncscope`
    gives it. Figures are drawn with matplotlib's Agg backend in both."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "program.py")
        with open(path, "w") as f:
            f.write(program)
        env = dict(os.environ, MPLBACKEND="Agg")
        real_env = dict(env, PYTHONPATH=os.pathsep.join(p for p in (real_path, os.environ.get("PYTHONPATH")) if p))
        real = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=timeout,
                              env=real_env)
        ours = subprocess.run([sys.executable, "-m", "asyncscope", path], capture_output=True, text=True,
                              timeout=timeout, env=dict(env, PYTHONPATH=package_folder()))
    test.assertEqual(real.returncode, 0, real.stderr)
    test.assertEqual(ours.returncode, 0, ours.stderr)
    return real.stdout, ours.stdout


def assert_prints_the_same(test, program, timeout=300, real_path=None):
    """Fails `test` unless `program` (Python text) exits 0 under both and prints the same lines."""
    real, ours = outputs_of_both(test, program, timeout, real_path)
    test.assertEqual(ours.splitlines(), real.splitlines())
