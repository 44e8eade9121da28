"""Simulated GPUs (asyncscope.configure(simulated_gpus=2), as
ASYNCSCOPE_SIMULATED_GPUS=2 does): cuda:0 and cuda:1 (gpu(0), gpu(1)) exist on
a machine without GPUs, each with workers of its own; both frontends see and
use them, values match the CPU's, copies between devices work, and the
Automatic Parallelism section's program, scaled down, keeps both devices
busy for at least half of its parallel part, as the trace shows. This module configures its own process's run."""

import json
import os
import tempfile
import unittest

import numpy as np

import asyncscope

asyncscope.configure(simulated_gpus=2, seed=3)

from asyncscope import nd, npx, torch  # noqa: E402
from asyncscope.d2l import mxnet as d2l_mx  # noqa: E402
from asyncscope.d2l import torch as d2l  # noqa: E402


def lanes_of(path):
    """Thread name -> (op name, start us, end us) of the ops that executed on it."""
    with open(path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    lanes = {}
    for e in events:
        if e.get("ph") == "X" and e.get("tid") in names:
            lanes.setdefault(names[e["tid"]], []).append((e["name"], e["ts"], e["ts"] + e.get("dur", 0)))
    return lanes


def busy(spans, begin, end):
    """The time the spans cover inside [begin, end] (they do not overlap: one lane)."""
    return sum(max(0, min(b, end) - max(a, begin)) for _, a, b in spans)


class SimulatedGpus(unittest.TestCase):
    def test_both_frontends_see_two_devices(self):
        self.assertTrue(torch.cuda.is_available())
        self.assertEqual(torch.cuda.device_count(), 2)
        self.assertEqual([str(d) for d in d2l.try_all_gpus()], ["cuda:0", "cuda:1"])
        self.assertEqual(npx.num_gpus(), 2)
        self.assertEqual(d2l_mx.num_gpus(), 2)
        self.assertEqual(len(d2l_mx.try_all_gpus()), 2)
        with self.assertRaisesRegex(RuntimeError, "no such GPU"):
            torch.ones(2, device="cuda:2")
        with self.assertRaisesRegex(ValueError, "already 2"):
            asyncscope.configure(simulated_gpus=3)

    def test_each_device_counts_its_own_memory(self):
        before = [torch.cuda.memory_allocated(d) for d in ("cuda:0", "cuda:1")]
        x = torch.ones(1000, 250, device="cuda:1")  # 1 MB on cuda:1 only
        torch.cuda.synchronize()
        self.assertEqual(torch.cuda.memory_allocated("cuda:0"), before[0])
        self.assertEqual(torch.cuda.memory_allocated("cuda:1") - before[1], 1000 * 250 * 4)
        del x

    def test_values_and_copies_match_the_cpu(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        x0 = torch.tensor(a, device="cuda:0")
        x1 = x0.to("cuda:1")
        self.assertEqual(str(x1.device), "cuda:1")
        y = (x1 @ x1.T + 1).relu().sum(dim=0)
        np.testing.assert_allclose(y.cpu().numpy(), np.maximum(a @ a.T + 1, 0).sum(axis=0))
        i = torch.arange(6, device="cuda:1").reshape(2, 3)
        self.assertEqual((i // 2).cpu().tolist(), [[0, 0, 1], [1, 2, 2]])
        with self.assertRaisesRegex(RuntimeError, "different devices"):
            x0 + x1
        m = nd.ones((2, 3), ctx=asyncscope.gpu(1)) * 2
        self.assertEqual(str(m.context), "gpu(1)")
        np.testing.assert_array_equal(m.copyto(asyncscope.gpu(0)).asnumpy(), np.full((2, 3), 2, np.float32))

    def test_the_automatic_parallelism_program_uses_both_devices(self):
        devices = d2l.try_all_gpus()

        def run(x):
            return [x.mm(x) for _ in range(5)]

        # Products of several milliseconds, longer than a scheduler's time
        # slice: on a loaded machine the two devices' workers then share the
        # cores op by op instead of one running all its ops first.
        x_gpu1 = torch.rand(size=(700, 700), device=devices[0])
        x_gpu2 = torch.rand(size=(700, 700), device=devices[1])
        run(x_gpu1), run(x_gpu2)
        torch.cuda.synchronize()
        asyncscope.mark("both devices")
        with d2l.Benchmark("both devices"):
            y1 = run(x_gpu1)
            y2 = run(x_gpu2)
            torch.cuda.synchronize()
        asyncscope.mark("done")
        y1_cpu = [y.to("cpu", non_blocking=True) for y in y1]
        np.testing.assert_allclose(y1_cpu[0].numpy(), x_gpu1.cpu().numpy() @ x_gpu1.cpu().numpy(), rtol=1e-4)
        self.assertEqual(y2[-1].shape, (700, 700))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trace.json")
            asyncscope.export_trace(path)
            lanes = lanes_of(path)
        sim = {name: spans for name, spans in lanes.items() if " sim worker " in name}
        self.assertEqual(sorted(sim), ["cuda:0 sim worker 0", "cuda:1 sim worker 0"])
        # The parallel part: from the first to the last product after the warm-up
        # (each device's 5 products queue at once, so both stay busy throughout).
        dots = {name: [s for s in spans if s[0] == "dot"][-5:] for name, spans in sim.items()}
        begin = min(d[0][1] for d in dots.values())
        end = max(d[-1][2] for d in dots.values())
        for name, spans in dots.items():
            self.assertEqual(len(spans), 5, name)
        # Each device's products ran while the other's did: their stretches
        # overlap (an order in the trace, whatever the load on the cores).
        (first, a), (second, b) = dots.items()
        self.assertLess(a[0][1], b[-1][2], (first, second))
        self.assertLess(b[0][1], a[-1][2], (second, first))
        self.assertGreater(sum(busy(spans, begin, end) for spans in dots.values()), end - begin)


if __name__ == "__main__":
    unittest.main()
