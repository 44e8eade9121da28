"""Reads the Chrome trace JSON that asyncscope writes into plain records the
tests can assert on: ops (name, id, enqueue, start, end in ns), waits (kind,
begin, end), markers (name -> time) and counter samples."""

import json
from collections import namedtuple

Op = namedtuple("Op", "id name enqueue start end internal")
Wait = namedtuple("Wait", "kind begin end")


class Trace:
    def __init__(self, path):
        with open(path) as f:
            events = json.load(f)["traceEvents"]
        enqueued, executed = {}, {}
        self.waits, self.markers, self.counters = [], {}, {}
        for e in events:
            args = e.get("args", {})
            # Slices say what they are in args.event (format 4); older files in cat.
            cat = args.get("event", e.get("cat")) if e.get("ph") == "X" else e.get("cat")
            if e.get("ph") == "X" and cat == "enqueue":
                enqueued[args["id"]] = (e["name"], args["ns_ts"], args["internal"])
            elif e.get("ph") == "X" and cat == "op":
                executed[args["id"]] = (args["ns_ts"], args["ns_ts"] + args["ns_dur"])
            elif e.get("ph") == "X" and cat == "sync":
                self.waits.append(Wait(args["kind"], args["ns_ts"], args["ns_ts"] + args["ns_dur"]))
            elif e.get("ph") == "i" and cat == "marker":
                self.markers[e["name"]] = args["ns_ts"]
            elif e.get("ph") == "C":
                self.counters.setdefault(e["name"], []).append((e["ns_ts"], e["args"]["value"]))
        self.ops = []
        for op_id, (name, enqueue, internal) in sorted(enqueued.items()):
            start, end = executed.get(op_id, (None, None))
            self.ops.append(Op(op_id, name, enqueue, start, end, internal))
        self.waits.sort(key=lambda w: w.begin)

    def named(self, name, since=None, until=None):
        """The ops of a kind enqueued in [since, until)."""
        return [op for op in self.ops if op.name == name and (since is None or op.enqueue >= since)
                and (until is None or op.enqueue < until)]

    def peak(self, counter, since, until):
        return max((v for t, v in self.counters.get(counter, []) if since <= t < until), default=0)
