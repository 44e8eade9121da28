"""The d2l library on the PyTorch edition (what `from d2l import torch as
d2l` gives the book's PyTorch tab): Benchmark, Timer, the devices, the
object-oriented design's Module / DataModule / Trainer, the regression and
classification models, the utilities of the chapters (Accumulator,
Animator, accuracy, load_array, ...) and the framework aliases
(d2l.tensor, d2l.reshape, ...). The timings they print are wall-clock time
on the frontend: with asynchronous ops, that is the time to enqueue the
work unless a sync point (item(), printing, torch.cuda.synchronize())
waited for it.

Threading: the frontend thread, as the edition's ops."""

from .. import torch
from ..torch import nn
from ._common import (Accumulator, Animator, Benchmark, HyperParameters, ProgressBoard, Timer, _pyplot,
                      _show_trace_2d, add_to_class, check_len, check_shape, plot, set_axes, set_figsize,
                      show_heatmaps, show_images, train_2d, use_svg_display)
from ..torch.nn import functional as F


def try_gpu(i=0):
    """cuda:i if this run can use it, else the CPU."""
    if torch.cuda.device_count() >= i + 1:
        return torch.device("cuda", i)
    return torch.device("cpu")


def try_all_gpus():
    """Every GPU this run can use, or [cpu] without one."""
    gpus = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    return gpus or [torch.device("cpu")]


def num_gpus():
    """How many GPUs this run can use."""
    return torch.cuda.device_count()


def cpu():
    """The CPU device."""
    return torch.device("cpu")


def gpu(i=0):
    """cuda:i (whether or not this run can use it)."""
    return torch.device("cuda", i)


class Module(nn.Module, HyperParameters):
    """The base of d2l's models: loss, forward (self.net), training_step and
    validation_step (which plot the loss on self.board), and
    configure_optimizers."""

    def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
        super().__init__()
        self.save_hyperparameters()
        self.board = ProgressBoard()

    def loss(self, y_hat, y):
        raise NotImplementedError

    def forward(self, X):
        assert hasattr(self, "net"), "Neural network is defined"
        return self.net(X)

    def plot(self, key, value, train):
        """Plots value (a sync point: its number is read) on the board, per epoch."""
        assert hasattr(self, "trainer"), "Trainer is not inited"
        self.board.xlabel = "epoch"
        if train:
            x = self.trainer.train_batch_idx / self.trainer.num_train_batches
            n = self.trainer.num_train_batches / self.plot_train_per_epoch
        else:
            x = self.trainer.epoch + 1
            n = self.trainer.num_val_batches / self.plot_valid_per_epoch
        self.board.draw(x, value.detach().float().item(), ("train_" if train else "val_") + key,
                        every_n=max(int(n), 1))

    def training_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.plot("loss", l, train=True)
        return l

    def validation_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.plot("loss", l, train=False)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.lr)


class DataModule(HyperParameters):
    """The base of d2l's data: train_dataloader() and val_dataloader() from get_dataloader(train)."""

    def __init__(self, root="../data", num_workers=4):
        self.save_hyperparameters()

    def get_dataloader(self, train):
        raise NotImplementedError

    def train_dataloader(self):
        return self.get_dataloader(train=True)

    def val_dataloader(self):
        return self.get_dataloader(train=False)

    def get_tensorloader(self, tensors, train, indexes=slice(0, None)):
        tensors = tuple(a[indexes] for a in tensors)
        dataset = torch.utils.data.TensorDataset(*tensors)
        return torch.utils.data.DataLoader(dataset, self.batch_size, shuffle=train)


class Trainer(HyperParameters):
    """d2l's training loop: fit(model, data) runs max_epochs of fit_epoch()
    (every batch: training_step, backward, optimizer step; then the
    validation batches under no_grad). Every op is pushed, so the loop shows
    on the timeline line by line; plotting a loss reads it (a sync point)."""

    def __init__(self, max_epochs, num_gpus=0, gradient_clip_val=0):
        self.save_hyperparameters()
        if num_gpus > globals()["num_gpus"]():
            raise ValueError("Trainer: %d GPUs asked for, %d usable" % (num_gpus, globals()["num_gpus"]()))
        self.gpus = [gpu(i) for i in range(num_gpus)]

    def prepare_data(self, data):
        self.train_dataloader = data.train_dataloader()
        self.val_dataloader = data.val_dataloader()
        self.num_train_batches = len(self.train_dataloader)
        self.num_val_batches = len(self.val_dataloader) if self.val_dataloader is not None else 0

    def prepare_model(self, model):
        model.trainer = self
        model.board.xlim = [0, self.max_epochs]
        if self.gpus:
            model.to(self.gpus[0])
        self.model = model

    def fit(self, model, data):
        self.prepare_data(data)
        self.prepare_model(model)
        self.optim = model.configure_optimizers()
        self.epoch = 0
        self.train_batch_idx = 0
        self.val_batch_idx = 0
        for self.epoch in range(self.max_epochs):
            self.fit_epoch()

    def prepare_batch(self, batch):
        if self.gpus:
            batch = [a.to(self.gpus[0]) for a in batch]
        return batch

    def clip_gradients(self, grad_clip_val, model):
        params = [p for p in model.parameters() if p.requires_grad and p.grad is not None]
        norm = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
        scale = torch.clamp(grad_clip_val / norm, max=1.0)
        for p in params:
            p.grad.mul_(scale)

    def fit_epoch(self):
        self.model.train()
        for batch in self.train_dataloader:
            loss = self.model.training_step(self.prepare_batch(batch))
            self.optim.zero_grad()
            loss.backward()
            if self.gradient_clip_val > 0:
                with torch.no_grad():
                    self.clip_gradients(self.gradient_clip_val, self.model)
            self.optim.step()
            self.train_batch_idx += 1
        if self.val_dataloader is None:
            return
        self.model.eval()
        for batch in self.val_dataloader:
            with torch.no_grad():
                self.model.validation_step(self.prepare_batch(batch))
            self.val_batch_idx += 1


class SyntheticRegressionData(DataModule):
    """y = X w + b + noise, X standard normal: num_train training and num_val validation examples."""

    def __init__(self, w, b, noise=0.01, num_train=1000, num_val=1000, batch_size=32):
        super().__init__()
        self.save_hyperparameters()
        n = num_train + num_val
        self.X = torch.randn(n, len(w))
        noise = torch.randn(n, 1) * noise
        self.y = torch.matmul(self.X, w.reshape((-1, 1))) + b + noise

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), train, i)


class SGD(HyperParameters):
    """Minibatch SGD written out: param -= lr * param.grad."""

    def __init__(self, params, lr):
        self.save_hyperparameters()

    def step(self):
        with torch.no_grad():
            for param in self.params:
                param -= self.lr * param.grad

    def zero_grad(self):
        for param in self.params:
            if param.grad is not None:
                param.grad.zero_()


class LinearRegressionScratch(Module):
    """Linear regression from scratch: w ~ N(0, sigma^2), b = 0, squared loss."""

    def __init__(self, num_inputs, lr, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.w = torch.normal(0, sigma, (num_inputs, 1), requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)

    def forward(self, X):
        return torch.matmul(X, self.w) + self.b

    def loss(self, y_hat, y):
        l = (y_hat - y) ** 2 / 2
        return l.mean()

    def configure_optimizers(self):
        return SGD([self.w, self.b], self.lr)


class LinearRegression(Module):
    """Linear regression with nn.LazyLinear(1), N(0, 0.01^2) weights, MSELoss and torch.optim.SGD."""

    def __init__(self, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.LazyLinear(1)
        self.net.weight.data.normal_(0, 0.01)
        self.net.bias.data.fill_(0)

    def forward(self, X):
        return self.net(X)

    def loss(self, y_hat, y):
        fn = nn.MSELoss()
        return fn(y_hat, y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), self.lr)

    def get_w_b(self):
        return (self.net.weight.data, self.net.bias.data)


class Classifier(Module):
    """The base of classification models: cross-entropy loss over the last
    axis, accuracy (the share of argmax predictions that are right), and a
    validation step that plots both."""

    def validation_step(self, batch):
        Y_hat = self(*batch[:-1])
        self.plot("loss", self.loss(Y_hat, batch[-1]), train=False)
        self.plot("acc", self.accuracy(Y_hat, batch[-1]), train=False)

    def accuracy(self, Y_hat, Y, averaged=True):
        """The mean of right predictions (averaged), or each one as 0/1."""
        preds = Y_hat.reshape((-1, Y_hat.shape[-1])).argmax(dim=1).type(Y.dtype)
        right = (preds == Y.reshape(-1)).type(torch.float32)
        return right.mean() if averaged else right

    def loss(self, Y_hat, Y, averaged=True):
        return F.cross_entropy(Y_hat.reshape((-1, Y_hat.shape[-1])), Y.reshape((-1,)),
                               reduction="mean" if averaged else "none")

    def layer_summary(self, X_shape):
        """Prints each layer's output shape for a random input of X_shape."""
        X = torch.randn(*X_shape)
        for layer in self.net:
            X = layer(X)
            print(layer.__class__.__name__, "output shape:\t", X.shape)


class SoftmaxRegression(Classifier):
    """Softmax regression: Flatten, then a LazyLinear(num_outputs)."""

    def __init__(self, num_outputs, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Flatten(), nn.LazyLinear(num_outputs))

    def forward(self, X):
        return self.net(X)


def init_cnn(module):
    """Xavier-uniform weights for a Linear or Conv2d (for net.apply)."""
    if type(module) in (nn.Linear, nn.Conv2d):
        nn.init.xavier_uniform_(module.weight)


def corr2d(X, K):
    """The 2-D cross-correlation of X with the kernel K, element by element."""
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


def accuracy(y_hat, y):
    """The number of right predictions (argmax over the classes when y_hat has them), as a float."""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(dim=1)
    return float((y_hat.type(y.dtype) == y).type(y.dtype).sum())


def evaluate_accuracy_gpu(net, data_iter, device=None):
    """The share of right predictions of net over data_iter, on net's device (or `device`)."""
    if isinstance(net, nn.Module):
        net.eval()
        if not device:
            device = next(iter(net.parameters())).device
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            X = [x.to(device) for x in X] if isinstance(X, list) else X.to(device)
            y = y.to(device)
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def evaluate_loss(net, data_iter, loss):
    """The mean of loss(net(X), y) over data_iter's examples."""
    metric = Accumulator(2)
    for X, y in data_iter:
        out = net(X)
        l = loss(out, y.reshape(out.shape))
        metric.add(l.sum(), l.numel())
    return metric[0] / metric[1]


def load_array(data_arrays, batch_size, is_train=True):
    """A DataLoader over the tensors data_arrays (shuffled when is_train)."""
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(*data_arrays), batch_size, shuffle=is_train)


def get_dataloader_workers():
    """The number of loader processes d2l asks for (4)."""
    return 4


def synthetic_data(w, b, num_examples):
    """X ~ N(0, 1) of shape (num_examples, len(w)) and y = Xw + b + N(0, 0.01^2), y as a column."""
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def linreg(X, w, b):
    """The linear regression model Xw + b."""
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    """(y_hat - y)^2 / 2, y reshaped to y_hat's shape."""
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    """One minibatch SGD step on params (param -= lr * grad / batch_size), gradients zeroed after."""
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def get_fashion_mnist_labels(labels):
    """Fashion-MNIST's class names for numeric labels."""
    names = ["t-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "ankle boot"]
    return [names[int(i)] for i in labels]


def show_trace_2d(f, results):
    """Draws train_2d's points over the contours of f on [-5.5, 1) x [-3, 1)."""
    x1, x2 = torch.meshgrid(torch.arange(-5.5, 1.0, 0.1), torch.arange(-3.0, 1.0, 0.1), indexing="ij")
    _show_trace_2d(f, results, x1, x2)


# -- the framework aliases the book's cells use (d2l.tensor, d2l.reshape, ...) --
ones_like, ones, zeros_like, zeros = torch.ones_like, torch.ones, torch.zeros_like, torch.zeros
tensor, arange, meshgrid, linspace, eye = torch.tensor, torch.arange, torch.meshgrid, torch.linspace, torch.eye
sin, sinh, cos, cosh, tanh = torch.sin, torch.sinh, torch.cos, torch.cosh, torch.tanh
exp, log, abs, sigmoid = torch.exp, torch.log, torch.abs, torch.sigmoid
normal, rand, randn = torch.normal, torch.rand, torch.randn
matmul, batch_matmul, concat, stack = torch.matmul, torch.bmm, torch.cat, torch.stack
int32, int64, float32 = torch.int32, torch.int64, torch.float32
nn_Module = nn.Module


def numpy(x, *args, **kwargs):
    return x.detach().numpy(*args, **kwargs)


def _method(name, alias):
    """d2l.ALIAS(x, ...): x.NAME(...)."""
    def call(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = alias
    return call


size, reshape, to, reduce_sum, reduce_mean = (_method(n, a) for n, a in (
    ("numel", "size"), ("reshape", "reshape"), ("to", "to"), ("sum", "reduce_sum"), ("mean", "reduce_mean")))
argmax, astype, transpose, expand_dims, swapaxes, repeat = (_method(n, a) for n, a in (
    ("argmax", "argmax"), ("type", "astype"), ("t", "transpose"), ("unsqueeze", "expand_dims"),
    ("swapaxes", "swapaxes"), ("repeat", "repeat")))


def __getattr__(name):
    if name == "plt":  # matplotlib.pyplot, imported when a cell first asks for it
        plt = _pyplot()
        if plt is not None:
            return plt
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


__all__ = ["Timer", "Benchmark", "try_gpu", "try_all_gpus", "num_gpus", "cpu", "gpu", "HyperParameters",
           "ProgressBoard", "Module", "DataModule", "Trainer", "SyntheticRegressionData", "SGD",
           "LinearRegressionScratch", "LinearRegression", "add_to_class", "plot", "set_figsize", "set_axes",
           "use_svg_display", "Accumulator", "Animator", "check_len", "check_shape", "show_images", "show_heatmaps",
           "train_2d", "show_trace_2d", "Classifier", "SoftmaxRegression", "init_cnn", "corr2d", "accuracy",
           "evaluate_accuracy_gpu", "evaluate_loss", "load_array", "get_dataloader_workers", "synthetic_data",
           "linreg", "squared_loss", "sgd", "get_fashion_mnist_labels", "ones_like", "ones", "zeros_like", "zeros",
           "tensor", "arange", "meshgrid", "linspace", "eye", "sin", "sinh", "cos", "cosh", "tanh", "exp", "log",
           "abs", "sigmoid", "normal", "rand", "randn", "matmul", "batch_matmul", "concat", "stack", "int32",
           "int64", "float32", "numpy", "size", "reshape", "to", "reduce_sum", "reduce_mean", "argmax", "astype",
           "transpose", "expand_dims", "swapaxes", "repeat", "nn_Module"]
