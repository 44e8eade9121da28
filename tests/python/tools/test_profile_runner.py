"""The runner behind `asyncscope profile` (asyncscope/profile_script.py):
it profiles with the real PyTorch even when it is reached through a
symbolic link (a checkout behind a link), and reports its own outcome in
status.json apart from the program's exit status."""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

import asyncscope

RUNNER = os.path.join(os.path.dirname(asyncscope.__file__), "profile_script.py")
HAS_TORCH = importlib.util.find_spec("torch") is not None


@unittest.skipUnless(HAS_TORCH, "the real PyTorch is not installed (Debian: python3-torch)")
class Runner(unittest.TestCase):
    def run_runner(self, runner, script_text, folder):
        script = os.path.join(folder, "program.py")
        with open(script, "w") as f:
            f.write(script_text)
        out = os.path.join(folder, "out")
        os.mkdir(out)
        done = subprocess.run([sys.executable, runner, out, script], capture_output=True, text=True, timeout=300,
                              cwd=folder)
        with open(os.path.join(out, "status.json")) as f:
            status = json.load(f)
        return done, status, out

    def test_through_a_linked_folder_it_is_still_the_real_pytorch(self):
        with tempfile.TemporaryDirectory() as d:
            link = os.path.join(d, "linked")
            os.symlink(os.path.dirname(os.path.dirname(os.path.realpath(RUNNER))), link)
            runner = os.path.join(link, "asyncscope", "profile_script.py")
            done, status, out = self.run_runner(
                runner, "import torch\nprint(torch.__file__)\nx = torch.mm(torch.ones(3, 3), torch.ones(3, 3))\n", d)
            self.assertNotIn("error", status, status)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertNotIn("asyncscope", done.stdout, "asyncscope's edition shadowed the real torch")
            with open(os.path.join(out, "trace.json")) as f:
                self.assertIn("aten::mm", f.read())

    def test_the_programs_status_and_the_runners_outcome_are_apart(self):
        with tempfile.TemporaryDirectory() as d:
            done, status, out = self.run_runner(RUNNER, "import sys\nsys.exit(3)\n", d)
            self.assertEqual(done.returncode, 3)
            self.assertEqual(status["status"], 3)
            self.assertEqual(status["left_by"], "sys.exit")
            self.assertTrue(status["trace"])
            self.assertTrue(os.path.exists(os.path.join(out, "trace.json")))


if __name__ == "__main__":
    unittest.main()
