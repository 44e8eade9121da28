"""The edition's d2l library (`from d2l import torch as d2l` under `python3
-m asyncscope`) beside the real d2l library on the real PyTorch: each name
called as the book's cells call it, and what the two print compared line
by line (values after torch.manual_seed, shapes, dtypes, the figures shown,
the assertion messages).

The real library is d2l's own torch.py from a snapshot of the book's
repository, outside the checkout: `../shared/d2l/get_cells.sh` puts it in
CELLS/d2l-lib, CELLS being ASYNCSCOPE_D2L_CELLS (see ../shared/d2l/README.md);
without it, or without the real PyTorch, these tests skip."""

import os
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from against_pytorch import HAS_TORCH, assert_prints_the_same  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
CELLS = pathlib.Path(os.environ.get("ASYNCSCOPE_D2L_CELLS", ROOT.parent / "shared" / "d2l"))
REAL_D2L = CELLS / "d2l-lib"
HAS_REAL_D2L = (REAL_D2L / "d2l" / "torch.py").exists()

PRELUDE = """
import torch
from torch import nn
from d2l import torch as d2l
torch.manual_seed(0)
"""


@unittest.skipUnless(HAS_TORCH, "the real PyTorch is not installed (apt-get install python3-torch)")
@unittest.skipUnless(HAS_REAL_D2L, "the real d2l library is not here (../shared/d2l/get_cells.sh, then "
                                   "ASYNCSCOPE_D2L_CELLS)")
class LibraryBesideTheRealOne(unittest.TestCase):
    def same(self, body):
        assert_prints_the_same(self, PRELUDE + body, real_path=str(REAL_D2L))

    def test_the_framework_aliases(self):
        self.same("""
x = d2l.arange(12, dtype=d2l.float32)
X = d2l.reshape(x, (3, 4))
print(d2l.size(X), d2l.numpy(d2l.reduce_sum(X, 0)), d2l.reduce_mean(X), d2l.argmax(X, 1))
print(d2l.astype(X, d2l.int32).dtype, d2l.transpose(X).shape, d2l.expand_dims(x, 0).shape)
print(d2l.swapaxes(X, 0, 1).shape, d2l.repeat(x[:2], 2), d2l.to(x, 'cpu').device)
print(d2l.concat((X, X), 0).shape, d2l.stack((x, x)).shape, d2l.matmul(X, d2l.transpose(X)))
print(d2l.exp(d2l.zeros(2)), d2l.ones_like(x).sum(), d2l.zeros_like(X).shape, d2l.eye(2), d2l.linspace(0, 1, 3))
print(d2l.batch_matmul(d2l.ones(2, 1, 3), d2l.ones(2, 3, 1)).shape, d2l.abs(d2l.tensor([1.0, -2.0])))
print(d2l.sigmoid(d2l.zeros(1)), d2l.sin(d2l.zeros(1)), d2l.cos(d2l.zeros(1)), d2l.tanh(d2l.zeros(1)))
print(d2l.sinh(d2l.zeros(1)), d2l.cosh(d2l.zeros(1)), d2l.log(d2l.ones(1)), d2l.int64)
print(d2l.rand(2), d2l.randn(2, 3), d2l.normal(0, 1, (2,)))
a, b = d2l.meshgrid(d2l.arange(2), d2l.arange(3), indexing='ij')
print(a, b, d2l.nn_Module is nn.Module)
""")

    def test_accumulator_and_the_checks(self):
        self.same("""
acc = d2l.Accumulator(2)
acc.add(1, d2l.tensor(2.5))
acc.add(3, 4)
print(acc[0], acc[1], acc.data)
acc.reset()
print(acc.data)
X = d2l.ones(3, 4)
d2l.check_shape(X, (3, 4))
d2l.check_len([1, 2], 2)
for check in (lambda: d2l.check_shape(X, (4, 3)), lambda: d2l.check_len([1], 2)):
    try:
        check()
    except AssertionError as e:
        print('AssertionError:', e)
""")

    def test_the_classification_helpers(self):
        self.same("""
y_hat = d2l.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
y = d2l.tensor([0, 2])
print(d2l.accuracy(y_hat, y))

class Net(d2l.Classifier):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(4, 3))

m = Net()
Y_hat = m(d2l.randn(2, 2, 2))
print(m.loss(Y_hat, y), m.accuracy(Y_hat, y), m.accuracy(Y_hat, y, averaged=False), m.loss(Y_hat, y, False))
m.layer_summary((1, 2, 2))
s = d2l.SoftmaxRegression(num_outputs=3, lr=0.1)
print(s(d2l.ones(2, 2, 2)).shape, s.lr)
X, Y = d2l.randn(10, 4), d2l.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
it = d2l.load_array((X, Y), 4, is_train=False)
print(len(it), d2l.evaluate_accuracy_gpu(nn.Linear(4, 3), it), d2l.get_dataloader_workers())
reg = nn.Linear(4, 1)
print(round(d2l.evaluate_loss(reg, d2l.load_array((X, d2l.randn(10, 1)), 5), nn.MSELoss(reduction='none')), 5))
print(d2l.get_fashion_mnist_labels([0, 9, d2l.tensor(3)]))
net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.Linear(8, 2))
net.apply(d2l.init_cnn)
print(net[0].weight, net[2].weight)
""")

    def test_the_regression_helpers(self):
        self.same("""
true_w, true_b = d2l.tensor([2, -3.4]), 4.2
features, labels = d2l.synthetic_data(true_w, true_b, 5)
print(features, labels)
w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
l = d2l.squared_loss(d2l.linreg(features, w, b), labels)
l.sum().backward()
d2l.sgd([w, b], 0.03, 5)
print(w, b, w.grad, b.grad)
K = d2l.tensor([[0.0, 1.0], [2.0, 3.0]])
print(d2l.corr2d(d2l.reshape(d2l.arange(9.0), (3, 3)), K))
""")

    def test_the_figures(self):
        self.same("""
def f_2d(x1, x2):
    return x1 ** 2 + 2 * x2 ** 2

def gd_2d(x1, x2, s1, s2):
    return (x1 - 0.2 * 2 * x1, x2 - 0.2 * 4 * x2, 0, 0)

d2l.show_trace_2d(f_2d, d2l.train_2d(gd_2d))
print(d2l.plt.gca().get_xlabel(), d2l.plt.gca().get_ylabel())
animator = d2l.Animator(xlabel='epoch', xlim=[1, 3], legend=['train loss', 'test acc'])
for epoch in range(3):
    animator.add(epoch + 1, (0.5 / (epoch + 1), None if epoch < 2 else 0.9))
print(animator.X, animator.Y)
axes = d2l.show_images(d2l.ones(2, 4, 4), 1, 2, titles=['a', 'b'])
print(len(axes), axes[1].get_title())
d2l.show_heatmaps(d2l.reshape(d2l.eye(3), (1, 1, 3, 3)), xlabel='Keys', ylabel='Queries')
x = d2l.arange(0, 3, 0.5)
d2l.plot(x, [x, x * 2], 'x', 'f(x)', legend=['a', 'b'])
print(d2l.plt.gca().get_xlabel(), [t.get_text() for t in d2l.plt.gca().get_legend().get_texts()])
board = d2l.ProgressBoard('x')
for i in range(4):
    board.draw(i, i * i, 'square', every_n=2)
print(board.data)
""")


if __name__ == "__main__":
    unittest.main()
