"""Runs a Python program under the real PyTorch's profiler and writes its
trace: what `asyncscope profile SCRIPT [ARGS]` starts, with the python3 the
build used (run as a file, not imported from the asyncscope package).

    python3 profile_script.py DIR SCRIPT [ARGS...]

DIR is a private folder the caller made for this run (mode 0700, empty).
The program runs as `python3 SCRIPT ARGS` would run it (its own folder
first on sys.path, __name__ == "__main__", sys.argv), under
torch.profiler.profile with the CPU activity (and CUDA where PyTorch has a
GPU), memory events and Python stacks, so ops carry their source lines. It
is the real PyTorch: `import asyncscope` fails inside it, so a script
written for both editions (try asyncscope.torch, else torch) takes the real
one. PyTorch built without Kineto (Debian's 1.13) still profiles the CPU
ops and writes the JSON Array format; the trace's importer says what it
lacks.

What it leaves in DIR, each file complete or absent (written beside, then
renamed):
    trace.json    the trace of what ran, once the profiler stopped;
    status.json   {"status": the program's exit status, "raised": whether
                  it ended with an exception (its traceback is printed;
                  KeyboardInterrupt included), "interrupted": whether that
                  was Ctrl+C, "left_by": "end", "sys.exit", "exception" or
                  "os._exit", "trace": whether trace.json was written}, or
                  {"error": one line} when it could not profile at all
                  (no PyTorch).
The process exits with the program's own status (1 after an exception), so
the runner's outcome and the program's never share a number. A process the
program forks runs on as the program's, but never writes these files: only
the process that started profiling does.
Threading: a process of its own.
"""
import json
import os
import runpy
import signal
import sys
import traceback


def _write_json(folder, name, value):
    temp = os.path.join(folder, "." + name + ".tmp")
    with open(temp, "w", encoding="utf-8") as f:
        json.dump(value, f)
    os.replace(temp, os.path.join(folder, name))


def _interrupt_once():
    # Ctrl+C reaches this process twice when the caller forwards it: the
    # first is the program's KeyboardInterrupt, later ones are ignored so
    # that the trace of what ran is still written.
    def handler(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt
    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: leave it as it is
        pass


def _exit_code(code):
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)  # as python3 prints sys.exit("message")
    return 1


def main(argv):
    if len(argv) < 3:
        print("usage: profile_script.py DIR SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    folder, script, args = argv[1], argv[2], argv[3:]
    # Neither this folder (its torch/ is asyncscope's edition) nor the
    # package may be found; sys.path holds resolved paths, so compare those.
    here = os.path.dirname(os.path.realpath(__file__))
    hidden = {here, os.path.dirname(here)}
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") not in hidden]
    sys.modules["asyncscope"] = None
    try:
        import torch
        import torch.profiler
    except ImportError as e:
        _write_json(folder, "status.json", {
            "error": f"cannot profile with the real PyTorch: {sys.executable} has no torch ({e}); "
                     "install it (Debian: python3-torch)"})
        return 1
    activities = [torch.profiler.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    kineto = getattr(torch.autograd, "kineto_available", lambda: True)()
    sys.argv = [script] + args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    owner = os.getpid()
    outcome = {"status": 0, "raised": False, "interrupted": False, "left_by": "end", "trace": False}
    prof = torch.profiler.profile(activities=activities, profile_memory=kineto, with_stack=kineto)
    real_exit = os._exit

    def finish():
        # Once, by the process that profiles: the profiler stopped, what ran written.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        prof.stop()
        temp = os.path.join(folder, ".trace.json.tmp")
        prof.export_chrome_trace(temp)
        os.replace(temp, os.path.join(folder, "trace.json"))
        outcome["trace"] = True
        _write_json(folder, "status.json", outcome)

    def leaving(code):
        # os._exit skips every handler: the trace of what ran is written first.
        if os.getpid() == owner:
            os._exit = real_exit
            outcome.update(status=code & 0xFF, left_by="os._exit")
            try:
                finish()
            finally:
                real_exit(code)
        real_exit(code)

    _interrupt_once()
    os._exit = leaving
    prof.start()
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        outcome.update(status=_exit_code(e.code), left_by="sys.exit")
    except BaseException as e:  # the program's own error: reported, and what ran is still written
        traceback.print_exc()
        outcome.update(status=1, raised=True, interrupted=isinstance(e, KeyboardInterrupt), left_by="exception")
    os._exit = real_exit
    if os.getpid() != owner:
        # A process the program forked, leaving the script: it ends here, as
        # python3 would end it, without writing the parent's trace.
        sys.stdout.flush()
        sys.stderr.flush()
        real_exit(outcome["status"])
    finish()
    what = "CPU" + (" and CUDA" if len(activities) > 1 else "")
    if not kineto:
        what += " ops only (this PyTorch has no Kineto: no memory events, stacks or GPU activity)"
    print(f"asyncscope: profiled {script} with PyTorch {torch.__version__}: {what}", file=sys.stderr)
    return outcome["status"]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
