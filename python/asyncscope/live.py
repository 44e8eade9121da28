"""Publishing the run live, for the desktop app and `asyncscope attach`.

    asyncscope.serve(title=None)
        publishes this process's run: the app's File > Attach to process...
        (or `asyncscope attach PID`) of the same user follows it as it
        records, exactly as the app's own runs. Returns the socket's path.
        ASYNCSCOPE_SERVE=1 in the environment publishes from the run's start.

    asyncscope.serving()
        the socket's path while publishing, else None.

    asyncscope.live.viewers()
        how many viewers follow it now.

    asyncscope.show(app=True)
        publishes, and opens the desktop app attached to this process.

The socket is $XDG_RUNTIME_DIR/asyncscope/PID.sock (else
/tmp/asyncscope-UID/PID.sock; ASYNCSCOPE_LIVE_DIR overrides both, for the
publisher and the viewer alike): a folder of mode 0700, a socket of mode
0600, and each side checks who the other runs as, so other users can
neither attach nor pose as this process. Nothing is published unless asked
for. Until a viewer attaches, publishing costs the program nothing; a viewer
that falls behind catches up from the run's own trace, and the program never
waits for it.
Threading: any Python thread.
"""

import os
import subprocess
import sys

from . import _core


def _default_title():
    if "ipykernel" in sys.modules:
        return "Jupyter kernel in " + os.path.basename(os.getcwd() or "/")
    argv = getattr(sys, "argv", None) or [""]
    if argv[0] == "":
        return ""  # embedded (asyncscope script): the server names it from the command line
    script = os.path.basename(argv[0]) if argv[0] not in ("-c", "-") else ""
    return "python3 " + script if script else "python3"


def serve(title=None):
    """Publishes this process's run live (see help(asyncscope.live)) under
    `title` (default: "python3 SCRIPT", or the notebook kernel's folder).
    Starts the run if needed: call configure() first. Returns the socket's
    path. RuntimeError with the reason when it cannot publish."""
    return _core.serve(_default_title() if title is None else str(title))


def serving():
    """The socket this process publishes on, or None."""
    return _core.serving()


def viewers():
    """How many viewers (the app, `asyncscope attach`) follow this process now."""
    return _core.viewers()


def open_app():
    """Publishes (serve()) and opens the desktop app attached to this
    process, in a session of its own (closing it leaves the program be).
    Returns the app's subprocess.Popen."""
    from .notebook import _executable

    serve()
    return subprocess.Popen([_executable(), "attach", str(os.getpid())], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _serve_if_asked():
    value = os.environ.get("ASYNCSCOPE_SERVE", "")
    if not value or value in ("0", "no", "false"):
        return
    if not _core.hosted():
        _core._serve_when_started(_default_title())  # when the process's run starts: configure() may come first
        return
    try:  # under `asyncscope script`: the host's run has started (named from the command line)
        _core.serve("")
    except RuntimeError as e:
        print(f"{e} (not publishing)", file=sys.stderr)
