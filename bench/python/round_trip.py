"""The push + wait round trip from Python, for paired runs in alternating
processes (docs/PERFORMANCE.md, "The Python frontend"): prints the median
round trip on 1 element (rt1, us), the time per iteration of a waited
128x128 add (add128w, us) and of a 1-element add loop with one wait at the
end (tiny, us per op), each the median of three runs in this process.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/round_trip.py [WORKERS]
"""
import sys, time, os
import numpy as np
import asyncscope
w = int(sys.argv[1]) if len(sys.argv) > 1 else 0
asyncscope.configure(workers=w)
from asyncscope import nd

def med(a): a = sorted(a); return a[len(a)//2]

def roundtrip(x, reps):
    s = []
    pc = time.perf_counter_ns
    for _ in range(reps):
        t0 = pc()
        y = x + 1.0
        y.wait_to_read()
        s.append(pc() - t0)
    return med(s) / 1e3

def waited_loop(x, reps):
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        y = x + 1.0
        y.wait_to_read()
    return (time.perf_counter_ns() - t0) / reps / 1e3

def tiny(reps):
    y = nd.ones((1,))
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        y = y + 1.0
    y.wait_to_read()
    return (time.perf_counter_ns() - t0) / reps / 1e3

x1 = nd.ones((1,)); x128 = nd.ones((128, 128))
roundtrip(x1, 2000); waited_loop(x128, 2000); tiny(2000)
r = [roundtrip(x1, 20000) for _ in range(3)]
l = [waited_loop(x128, 5000) for _ in range(3)]
t = [tiny(20000) for _ in range(3)]
print(f"rt1 {med(r):.3f} add128w {med(l):.3f} tiny {med(t):.3f}")
