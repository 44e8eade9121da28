"""The same loop on the real PyTorch and on asyncscope.torch: on a CPU, the
real one computes each op before the call returns; asyncscope's engine only
enqueues it and computes it on its workers while the loop goes on.

Run it both ways and compare the two traces:

    asyncscope profile assets/scripts/pytorch_vs_asyncscope.py --trace real.json --print
    asyncscope script  assets/scripts/pytorch_vs_asyncscope.py --trace ours.json
    asyncscope view ours.json real.json     (stacked, with what changed)
    asyncscope diff ours.json real.json

What to look for. The real PyTorch on a CPU: the products (aten::mm) sit on
the script's own thread, one after another; the loop ends when the last
one has been computed, and the final .item() has nothing left to wait for.
asyncscope.torch: the frontend lane shows short enqueues (the loop ends in
a fraction of the time), the workers' lanes run the products afterwards,
and .item() is where the frontend waits for them. On a GPU the real
PyTorch behaves like ours: launches return at once and the wait moves to
the synchronising call. Other sizes: SIZE=800 REPS=10 (the defaults).
"""
import os
import time

try:
    import asyncscope  # noqa: F401  (present under `asyncscope script`)
    from asyncscope import torch
    EDITION = "asyncscope.torch"
except ImportError:
    import torch
    EDITION = "PyTorch " + torch.__version__

size = int(os.environ.get("SIZE", 800))
reps = int(os.environ.get("REPS", 10))

x = torch.ones(size, size) / size
x.sum().item()  # made before the clock starts

start = time.perf_counter()
ys = [torch.mm(x, x) for _ in range(reps)]
looped = time.perf_counter() - start
total = sum(y.sum() for y in ys).item()
done = time.perf_counter() - start

print(f"{EDITION}: the loop of {reps} products of {size}x{size} returned after {looped * 1e3:.1f} ms;")
print(f"  the result ({total:.1f}) was there after {done * 1e3:.1f} ms "
      f"({100 * looped / done:.0f}% of it inside the loop)")
