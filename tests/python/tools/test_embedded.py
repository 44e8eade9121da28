"""The interpreter embedded in the asyncscope executable (`asyncscope script`):
it takes its standard library and site-packages from the python3 the build
used, whatever other interpreter comes first on PATH."""

import os
import subprocess
import sys
import sysconfig
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))


class Embedded(unittest.TestCase):
    def test_another_python3_first_on_path_does_not_change_its_prefix(self):
        # A prefix of another python3 (as pyenv or conda put first on PATH):
        # the same standard library, but no site-packages, so no NumPy.
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "bin"))
            os.makedirs(os.path.join(d, "lib"))
            fake = os.path.join(d, "bin", "python3")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\nexit 1\n")
            os.chmod(fake, 0o755)
            stdlib = sysconfig.get_paths()["stdlib"]
            os.symlink(stdlib, os.path.join(d, "lib", os.path.basename(stdlib)))
            script = os.path.join(d, "prefix.py")
            with open(script, "w") as f:
                f.write("import sys, numpy\nprint(sys.prefix, numpy.__name__)\n")
            env = dict(os.environ, PATH=os.path.join(d, "bin") + os.pathsep + os.environ.get("PATH", ""))
            env.pop("PYTHONHOME", None)
            done = subprocess.run([EXE, "script", script], capture_output=True, text=True, env=env, timeout=120)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertEqual(done.stdout.split(), [sys.prefix, "numpy"])


if __name__ == "__main__":
    unittest.main()
