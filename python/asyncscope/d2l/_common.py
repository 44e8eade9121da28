"""What both editions of the d2l helpers share: Timer and Benchmark. The
timings they print are wall-clock time on the frontend: with asynchronous
ops, that is the time to enqueue the work unless a sync point waited for it."""

import time

class Timer:
    """Records running times: start(), stop() (returns the last), avg(), sum(), cumsum()."""

    def __init__(self):
        self.times = []
        self.start()

    def start(self):
        self._began = time.perf_counter()

    def stop(self):
        self.times.append(time.perf_counter() - self._began)
        return self.times[-1]

    def avg(self):
        return sum(self.times) / len(self.times) if self.times else 0.0

    def sum(self):
        return sum(self.times)

    def cumsum(self):
        out, total = [], 0.0
        for t in self.times:
            total += t
            out.append(total)
        return out


class Benchmark:
    """A context manager that prints how long its body took: 'description: 0.1234 sec'."""

    def __init__(self, description="Done"):
        self.description = description

    def __enter__(self):
        self.timer = Timer()
        return self

    def __exit__(self, *exc):
        print("%s: %.4f sec" % (self.description, self.timer.stop()))
        return False


__all__ = ["Timer", "Benchmark"]
