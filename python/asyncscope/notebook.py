"""asyncscope in Jupyter: timelines inline, under the cells that made them.

    %load_ext asyncscope
        marks each cell's start on the timeline (its ops and waits are
        attributed to the cell's lines, as a script's are), and adds:

    %%asyncscope [--width PX] [--no-wait]
        runs the cell and shows its timeline inline, as SVG: from the cell's
        start to the end of the work it pushed (unless --no-wait: to the
        cell's end), the lanes the desktop app draws (frontend, queue depth,
        workers with their states, memory), with the verdict (t1, t2) and
        what held the memory at its peak written under it.

    asyncscope.show(width=1400, last=None, app=False)
        the kernel's whole run so far (or its last `last` seconds), inline in
        a notebook; elsewhere written to an .svg file, whose path it returns.
        app=True opens the desktop app attached to the kernel, live.

The pictures are drawn by the asyncscope executable (`asyncscope view
--svg`), the app's own lanes: set ASYNCSCOPE_EXE where it is not next to
this package's build.
Threading: the kernel's main thread (as IPython runs cells).
"""

import os
import shlex
import shutil
import subprocess
import tempfile

from . import _core


def _executable():
    exe = os.environ.get("ASYNCSCOPE_EXE")
    if exe:
        return exe
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "bin", "asyncscope")  # build/python/asyncscope -> build/bin
    if os.path.exists(built):
        return os.path.normpath(built)
    found = shutil.which("asyncscope")
    if found:
        return found
    raise RuntimeError("asyncscope: cannot draw the timeline: no asyncscope executable found "
                       "(set ASYNCSCOPE_EXE to its path)")


def picture(start=None, end=None, width=1400, title="asyncscope: the run so far"):
    """The run's timeline from `start` to `end` (seconds since the run's
    start, as asyncscope.mark returns them; None: its start / its end) as an
    SVG document (a str), under `title`, with that window's verdict and
    peak holders."""
    exe = _executable()
    with tempfile.TemporaryDirectory(prefix="asyncscope-") as d:
        trace, svg = os.path.join(d, "run.json"), os.path.join(d, "run.svg")
        _core.export_trace(trace)
        window = ("" if start is None else f"{max(0.0, start):.9f}") + ":" + ("" if end is None else f"{end:.9f}")
        cmd = [exe, "view", trace, "--svg", svg, "--svg-width", str(int(width)), "--title", title]
        if window != ":":
            cmd += ["--range", window]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError((done.stderr.strip() or f"asyncscope view exited with {done.returncode}").splitlines()[-1])
        with open(svg, encoding="utf-8") as f:
            return f.read()


def _in_notebook():
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    return ip is not None and getattr(ip, "kernel", None) is not None


def show(width=1400, last=None, app=False):
    """The whole run so far (or its last `last` seconds): shown inline in a
    notebook (and returned as an IPython SVG object); elsewhere written to
    asyncscope-timeline.svg in the current folder, whose path is returned.
    With app=True: the desktop app opens, attached to this process, and
    follows it live (asyncscope.serve()); its subprocess.Popen is returned."""
    if app:
        from .live import open_app
        return open_app()
    start = None
    if last is not None:
        now = _core.mark("show")
        start = None if now is None else max(0.0, now - float(last))
    svg = picture(start=start, width=width)
    if _in_notebook():
        from IPython.display import SVG, display
        shown = SVG(data=svg)
        display(shown)
        return shown
    path = os.path.abspath("asyncscope-timeline.svg")
    with open(path, "w", encoding="utf-8") as f:
        f.write(svg)
    return path


def _parse(line):
    width, wait = 1400, True
    words = shlex.split(line)
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--no-wait":
            wait = False
        elif w == "--width" and i + 1 < len(words):
            i += 1
            width = int(words[i])
        elif w.startswith("--width="):
            width = int(w.split("=", 1)[1])
        else:
            raise ValueError(f"%%asyncscope: unknown option {w!r} (options: --width PX, --no-wait)")
        i += 1
    if not 320 <= width <= 16384:
        raise ValueError(f"%%asyncscope: --width {width}: expected 320 to 16384 pixels")
    return width, wait


def load_ipython_extension(ipython):
    """`%load_ext asyncscope`: marks each cell on the timeline and adds %%asyncscope."""
    from IPython.core.magic import register_cell_magic  # noqa: F401  (IPython is there: we are loaded by it)
    from IPython.display import SVG, display

    def mark_cell(info=None):
        _core.mark(f"cell [{ipython.execution_count}]")

    ipython.events.register("pre_run_cell", mark_cell)

    def asyncscope_magic(line, cell):
        width, wait = _parse(line)
        start = _core.mark("%%asyncscope")
        result = ipython.run_cell(cell)
        end = _core.mark("cell end")
        if wait:
            from . import ndarray
            ndarray.waitall()
            end = None
        title = f"cell [{ipython.execution_count}]: its timeline" + (" and the work it pushed" if wait else "")
        display(SVG(data=picture(start=start, end=end, width=width, title=title)))
        return None

    ipython.register_magic_function(asyncscope_magic, magic_kind="cell", magic_name="asyncscope")


def unload_ipython_extension(ipython):
    """`%unload_ext asyncscope`: the cells are no longer marked."""
    for callback in list(ipython.events.callbacks.get("pre_run_cell", [])):
        if getattr(callback, "__name__", "") == "mark_cell":
            ipython.events.unregister("pre_run_cell", callback)
