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
    peak holders. Only the window's events are written and drawn: a picture
    costs what happened in it, however long the run has been."""
    exe = _executable()
    with tempfile.TemporaryDirectory(prefix="asyncscope-") as d:
        trace, svg = os.path.join(d, "run.json"), os.path.join(d, "run.svg")
        _core._export_window(trace, -1.0 if start is None else max(0.0, float(start)),
                             -1.0 if end is None else float(end))
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
    _core._write_text(path, svg)  # as the CLI writes its outputs: whole or not at all, never through a planted link
    return path


def _width(text):
    try:
        width = int(text)
    except ValueError:
        width = None
    if width is None or not 320 <= width <= 16384:
        raise ValueError(f"%%asyncscope: --width {text!r}: expected a number of pixels from 320 to 16384")
    return width


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
            width = _width(words[i])
        elif w.startswith("--width="):
            width = _width(w.split("=", 1)[1])
        else:
            raise ValueError(f"%%asyncscope: unknown option {w!r} (options: --width PX, --no-wait)")
        i += 1
    return width, wait


def _run_cell_code(ipython, cell):
    """Runs a cell's text as IPython runs a cell (its magics and shell
    escapes transformed, compiled as a file of its own so tracebacks and the
    per-line figures name its lines) and returns the value of its last
    expression, if it ends with one. Its exception propagates, as the cell's."""
    __tracebackhide__ = True  # IPython shows the cell's frames, not this one's
    import ast
    code = ipython.transform_cell(cell)
    name = ipython.compile.cache(code, ipython.execution_count, raw_code=cell)
    tree = ipython.transform_ast(ipython.compile.ast_parse(code, filename=name))
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(ipython.compile(tree, name, "exec"), ipython.user_ns)
    return None if last is None else eval(ipython.compile(last, name, "eval"), ipython.user_ns)


def load_ipython_extension(ipython):
    """`%load_ext asyncscope`: marks each cell on the timeline and adds %%asyncscope."""
    from IPython.core.magic import register_cell_magic  # noqa: F401  (IPython is there: we are loaded by it)
    from IPython.display import SVG, display

    def mark_cell(info=None):
        _core.mark(f"cell [{ipython.execution_count}]")

    ipython.events.register("pre_run_cell", mark_cell)

    def asyncscope_magic(line, cell):
        __tracebackhide__ = True  # an error is the cell's: IPython shows its frames, not the magic's
        width, wait = _parse(line)
        start = _core.mark("%%asyncscope")
        error, value = None, None
        try:
            value = _run_cell_code(ipython, cell)
        except BaseException as e:  # the cell's own error: raised as the cell's, once its picture is drawn
            error = e
        end = _core.mark("cell end")
        if wait:
            from . import ndarray
            try:
                ndarray.waitall()
            except Exception as e:  # an op the cell pushed failed: the cell's error too
                error = error or e
            end = None
        title = f"cell [{ipython.execution_count}]: its timeline" + (" and the work it pushed" if wait else "")
        if not isinstance(error, KeyboardInterrupt):
            try:
                display(SVG(data=picture(start=start, end=end, width=width, title=title)))
            except Exception:
                if error is None:
                    raise
        if error is not None:
            raise error
        return value

    ipython.register_magic_function(asyncscope_magic, magic_kind="cell", magic_name="asyncscope")


def unload_ipython_extension(ipython):
    """`%unload_ext asyncscope`: the cells are no longer marked."""
    for callback in list(ipython.events.callbacks.get("pre_run_cell", [])):
        if getattr(callback, "__name__", "") == "mark_cell":
            ipython.events.unregister("pre_run_cell", callback)
