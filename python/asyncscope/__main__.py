"""``python3 -m asyncscope [--no-redirect] FILE [ARGS...]``: runs a
reader's program under plain python3 as ``asyncscope script`` does, with
``import torch``, ``import mxnet`` and ``import d2l`` giving asyncscope's
editions (asyncscope/_redirect.py), ``sys.argv`` = [FILE, ARGS...] and the
program's folder first on ``sys.path``. Set ASYNCSCOPE_TRACE=run.json to
have the run's trace written when it ends. ``--no-redirect``: the real
packages, as python3 alone would import them.

Threading: the main thread, once.
"""

import os
import runpy
import sys

USAGE = "usage: python3 -m asyncscope [--no-redirect] FILE [ARGS...]"


def main(argv):
    redirect = True
    words = list(argv)
    while words and words[0].startswith("-"):
        word = words.pop(0)
        if word == "--":
            break
        if word in ("-h", "--help"):
            print(USAGE + "\n\nRuns FILE with asyncscope's editions in place of torch, mxnet and d2l "
                  "(--no-redirect: the real ones); ASYNCSCOPE_TRACE=PATH writes its trace at the end.")
            return 0
        if word == "--no-redirect":
            redirect = False
            continue
        print("asyncscope: unknown option %r (%s)" % (word, USAGE), file=sys.stderr)
        return 2
    if not words:
        print("asyncscope: no FILE to run (%s)" % USAGE, file=sys.stderr)
        return 2
    path = words[0]
    if not os.path.isfile(path):
        print("asyncscope: cannot read %s: %s" % (path, "a folder" if os.path.isdir(path) else "no such file"),
              file=sys.stderr)
        return 2
    import asyncscope
    from asyncscope import _redirect
    # The trace at exit is never written over the program itself.
    asyncscope._program_file = os.path.abspath(path)
    sys.argv = words
    sys.path.insert(0, os.path.dirname(os.path.realpath(path)))
    if redirect:
        _redirect.install()
    runpy.run_path(path, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
