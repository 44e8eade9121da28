"""Memory and sync: a small network trains on batches generated on the fly,
first reading the loss of every batch (asscalar, a sync point), then without
any sync. Without it the frontend enqueues every batch at once, the
generated batches wait in memory for training to reach them, and the
process grows.

Run it:  asyncscope script assets/scripts/memory.py
Smaller: BATCHES=20 BATCH_SIZE=256 asyncscope script ...
"""
import os
import subprocess
import time

import asyncscope
from asyncscope import autograd, gluon, nd
from asyncscope.gluon import loss as gloss, nn

batches = int(os.environ.get("BATCHES", 100))
batch_size = int(os.environ.get("BATCH_SIZE", 1024))


def batches_of_data():
    start = time.time()
    for i in range(batches):
        X = nd.random.normal(shape=(batch_size, 512))
        y = nd.ones((batch_size,))
        yield X, y
        if (i + 1) % 50 == 0:
            print("batch %d generated after %.4f s" % (i + 1, time.time() - start))


def resident_mb():
    # The process's resident set, as `ps` reports it (in KB).
    out = subprocess.check_output(["ps", "-o", "rss=", "-p", str(os.getpid())])
    return int(out.split()[0]) / 1e3


net = nn.Sequential()
net.add(nn.Dense(2048, activation="relu"), nn.Dense(512, activation="relu"), nn.Dense(1))
net.initialize()
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.005})
loss = gloss.L2Loss()

# One batch first: it gives the layers their input size.
for X, y in batches_of_data():
    break
loss(y, net(X)).wait_to_read()

asyncscope.mark("a sync every batch")
before, total = resident_mb(), 0.0
for X, y in batches_of_data():
    with autograd.record():
        l = loss(y, net(X))
    total += l.mean().asscalar()
    l.backward()
    trainer.step(X.shape[0])
nd.waitall()
print("with a sync every batch, memory grew by %.1f MB" % (resident_mb() - before))

asyncscope.mark("no sync")
before = resident_mb()
for X, y in batches_of_data():
    with autograd.record():
        l = loss(y, net(X))
    l.backward()
    trainer.step(X.shape[0])
nd.waitall()
print("without a sync, memory grew by %.1f MB" % (resident_mb() - before))
