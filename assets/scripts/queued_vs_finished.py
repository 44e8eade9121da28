"""Queued vs finished: the two lines that make and multiply a large matrix
return almost at once; they only enqueued work. Printing the result is what
waits, for the whole product.

Run it:  asyncscope script assets/scripts/queued_vs_finished.py
   (or:  PYTHONPATH=build/python python3 assets/scripts/queued_vs_finished.py)
Smaller: SIZE=500 asyncscope script ...
"""
import os
import time

import asyncscope
from asyncscope import nd

size = int(os.environ.get("SIZE", 2000))

# Warm up first (BLAS loads, the memory pool fills), so what follows is the demo's own.
nd.dot(nd.ones((8, 8)), nd.ones((8, 8))).wait_to_read()

asyncscope.mark("enqueue")
start = time.time()
x = nd.random.uniform(shape=(size, size))
y = nd.dot(x, x).sum()
print("the two lines returned after %.6f s" % (time.time() - start))

asyncscope.mark("print y")
print("y =", y)
print("y was printed after %.4f s" % (time.time() - start))
