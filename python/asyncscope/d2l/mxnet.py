"""The d2l library of the MXNet edition (`from asyncscope.d2l import mxnet
as d2l`), over asyncscope's MXNet NumPy interface and Gluon: Benchmark,
Timer, try_gpu, try_all_gpus, num_gpus, cpu, gpu, HyperParameters,
ProgressBoard, add_to_class, the plot helpers, and the classes of the
Linear Neural Networks chapter: Module (a gluon Block), DataModule, Trainer,
SyntheticRegressionData, SGD, LinearRegressionScratch and LinearRegression.
The timings Benchmark prints are wall-clock time on the frontend: with
asynchronous ops, that is the time to enqueue the work unless a sync point
(npx.waitall(), wait_to_read(), asnumpy(), item(), printing) waited for it.
A Trainer's loop pushes every op, so it shows on the timeline line by line;
plotting a loss reads it (a sync point)."""

from .. import autograd, gluon, init, np, npx
from ..gluon import nn
from ._common import (Benchmark, HyperParameters, ProgressBoard, Timer, add_to_class, plot, set_axes, set_figsize,
                      use_svg_display)


def num_gpus():
    """How many GPUs this run can use."""
    return npx.num_gpus()


def cpu():
    """The CPU context."""
    return npx.cpu()


def gpu(i=0):
    """gpu(i) (whether or not this run can use it)."""
    return npx.gpu(i)


def try_gpu(i=0):
    """gpu(i) if this run can use it, else the CPU."""
    return npx.gpu(i) if npx.num_gpus() >= i + 1 else npx.cpu()


def try_all_gpus():
    """Every GPU this run can use, or [cpu()] without one."""
    return [npx.gpu(i) for i in range(npx.num_gpus())] or [npx.cpu()]


class Module(nn.Block, HyperParameters):
    """The base of d2l's models: loss, forward (self.net), training_step and
    validation_step (which plot the loss on self.board), and
    configure_optimizers (a gluon Trainer with sgd)."""

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
        self.board.draw(x, float(value.asnumpy()), ("train_" if train else "val_") + key, every_n=max(int(n), 1))

    def training_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.plot("loss", l, train=True)
        return l

    def validation_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.plot("loss", l, train=False)

    def configure_optimizers(self):
        return gluon.Trainer(self.collect_params(), "sgd", {"learning_rate": self.lr})


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
        dataset = gluon.data.ArrayDataset(*tensors)
        return gluon.data.DataLoader(dataset, self.batch_size, shuffle=train)


class Trainer(HyperParameters):
    """d2l's training loop: fit(model, data) runs max_epochs of fit_epoch()
    (every batch: training_step recorded, backward, optimizer step(1); then
    the validation batches)."""

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
            batch = [a.as_in_ctx(self.gpus[0]) for a in batch]
        return batch

    def clip_gradients(self, grad_clip_val, model):
        params = [p.grad() for p in model.collect_params().values()]
        norm = np.sqrt(sum((g ** 2).sum() for g in params))
        scale = np.minimum(grad_clip_val / norm, 1.0)
        for g in params:
            g *= scale

    def fit_epoch(self):
        for batch in self.train_dataloader:
            with autograd.record():
                loss = self.model.training_step(self.prepare_batch(batch))
            loss.backward()
            if self.gradient_clip_val > 0:
                self.clip_gradients(self.gradient_clip_val, self.model)
            self.optim.step(1)
            self.train_batch_idx += 1
        if self.val_dataloader is None:
            return
        for batch in self.val_dataloader:
            self.model.validation_step(self.prepare_batch(batch))
            self.val_batch_idx += 1


class SyntheticRegressionData(DataModule):
    """y = X w + b + noise, X standard normal: num_train training and num_val validation examples."""

    def __init__(self, w, b, noise=0.01, num_train=1000, num_val=1000, batch_size=32):
        super().__init__()
        self.save_hyperparameters()
        n = num_train + num_val
        self.X = np.random.randn(n, len(w))
        noise = np.random.randn(n, 1) * noise
        self.y = np.dot(self.X, w.reshape((-1, 1))) + b + noise

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), train, i)


class SGD(HyperParameters):
    """Minibatch SGD written out: param -= lr * param.grad / batch_size."""

    def __init__(self, params, lr):
        self.save_hyperparameters()

    def step(self, batch_size):
        for param in self.params:
            param -= self.lr * param.grad / batch_size


class LinearRegressionScratch(Module):
    """Linear regression from scratch: w ~ N(0, sigma^2), b = 0, squared loss."""

    def __init__(self, num_inputs, lr, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.w = np.random.normal(0, sigma, (num_inputs, 1))
        self.b = np.zeros(1)
        self.w.attach_grad()
        self.b.attach_grad()

    def forward(self, X):
        return np.dot(X, self.w) + self.b

    def loss(self, y_hat, y):
        l = (y_hat - y) ** 2 / 2
        return l.mean()

    def configure_optimizers(self):
        return SGD([self.w, self.b], self.lr)


class LinearRegression(Module):
    """Linear regression with nn.Dense(1), N(0, 0.01^2) weights, L2Loss and a gluon Trainer (sgd)."""

    def __init__(self, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Dense(1)
        self.net.initialize(init.Normal(sigma=0.01))

    def forward(self, X):
        return self.net(X)

    def loss(self, y_hat, y):
        fn = gluon.loss.L2Loss()
        return fn(y_hat, y).mean()

    def configure_optimizers(self):
        return gluon.Trainer(self.collect_params(), "sgd", {"learning_rate": self.lr})

    def get_w_b(self):
        return (self.net.weight.data(), self.net.bias.data())


__all__ = ["Timer", "Benchmark", "try_gpu", "try_all_gpus", "num_gpus", "cpu", "gpu", "HyperParameters",
           "ProgressBoard", "Module", "DataModule", "Trainer", "SyntheticRegressionData", "SGD",
           "LinearRegressionScratch", "LinearRegression", "add_to_class", "plot", "set_figsize", "set_axes",
           "use_svg_display"]
