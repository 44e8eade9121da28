"""The d2l helpers of the chapter's PyTorch edition: Benchmark, Timer,
try_gpu, try_all_gpus, num_gpus, cpu, gpu. The timings they print are wall-clock time on the
frontend: with asynchronous ops, that is the time to enqueue the work unless
a sync point (item(), printing, torch.cuda.synchronize()) waited for it."""

from .. import torch
from ..torch import nn
from ._common import (Benchmark, HyperParameters, ProgressBoard, Timer, add_to_class, plot, set_axes, set_figsize,
                      use_svg_display)


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


__all__ = ["Timer", "Benchmark", "try_gpu", "try_all_gpus", "num_gpus", "cpu", "gpu", "HyperParameters",
           "ProgressBoard", "Module", "DataModule", "Trainer", "SyntheticRegressionData", "SGD",
           "LinearRegressionScratch", "LinearRegression", "add_to_class", "plot", "set_figsize", "set_axes",
           "use_svg_display"]
