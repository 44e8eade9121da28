"""The d2l library classes of the PyTorch edition (asyncscope.d2l.torch),
written from their documented behaviour: HyperParameters, add_to_class,
ProgressBoard's averaging, DataModule/SyntheticRegressionData loaders, and
Trainer.fit training LinearRegressionScratch and LinearRegression (a
LazyLinear initialized before its first input, its optimizer made before
then too) until the loss has fallen tenfold and the weights are near the
true ones."""

import contextlib
import io
import unittest

from asyncscope import torch
from asyncscope.d2l import torch as d2l


class Library(unittest.TestCase):
    def test_hyperparameters_and_add_to_class(self):
        class Thing(d2l.HyperParameters):
            def __init__(self, a, b, c=3):
                self.save_hyperparameters(ignore=["c"])

        t = Thing(1, "two")
        self.assertEqual((t.a, t.b), (1, "two"))
        self.assertFalse(hasattr(t, "c"))
        self.assertEqual(t.hparams, {"a": 1, "b": "two"})

        @d2l.add_to_class(Thing)
        def double(self):
            return 2 * self.a
        self.assertEqual(t.double(), 2)

    def test_progress_board_averages_every_n_points(self):
        board = d2l.ProgressBoard(display=False)
        for i in range(6):
            board.draw(i, float(i), "loss", every_n=3)
        self.assertEqual([(p.x, p.y) for p in board.data["loss"]], [(1.0, 1.0), (4.0, 4.0)])

    def test_synthetic_data_loaders(self):
        data = d2l.SyntheticRegressionData(w=torch.tensor([2.0, -3.4]), b=4.2, num_train=100, num_val=50,
                                           batch_size=32)
        self.assertEqual(tuple(data.X.shape), (150, 2))
        X, y = next(iter(data.train_dataloader()))
        self.assertEqual((tuple(X.shape), tuple(y.shape)), ((32, 2), (32, 1)))
        self.assertEqual(len(data.train_dataloader()), 4)
        self.assertEqual(len(data.val_dataloader()), 2)
        residual = (torch.matmul(data.X, torch.tensor([[2.0], [-3.4]])) + 4.2 - data.y).abs().max().item()
        self.assertLess(residual, 0.1)

    def fit(self, model):
        torch.manual_seed(1)
        data = d2l.SyntheticRegressionData(w=torch.tensor([2.0, -3.4]), b=4.2)
        trainer = d2l.Trainer(max_epochs=3)
        with contextlib.redirect_stderr(io.StringIO()):  # the once-only note that plots are skipped
            trainer.fit(model, data)
        self.assertEqual(trainer.train_batch_idx, 3 * len(data.train_dataloader()))
        train = [p.y for p in model.board.data["train_loss"]]
        self.assertLess(train[-1], train[0] / 10, train)
        self.assertEqual(len(model.board.data["val_loss"]), 3)  # one point per epoch
        return model

    def test_trainer_fits_the_scratch_model(self):
        model = self.fit(d2l.LinearRegressionScratch(2, lr=0.03))
        w, b = model.w.detach().numpy().ravel(), model.b.item()
        # Three epochs at lr 0.03 on half the squared error: the book's own
        # run ends about this far off too.
        self.assertLess(abs(w[0] - 2.0) + abs(w[1] + 3.4), 0.6)
        self.assertLess(abs(b - 4.2), 0.6)

    def test_trainer_fits_the_concise_model(self):
        model = d2l.LinearRegression(lr=0.03)
        self.assertEqual(len(list(model.parameters())), 2)  # uninitialized, yet there for the optimizer
        model = self.fit(model)
        w, b = model.get_w_b()
        self.assertEqual(tuple(w.shape), (1, 2))
        self.assertLess(abs(w[0, 0].item() - 2.0) + abs(w[0, 1].item() + 3.4), 0.1)
        self.assertLess(abs(b.item() - 4.2), 0.1)

    def test_lazy_initialization_is_kept_until_the_shape_is_known(self):
        net = torch.nn.LazyLinear(3)
        net.weight.data.fill_(0.5)
        net.bias.data.zero_()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        y = net(torch.ones(2, 4))
        self.assertEqual(y.tolist(), [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]])
        y.sum().backward()
        opt.step()
        self.assertAlmostEqual(net.weight[0, 0].item(), 0.5 - 0.1 * 2, places=6)
        self.assertIs(type(net.weight), torch.nn.Parameter)


if __name__ == "__main__":
    unittest.main()
