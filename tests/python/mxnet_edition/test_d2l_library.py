"""The d2l library classes of the MXNet edition (asyncscope.d2l.mxnet), as
the current edition's Linear Neural Networks chapter uses them with
mxnet.np: SyntheticRegressionData's loaders, and Trainer.fit training
LinearRegressionScratch (its own SGD) and LinearRegression (nn.Dense, L2Loss,
a gluon Trainer) until the weights are near the true ones."""

import contextlib
import io
import unittest

from asyncscope import np, npx
from asyncscope.d2l import mxnet as d2l


class MxnetLibrary(unittest.TestCase):
    def setUp(self):
        npx.set_np()
        self.addCleanup(npx.reset_np)

    def data(self):
        return d2l.SyntheticRegressionData(w=np.array([2, -3.4]), b=4.2)

    def fit(self, model, epochs=3):
        trainer = d2l.Trainer(max_epochs=epochs)
        with contextlib.redirect_stderr(io.StringIO()):  # the note that plots are skipped without matplotlib
            trainer.fit(model, self.data())
        return model

    def test_synthetic_data_loaders(self):
        data = self.data()
        self.assertEqual(data.X.shape, (2000, 2))
        X, y = next(iter(data.train_dataloader()))
        self.assertIsInstance(X, np.ndarray)
        self.assertEqual((X.shape, y.shape), ((32, 2), (32, 1)))
        self.assertEqual(len(data.train_dataloader()), 1000 // 32 + 1)

    def test_trainer_fits_the_scratch_model(self):
        model = self.fit(d2l.LinearRegressionScratch(2, lr=0.03))
        w, b = model.w.asnumpy().ravel(), float(model.b.asnumpy()[0])
        self.assertLess(abs(w[0] - 2.0) + abs(w[1] + 3.4), 0.6)
        self.assertLess(abs(b - 4.2), 0.6)

    def test_trainer_fits_the_concise_model(self):
        # L2Loss halves the squared error, so at lr 0.03 each step closes 3% of
        # the gap: after 10 epochs of 32 batches, under 0.01% of it is left.
        model = self.fit(d2l.LinearRegression(lr=0.03), epochs=10)
        w, b = model.get_w_b()
        self.assertIsInstance(w, np.ndarray)
        self.assertEqual(tuple(w.shape), (1, 2))
        self.assertLess(abs(float(w[0, 0]) - 2.0) + abs(float(w[0, 1]) + 3.4), 0.1)
        self.assertLess(abs(float(b[0]) - 4.2), 0.1)


if __name__ == "__main__":
    unittest.main()
