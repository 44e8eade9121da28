"""What a host (``asyncscope script``, the app) does around one run of a
user's script, so that the script behaves as it does under python3:

- ``sys.stdout`` and ``sys.stderr`` are real text streams (``buffer``,
  ``encoding``, ``errors``, ``fileno``) whose bytes go to the run's console,
  with python3's error handlers (strict on stdout, backslashreplace on
  stderr) and line buffering, so a prompt without a newline stays one;
- the end of the script is python3's end of a process: the non-daemon
  threads it started are joined (a stop interrupts them), then its daemon
  threads are ended;
- a stop interrupts the blocking calls that a stop can reach: the script's
  threads get KeyboardInterrupt, and ``time.sleep`` (and, in the app,
  reading ``sys.stdin``) wake at once.

Threading: the run's frontend thread calls begin() and end();
``Run.interrupt`` any thread (the host's stop), with the GIL.
"""

import io
import os
import select
import sys
import threading
import time

from . import _core

_sleep = time.sleep


class _ConsoleRaw(io.RawIOBase):
    """The bytes of one of the script's standard streams, handed to the
    host's console as they are written. fileno() is the process's own
    descriptor, which the host also shows (the app reads it into its
    console; under ``asyncscope script`` it is the terminal)."""

    def __init__(self, write, fd, name):
        super().__init__()
        self._write = write
        self._fd = fd
        self.name = name

    def writable(self):
        return True

    def write(self, data):
        data = bytes(data)
        self._write(data)
        return len(data)

    def fileno(self):
        return self._fd

    def isatty(self):
        return os.isatty(self._fd)  # a terminal under `asyncscope script`; the app's console is none


def _console_stream(write, fd, name, errors):
    raw = _ConsoleRaw(write, fd, name)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", errors=errors, line_buffering=True)


class _StopPipe:
    """A pipe that becomes readable when the run is stopped: what the
    interruptible blocking calls wait on besides their own descriptor."""

    def __init__(self):
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.write_fd, False)

    def stop(self):
        try:
            os.write(self.write_fd, b"x")
        except OSError:
            pass  # full or closed: readable already, or the run is over

    def close(self):
        os.close(self.read_fd)
        os.close(self.write_fd)


class _StopAwareStdin(io.RawIOBase):
    """The process's standard input, read so that a stop wakes the reader
    (the app's Stop while a script waits in input())."""

    def __init__(self, stop_pipe):
        super().__init__()
        self._stop = stop_pipe
        self.name = "<stdin>"

    def readable(self):
        return True

    def fileno(self):
        return 0

    def isatty(self):
        # input() then reads through readline() here, not the terminal's own
        # line editor, whose blocking read a stop could not wake.
        return False

    def readinto(self, buffer):
        ready, _, _ = select.select([0, self._stop.read_fd], [], [])
        if self._stop.read_fd in ready:
            raise _stopped()
        data = os.read(0, len(buffer))
        buffer[: len(data)] = data
        return len(data)


_current_stop = None  # the running run's _StopPipe, seen by _sleep_until_stopped
_current_thread = None  # the ident of the thread that runs the script


def _stopped():
    """What a stop raises in a thread: KeyboardInterrupt in the script's own
    thread (as Ctrl+C under python3), SystemExit in the threads it started,
    which end on it quietly instead of printing a traceback each."""
    if threading.get_ident() == _current_thread:
        return KeyboardInterrupt("the run was stopped")
    return SystemExit()


def _sleep_until_stopped(seconds):
    """time.sleep for a hosted script: the same argument checks and
    duration, but a stop of the run wakes it with KeyboardInterrupt."""
    stop = _current_stop
    if stop is None:
        return _sleep(seconds)
    if not isinstance(seconds, (int, float)) and not hasattr(seconds, "__float__"):
        return _sleep(seconds)  # raises TypeError as time.sleep does
    seconds = float(seconds)
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    if seconds == 0:
        return _sleep(0)  # a yield to the other threads, as time.sleep(0) is
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([stop.read_fd], [], [], left)
        if ready:
            raise _stopped()


class Run:
    """One run of a script: made by begin(), ended by end()."""

    def __init__(self, out_write, err_write, stop_aware_stdin):
        self._threads_before = {t.ident for t in threading.enumerate()}
        self._thread = threading.get_ident()
        self._stop = _StopPipe()
        self._saved = (sys.stdout, sys.stderr, sys.stdin, time.sleep)
        sys.stdout = _console_stream(out_write, 1, "<stdout>", "strict")
        sys.stderr = _console_stream(err_write, 2, "<stderr>", "backslashreplace")
        if stop_aware_stdin:
            sys.stdin = io.TextIOWrapper(io.BufferedReader(_StopAwareStdin(self._stop)), encoding="utf-8",
                                         errors="strict", line_buffering=True)
        global _current_stop, _current_thread
        _current_stop = self._stop
        _current_thread = self._thread
        time.sleep = _sleep_until_stopped
        # A thread inherits daemon from the thread that makes it. The host's
        # run thread is a dummy to threading (daemon); the script's thread is
        # python3's main thread, which is not, so neither are its threads.
        me = threading.current_thread()
        self._was_daemon = me.daemon
        me._daemonic = False

    def _started_threads(self):
        # Threads made with threading; not the host's own threads that run
        # Python (threading calls them dummies), such as the one that stops.
        me = threading.current_thread()
        return [t for t in threading.enumerate()
                if t is not me and t.ident not in self._threads_before and not isinstance(t, threading._DummyThread)]

    def interrupt(self):
        """The host's stop: wakes the interruptible calls and raises
        KeyboardInterrupt in the script's thread, SystemExit in those it
        started (see _stopped)."""
        self._stop.stop()
        _core._raise_in_thread(self._thread, KeyboardInterrupt)
        for t in self._started_threads():
            if t.ident is not None and t.ident != self._thread:
                _core._raise_in_thread(t.ident, SystemExit)

    def join_threads(self):
        """python3's end of a process: the atexit hooks of threading (which
        let idle concurrent.futures workers go), then every non-daemon
        thread the script started, joined. A stop interrupts the join with
        KeyboardInterrupt."""
        _run_threading_atexits()
        while True:
            alive = [t for t in self._started_threads() if not t.daemon and t.is_alive()]
            if not alive:
                return
            for t in alive:
                t.join(0.05)  # in slices, so that a stop's KeyboardInterrupt lands here

    def end(self):
        """Ends the script's daemon threads (SystemExit, which a thread ends
        on quietly), flushes and puts back the streams."""
        global _current_stop, _current_thread
        try:
            for t in self._started_threads():
                if t.daemon and t.is_alive() and t.ident is not None:
                    _core._raise_in_thread(t.ident, SystemExit)
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:  # a stream the script replaced or closed
                    pass
        finally:
            sys.stdout, sys.stderr, sys.stdin, time.sleep = self._saved
            threading.current_thread()._daemonic = self._was_daemon
            _current_stop = None
            _current_thread = None
            self._stop.stop()  # a daemon thread still asleep in a call of ours wakes to its SystemExit
            self._stop.close()


def _run_threading_atexits():
    # threading._shutdown() runs these before it joins the threads; they are
    # what tells concurrent.futures' idle workers to exit. Running them marks
    # concurrent.futures as shut down, which the next run of this process
    # must not inherit.
    hooks = getattr(threading, "_threading_atexits", None)
    if not hooks:
        return
    try:
        for hook in reversed(list(hooks)):
            hook()
    finally:
        for module, flag in (("concurrent.futures.thread", "_shutdown"),
                             ("concurrent.futures.process", "_global_shutdown")):
            found = sys.modules.get(module)
            if found is not None and hasattr(found, flag):
                setattr(found, flag, False)


def begin(out_write, err_write, stop_aware_stdin=False):
    """Starts a run: out_write(bytes) and err_write(bytes) receive what the
    script writes to sys.stdout and sys.stderr."""
    return Run(out_write, err_write, stop_aware_stdin)
