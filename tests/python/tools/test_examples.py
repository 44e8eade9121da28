"""The project's example scripts (assets/scripts/), each run by
`asyncscope script` in a small configuration, its phenomenon asserted from
the trace (ordering and counts, never wall-clock ratios), as the C++ demo
tests do."""

import os
import subprocess
import tempfile
import unittest

from trace_reader import Trace

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "..", "assets", "scripts")
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))


def run(script, *args, **env):
    """Runs an example script; returns (its output, its trace)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        child = dict(os.environ, **env)
        # Under make asan this python3 has the sanitizer runtimes preloaded
        # for the extension; the app is instrumented itself and needs none,
        # and `ps`, which memory.py runs, hangs with them preloaded.
        child.pop("LD_PRELOAD", None)
        done = subprocess.run([EXE, "script", os.path.join(SCRIPTS, script), "--trace", path, *args],
                              capture_output=True, text=True, timeout=300, env=child)
        if done.returncode != 0:
            raise AssertionError("%s failed (%d):\n%s%s" % (script, done.returncode, done.stdout, done.stderr))
        return done.stdout, Trace(path)


class Examples(unittest.TestCase):
    def test_queued_vs_finished(self):
        out, t = run("queued_vs_finished.py", "--workers", "2", SIZE="400")
        self.assertIn("y was printed after", out)
        since = t.markers["enqueue"]
        dot = t.named("dot", since)[0]
        total = t.named("sum", since)[0]
        self.assertLess(total.enqueue, dot.end, "both lines returned before the product ended")
        printed = [w for w in t.waits if w.kind == "print" and w.begin >= t.markers["print y"]]
        self.assertEqual(len(printed), 1)
        self.assertGreaterEqual(printed[0].end, total.end, "printing waited for the result")

    def test_sync_functions_wait_for_their_input(self):
        out, t = run("sync_functions.py", "--workers", "2", SIZE="400")
        for label in ("wait_to_read", "waitall", "asnumpy", "asscalar", "print"):
            self.assertIn(label, out)
        kinds = {"wait_to_read": "wait_to_read", "waitall": "wait_all", "asnumpy": "to_host", "asscalar": "item",
                 "print": "print"}
        order = ["wait_to_read", "waitall", "asnumpy", "asscalar", "print"]
        for i, label in enumerate(order):
            since = t.markers[label]
            before = t.markers[order[i - 1]] if i else 0
            until = t.markers[order[i + 1]] if i + 1 < len(order) else None
            wait = next(w for w in t.waits if w.kind == kinds[label] and w.begin >= since)
            # Each waits for y (the last sum enqueued before it)...
            y = [op for op in t.named("sum", before, until) if op.enqueue < since][-1]
            self.assertGreaterEqual(wait.end, y.end, label + " waited for y")
            # ... and waitall for the unrelated chain of products too. (That the
            # others need not wait for it is a timing, not an ordering, so on a
            # loaded machine it is not asserted.)
            if label == "waitall":
                chain_end = max(op.end for op in t.named("dot", before, until) if op.enqueue < since)
                self.assertGreaterEqual(wait.end, chain_end, "waitall waits for the unrelated work too")

    def test_sync_vs_async(self):
        out, t = run("sync_vs_async.py", "--workers", "1", N="200", SIZE="64")
        self.assertIn("one waitall at the end", out)
        first, second = t.markers["wait in every iteration"], t.markers["one wait at the end"]
        waits = [w for w in t.waits if w.kind == "wait_to_read" and first <= w.begin < second]
        self.assertEqual(len(waits), 200)
        adds = t.named("add_scalar", second)
        self.assertEqual(len(adds), 200)
        # Running ahead: every add was enqueued before the last one finished.
        self.assertLess(max(op.enqueue for op in adds), max(op.end for op in adds))

    def test_dependencies(self):
        out, t = run("dependencies.py", "--workers", "2", SIZE="300")
        self.assertIn("z[0, 0] = 3.0", out)
        x, y = t.named("ones")[-2:]
        product = t.named("mul")[-1]
        plus = t.named("add_scalar")[-1]
        self.assertGreaterEqual(product.start, max(x.end, y.end))
        self.assertGreaterEqual(plus.start, product.end)

    def test_memory_piles_up_without_a_sync(self):
        # Batches of 256 rows: a training step takes far longer than the
        # frontend needs to generate a batch, even when the frontend is slow
        # (AddressSanitizer); at 64 rows such a frontend can get fewer than the
        # half of the batches asserted below ahead of the first step.
        batches, batch_size = 64, 256
        out, t = run("memory.py", "--workers", "2", BATCHES=str(batches), BATCH_SIZE=str(batch_size))
        self.assertIn("without a sync, memory grew by", out)
        synced, unsynced = t.markers["a sync every batch"], t.markers["no sync"]
        end = max(op.end for op in t.ops if op.end is not None)
        # With a sync every batch, batch i+1 is generated only after batch i's loss was read.
        normals = t.named("normal", synced, unsynced)
        items = [w for w in t.waits if w.kind == "item" and synced <= w.begin < unsynced]
        self.assertEqual(len(normals), batches)
        self.assertEqual(len(items), batches)
        for i in range(1, batches):
            self.assertGreaterEqual(normals[i].enqueue, items[i - 1].end)
        # Without it, the frontend runs ahead: most batches are enqueued
        # before the first one is trained on (all of them on a quiet machine;
        # a slow frontend, as under AddressSanitizer, gets through fewer).
        normals = t.named("normal", unsynced)
        first_step = min(op.end for op in t.named("add_scaled", unsynced))
        self.assertGreaterEqual(sum(op.enqueue < first_step for op in normals), batches // 2)
        # ... and waits in memory. A generated input's buffer exists from the
        # end of its `normal` until its batch's forward pass has read it, and
        # every batch after the first reads the weights the first step
        # writes: the inputs generated before that step ended were all live
        # at once. (How many is an ordering; the bytes they add up to depend
        # on how far the workers got, so only their direction is asserted.)
        generated_early = [op for op in normals if op.end <= first_step]
        self.assertGreaterEqual(len(generated_early), batches // 2)
        self.assertGreater(t.peak("live_bytes", unsynced, end), t.peak("live_bytes", synced, unsynced))

    def test_host_vs_device(self):
        reps = 6
        out, t = run("host_vs_device.py", "--workers", "2", SIZE="200", REPS=str(reps))
        for label in ("numpy on the host", "torch, the loop returned after", "torch, loop and synchronize"):
            self.assertRegex(out, label + r": \d+\.\d{4} sec")
        numpy, torch, sync, both = (t.markers[m] for m in ("numpy", "torch", "synchronize", "torch and synchronize"))
        # The NumPy loop is frontend time only: no op, no wait.
        self.assertEqual([op for op in t.ops if numpy <= op.enqueue < torch and not op.internal], [])
        self.assertEqual([w for w in t.waits if numpy <= w.begin < torch], [])
        # The torch loop enqueues a product per iteration and never waits ...
        self.assertEqual(len(t.named("normal", torch, sync)), reps)
        products = t.named("dot", torch, sync)
        self.assertEqual(len(products), reps)
        self.assertEqual([w for w in t.waits if torch <= w.begin < sync], [])
        # ... and synchronize is the one wait that takes the work: it ends after every product.
        waits = [w for w in t.waits if sync <= w.begin < both]
        self.assertEqual([w.kind for w in waits], ["wait_all"])
        self.assertGreaterEqual(waits[0].end, max(op.end for op in products))
        # Loop and synchronize together: the same, in one block.
        products = t.named("dot", both)
        self.assertEqual(len(products), reps)
        waits = [w for w in t.waits if w.begin >= both and w.kind == "wait_all"]
        self.assertGreaterEqual(waits[0].end, max(op.end for op in products))


if __name__ == "__main__":
    unittest.main()
