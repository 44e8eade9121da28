"""PyTorch's own operator test database as the PyTorch edition's yardstick.

The installed PyTorch's OpInfo records (torch.testing._internal's op_db,
read at run time, never copied here) give every operator with its sample
inputs. Each sample runs in the real PyTorch and in asyncscope.torch (its
tensors converted), on the CPU, for float32, float64, int64 and bool where
the OpInfo supports them, and the results are compared: shape, dtype and
values (allclose rtol 1e-4, atol 1e-5; integers and bools exact); the
random ops by shape and dtype only. Float samples whose op has a gradient
are run again with requires_grad, `out.sum().backward()`, and the input's
gradient compared the same way.

Ops run in child processes, several ops each, with a time limit per op:
a crash or a hang is that op's recorded failure, and the next child goes
on from the op after it. The unit run takes a subset of common ops; with
ASYNCSCOPE_OPINFO_ALL=1 (ctest -L stress: python.OpInfoAll) every op of
the database outside complex numbers, fft., special., sparse., masked. and
jiterator. Both print a per-op table and one summary line. Known failures
are listed, each with its reason, in opinfo_known_failures.json beside this
file: an op there may fail; one that passes makes the test fail until it
is taken off the list (which may only shrink). `python3 test_opinfo.py
--write-known-failures` runs every op and writes the list from what fails.

Debian's PyTorch lacks `expecttest`, which the database imports: a tiny
stand-in is written to a temporary folder for the children.
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KNOWN = os.path.join(HERE, "opinfo_known_failures.json")
DTYPES = ("float32", "float64", "int64", "bool")
SKIPPED_PREFIXES = ("fft.", "special.", "sparse.", "_masked.", "masked.", "jiterator_", "signal.")
# Their values are random: compared by shape and dtype.
RANDOM = {"bernoulli", "normal", "multinomial", "uniform", "rand_like", "randn_like", "randint_like", "randint",
          "empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "nn.functional.dropout",
          "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.alpha_dropout",
          "nn.functional.feature_alpha_dropout", "nn.functional.rrelu", "nn.functional.fractional_max_pool2d",
          "nn.functional.fractional_max_pool3d", "cauchy", "exponential", "geometric", "log_normal", "randn", "rand"}
# Common ops the unit run takes (the whole database is for stress).
QUICK = ["add", "sub", "mul", "div", "pow", "neg", "abs", "exp", "log", "sqrt", "sigmoid", "tanh", "sin", "cos",
         "sum", "mean", "max", "min", "argmax", "matmul", "mm", "t", "transpose", "reshape", "view", "cat", "stack",
         "clamp", "where", "nn.functional.relu", "softmax", "log_softmax", "eq", "lt", "maximum", "floor", "ones_like",
         "zeros_like", "flatten", "squeeze", "unsqueeze", "exp2", "sign", "cumsum", "bmm", "unique",
         "unique_consecutive", "fmod", "atan2", "movedim", "diagonal", "cummax", "nansum", "nn.functional.glu",
         "nn.functional.gaussian_nll_loss", "nn.functional.mish", "linalg.svd", "linalg.qr", "linalg.eigh",
         "linalg.cholesky", "linalg.inv", "linalg.det", "linalg.solve", "linalg.solve_triangular", "scatter_add",
         "nn.functional.nll_loss"]
OP_LIMIT_S = 60  # one op (all its samples) in a child: past this it counts as hung


def _stub_folder():
    import atexit
    import shutil
    folder = tempfile.mkdtemp(prefix="asyncscope-opinfo-")
    atexit.register(shutil.rmtree, folder, True)
    with open(os.path.join(folder, "expecttest.py"), "w") as f:
        f.write("import unittest\nACCEPT = False\nTestCase = unittest.TestCase\n")
    return folder


def op_key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


# ---------------------------------------------------------------- the child


def _ours_callable(ours, op, first):
    """asyncscope.torch's callable for the OpInfo `op`, or None where it has none."""
    name = op.name
    fn = getattr(op, "op", None)
    if getattr(fn, "__name__", "") == "<lambda>" and "torch" in fn.__code__.co_names:
        # The database's own wrapper (where's is `lambda self, condition, other: torch.where(condition, self,
        # other)`), its `torch` bound to ours.
        import types
        return types.FunctionType(fn.__code__, {**fn.__globals__, "torch": ours}, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
    if name.startswith("__") and name.endswith("__"):
        return getattr(type(first), name, None) and (lambda x, *a, **k: getattr(x, name)(*a, **k))
    target = ours
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            break
    if target is not None:
        return target
    # A method only (Tensor.t(), .view()).
    if hasattr(type(first), name):
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    return None


def _run_op(real, ours, op, dtypes):
    """Compares op's samples in every dtype; a row of the result table."""
    import numpy as np
    row = {"op": op_key(op), "present": True, "forward": [0, 0], "grad": [0, 0], "first_error": "",
           "by_dtype": {}}  # forward samples per dtype
    dtype_of = {real.float32: ours.float32, real.float64: ours.float64, real.int64: ours.int64, real.bool: ours.bool,
                real.int32: ours.int32, real.uint8: ours.uint8}
    real_dtypes = {"float32": real.float32, "float64": real.float64, "int64": real.int64, "bool": real.bool}

    def convert(v, grad):
        if isinstance(v, real.Tensor):
            if v.dtype not in dtype_of:
                raise TypeError(f"no asyncscope dtype for {v.dtype}")
            t = ours.tensor(v.detach().cpu().numpy(), dtype=dtype_of[v.dtype])
            if grad and v.dtype.is_floating_point:
                t.requires_grad_(True)
            return t
        if isinstance(v, real.dtype):
            if v not in dtype_of:
                raise TypeError(f"no asyncscope dtype for {v}")
            return dtype_of[v]
        if isinstance(v, real.device):
            return str(v)
        if isinstance(v, real.Size):
            return tuple(v)
        if isinstance(v, (list, tuple)):
            out = [convert(x, grad) for x in v]
            return type(v)(out) if isinstance(v, tuple) and not hasattr(v, "_fields") else out
        if isinstance(v, dict):
            return {k: convert(x, grad) for k, x in v.items()}
        return v

    def values(v):
        if isinstance(v, real.Tensor):
            return ("tensor", tuple(v.shape), str(v.dtype).replace("torch.", ""), v.detach().cpu().numpy())
        if hasattr(v, "numpy") and hasattr(v, "shape") and hasattr(v, "dtype"):
            return ("tensor", tuple(v.shape), str(v.dtype).replace("torch.", ""), np.asarray(v.detach().numpy()))
        if isinstance(v, (list, tuple)):
            return ("seq", [values(x) for x in v])
        return ("value", v)

    def same(a, b, random):
        if a[0] != b[0]:
            return f"a {b[0]} where PyTorch gives a {a[0]}"
        if a[0] == "seq":
            if len(a[1]) != len(b[1]):
                return f"{len(b[1])} results where PyTorch gives {len(a[1])}"
            for x, y in zip(a[1], b[1]):
                why = same(x, y, random)
                if why:
                    return why
            return ""
        if a[0] == "value":
            x, y = a[1], b[1]
            if isinstance(x, float) and isinstance(y, (int, float)):
                return "" if math.isclose(x, y, rel_tol=1e-4, abs_tol=1e-5) or (math.isnan(x) and math.isnan(y)) else f"{y} vs {x}"
            return "" if x == y else f"{y!r} vs {x!r}"
        _, shape_a, dtype_a, va = a
        _, shape_b, dtype_b, vb = b
        if shape_a != shape_b:
            return f"shape {shape_b} vs {shape_a}"
        if dtype_a != dtype_b:
            return f"dtype {dtype_b} vs {dtype_a}"
        if random:
            return ""
        if va.dtype.kind in "fc":
            ok = np.allclose(vb.astype(va.dtype), va, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            ok = np.array_equal(vb, va)
        return "" if ok else "values differ"

    def unordered(result):
        # unique(sorted=False): PyTorch leaves the order of the values
        # unspecified, so both sides are compared in ascending order, the
        # inverse and the counts renumbered to match.
        if result[0] != "seq":
            result = ("seq", [result])
        parts = result[1]
        kind, shape, dtype_name, vals = parts[0]
        order = np.argsort(vals, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        out = [(kind, shape, dtype_name, vals[order])]
        rest = list(parts[1:])
        if s.kwargs.get("return_inverse"):
            k, sh, dt, v = rest.pop(0)
            out.append((k, sh, dt, rank[v]))
        if s.kwargs.get("return_counts"):
            k, sh, dt, v = rest.pop(0)
            out.append((k, sh, dt, v[order]))
        return ("seq", out)

    random = op.name in RANDOM
    supported = {str(d).replace("torch.", "") for d in op.supported_dtypes("cpu")}
    for dtype_name in dtypes:
        if dtype_name not in supported:
            continue
        dtype = real_dtypes[dtype_name]
        for grad in (False, True):
            if grad and not (op.supports_autograd and dtype.is_floating_point):
                continue
            try:
                samples = list(op.sample_inputs("cpu", dtype, requires_grad=grad))
            except Exception:
                continue
            for s in samples:
                try:
                    real.manual_seed(0)
                    expected = op(s.input, *s.args, **s.kwargs)
                    if grad:
                        if not isinstance(expected, real.Tensor) or not expected.dtype.is_floating_point:
                            continue
                        expected.sum().backward()
                        inputs = s.input if isinstance(s.input, (list, tuple)) else [s.input]
                        expected_grads = [x.grad for x in inputs if isinstance(x, real.Tensor)]
                except Exception:
                    continue  # PyTorch itself refuses the sample: not a case
                counters = [row["grad"]] if grad else [row["forward"], row["by_dtype"].setdefault(dtype_name, [0, 0])]
                for c in counters:
                    c[1] += 1
                try:
                    inp = convert(s.input, grad)
                    first = inp[0] if isinstance(inp, (list, tuple)) and inp else inp
                    fn = _ours_callable(ours, op, first)
                    if fn is None:
                        row["present"] = False
                        raise AttributeError(f"asyncscope.torch has no {op.name}")
                    got = fn(inp, *convert(s.args, grad), **convert(s.kwargs, grad))
                    if grad:
                        got.sum().backward()
                        ours_inputs = inp if isinstance(inp, (list, tuple)) else [inp]
                        got_grads = [x.grad for x in ours_inputs if hasattr(x, "grad")]
                        why = same(values(expected_grads), values(got_grads), random)
                    elif op.name == "unique" and s.kwargs.get("sorted") is False and s.kwargs.get("dim") is None:
                        why = same(unordered(values(expected)), unordered(values(got)), random)
                    else:
                        why = same(values(expected), values(got), random)
                    if why:
                        raise AssertionError(why)
                    for c in counters:
                        c[0] += 1
                except Exception as e:
                    if not row["first_error"]:
                        text = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
                        # Without what changes from run to run: the op's number and where it was pushed.
                        text = re.sub(r" \(pushed at [^)]*\)| \(#\d+\)", "", text)
                        row["first_error"] = f"{dtype_name}{' grad' if grad else ''}: {text}"[:300]
    return row


def child_main(ops_file, out_file):
    import signal
    import torch as real
    from torch.testing._internal.common_methods_invocations import op_db
    from asyncscope import torch as ours
    wanted = json.load(open(ops_file))
    by_key = {op_key(op): op for op in op_db}

    def alarm(signum, frame):
        raise TimeoutError(f"over {OP_LIMIT_S} s")

    signal.signal(signal.SIGALRM, alarm)
    with open(out_file, "a") as out:
        for key in wanted:
            out.write(json.dumps({"started": key}) + "\n")
            out.flush()
            signal.alarm(OP_LIMIT_S)
            try:
                row = _run_op(real, ours, by_key[key], DTYPES)
            except BaseException as e:
                row = {"op": key, "present": True, "forward": [0, 1], "grad": [0, 0],
                       "first_error": f"{type(e).__name__}: {e}"[:300]}
            signal.alarm(0)
            out.write(json.dumps(row) + "\n")
            out.flush()


# ---------------------------------------------------------------- the parent


def all_keys(env):
    code = ("import json\nfrom torch.testing._internal.common_methods_invocations import op_db\n"
            f"skip = {SKIPPED_PREFIXES!r}\n"
            "keys = []\n"
            "for op in op_db:\n"
            "    if op.name.startswith(skip) or any(str(d).startswith('torch.complex') for d in []):\n"
            "        continue\n"
            "    dt = {str(d) for d in op.supported_dtypes('cpu')}\n"
            "    if not dt & {'torch.float32', 'torch.float64', 'torch.int64', 'torch.bool'}:\n"
            "        continue\n"
            "    keys.append(op.name + ('.' + op.variant_test_name if op.variant_test_name else ''))\n"
            "print(json.dumps(keys))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "cannot read op_db")
    return json.loads(done.stdout)


def run_ops(keys, env):
    """Every op's row, children restarted past a crash or a hang."""
    rows = {}
    remaining = list(keys)
    with tempfile.TemporaryDirectory() as d:
        while remaining:
            ops_file, out_file = os.path.join(d, "ops.json"), os.path.join(d, "rows.jsonl")
            with open(ops_file, "w") as f:
                json.dump(remaining, f)
            open(out_file, "w").close()
            err_file = open(os.path.join(d, "stderr.txt"), "w+")
            child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", ops_file, out_file],
                                     env=env, stdout=subprocess.DEVNULL, stderr=err_file)
            last_line_at, seen = time.time(), 0
            while child.poll() is None:
                time.sleep(0.2)
                with open(out_file) as f:
                    n = sum(1 for _ in f)
                if n != seen:
                    seen, last_line_at = n, time.time()
                elif time.time() - last_line_at > OP_LIMIT_S + 30:
                    child.kill()  # a hang the op's own alarm could not end
            child.wait()
            started = None
            with open(out_file) as f:
                for line in f:
                    item = json.loads(line)
                    if "started" in item:
                        started = item["started"]
                    else:
                        rows[item["op"]] = item
                        started = None
            err_file.seek(0)
            last_err = ([line.strip() for line in err_file if line.strip()] or [""])[-1]
            err_file.close()
            if started is not None:  # the child died in it
                rows[started] = {"op": started, "present": True, "forward": [0, 1], "grad": [0, 0],
                                 "first_error": f"the process ended in this op (status {child.returncode}) "
                                                f"{last_err}"[:300]}
            elif child.returncode != 0 and not any(k in rows for k in remaining):
                raise RuntimeError(f"the OpInfo child failed before its first op: {last_err}")
            remaining = [k for k in remaining if k not in rows]
    return [rows[k] for k in keys]


def summary(rows):
    forward = [sum(r["forward"][0] for r in rows), sum(r["forward"][1] for r in rows)]
    grad = [sum(r["grad"][0] for r in rows), sum(r["grad"][1] for r in rows)]
    present = sum(r["present"] for r in rows)
    pct = lambda a: f"{100 * a[0] / a[1]:.1f}%" if a[1] else "-"
    lines = [f"{'op':40} {'forward':>12} {'gradient':>12}  first failure"]
    for r in rows:
        lines.append(f"{r['op'][:40]:40} {r['forward'][0]:>5}/{r['forward'][1]:<6} {r['grad'][0]:>5}/{r['grad'][1]:<6} "
                     f"{r['first_error'][:90]}")
    per_dtype = []
    for d in DTYPES:
        c = [sum(r.get("by_dtype", {}).get(d, [0, 0])[0] for r in rows), sum(r.get("by_dtype", {}).get(d, [0, 0])[1] for r in rows)]
        per_dtype.append(f"{d} {c[0]}/{c[1]} {pct(c)}")
    lines.append(f"OpInfo: {present} of {len(rows)} ops present; forward samples matching {forward[0]} of "
                 f"{forward[1]} ({pct(forward)}: {', '.join(per_dtype)}); gradients {grad[0]} of {grad[1]} "
                 f"({pct(grad)})")
    return "\n".join(lines)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([p for p in [env.get("PYTHONPATH", ""), _stub_folder()] if p])
    env.setdefault("ASYNCSCOPE_TRACE", "")
    return env


def _have_torch():
    try:
        import importlib.util
        return importlib.util.find_spec("torch") is not None
    except Exception:
        return False


def failing(row):
    return row["forward"][0] != row["forward"][1] or row["grad"][0] != row["grad"][1] or row["first_error"]


@unittest.skipUnless(_have_torch(), "the real PyTorch is not installed (Debian: python3-torch)")
class OpInfo(unittest.TestCase):
    def check(self, keys):
        env = _env()
        available = set(all_keys(env))
        keys = [k for k in keys if k in available]
        rows = run_ops(keys, env)
        print("\n" + summary(rows))
        known = json.load(open(KNOWN)) if os.path.exists(KNOWN) else {}
        new_failures = [f"{r['op']}: {r['first_error']}" for r in rows if failing(r) and r["op"] not in known]
        fixed = [r["op"] for r in rows if not failing(r) and r["op"] in known]
        self.assertEqual(new_failures, [], "ops that fail and are not in opinfo_known_failures.json")
        self.assertEqual(fixed, [], "ops that pass now: take them off opinfo_known_failures.json")

    def test_common_ops(self):
        self.check(QUICK)

    @unittest.skipUnless(os.environ.get("ASYNCSCOPE_OPINFO_ALL"), "every op: ctest -L stress (ASYNCSCOPE_OPINFO_ALL=1)")
    def test_every_op(self):
        self.check(all_keys(_env()))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child_main(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2 and sys.argv[1] == "--write-known-failures":
        env = _env()
        rows = run_ops(all_keys(env), env)
        print(summary(rows))
        with open(KNOWN, "w") as f:
            json.dump({r["op"]: r["first_error"] or "some samples differ" for r in rows if failing(r)}, f, indent=1,
                      sort_keys=True)
            f.write("\n")
    else:
        unittest.main()
