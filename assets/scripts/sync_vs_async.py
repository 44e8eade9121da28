"""Sync vs async: the loop y = x + 1, once waiting for y in every iteration,
once with a single waitall at the end. Waiting every time pays the frontend's
enqueue and the round trip for each op; running ahead overlaps them with the
work. The timeline shows a blocked span per iteration in the first loop and
a single one in the second.

Run it:  asyncscope script assets/scripts/sync_vs_async.py --workers 1
Other sizes: N=1000 SIZE=128 (the defaults); SIZE=1 makes the frontend the bottleneck.
"""
import os
import time

import asyncscope
from asyncscope import nd

n = int(os.environ.get("N", 1000))
size = int(os.environ.get("SIZE", 128))
x = nd.ones((size, size))
(x + 1).wait_to_read()

asyncscope.mark("wait in every iteration")
start = time.time()
for _ in range(n):
    y = x + 1
    y.wait_to_read()
print("a wait in every iteration: %.4f s" % (time.time() - start))

asyncscope.mark("one wait at the end")
start = time.time()
for _ in range(n):
    y = x + 1
nd.waitall()
print("one waitall at the end:    %.4f s" % (time.time() - start))
