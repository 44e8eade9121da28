"""Live attach from Python: a program publishes its run (ASYNCSCOPE_SERVE=1,
asyncscope.serve(), a notebook kernel), and `asyncscope attach` follows it
headless, or the desktop app opens attached (asyncscope.show(app=True),
under Xvfb). Each test publishes in a private folder of its own
(ASYNCSCOPE_LIVE_DIR), so tests running side by side never see each other."""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))

try:
    import nbformat
except ImportError:
    nbformat = None
JUPYTER = shutil.which("jupyter-nbconvert") or shutil.which("jupyter")

# A program that publishes from its first op and computes for a while: the
# lines that push (7, 8) and the line that waits (10) are what the viewer
# must attribute its ops and waits to.
PROGRAM = textwrap.dedent("""\
    import sys, time
    import asyncscope
    from asyncscope import nd
    x = nd.random.uniform(shape=(200, 200))
    end = time.time() + float(sys.argv[1])
    while time.time() < end:
        y = nd.dot(x, x)
        z = y + 1
        if int(time.time() * 10) % 2 == 0:
            z.wait_to_read()
        time.sleep(0.01)
    print("done", flush=True)
    """)


def _env(live_dir, **extra):
    env = dict(os.environ, ASYNCSCOPE_LIVE_DIR=live_dir, ASYNCSCOPE_EXE=EXE, **extra)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
    return env


def _wait_for_socket(live_dir, pid, proc, timeout=60):
    path = os.path.join(live_dir, f"{pid}.sock")
    until = time.time() + timeout
    while time.time() < until:
        if os.path.exists(path):
            return path
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the program ended (exit {proc.returncode}) before publishing: "
                                 + proc.stdout.read() + proc.stderr.read())
        time.sleep(0.05)
    raise AssertionError(f"no socket at {path} after {timeout} s")


@unittest.skipUnless(os.path.exists(EXE), "no asyncscope executable at " + EXE)
class Live(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="asyncscope-live-py-")  # 0700, ours
        self.live = os.path.join(self.tmp, "live")
        self.script = os.path.join(self.tmp, "train.py")
        with open(self.script, "w", encoding="utf-8") as f:
            f.write(PROGRAM)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, seconds, **env):
        return subprocess.Popen([sys.executable, self.script, str(seconds)], env=_env(self.live, **env),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=self.tmp)

    def test_serve_publishes_in_a_private_folder_and_the_socket_goes_at_exit(self):
        code = ("import os, stat, asyncscope\n"
                "p = asyncscope.serve('the test')\n"
                "assert asyncscope.serving() == p\n"
                "print(p, oct(stat.S_IMODE(os.stat(p).st_mode)), oct(stat.S_IMODE(os.stat(os.path.dirname(p)).st_mode)))\n"
                "assert asyncscope.serve() == p  # already publishing: the same socket\n")
        done = subprocess.run([sys.executable, "-c", code], env=_env(self.live), capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        path, socket_mode, dir_mode = done.stdout.split()
        self.assertEqual(os.path.dirname(path), self.live)
        self.assertTrue(os.path.basename(path).endswith(".sock"))
        self.assertEqual(socket_mode, "0o600")
        self.assertEqual(dir_mode, "0o700")
        self.assertFalse(os.path.exists(path), "the socket stayed after the program exited")

    def test_nothing_is_published_unless_asked(self):
        code = "import asyncscope\nfrom asyncscope import nd\nnd.ones((2, 2)).wait_to_read()\nprint(asyncscope.serving())\n"
        done = subprocess.run([sys.executable, "-c", code], env=_env(self.live), capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "None")
        self.assertFalse(os.path.exists(self.live) and os.listdir(self.live))

    def test_headless_attach_follows_a_script_to_its_end_with_its_lines(self):
        proc = self.start(3, ASYNCSCOPE_SERVE="1")
        _wait_for_socket(self.live, proc.pid, proc)
        listed = subprocess.run([EXE, "attach", "--list"], env=_env(self.live), capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn(str(proc.pid), listed.stdout)
        self.assertIn("python3 train.py", listed.stdout)
        trace = os.path.join(self.tmp, "attached.json")
        done = subprocess.run([EXE, "attach", str(proc.pid), "--seconds", "120", "--trace", trace, "--print"],
                              env=_env(self.live), capture_output=True, text=True, timeout=180)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(out.strip(), "done")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("ended: the program exited", done.stdout)
        self.assertIn("train.py:7", done.stdout)  # the memory holders name the script's lines
        with open(trace, encoding="utf-8") as f:
            events = json.load(f)["traceEvents"]
        dots = [e for e in events if e.get("name") == "dot" and e.get("ph") == "X"]
        self.assertGreater(len(dots), 20)
        text = json.dumps(events)
        self.assertIn("train.py:7", text)
        self.assertIn("train.py:10", text)  # the waits' line

    def test_a_viewer_that_detaches_leaves_the_program_running(self):
        proc = self.start(3, ASYNCSCOPE_SERVE="1")
        _wait_for_socket(self.live, proc.pid, proc)
        done = subprocess.run([EXE, "attach", str(proc.pid), "--seconds", "0.5"], env=_env(self.live),
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("detached from process", done.stdout)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(out.strip(), "done")

    def test_bad_input_is_one_line_and_exit_2_or_the_same_message_as_an_exception(self):
        done = subprocess.run([EXE, "attach", "999999"], env=_env(self.live), capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("process 999999 does not publish its trace", done.stderr)
        self.assertIn("ASYNCSCOPE_SERVE=1", done.stderr)
        done = subprocess.run([EXE, "attach", "--seconds", "1"], env=_env(self.live), capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertIn("no program of this user publishes its trace", done.stderr)

        # A folder others can read is refused, by the viewer and the publisher alike.
        os.makedirs(self.live)
        os.chmod(self.live, 0o755)
        done = subprocess.run([EXE, "attach", "--list"], env=_env(self.live), capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, 2)
        cli_message = done.stderr.strip()
        self.assertIn("is open to other users (mode 0755)", cli_message)
        code = ("import asyncscope\ntry:\n    asyncscope.serve()\nexcept RuntimeError as e:\n    print(e)\n")
        py = subprocess.run([sys.executable, "-c", code], env=_env(self.live), capture_output=True, text=True,
                            timeout=120)
        self.assertEqual(py.returncode, 0, py.stderr)
        self.assertEqual(py.stdout.strip(), cli_message)
        # ASYNCSCOPE_SERVE=1 there: the program says why it does not publish, once, and goes on.
        proc = self.start(0.2, ASYNCSCOPE_SERVE="1")
        out, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(out.strip(), "done")
        self.assertEqual(err.count("(not publishing)"), 1, err)

    def test_a_headless_attach_holds_a_bounded_part_of_a_busy_run_and_says_which(self):
        busy = os.path.join(self.tmp, "busy.py")
        with open(busy, "w", encoding="utf-8") as f:
            # Busy until the test is done with it (the stop file), however long that takes here.
            f.write("import os, sys\nfrom asyncscope import nd\nx = nd.ones((4,))\n"
                    "while not os.path.exists(sys.argv[1]):\n    for _ in range(1000):\n        x = x + 1\n"
                    "        x.wait_to_read()\nprint('done', flush=True)\n")
        stop = os.path.join(self.tmp, "stop")
        proc = subprocess.Popen([sys.executable, busy, stop], env=_env(self.live, ASYNCSCOPE_SERVE="1"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=self.tmp)
        try:
            _wait_for_socket(self.live, proc.pid, proc)
            time.sleep(4)
            firsts = {}
            for flag in ([], ["--from-start"]):
                trace = os.path.join(self.tmp, "part.json")
                # --max-ops: small files to read here; what the bound does is the same at any size.
                done = subprocess.run([EXE, "attach", str(proc.pid), "--seconds", "1", "--max-ops", "20000",
                                       "--trace", trace] + flag,
                                      env=_env(self.live), capture_output=True, text=True, timeout=120)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertIn("The trace holds the run from", done.stdout)
                with open(trace, encoding="utf-8") as f:
                    events = json.load(f)["traceEvents"]
                enqueued = [e["ts"] for e in events if e.get("args", {}).get("event") == "enqueue"]
                self.assertGreater(len(enqueued), 100)
                self.assertLessEqual(len(enqueued), 20_000)
                firsts[bool(flag)] = min(enqueued) / 1e6  # seconds since the program's start
            # By default from 2 s before attaching (about 4 s in); asked, from the start.
            self.assertGreater(firsts[False], 1.0, firsts)
            self.assertLess(firsts[True], 1.0, firsts)
        finally:
            open(stop, "w").close()
            out, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(out.strip(), "done")

    def test_a_signal_during_the_attached_traces_write_leaves_no_file(self):
        busy = os.path.join(self.tmp, "busy.py")
        stop = os.path.join(self.tmp, "stop")
        with open(busy, "w", encoding="utf-8") as f:
            f.write("import os, sys\nfrom asyncscope import nd\nx = nd.ones((4,))\n"
                    "while not os.path.exists(sys.argv[1]):\n    for _ in range(1000):\n        x = x + 1\n"
                    "        x.wait_to_read()\n")
        proc = subprocess.Popen([sys.executable, busy, stop], env=_env(self.live, ASYNCSCOPE_SERVE="1"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=self.tmp)
        out_dir = os.path.join(self.tmp, "out")
        os.mkdir(out_dir)
        try:
            _wait_for_socket(self.live, proc.pid, proc)
            attach = subprocess.Popen([EXE, "attach", str(proc.pid), "--seconds", "2", "--trace",
                                       os.path.join(out_dir, "t.json")], env=_env(self.live),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            until = time.time() + 120
            while time.time() < until and attach.poll() is None and not any(".tmp-" in n for n in os.listdir(out_dir)):
                time.sleep(0.005)
            attach.send_signal(2)  # SIGINT while the trace is being written
            _, err = attach.communicate(timeout=60)
        finally:
            open(stop, "w").close()
            proc.communicate(timeout=120)
        if attach.returncode == 0:
            self.skipTest("the write ended before the signal could reach it (a fast disk)")
        self.assertEqual(attach.returncode, 130, err)
        self.assertIn("interrupted by SIGINT while writing the trace", err)
        self.assertEqual(os.listdir(out_dir), [], "a partial or temporary file was left")

    def test_a_pid_or_a_duration_that_is_not_a_number_is_one_line(self):
        for args, fragment in ((["abc"], "PID 'abc': expected a process id"),
                               (["--seconds", "nan", "1234"], "--seconds: expected a number of seconds")):
            done = subprocess.run([EXE, "attach"] + args, env=_env(self.live), capture_output=True, text=True,
                                  timeout=60)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn(fragment, done.stderr)

    def test_a_forked_child_does_not_take_its_parents_socket_for_its_own(self):
        code = textwrap.dedent("""\
            import os, asyncscope
            path = asyncscope.serve()
            pid = os.fork()
            if pid == 0:
                try:
                    asyncscope.serve()
                    print("child served", flush=True)
                except RuntimeError as e:
                    print("child refused:", "is a fork of process" in str(e), asyncscope.serving(), flush=True)
                os._exit(0)
            os.waitpid(pid, 0)
            print("parent", asyncscope.serving() == path, flush=True)
            """)
        done = subprocess.run([sys.executable, "-c", code], env=_env(self.live), capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines(), ["child refused: True None", "parent True"])

    @unittest.skipIf(nbformat is None or JUPYTER is None, "Jupyter is not installed (make test installs it)")
    def test_a_notebook_kernel_is_attached_live(self):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(c) for c in [
            "import asyncscope, time\nfrom asyncscope import nd\nprint(asyncscope.serve())",
            "x = nd.ones((128, 128))\nend = time.time() + 3\nwhile time.time() < end:\n"
            "    y = nd.dot(x, x)\n    y.wait_to_read()\n    time.sleep(0.01)",
        ]]
        src = os.path.join(self.tmp, "live.ipynb")
        nbformat.write(nb, src)
        cmd = [JUPYTER] if JUPYTER.endswith("nbconvert") else [JUPYTER, "nbconvert"]
        run = subprocess.Popen(cmd + ["--to", "notebook", "--execute", src, "--output",
                                      os.path.join(self.tmp, "done.ipynb")],
                               env=_env(self.live, PYDEVD_DISABLE_FILE_VALIDATION="1"), cwd=self.tmp,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        until = time.time() + 120
        pid = None
        while pid is None and time.time() < until and run.poll() is None:
            names = os.listdir(self.live) if os.path.isdir(self.live) else []
            pid = next((int(n[:-5]) for n in names if n.endswith(".sock")), None)
            time.sleep(0.05)
        self.assertIsNotNone(pid, "the kernel never published")
        trace = os.path.join(self.tmp, "kernel.json")
        done = subprocess.run([EXE, "attach", str(pid), "--seconds", "120", "--trace", trace], env=_env(self.live),
                              capture_output=True, text=True, timeout=180)
        out, err = run.communicate(timeout=120)
        self.assertEqual(run.returncode, 0, err)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("Jupyter kernel", done.stdout)
        with open(trace, encoding="utf-8") as f:
            events = json.load(f)["traceEvents"]
        self.assertGreater(len([e for e in events if e.get("name") == "dot" and e.get("ph") == "X"]), 20)

    @unittest.skipUnless(shutil.which("xvfb-run"), "xvfb-run is not installed (make test installs it)")
    def test_show_app_opens_the_app_attached_and_it_draws_the_run(self):
        png = os.path.join(self.tmp, "attached.png")
        args = os.path.join(self.tmp, "args.txt")
        wrapper = os.path.join(self.tmp, "app.sh")
        with open(wrapper, "w", encoding="utf-8") as f:
            # The app as show(app=True) starts it, under a private X server, saving a screenshot once the program ended.
            f.write(f'#!/bin/sh\necho "$@" > {args}\nexec xvfb-run -a -s "-screen 0 1400x900x24" {EXE} '
                    f'--window-size 1280x800 "$@" --screenshot {png} --quit-after-run > {png}.log 2>&1\n')
        os.chmod(wrapper, 0o755)
        code = textwrap.dedent("""\
            import time
            import asyncscope
            from asyncscope import nd
            app = asyncscope.show(app=True)
            until = time.time() + 90
            while asyncscope.live.viewers() == 0 and time.time() < until:
                time.sleep(0.05)
            print("viewers", asyncscope.live.viewers(), flush=True)
            x = nd.ones((200, 200))
            for i in range(80):
                y = nd.dot(x, x) + 1
                y.wait_to_read()
                time.sleep(0.01)
            """)
        env = _env(self.live)
        env["ASYNCSCOPE_EXE"] = wrapper
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("viewers 1", done.stdout)
        until = time.time() + 120
        while not (os.path.exists(png) and os.path.getsize(png) > 0) and time.time() < until:
            time.sleep(0.1)
        time.sleep(0.5)
        with open(args, encoding="utf-8") as f:
            self.assertRegex(f.read(), r"^attach \d+")
        if not os.path.exists(png):
            with open(png + ".log", encoding="utf-8", errors="replace") as f:
                self.fail("no screenshot; the app said: " + f.read())
        with open(png, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(int.from_bytes(head[16:20], "big"), 1280)
        # A window with lanes drawn compresses far worse than an empty one.
        self.assertGreater(os.path.getsize(png), 60_000)


if __name__ == "__main__":
    unittest.main()
