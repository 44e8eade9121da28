#!/usr/bin/env python3
"""asyncscope side by side with NumPy and PyTorch on the CPU.

Runs the workloads of asyncscope's demos in three flavours, our Python
package (asyncscope.nd), NumPy float32 and PyTorch CPU float32, plus the C++
demos themselves through the CLI where they measure the same thing. NumPy
runs twice where the code has a scalar in it: with its own float32 scalar
(its fastest, the main table) and with the Python scalar the other sides
write (`x + 1.0`, a second table). Every
(side, workload group) runs in a fresh process; the sides take turns within
each round and the order flips every round (A B C, C B A, ...), so a machine
that speeds up or slows down hits every side alike. Medians over the rounds
go to build/peers.json, and a Markdown table to stdout.

    make bench-peers                      # builds, then: python3 bench/peers/run.py
    python3 bench/peers/run.py --rounds 5 --out build/peers.json
    python3 bench/peers/run.py --quick --check   # the ctest: tiny sizes, one round, checks only

--check exits 1 when a row is missing, a value is not positive, or the
sides' results disagree; 77 (ctest's skip) when PyTorch is not installed.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import common  # noqa: E402

PY_SIDES = ["asyncscope", "numpy", "torch"]
PY_SCALAR = "numpy-python-scalar"  # NumPy with Python scalars: common.SCALAR_GROUPS only
GROUP_OF = {"gemm": "gemm", "gemm_1worker": "gemm-1worker"}  # rows whose BLAS thread count the JSON names
SKIP = 77


def row_specs(p):
    """Every row: key, label, unit, whether higher is better. Labels carry
    the sizes actually run (--quick runs smaller ones)."""
    sva = f"{p['sva_size']}², {p['sva_iterations']}× y = x + 1"
    gemm = f"dot(x, x) {p['gemm_size']}²"
    rows = [
        ("sva_sync", f"sync-vs-async {sva}, a wait every iteration", "ms", False),
        ("sva_async", f"sync-vs-async {sva}, one wait at the end", "ms", False),
        ("gemm", f"queued-vs-finished {gemm} (ours: default workers)", "GFLOP/s", True),
        ("gemm_1worker", f"queued-vs-finished {gemm} (ours: 1 worker)", "GFLOP/s", True),
        ("tiny_loop", f"tiny op loop: 1-element y = y + 1 × {p['tiny_ops']}, one wait", "µs/op", False),
    ]
    for prefix, n in (("ew_small_", p["ew_small"]), ("ew_large_", p["ew_large"])):
        for op, text in (("add_scalar", "x + 1"), ("mul", "x * y"), ("relu", "relu(x)"), ("sum", "sum(x)")):
            rows.append((prefix + op, f"{text} {n}², waited each time", "µs/op", False))
    rows.append(("roundtrip", "push + wait round trip (1-element add), median", "µs", False))
    for op, text in common.TYPED_OPS:
        rows.append(("typed_" + op, f"{text} {p['ew_large']}², waited each time", "µs/op", False))
    return rows


def machine():
    model = None
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpu_model": model,
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "kernel": platform.release(),
        "python": sys.version.split()[0],
        "python_executable": sys.executable,
    }


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(v) for v in f.read().split()[:3]]


def child_env(build):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(build, "python") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("ASYNCSCOPE_TRACE", None)  # no trace file written at exit
    return env


def run_side(python, side, group, quick, env):
    cmd = [python, os.path.join(HERE, "side.py"), side, group] + (["--quick"] if quick else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{side} {group} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# The C++ demos through the CLI: sync-vs-async's two loops and
# queued-vs-finished's GEMM (its gflops come from the dot op's span in the trace).
def cli_groups(p):
    return {
        "sync-vs-async": (["sync-vs-async", "--size", str(p["sva_size"]), "--iterations", str(p["sva_iterations"])],
                          {"sva_sync": ("sync_s", 1e3), "sva_async": ("async_s", 1e3)}),
        "gemm": (["queued-vs-finished", "--size", str(p["gemm_size"])], {"gemm": ("gflops", 1.0)}),
        "gemm-1worker": (["queued-vs-finished", "--size", str(p["gemm_size"]), "--workers", "1"],
                         {"gemm_1worker": ("gflops", 1.0)}),
    }


def run_cli(exe, args, mapping, env, extra_env=None):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.json")
        e = dict(env)
        e.update(extra_env or {})
        proc = subprocess.run([exe, "run"] + args + ["--json", path], env=e, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"asyncscope run {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        with open(path) as f:
            doc = json.load(f)
    rows = {key: {"value": doc["results"][field] * scale, "check": None} for key, (field, scale) in mapping.items()}
    return rows, proc.stderr


def cli_kernel(exe, env, p):
    """The CLI's OpenBLAS kernel: OpenBLAS itself prints "Core: NAME" when it
    initialises with OPENBLAS_VERBOSE=2 (a separate, untimed run)."""
    _, stderr = run_cli(exe, ["queued-vs-finished", "--size", "64"], {}, env, {"OPENBLAS_VERBOSE": "2"})
    cores = [line.split(":", 1)[1].strip() for line in stderr.splitlines() if line.startswith("Core:")]
    return cores[-1] if cores else None


def torch_available(python):
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


def summarise(values):
    med = statistics.median(values)
    return {"median": med, "min": min(values), "max": max(values),
            "rel_spread": (max(values) - min(values)) / med if med else None, "samples": values}


def fmt(v):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def markdown(doc):
    k = doc["kernels"]
    lines = [
        f"Machine: {doc['machine']['cpu_model']}, {doc['machine']['cores']} cores; load average "
        f"{' '.join(map(str, doc['load_average_start']))} at start, {' '.join(map(str, doc['load_average_end']))} at end; "
        f"{doc['rounds']} rounds, medians.",
        f"OPENBLAS_CORETYPE in the environment: {doc['OPENBLAS_CORETYPE'] or '(unset)'}.",
        "BLAS kernel (openblas_get_corename; OpenBLAS threads): "
        + "; ".join(f"{side} {v['core']}" + (f" ({v['threads']} threads)" if v.get("threads") else "")
                    for side, v in k.items() if v),
        "",
        "| workload | unit | asyncscope (Python) | asyncscope (C++ demo, CLI) | NumPy | PyTorch | ours / NumPy | ours / PyTorch | spread ours / NumPy / torch |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in doc["rows"]:
        m = r["median"]
        sp = "/".join("–" if r["spread"].get(s) is None else f"{100 * r['spread'][s]:.0f}%" for s in PY_SIDES)
        ratio = lambda x: "–" if x is None else f"{x:.2f}×"  # noqa: E731
        label = r["label"]
        if r.get("blas_threads"):
            label += " [OpenBLAS threads " + ", ".join(
                f"{s} {'/'.join(map(str, t))}" for s, t in r["blas_threads"].items() if t) + "]"
        lines.append(f"| {label} | {r['unit']} | {fmt(m['asyncscope'])} | {fmt(m['cli'])} | {fmt(m['numpy'])} | "
                     f"{fmt(m['torch'])} | {ratio(r['ratio']['numpy'])} | {ratio(r['ratio']['torch'])} | {sp} |")
    lines.append("")
    lines.append("Ratios are asyncscope (Python) / peer of the medians: for times above 1 means we are slower, "
                 "for GFLOP/s above 1 means we are faster.")
    scalar_rows = [r for r in doc["rows"] if r["median"].get(PY_SCALAR) is not None]
    if scalar_rows:
        lines += [
            "",
            "NumPy above adds its own float32 scalar (`x + np.float32(1)`), its fastest; the other sides and the "
            "chapter write a Python number (`x + 1.0`, `maximum(x, 0.0)`). The rows with a scalar, NumPy running "
            "that same code (the result is float32 either way):",
            "",
            "| workload | unit | asyncscope (Python) | NumPy, np.float32 scalar | NumPy, Python scalar | "
            "ours / NumPy (Python scalar) | spread |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for r in scalar_rows:
            m, spread = r["median"], r["spread"].get(PY_SCALAR)
            ratio = r["ratio"][PY_SCALAR]
            lines.append(f"| {r['label']} | {r['unit']} | {fmt(m['asyncscope'])} | {fmt(m['numpy'])} | "
                         f"{fmt(m[PY_SCALAR])} | {'–' if ratio is None else f'{ratio:.2f}×'} | "
                         f"{'–' if spread is None else f'{100 * spread:.0f}%'} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build folder (build/python, build/bin)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds (default 5; 1 with --quick)")
    ap.add_argument("--out", default=None, help="JSON output (default BUILD/peers.json; BUILD/peers-quick.json with --quick)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: checks the harness, measures nothing useful")
    ap.add_argument("--check", action="store_true", help="fail unless every row is there, positive, and the sides agree")
    ap.add_argument("--no-cli", action="store_true", help="skip the C++ demos through build/bin/asyncscope")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the sides (needs NumPy and PyTorch)")
    args = ap.parse_args()

    build = os.path.abspath(args.build)
    rounds = args.rounds or (1 if args.quick else 5)
    out_path = args.out or os.path.join(build, "peers-quick.json" if args.quick else "peers.json")
    p = common.params(args.quick)
    env = child_env(build)
    exe = os.environ.get("ASYNCSCOPE_EXE") or os.path.join(build, "bin", "asyncscope")
    use_cli = not args.no_cli and os.access(exe, os.X_OK)
    if not args.no_cli and not use_cli:
        print(f"run.py: {exe} is not built; the C++ demos' column stays empty", file=sys.stderr)
    if not os.path.isdir(os.path.join(build, "python", "asyncscope")):
        sys.exit(f"run.py: {build}/python/asyncscope is not built (cmake --build {build} --target asyncscope_python_package)")

    sides = PY_SIDES + [PY_SCALAR]
    if not torch_available(args.python):
        if args.check:
            print(f"run.py: PyTorch is not installed for {args.python} (apt-get install python3-torch); skipping",
                  file=sys.stderr)
            sys.exit(SKIP)
        print("run.py: PyTorch is not installed; its column stays empty", file=sys.stderr)
        sides.remove("torch")

    load_start = loadavg()
    started = time.time()
    samples = {}  # row -> side -> [values]
    checks = {}   # row -> side -> [check values]
    scales = {}   # row -> side -> [the checks' scales]
    probes = {}   # side -> openblas probe of each run
    extra = {}    # row -> side -> extra figures (e.g. the GEMM's sum)
    describe = {}
    clis = cli_groups(p) if use_cli else {}
    for r in range(rounds):
        for group in common.GROUPS:
            order = [s for s in sides if s != PY_SCALAR or group in common.SCALAR_GROUPS]
            order += ["cli"] if group in clis else []
            if r % 2:
                order.reverse()
            for side in order:
                if side == "cli":
                    args_, mapping = clis[group]
                    rows, _ = run_cli(exe, args_, mapping, env)
                else:
                    rep = run_side(args.python, side, group, args.quick, env)
                    rows = rep["rows"]
                    probes.setdefault(side, {}).setdefault(group, []).append(rep["openblas"])
                    describe[side] = {"describe": rep["describe"], "other_blas": rep["other_blas"]}
                for key, v in rows.items():
                    samples.setdefault(key, {}).setdefault(side, []).append(v["value"])
                    if v.get("check") is not None:
                        checks.setdefault(key, {}).setdefault(side, []).append(v["check"])
                        scales.setdefault(key, {}).setdefault(side, []).append(v["scale"])
                    if "sum" in v:
                        extra.setdefault(key, {}).setdefault(side, []).append(v["sum"])
            print(f"round {r + 1}/{rounds}: {group} done", file=sys.stderr, flush=True)
    load_end = loadavg()

    # The kernel each side ran: the library and kernel of every run must
    # agree; the thread count may differ by group (ours: cores / workers).
    kernels = {}
    problems = []
    for side in sides:
        runs = [pr for group_runs in probes.get(side, {}).values() for pr in group_runs]
        if not runs or any(pr is None for pr in runs):
            problems.append(f"{side}: no OpenBLAS mapped in (some of) its processes")
            kernels[side] = None
            continue
        cores = sorted({pr["core"] for pr in runs})
        libraries = sorted({pr["library"] for pr in runs})
        if len(cores) > 1 or len(libraries) > 1:
            problems.append(f"{side}: the kernel changed between runs: {cores} {libraries}")
        threads = {group: sorted({pr["threads"] for pr in group_runs}) for group, group_runs in probes[side].items()}
        kernels[side] = {"core": "/".join(cores), "library": "/".join(libraries), "config": runs[0]["config"],
                         "threads": "/".join(str(t) for t in sorted({pr["threads"] for pr in runs})),
                         "threads_by_group": threads, "how": "openblas_get_corename() through ctypes, after the work"}
    if use_cli:
        kernels["cli"] = {"core": cli_kernel(exe, env, p), "threads": None,
                          "library": None, "config": None, "how": "OPENBLAS_VERBOSE=2 'Core:' line"}

    doc_rows = []
    for key, label, unit, higher in row_specs(p):
        per = samples.get(key, {})
        summary = {s: summarise(v) for s, v in per.items()}
        med = {s: (summary[s]["median"] if s in summary else None) for s in PY_SIDES + [PY_SCALAR, "cli"]}
        ratio = {peer: (med["asyncscope"] / med[peer] if med["asyncscope"] and med[peer] else None)
                 for peer in ("numpy", "torch", PY_SCALAR)}
        # The sides' results, round by round, against NumPy's.
        agree = True
        ch = checks.get(key, {})
        for side in ch:
            for i, c in enumerate(ch[side]):
                ref = ch.get("numpy", [None] * (i + 1))[i]
                scale = max(scales[key][side][i], scales[key]["numpy"][i]) if ref is not None else 0
                if ref is not None and not common.close(c, ref, scale):
                    agree = False
                    problems.append(f"{key}: {side} computed {c!r}, NumPy {ref!r}")
        for side in sides + (["cli"] if key in {k for _, m in clis.values() for k in m} else []):
            if side == PY_SCALAR and key not in common.SCALAR_ROWS:
                continue
            if side not in per:
                problems.append(f"{key}: no value from {side}")
            elif not all(v > 0 for v in per[side]):
                problems.append(f"{key}: {side} measured a value <= 0: {per[side]}")
        doc_rows.append({
            "workload": key, "label": label, "unit": unit, "higher_is_better": higher,
            "median": med, "ratio": ratio,
            "asyncscope": med["asyncscope"], "numpy": med["numpy"], "torch": med["torch"], "cli": med["cli"],
            "asyncscope_over_numpy": ratio["numpy"], "asyncscope_over_torch": ratio["torch"],
            **({"numpy_python_scalar": med[PY_SCALAR], "asyncscope_over_numpy_python_scalar": ratio[PY_SCALAR]}
               if med[PY_SCALAR] is not None else {}),
            "spread": {s: summary[s]["rel_spread"] for s in summary},
            "samples": {s: summary[s]["samples"] for s in summary},
            "checks": ch, "checks_agree": agree,
            **({"gemm_sum": extra[key]} if key in extra else {}),
            **({"blas_threads": {s: kernels[s]["threads_by_group"].get(g) for s in sides if kernels.get(s)}}
               if (g := GROUP_OF.get(key)) else {}),
        })

    doc = {
        "what": "asyncscope vs NumPy vs PyTorch (CPU, float32), bench/peers/run.py",
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
        "quick": args.quick, "rounds": rounds, "params": p,
        "machine": machine(), "load_average_start": load_start, "load_average_end": load_end,
        "seconds": round(time.time() - started, 1),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "kernels": kernels, "sides": describe,
        "rows": doc_rows, "problems": problems,
    }
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(markdown(doc))
    print(f"\nwrote {out_path}", file=sys.stderr)
    if problems:
        print("problems:\n  " + "\n  ".join(problems), file=sys.stderr)
        if args.check:
            sys.exit(1)


if __name__ == "__main__":
    main()
