"""Runs a Python program under the real PyTorch's profiler and writes its
trace: what `asyncscope profile SCRIPT [ARGS]` starts, with the python3 the
build used (run as a file, not imported from the asyncscope package).

    python3 profile_script.py OUT_TRACE SCRIPT [ARGS...]

The program runs as `python3 SCRIPT ARGS` would run it (its own folder
first on sys.path, __name__ == "__main__", sys.argv), under
torch.profiler.profile with the CPU activity (and CUDA where PyTorch has a
GPU), memory events and Python stacks, so ops carry their source lines. It
is the real PyTorch: `import asyncscope` fails inside it, so a script
written for both editions (try asyncscope.torch, else torch) takes the real
one. PyTorch built without Kineto (Debian's 1.13) still profiles the CPU
ops and writes the JSON Array format; the trace's importer says what it
lacks.

Exit status: 0 done; 3 no PyTorch (one line on stderr says so); 4 the
program raised (its traceback is printed; the trace of what ran is still
written); 2 bad arguments.
Threading: a process of its own.
"""
import os
import runpy
import sys
import traceback


def main(argv):
    if len(argv) < 3:
        print("usage: profile_script.py OUT_TRACE SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    out, script, args = argv[1], argv[2], argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    package_parent = os.path.dirname(here)
    # Neither this folder (its torch/ is asyncscope's edition) nor the package may be found.
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") not in (here, package_parent)]
    sys.modules["asyncscope"] = None
    try:
        import torch
        import torch.profiler
    except ImportError as e:
        print(f"asyncscope: cannot profile with the real PyTorch: {sys.executable} has no torch ({e}); "
              "install it (Debian: python3-torch)", file=sys.stderr)
        return 3
    activities = [torch.profiler.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    kineto = getattr(torch.autograd, "kineto_available", lambda: True)()
    sys.argv = [script] + args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    status = 0
    with torch.profiler.profile(activities=activities, profile_memory=kineto, with_stack=kineto) as prof:
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # the program's own error: reported, and what ran is still written
            traceback.print_exc()
            status = 4
    prof.export_chrome_trace(out)
    what = "CPU" + (" and CUDA" if len(activities) > 1 else "")
    if not kineto:
        what += " ops only (this PyTorch has no Kineto: no memory events, stacks or GPU activity)"
    print(f"asyncscope: profiled {script} with PyTorch {torch.__version__}: {what}; trace in {out}",
          file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
