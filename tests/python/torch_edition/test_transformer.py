"""MultiheadAttention, the Transformer family and torch.nn.utils' clipping
against the real PyTorch: the same parameter names and shapes, and, loaded
with the same weights, the same outputs, attention weights, gradients and
clipped norm."""

import unittest

from against_pytorch import HAS_TORCH, assert_prints_the_same

# Runs under the real torch and, through `python3 -m asyncscope`, under the edition.
PROGRAM = """
import numpy as np
import torch
from torch import nn
rng = np.random.RandomState(0)


def load_random(module):
    module.load_state_dict({n: torch.tensor(rng.randn(*p.shape) * 0.3, dtype=torch.float32)
                            for n, p in module.state_dict().items()})


def show(t, digits=4):
    return np.round(t.detach().numpy().reshape(-1)[:6], digits).tolist()


model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
                       dropout=0.0)
print(model.encoder.layers[0].self_attn)
print([(n, tuple(p.shape)) for n, p in model.named_parameters()])
load_random(model)
src = torch.tensor(rng.randn(5, 3, 8), dtype=torch.float32)
tgt = torch.tensor(rng.randn(4, 3, 8), dtype=torch.float32)
pad = torch.tensor([[False] * 5, [False] * 4 + [True], [False] * 3 + [True] * 2])
out = model(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4), src_key_padding_mask=pad)
print(tuple(out.shape), show(out))
out.sum().backward()
print(show(model.encoder.layers[0].self_attn.in_proj_weight.grad, 3))
print(round(float(nn.utils.clip_grad_norm_(model.parameters(), 0.5)), 3),
      round(float(sum((p.grad ** 2).sum() for p in model.parameters())) ** 0.5, 3))

layer = nn.TransformerEncoderLayer(8, 4, dim_feedforward=12, dropout=0.0, activation="gelu", batch_first=True,
                                   norm_first=True)
load_random(layer)
x = torch.tensor(rng.randn(2, 5, 8), dtype=torch.float32)
print(show(layer(x, src_mask=torch.log(torch.tril(torch.ones(5, 5))))))

mha = nn.MultiheadAttention(8, 2, kdim=6, vdim=4)
load_random(mha)
q = torch.tensor(rng.randn(3, 2, 8), dtype=torch.float32)
k = torch.tensor(rng.randn(5, 2, 6), dtype=torch.float32)
v = torch.tensor(rng.randn(5, 2, 4), dtype=torch.float32)
o, w = mha(q, k, v, average_attn_weights=False)
print(tuple(o.shape), show(o), tuple(w.shape), show(w))
o, w = mha(q[:, 0], k[:, 0], v[:, 0])  # unbatched
print(tuple(o.shape), tuple(w.shape), show(w))
"""


@unittest.skipUnless(HAS_TORCH, "python3-torch is not installed")
class AgainstPyTorch(unittest.TestCase):
    def test_the_same_weights_give_pytorchs_outputs_and_gradients(self):
        assert_prints_the_same(self, PROGRAM)

if __name__ == "__main__":
    unittest.main()
