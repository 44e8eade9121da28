"""In-place updates while gradients are recorded, beside the real PyTorch:
`x /= 2`, `x += w`, `x.mul_(w)`, `x.add_(1, alpha=2)`, `x.relu_()`, ... on
a tensor computed from one that needs a gradient make the update the
tensor's grad_fn, and backward gives PyTorch's gradients; a leaf that
requires grad is refused with PyTorch's error; under no_grad the update is
the plain in-place one; d2l's FixedHiddenMLP (`X /= 2` in its forward)
runs. The one known difference (an update of a value an op saved for its
backward) is checked on its own."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from against_pytorch import HAS_TORCH, assert_prints_the_same, package_folder  # noqa: E402

PROGRAM = """
import torch
from torch import nn
from torch.nn import functional as F
w = torch.ones(3, requires_grad=True)
cases = [("x/=2", lambda x: x.__itruediv__(2)), ("x+=w", lambda x: x.__iadd__(w)), ("x-=1", lambda x: x.__isub__(1)),
         ("x*=w", lambda x: x.__imul__(w)), ("div_", lambda x: x.div_(2)), ("mul_", lambda x: x.mul_(w)),
         ("add_", lambda x: x.add_(1, alpha=2)), ("sub_", lambda x: x.sub_(w, alpha=0.5)),
         ("relu_", lambda x: x.relu_()), ("exp_", lambda x: x.exp_()), ("clamp_", lambda x: x.clamp_(min=2.5)),
         ("tanh_", lambda x: x.tanh_()), ("pow_", lambda x: x.pow_(2)), ("sigmoid_", lambda x: x.sigmoid_())]
for name, f in cases:
    x = w * 3
    y = f(x)
    print(name, y is x, x.is_leaf, x)
    x.sum().backward()
    print("  grad", w.grad)
    w.grad = None
try:
    w /= 2
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    w /= 2
    w.add_(1)
print(w, w.is_leaf)
z = torch.ones(3)
z += w
print(z.requires_grad, z.is_leaf)
z.sum().backward()
print(w.grad)

class FixedHiddenMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.rand_weight = torch.rand((20, 20))
        self.linear = nn.Linear(20, 20)

    def forward(self, X):
        X = self.linear(X)
        X = F.relu(X @ self.rand_weight + 1)
        X = self.linear(X)
        while X.abs().sum() > 1:
            X /= 2
        return X.sum()

torch.manual_seed(0)
net = FixedHiddenMLP()
out = net(torch.rand(2, 20))
out.backward()
print(out, net.linear.weight.grad.sum())
"""


@unittest.skipUnless(HAS_TORCH, "the real PyTorch is not installed (apt-get install python3-torch)")
class InPlaceWhileRecording(unittest.TestCase):
    def test_updates_and_gradients_as_the_real_pytorch(self):
        assert_prints_the_same(self, PROGRAM)


class SavedValues(unittest.TestCase):
    def test_an_update_of_a_saved_value_gives_the_out_of_place_gradient(self):
        # PyTorch raises at backward here ("modified by an inplace
        # operation"); the edition's update makes a new array, so the saved
        # value is the one the product used.
        sys.path.insert(0, package_folder())
        from asyncscope import torch
        w = torch.ones(3, requires_grad=True)
        x = w * 3
        x *= x
        x.sum().backward()
        self.assertEqual(w.grad.tolist(), [18.0, 18.0, 18.0])


if __name__ == "__main__":
    unittest.main()
