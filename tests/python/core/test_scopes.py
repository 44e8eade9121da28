"""The layers' scopes on the trace: a torch.nn.Module's or a Gluon block's
call pushes its ops inside a scope named after it (as its parent names it),
nested in its parents', backward pushes each gradient in its layer's scope,
an optimizer's step has a scope of its own, and the memory holders of the
run name the layer."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.environ.get("ASYNCSCOPE_EXE", os.path.join(HERE, "..", "..", "..", "build", "bin", "asyncscope"))

PROGRAM = textwrap.dedent("""\
    import asyncscope
    from asyncscope import autograd, gluon, nd, torch
    from asyncscope.gluon import loss as gloss, nn as gnn
    from asyncscope.torch import nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Linear(64, 256)
            self.out = nn.Linear(256, 10)

        def forward(self, x):
            return self.out(torch.relu(self.hidden(x)))

    net = MLP()
    X = torch.randn(512, 64)
    loss = nn.CrossEntropyLoss()(net(X), torch.zeros(512, dtype=torch.int64))
    loss.backward()
    torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9).step()

    class Halving(torch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {})

        def step(self):
            with torch.no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        p.mul_(0.5)

    Halving(net.parameters()).step()
    seq = nn.Sequential(nn.Linear(64, 32), nn.ReLU())
    seq(X).sum().item()

    g = gnn.Sequential()
    g.add(gnn.Dense(128, activation="relu"), gnn.Dense(10))
    g.initialize()
    with autograd.record():
        l = gloss.L2Loss()(g(nd.ones((512, 64))), nd.zeros((512, 10)))
    l.backward()
    gluon.Trainer(g.collect_params(), "adam", {"learning_rate": 0.01}).step(512)
    nd.waitall()
    asyncscope.export_trace(TRACE)
    """)


class Scopes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.trace = os.path.join(cls.tmp.name, "scopes.json")
        done = subprocess.run([sys.executable, "-c", PROGRAM.replace("TRACE", repr(cls.trace))], capture_output=True,
                              text=True, timeout=300)
        if done.returncode != 0:
            raise AssertionError(done.stderr)
        with open(cls.trace, encoding="utf-8") as f:
            cls.doc = json.load(f)
        cls.scopes = {}  # op name -> the scopes its enqueues were pushed in
        for e in cls.doc["traceEvents"]:
            args = e.get("args", {})
            if e.get("ph") == "X" and args.get("event") == "enqueue":
                cls.scopes.setdefault(e["name"].split(" ")[-1], set()).add(args.get("scope", ""))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_trace_lists_the_nestings_in_the_order_they_were_met(self):
        self.assertEqual(self.doc["otherData"]["scopes"][:4],
                         ["MLP", "MLP > hidden (Linear)", "MLP > out (Linear)", "CrossEntropyLoss"])
        self.assertIn("Sequential > 0 (Linear)", self.doc["otherData"]["scopes"])
        self.assertIn("sequential0 > dense0", self.doc["otherData"]["scopes"])
        self.assertIn("L2Loss", self.doc["otherData"]["scopes"])

    def scopes_of(self, op):
        """The scopes the enqueues of ops named like `op` were pushed in."""
        return {e["args"].get("scope", "") for e in self.doc["traceEvents"]
                if e.get("ph") == "X" and e.get("args", {}).get("event") == "enqueue" and op in e["name"]}

    def test_each_layers_ops_are_in_its_scope(self):
        dots = self.scopes_of("dot")
        self.assertTrue({"MLP > hidden (Linear)", "MLP > out (Linear)", "Sequential > 0 (Linear)",
                         "sequential0 > dense0", "sequential0 > dense1"} <= dots, dots)

    def test_backward_pushes_each_layers_gradient_in_that_layers_scope(self):
        dots = self.scopes_of("dot")
        self.assertTrue({"backward > MLP > hidden (Linear)", "backward > MLP > out (Linear)",
                         "backward > sequential0 > dense0", "backward > sequential0 > dense1"} <= dots, dots)
        self.assertIn("backward > CrossEntropyLoss", self.doc["otherData"]["scopes"])
        self.assertIn("backward > L2Loss", self.doc["otherData"]["scopes"])
        # The torch Sequential ran without backward: none of its scopes is inside one.
        self.assertNotIn("backward > Sequential > 0 (Linear)", self.doc["otherData"]["scopes"])

    def test_an_optimizers_step_is_a_scope_named_after_it(self):
        self.assertIn("SGD.step", self.doc["otherData"]["scopes"])
        self.assertIn("Halving.step", self.doc["otherData"]["scopes"], "a user's optimizer is named too")
        self.assertIn("Trainer.step (adam)", self.doc["otherData"]["scopes"])
        self.assertIn("SGD.step", self.scopes_of("copy"), "the momentum buffer (a clone) is the step's")
        self.assertIn("Trainer.step (adam)", self.scopes_of("zeros"), "so are Adam's moments")

    @unittest.skipUnless(os.path.exists(EXE), "no asyncscope executable at " + EXE)
    def test_the_memory_holders_name_the_layer(self):
        out = os.path.join(self.tmp.name, "answers.json")
        done = subprocess.run([EXE, "view", self.trace, "--json", out], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, encoding="utf-8") as f:
            holders = json.load(f)["peak_live_holders"]
        scoped = [h for h in holders if h["scope"]]
        self.assertTrue(scoped, holders)
        for h in scoped:
            self.assertIn(h["scope"], self.doc["otherData"]["scopes"])


if __name__ == "__main__":
    unittest.main()
