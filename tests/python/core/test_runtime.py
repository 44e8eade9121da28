"""The package's run in a plain python3 process: errors as Python exceptions
(a failed op at its sync point, the memory budget, bad arguments), the trace
written at exit to $ASYNCSCOPE_TRACE or by export_trace, configure()."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest

import asyncscope
from asyncscope import nd


def run_script(code, timeout=120, **env):
    """Runs code in a fresh python3 with this package; returns the completed process."""
    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full_env, timeout=timeout)


class Errors(unittest.TestCase):
    def test_the_memory_budget_is_a_memory_error_at_the_sync_point(self):
        done = run_script("""
            from asyncscope import nd
            x = nd.ones((4000, 4000))  # 64 MB against a 16 MB budget: the push returns, the op fails
            try:
                x.wait_to_read()
            except MemoryError as e:
                print("MemoryError:", e)
            """, ASYNCSCOPE_MEMORY_BUDGET_MB="16")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("MemoryError: op 'ones'", done.stdout)
        self.assertIn("the 4000x4000 array", done.stdout)

    def test_a_loop_that_outgrows_the_budget_stops_with_a_memory_error(self):
        # The process's default run records every op: its pending ops and
        # their trace count against the budget, so the loop stops instead of
        # growing (counts, not timing).
        done = run_script("""
            from asyncscope import nd
            x = nd.ones((1,))
            pushed = 0
            try:
                for pushed in range(10_000_000):
                    x = x + 1
                print("no stop after", pushed)
            except MemoryError as e:
                print("MemoryError after", pushed, "ops:", e)
            """, ASYNCSCOPE_MEMORY_BUDGET_MB="16")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("MemoryError after", done.stdout)
        self.assertIn("memory budget of 16.0 MB", done.stdout)

    def test_op_error_is_a_runtime_error_naming_the_op(self):
        self.assertTrue(issubclass(asyncscope.OpError, RuntimeError))

    def test_configure_after_the_first_array_says_why(self):
        nd.ones((1,)).wait_to_read()
        with self.assertRaisesRegex(RuntimeError, "already started"):
            asyncscope.configure(workers=1)
        self.assertFalse(asyncscope.hosted())


class Gil(unittest.TestCase):
    """A wait keeps the GIL only while it spins: one that sleeps lets the
    process's other Python threads run."""

    def other_thread_runs_during(self, wait):
        a = nd.ones((1500, 1500))
        b = a
        for _ in range(6):  # tens of milliseconds of products, each on the last
            b = nd.dot(a, b) / 1500.0
        ticks = []
        stop = threading.Event()

        def count():
            while not stop.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0)

        other = threading.Thread(target=count)
        other.start()
        while not ticks:
            time.sleep(0.001)
        begin = time.perf_counter()
        wait(b)
        end = time.perf_counter()
        stop.set()
        other.join()
        self.assertGreater(end - begin, 0.002, "the products ended before the wait could sleep")
        inside = [t for t in ticks if begin < t < end]
        self.assertGreater(len(inside), 10, f"the other thread ran {len(inside)} times in a {end - begin:.3f} s wait")

    def test_a_sleeping_wait_to_read_lets_other_threads_run(self):
        self.other_thread_runs_during(lambda b: b.wait_to_read())

    def test_a_sleeping_waitall_lets_other_threads_run(self):
        self.other_thread_runs_during(lambda b: nd.waitall())

    def test_a_sleeping_asscalar_lets_other_threads_run(self):
        self.other_thread_runs_during(lambda b: b.sum().asscalar())


class Trace(unittest.TestCase):
    def test_asyncscope_trace_is_written_at_exit(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.json")
            done = run_script("""
                from asyncscope import nd
                y = nd.dot(nd.ones((64, 64)), nd.ones((64, 64))).sum()
                print(y.asscalar())
                """, ASYNCSCOPE_TRACE=path)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(path) as f:
                events = json.load(f)["traceEvents"]
            names = {e.get("name") for e in events}
            self.assertIn("dot", names)
            self.assertIn("item", names)

    def test_asyncscope_trace_never_replaces_the_script_and_a_bad_path_is_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, "s.py")
            text = "from asyncscope import nd\nprint((nd.ones((2,)) + 1).asnumpy()[0])\n"
            with open(script, "w") as f:
                f.write(text)
            link = os.path.join(d, "link.py")
            os.symlink(script, link)
            for target in (script, link, os.path.join(d, "missing", "t.json")):
                done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=120,
                                      env=dict(os.environ, ASYNCSCOPE_TRACE=target))
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(done.stdout, "2.0\n")
                self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
                self.assertIn("cannot write ASYNCSCOPE_TRACE", done.stderr)
                with open(script) as f:
                    self.assertEqual(f.read(), text)

    def test_a_window_of_a_long_run_costs_the_window(self):
        # A notebook cell's picture: only the window's ops are written,
        # however many the run had before (sizes, not timing).
        done = run_script("""
            import json, os, sys, tempfile
            import asyncscope
            from asyncscope import _core, nd
            x = nd.ones((1,))
            for i in range(30000):
                x = x + 1
            x.wait_to_read()
            start = asyncscope.mark("cell")
            y = nd.ones((2,)) * 2
            y.wait_to_read()
            with tempfile.TemporaryDirectory() as d:
                _core._export_window(os.path.join(d, "w.json"), start, -1.0)
                _core.export_trace(os.path.join(d, "all.json"))
                with open(os.path.join(d, "w.json")) as f:
                    ops = [e for e in json.load(f)["traceEvents"] if e.get("args", {}).get("event") == "enqueue"]
                print(len(ops), os.path.getsize(os.path.join(d, "w.json")), os.path.getsize(os.path.join(d, "all.json")))
            """, ASYNCSCOPE_TRACE="")
        self.assertEqual(done.returncode, 0, done.stderr)
        ops, window, whole = map(int, done.stdout.split())
        self.assertIn(ops, (2, 3))  # ones and mul (and a free the engine pushed then)
        self.assertLess(window * 100, whole)

    def test_export_trace_and_the_seed_configured_before_the_first_array(self):
        script = """
            import asyncscope
            from asyncscope import nd
            asyncscope.configure(workers=3, seed=%d)
            print(list(nd.random.uniform(shape=(4,)).asnumpy()))
            asyncscope.export_trace(%r)
            """
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.json")
            runs = [run_script(script % (seed, path)) for seed in (7, 7, 8)]
            for done in runs:
                self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(runs[0].stdout, runs[1].stdout)
            self.assertNotEqual(runs[0].stdout, runs[2].stdout)
            with open(path) as f:
                names = {e.get("name") for e in json.load(f)["traceEvents"]}
            self.assertIn("uniform", names)
            self.assertIn("to_host", names)


if __name__ == "__main__":
    unittest.main()


class Blas(unittest.TestCase):
    def test_blas_info_names_the_kernel_and_what_the_package_set_for_the_load(self):
        done = run_script("""
            import json, os
            import asyncscope
            info = asyncscope.blas_info()
            print(json.dumps(info))
            print("env after import:", os.environ.get("OPENBLAS_THREAD_TIMEOUT"))
            """, OPENBLAS_THREAD_TIMEOUT="", OPENBLAS_CORETYPE="")
        self.assertEqual(done.returncode, 0, done.stderr)
        info = json.loads(done.stdout.splitlines()[0])
        for key in ("library", "core", "reason", "thread_timeout", "threads", "set_at_import"):
            self.assertIn(key, info)
        self.assertNotEqual(info["core"], "")
        self.assertGreaterEqual(info["threads"], 1)
        # NumPy loaded OpenBLAS in a fresh process: the package chose for it, for the load only.
        self.assertEqual(info["set_at_import"].get("OPENBLAS_THREAD_TIMEOUT"), "18")
        self.assertIn("env after import: None", done.stdout)

    def test_the_users_openblas_settings_win(self):
        done = run_script("""
            import asyncscope, os
            print(asyncscope.blas_info()["set_at_import"], os.environ["OPENBLAS_THREAD_TIMEOUT"])
            """, OPENBLAS_THREAD_TIMEOUT="25")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("OPENBLAS_THREAD_TIMEOUT", done.stdout.split("}")[0])
        self.assertIn(" 25", done.stdout)


class Exit(unittest.TestCase):
    """Plain python3 exits as it would without asyncscope, whatever a daemon
    thread is doing when the main thread returns: pushing in a loop, or
    waiting in item() (each run several times: the daemon may be anywhere)."""

    def exits_at_once(self, daemon_body, runs=5):
        body = "\n".join("        " + line for line in textwrap.dedent(daemon_body).strip().splitlines())
        code = ("import threading, time\n"
                "from asyncscope import nd\n"
                "def loop():\n"
                "    x = nd.ones((10,))\n"
                "    while True:\n"
                f"{body}\n"
                "threading.Thread(target=loop, daemon=True).start()\n"
                "time.sleep(0.2)\n"
                "print('main done')\n")
        for _ in range(runs):
            try:
                done = run_script(code, timeout=30, ASYNCSCOPE_TRACE="")
            except subprocess.TimeoutExpired:
                self.fail("the process did not exit (a daemon thread held the exit up)")
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(done.stdout, "main done\n")
            self.assertEqual(done.stderr, "", "nothing from the daemon thread either")

    def test_a_forked_child_is_told_it_cannot_compute_instead_of_hanging(self):
        done = run_script("""
            import os
            from asyncscope import nd
            x = nd.ones((4,)) + 1
            print("parent", x.asnumpy()[0], flush=True)
            pid = os.fork()
            if pid == 0:
                try:
                    (nd.ones((4,)) * 3).asnumpy()
                    print("child computed", flush=True)
                except RuntimeError as e:
                    print("child:", "is a fork of process" in str(e), "'spawn'" in str(e), flush=True)
                try:
                    (x + 1).wait_to_read()  # an array the parent made
                except RuntimeError as e:
                    print("child again:", "is a fork of process" in str(e), flush=True)
                raise SystemExit(0)  # a normal exit: its shutdown leaves the parent's run be
            _, status = os.waitpid(pid, 0)
            print("parent done", os.waitstatus_to_exitcode(status), (x * 2).asnumpy()[0], flush=True)
            """, timeout=60, ASYNCSCOPE_TRACE="")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines(),
                         ["parent 2.0", "child: True True", "child again: True", "parent done 0 4.0"])

    def test_a_daemon_thread_pushing_in_a_loop_does_not_hold_the_exit(self):
        self.exits_at_once("x = x + 1")

    def test_a_daemon_thread_waiting_in_item_does_not_abort_the_exit(self):
        self.exits_at_once("""
            x = x + 1
            x.sum().asscalar()
            """)
