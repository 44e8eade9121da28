"""What both editions of the d2l helpers share: Timer and Benchmark (the
timings they print are wall-clock time on the frontend: with asynchronous
ops, that is the time to enqueue the work unless a sync point waited for
it), HyperParameters, ProgressBoard, Animator, Accumulator, add_to_class,
the shape checks and the plot helpers (drawing with matplotlib when it is
installed; without it, saying once that plots are skipped). A figure that
is drawn as it grows (ProgressBoard, Animator) is shown through IPython's
display as d2l shows it: inline in Jupyter, its text form on a plain
console.

Threading: the frontend thread, as the editions' ops."""

import collections as _collections
import inspect as _inspect
import sys as _sys
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




# -- the d2l library's framework-independent classes ---------------------------

_plot_notice_given = False


def _pyplot():
    """matplotlib.pyplot, or None (saying once that plots are skipped)."""
    global _plot_notice_given
    try:
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        if not _plot_notice_given:
            _plot_notice_given = True
            print("d2l: matplotlib is not installed, so plots are skipped "
                  "(apt-get install python3-matplotlib to draw them)", file=_sys.stderr)
        return None


def _show(fig):
    """Shows `fig` now and replaces it with the next one drawn, as d2l does
    (IPython's display; without IPython, nothing)."""
    try:
        from IPython import display
    except ImportError:
        return
    display.display(fig)
    display.clear_output(wait=True)


def add_to_class(Class):
    """A decorator that adds the function it decorates to Class as a method."""
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
        return obj
    return wrapper


class HyperParameters:
    """save_hyperparameters() stores the arguments of the calling __init__ as
    attributes (and in self.hparams), except those named in ignore."""

    def save_hyperparameters(self, ignore=()):
        frame = _inspect.currentframe().f_back
        _, _, _, local_vars = _inspect.getargvalues(frame)
        self.hparams = {k: v for k, v in local_vars.items()
                        if k not in set(ignore) | {"self"} and not k.startswith("_")}
        for k, v in self.hparams.items():
            setattr(self, k, v)


def use_svg_display():
    """Plots as SVG in Jupyter (a no-op without matplotlib_inline)."""
    try:
        from matplotlib_inline import backend_inline
        backend_inline.set_matplotlib_formats("svg")
    except ImportError:
        pass


def set_figsize(figsize=(3.5, 2.5)):
    """The size of the figures plotted next."""
    plt = _pyplot()
    if plt is not None:
        use_svg_display()
        plt.rcParams["figure.figsize"] = figsize


def set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend):
    """Labels, limits, scales and legend of matplotlib axes."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_xscale(xscale)
    axes.set_yscale(yscale)
    axes.set_xlim(xlim)
    axes.set_ylim(ylim)
    if legend:
        axes.legend(legend)
    axes.grid()


def _values(v):
    """A plottable list from a list, a NumPy array or an asyncscope array (a sync point)."""
    if hasattr(v, "asnumpy"):
        return v.asnumpy()
    if hasattr(v, "detach"):
        return v.detach().numpy()
    return v


def plot(X, Y=None, xlabel=None, ylabel=None, legend=(), xlim=None, ylim=None, xscale="linear", yscale="linear",
         fmts=("-", "m--", "g-.", "r:"), figsize=(3.5, 2.5), axes=None):
    """Plots data points (one or several curves), as d2l.plot does; skipped,
    saying so once, without matplotlib."""
    plt = _pyplot()
    if plt is None:
        return

    def has_one_axis(x):
        return hasattr(x, "ndim") and x.ndim == 1 or isinstance(x, list) and not hasattr(x[0], "__len__")

    if has_one_axis(X):
        X = [X]
    if Y is None:
        X, Y = [[]] * len(X), X
    elif has_one_axis(Y):
        Y = [Y]
    if len(X) != len(Y):
        X = X * len(Y)
    set_figsize(figsize)
    if axes is None:
        axes = plt.gca()
    axes.cla()
    for x, y, fmt in zip(X, Y, fmts):
        x, y = _values(x), _values(y)
        axes.plot(x, y, fmt) if len(x) else axes.plot(y, fmt)
    set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, list(legend))


class ProgressBoard(HyperParameters):
    """Draws points as they come (draw(x, y, label, every_n)), averaging
    every_n of them into one: d2l's training curves. Without matplotlib the
    points are still kept (board.data), and the drawing is skipped."""

    def __init__(self, xlabel=None, ylabel=None, xlim=None, ylim=None, xscale="linear", yscale="linear",
                 ls=("-", "--", "-.", ":"), colors=("C0", "C1", "C2", "C3"), fig=None, axes=None,
                 figsize=(3.5, 2.5), display=True):
        self.save_hyperparameters()
        self.data = _collections.OrderedDict()
        self.raw_points = _collections.OrderedDict()

    def draw(self, x, y, label, every_n=1):
        Point = _collections.namedtuple("Point", ["x", "y"])
        points = self.raw_points.setdefault(label, [])
        line = self.data.setdefault(label, [])
        points.append(Point(x, float(y)))
        if len(points) != every_n:
            return
        line.append(Point(sum(p.x for p in points) / every_n, sum(p.y for p in points) / every_n))
        points.clear()
        if not self.display:
            return
        plt = _pyplot()
        if plt is None:
            return
        use_svg_display()
        if self.fig is None:
            self.fig = plt.figure(figsize=self.figsize)
        axes = self.axes if self.axes else plt.gca()
        axes.cla()
        for (name, pts), ls, color in zip(self.data.items(), self.ls, self.colors):
            axes.plot([p.x for p in pts], [p.y for p in pts], linestyle=ls, color=color, label=name)
        if self.xlim:
            axes.set_xlim(self.xlim)
        if self.ylim:
            axes.set_ylim(self.ylim)
        axes.set_xlabel(self.xlabel or "x")
        axes.set_xscale(self.xscale)
        axes.set_yscale(self.yscale)
        axes.legend()
        _show(self.fig)


class Animator:
    """Curves that grow as points are added (add(x, y), y one value or one
    per curve, None skipping a curve), redrawn and shown after each add."""

    def __init__(self, xlabel=None, ylabel=None, legend=None, xlim=None, ylim=None, xscale="linear",
                 yscale="linear", fmts=("-", "m--", "g-.", "r:"), nrows=1, ncols=1, figsize=(3.5, 2.5)):
        self.fmts, self.X, self.Y = fmts, None, None
        self._axes_settings = (xlabel, ylabel, xlim, ylim, xscale, yscale, list(legend or []))
        self.fig = self.axes = None
        plt = _pyplot()
        if plt is not None:
            use_svg_display()
            self.fig, axes = plt.subplots(nrows, ncols, figsize=figsize)
            self.axes = [axes] if nrows * ncols == 1 else axes

    def config_axes(self):
        set_axes(self.axes[0], *self._axes_settings)

    def add(self, x, y):
        ys = list(y) if hasattr(y, "__len__") else [y]
        xs = list(x) if hasattr(x, "__len__") else [x] * len(ys)
        if not self.X:
            self.X = [[] for _ in ys]
        if not self.Y:
            self.Y = [[] for _ in ys]
        for i, (a, b) in enumerate(zip(xs, ys)):
            if a is not None and b is not None:
                self.X[i].append(a)
                self.Y[i].append(b)
        if self.fig is None:
            return
        self.axes[0].cla()
        for xi, yi, fmt in zip(self.X, self.Y, self.fmts):
            self.axes[0].plot(xi, yi, fmt)
        self.config_axes()
        _show(self.fig)


class Accumulator:
    """Running sums of n quantities: add(*values) adds each to its sum (as a
    float: a sync point for an array), acc[i] reads one, reset() zeroes them."""

    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [total + float(v) for total, v in zip(self.data, args)]

    def reset(self):
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def check_len(a, n):
    """Asserts that a has n items."""
    assert len(a) == n, "list's length %d != expected length %d" % (len(a), n)


def check_shape(a, shape):
    """Asserts that a's shape is `shape` (a tuple, or the framework's shape type)."""
    assert a.shape == shape, "tensor's shape %s != expected shape %s" % (a.shape, shape)


def show_images(imgs, num_rows, num_cols, titles=None, scale=1.5):
    """Draws images in a num_rows x num_cols grid, titled, without axes;
    returns the axes (None without matplotlib)."""
    plt = _pyplot()
    if plt is None:
        return None
    _, axes = plt.subplots(num_rows, num_cols, figsize=(num_cols * scale, num_rows * scale))
    axes = axes.flatten()
    for i, (ax, img) in enumerate(zip(axes, imgs)):
        ax.imshow(_values(img))
        ax.axes.get_xaxis().set_visible(False)
        ax.axes.get_yaxis().set_visible(False)
        if titles:
            ax.set_title(titles[i])
    return axes


def show_heatmaps(matrices, xlabel, ylabel, titles=None, figsize=(2.5, 2.5), cmap="Reds"):
    """Draws a (rows, cols, h, w) array of matrices as a grid of heat maps
    sharing one colour bar."""
    plt = _pyplot()
    if plt is None:
        return
    use_svg_display()
    matrices = _values(matrices)
    rows, cols = matrices.shape[0], matrices.shape[1]
    fig, axes = plt.subplots(rows, cols, figsize=figsize, sharex=True, sharey=True, squeeze=False)
    image = None
    for i in range(rows):
        for j in range(cols):
            ax = axes[i][j]
            image = ax.imshow(matrices[i][j], cmap=cmap)
            if i == rows - 1:
                ax.set_xlabel(xlabel)
            if j == 0:
                ax.set_ylabel(ylabel)
            if titles:
                ax.set_title(titles[j])
    fig.colorbar(image, ax=axes, shrink=0.6)


def train_2d(trainer, steps=20, f_grad=None):
    """Runs `trainer` (x1, x2, s1, s2[, f_grad]) -> (x1, x2, s1, s2) for
    `steps` steps from (-5, -2) with zero states, prints the last point
    and returns every point: the optimisation chapters' 2-D traces."""
    x1, x2, s1, s2 = -5, -2, 0, 0
    results = [(x1, x2)]
    for _ in range(steps):
        x1, x2, s1, s2 = trainer(x1, x2, s1, s2, f_grad) if f_grad else trainer(x1, x2, s1, s2)
        results.append((x1, x2))
    print("epoch %d, x1: %f, x2: %f" % (steps, float(x1), float(x2)))
    return results


def _show_trace_2d(f, results, x1, x2):
    """Draws the points of train_2d over the contours of f on the grid x1,
    x2 (each edition's show_trace_2d makes the grid with its own arrays, so
    f may use the edition's functions)."""
    plt = _pyplot()
    if plt is None:
        return
    set_figsize()
    plt.plot(*zip(*[(float(a), float(b)) for a, b in results]), "-o", color="#ff7f0e")
    plt.contour(_values(x1), _values(x2), _values(f(x1, x2)), colors="#1f77b4")
    plt.xlabel("x1")
    plt.ylabel("x2")


__all__ = ["Timer", "Benchmark", "HyperParameters", "ProgressBoard", "Animator", "Accumulator", "add_to_class",
           "check_len", "check_shape", "plot", "set_figsize", "set_axes", "use_svg_display", "show_images",
           "show_heatmaps", "train_2d"]
