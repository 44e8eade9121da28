"""One side of one workload group, in a fresh process: run.py starts
`python3 side.py SIDE GROUP [--quick]` and reads one JSON object from its
last line of stdout: the rows measured, and what the process ran on (its
OpenBLAS kernel and thread count, read after the work, and the environment's
OPENBLAS_CORETYPE).

SIDE is asyncscope, numpy, numpy-python-scalar (NumPy with the Python
scalars the other sides write, for the rows that have one; see
side_numpy.py) or torch. For asyncscope, PYTHONPATH must reach our package
(build/python).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("side", choices=["asyncscope", "numpy", "numpy-python-scalar", "torch"])
    parser.add_argument("group", choices=common.GROUPS)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (the harness check)")
    args = parser.parse_args()

    if args.side == "asyncscope":
        import side_asyncscope as side
    elif args.side in ("numpy", "numpy-python-scalar"):
        import side_numpy as side
    else:
        import side_torch as side

    if args.side == "numpy-python-scalar":
        if args.group not in common.SCALAR_GROUPS:
            parser.error(f"{args.group} has no scalar in it: run it with side numpy")
        side.set_python_scalars()
    rows = side.run(args.group, common.params(args.quick))
    if args.side == "numpy-python-scalar":
        rows = {key: v for key, v in rows.items() if key in common.SCALAR_ROWS}
    report = {
        "side": args.side,
        "group": args.group,
        "rows": rows,
        "openblas": common.openblas_in_process(),
        "other_blas": common.other_blas_in_process(),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "describe": side.describe(),
    }
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    # The asyncscope package finishes its run at exit (atexit); nothing else
    # is left to do, and the driver has the answer already.


if __name__ == "__main__":
    main()
