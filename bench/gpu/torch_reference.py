"""Real PyTorch on a GPU: the baselines the CUDA benchmarks are compared with.

Run on the GPU machine by scripts/gpu-check.sh in the same call as the
benchmarks (GPU timings only compare on one machine in one call). Measures,
each as the median of its repetitions:

  chapter_sync_ms     the chapter's loop, synchronised: 10 x (a 1000 x 1000
                      normal matrix, its product with itself), then
                      torch.cuda.synchronize (BM_CudaNormalMatmulEnqueueVsSync)
  chapter_enqueue_ms  the same loop up to the synchronize
  waited_tiny_op_us   y = x + 1 on 128 x 128, then synchronize
                      (BM_CudaWaitedTinyOp)
  push_tiny_op_us     y = x + 1 without a wait (BM_CudaPushTinyOp)
  gemm4096_tflops     10 FP32 products of 4096 x 4096 without TF32
                      (BM_CudaGemm4096Engine)

and writes a profiler trace of the chapter's code (CPU and CUDA activities,
shapes, memory) as Chrome trace JSON, gzip-compressed, a real trace for the
importer's tests.

Usage: python3 bench/gpu/torch_reference.py OUT_DIR
Writes OUT_DIR/torch_reference.json and OUT_DIR/torch_chapter_cuda.json.gz.
"""

import gzip
import json
import os
import shutil
import statistics
import sys
import time


def median_of(fn, reps):
    return statistics.median(fn() for _ in range(reps))


def main(out_dir):
    import torch

    if not torch.cuda.is_available():
        print("torch_reference: PyTorch sees no GPU", file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda:0")
    result = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(dev),
    }
    sync = torch.cuda.synchronize

    # The chapter's loop (warmed up at the measured size first).
    w = torch.randn(size=(1000, 1000), device=dev)
    torch.mm(w, w)
    sync()

    def chapter():
        t0 = time.perf_counter()
        for _ in range(10):
            a = torch.randn(size=(1000, 1000), device=dev)
            b = torch.mm(a, a)
        t1 = time.perf_counter()
        sync()
        t2 = time.perf_counter()
        del b
        return (t1 - t0) * 1e3, (t2 - t0) * 1e3

    runs = [chapter() for _ in range(200)]
    result["chapter_enqueue_ms"] = statistics.median(r[0] for r in runs)
    result["chapter_sync_ms"] = statistics.median(r[1] for r in runs)

    x = torch.ones((128, 128), device=dev)
    for _ in range(100):
        (x + 1).sum()
    sync()

    def waited():
        t0 = time.perf_counter()
        y = x + 1
        sync()
        return (time.perf_counter() - t0) * 1e6

    result["waited_tiny_op_us"] = median_of(waited, 3000)

    x2 = torch.ones((2,), device=dev)
    sync()
    n = 100000
    t0 = time.perf_counter()
    for _ in range(n):
        y = x2 + 1
    result["push_tiny_op_us"] = (time.perf_counter() - t0) / n * 1e6
    sync()

    g = torch.randn(4096, 4096, device=dev)
    torch.mm(g, g)
    sync()

    def gemm():
        t0 = time.perf_counter()
        for _ in range(10):
            c = torch.mm(g, g)
        sync()
        return time.perf_counter() - t0

    seconds = median_of(gemm, 20)
    result["gemm4096_ms"] = seconds * 1e3
    result["gemm4096_tflops"] = 10 * 2 * 4096 ** 3 / seconds / 1e12

    path = os.path.join(out_dir, "torch_reference.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1), flush=True)

    # A profiler trace of the chapter's code: the synchronised loop three times.
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 profile_memory=True, with_stack=False) as prof:
        for _ in range(3):
            for _ in range(10):
                a = torch.randn(size=(1000, 1000), device=dev)
                b = torch.mm(a, a)
            sync()
        p = torch.ones((1, 2), device=dev)
        q = torch.ones((1, 2), device=dev)
        print(p + q * 2, flush=True)
    raw = os.path.join(out_dir, "torch_chapter_cuda.json")
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as src, gzip.open(raw + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)
    print("trace:", raw + ".gz", os.path.getsize(raw + ".gz"), "bytes", flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
