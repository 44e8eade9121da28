"""Dependencies: x and y do not depend on each other, so two workers make
them at the same time; x * y waits for both, and + 2 for the product. The
engine knows which arrays each op reads and writes: that is the graph.

Run it:  asyncscope script assets/scripts/dependencies.py --workers 2
"""
import os

from asyncscope import nd

size = int(os.environ.get("SIZE", 1000))
x = nd.ones((size, size))
y = nd.ones((size, size))
z = x * y + 2
print("z[0, 0] =", z.asnumpy()[0, 0])
