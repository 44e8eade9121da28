"""Sync functions: wait_to_read, waitall, asnumpy, asscalar and printing
each make the frontend wait. Before each, an unrelated longer computation is
enqueued: only waitall waits for it too; the others wait for exactly what
their array needs.

Run it:  asyncscope script assets/scripts/sync_functions.py
Smaller: SIZE=300 asyncscope script ...
"""
import os
import time

import asyncscope
from asyncscope import nd

size = int(os.environ.get("SIZE", 1000))


def timed(label, wait):
    # Unrelated work first, so it is ahead of y in the queue.
    z = nd.random.uniform(shape=(size, size))
    for _ in range(3):
        z = nd.dot(z, z) / size
    x = nd.random.uniform(shape=(size, size))
    y = nd.dot(x, x).sum()
    asyncscope.mark(label)
    start = time.time()
    wait(y)
    print("%-12s waited %.4f s" % (label, time.time() - start))
    nd.waitall()


nd.dot(nd.ones((8, 8)), nd.ones((8, 8))).wait_to_read()
timed("wait_to_read", lambda y: y.wait_to_read())
timed("waitall", lambda y: nd.waitall())
timed("asnumpy", lambda y: y.asnumpy())
timed("asscalar", lambda y: y.asscalar())
timed("print", lambda y: print(y))
