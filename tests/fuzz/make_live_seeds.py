"""Writes seed inputs for live_fuzzer.cpp into a folder: streams as a
publisher sends them after its hello (the first byte of each file is the
fuzzer's piece size), each encoded field by field as live_protocol.h says.

    python3 make_live_seeds.py DIR
"""
import os
import struct
import sys

ORIGIN = 1_000_000_000
(HELLO, REFUSAL, REQUEST, START, NAMES, THREAD, ENQUEUES, VARS, EXECS, SYNCS, MARKERS, SOURCES, SCOPES, COUNTERS,
 COUNTER_NAMES, ERROR, STATUS, END) = range(1, 19)


def frame(kind, thread=0, first=0, count=0, payload=b""):
    return struct.pack("<HHIQII", kind, 0, thread, first, count, len(payload)) + payload


def enqueue(op, t, name=1, ids=(1, 2), offset=None):
    if offset is None:
        vars_ = list(ids) + [0] * (3 - len(ids))
        reads, writes = len(ids) - 1, 1
    else:
        vars_ = [offset, 0, 0]
        reads, writes = 4, 1
    return struct.pack("<QqQIIIHHBBB3Q", op, t, 4096, 300, 0, name, reads, writes, 0, 0, 0, *vars_)


def execution(op, start, end, worker=0, device=0, status=0, span=0):
    return struct.pack("<QqqHBBBB", op, start, end, worker, device, 0, status, span)


def start(first_op=1):
    return frame(START, first=first_op, payload=struct.pack("<q", ORIGIN))


def basic():
    names = b"\0add\0/tmp/train.py\0layer\0phase\0"
    s = start() + frame(NAMES, first=0, count=5, payload=names) + frame(THREAD, 0, payload=b"frontend")
    s += frame(THREAD, 1, payload=b"CPU worker 0")
    s += frame(SOURCES, 0, 0, 1, struct.pack("<qII", ORIGIN + 10, 2, 7))
    s += frame(SCOPES, 0, 0, 1, struct.pack("<qIB", ORIGIN + 11, 3, 1))
    s += frame(VARS, 0, 0, 5, struct.pack("<5Q", 1, 2, 3, 4, 5))
    s += frame(ENQUEUES, 0, 0, 3, enqueue(1, ORIGIN + 100) + enqueue(2, ORIGIN + 200, offset=0) +
               enqueue(3, ORIGIN + 300))
    s += frame(SYNCS, 0, 0, 1, struct.pack("<qqQQB", ORIGIN + 400, ORIGIN + 900, 2, 3, 0))
    s += frame(MARKERS, 0, 0, 1, struct.pack("<qqI", ORIGIN + 50, 1, 4))
    s += frame(EXECS, 1, 0, 3, execution(1, ORIGIN + 150, ORIGIN + 250) + execution(2, ORIGIN + 260, ORIGIN + 500) +
               execution(3, ORIGIN + 510, ORIGIN + 800, status=1))
    s += frame(COUNTER_NAMES, payload=b"rss_bytes\0live_bytes\0")
    s += frame(COUNTERS, 0, 0, 2, struct.pack("<q8q", ORIGIN + 5, 1, 2, 0, 0, 0, 0, 0, 0) +
               struct.pack("<q8q", ORIGIN + 600, 3, 4, 0, 0, 0, 0, 0, 0))
    s += frame(ERROR, first=3, payload=b"op 3 failed")
    s += frame(STATUS, first=0)
    s += frame(SCOPES, 0, 1, 1, struct.pack("<qIB", ORIGIN + 950, 0, 0))
    return s


def gpu():
    names = b"\0k\0"
    s = start() + frame(NAMES, first=0, count=2, payload=names) + frame(THREAD, 0, payload=b"frontend")
    s += frame(THREAD, 1, payload=b"cuda:0 launch 0") + frame(THREAD, 2, payload=b"cuda:0 stream 0")
    s += frame(ENQUEUES, 0, 0, 2, enqueue(1, ORIGIN + 100) + enqueue(2, ORIGIN + 110))
    s += frame(EXECS, 1, 0, 2, execution(1, ORIGIN + 120, ORIGIN + 130, device=1, span=1) +
               execution(2, ORIGIN + 131, ORIGIN + 140, device=1, span=1))
    s += frame(EXECS, 2, 0, 2, execution(1, ORIGIN + 200, ORIGIN + 300, device=1) +
               execution(2, ORIGIN + 300, ORIGIN + 400, device=1))
    s += frame(EXECS, 1, 2, 1, execution(1, ORIGIN + 135, ORIGIN + 180, span=2))
    return s + frame(END, payload=b"the program ended")


def main(folder):
    os.makedirs(folder, exist_ok=True)
    seeds = {"basic": basic(), "gpu": gpu(), "ended": basic() + frame(END, payload=b"bye")}
    for name, stream in seeds.items():
        for piece in (0, 6, 63):
            with open(os.path.join(folder, f"{name}-{piece}.bin"), "wb") as f:
                f.write(bytes([piece]) + stream)


if __name__ == "__main__":
    main(sys.argv[1])
