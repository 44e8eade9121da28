"""Attention and the Transformer of the PyTorch edition: MultiheadAttention,
TransformerEncoderLayer / TransformerDecoderLayer, TransformerEncoder /
TransformerDecoder and Transformer, with PyTorch 1.13's parameters (names,
shapes, initialisation), arguments (batch_first, norm_first, activation,
layer_norm_eps, masks float or bool, key padding masks) and results, so a
state_dict moves between the two and the same weights give the same
outputs. Each is made of the edition's ops (matrix products, softmax,
layer norm), so every head's products show on the timeline.

Threading: as any module, the thread that runs the model.
"""

import copy as _copy
import math as _math

from ... import torch as _torch
from . import Dropout, LayerNorm, Linear, Module, ModuleList, Parameter
from . import functional as F
from . import init


def _additive_mask(mask, dtype):
    """A mask as the float added to attention scores: a bool mask's True
    (not allowed) is -inf; a float mask is added as it is."""
    if mask is None:
        return None
    if mask.dtype == _torch.bool:
        return _torch.zeros(mask.shape, dtype=dtype).masked_fill(mask, float("-inf"))
    return mask.to(dtype)


class MultiheadAttention(Module):
    """Attention of num_heads heads over embed_dim features (split evenly
    among the heads), its inputs projected by in_proj_weight (or q/k/v
    weights of their own when kdim/vdim differ) and its output by out_proj."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("MultiheadAttention: add_bias_kv and add_zero_attn are not in this edition")
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.head_dim = embed_dim // num_heads
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_torch.empty(3 * embed_dim, embed_dim))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_torch.empty(embed_dim, embed_dim))
            self.k_proj_weight = Parameter(_torch.empty(embed_dim, self.kdim))
            self.v_proj_weight = Parameter(_torch.empty(embed_dim, self.vdim))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_torch.empty(3 * embed_dim))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias)
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if bias:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def _projections(self):
        E = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            weights = (w[0:E], w[E:2 * E], w[2 * E:3 * E])
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        b = self.in_proj_bias
        biases = (None, None, None) if b is None else (b[0:E], b[E:2 * E], b[2 * E:3 * E])
        return weights, biases

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True):
        batched = query.dim() == 3
        if not batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        L, N, E = query.shape
        S = key.shape[0]
        H, D = self.num_heads, self.head_dim
        (wq, wk, wv), (bq, bk, bv) = self._projections()
        q = F.linear(query, wq, bq)
        k = F.linear(key, wk, bk)
        v = F.linear(value, wv, bv)
        # (L, N, E) -> (N * H, L, D): each head of each batch element a matrix of its own.
        q = q.reshape(L, N * H, D).transpose(0, 1) / _math.sqrt(D)
        k = k.reshape(S, N * H, D).transpose(0, 1)
        v = v.reshape(S, N * H, D).transpose(0, 1)
        scores = _torch.bmm(q, k.transpose(1, 2))
        mask = _additive_mask(attn_mask, scores.dtype)
        if mask is not None:
            scores = scores + (mask if mask.dim() == 3 else mask.unsqueeze(0))
        if key_padding_mask is not None:
            padding = _additive_mask(key_padding_mask, scores.dtype)  # (N, S)
            scores = (scores.reshape(N, H, L, S) + padding.reshape(N, 1, 1, S)).reshape(N * H, L, S)
        weights = F.softmax(scores, dim=-1)
        if self.dropout > 0 and self.training:
            weights = F.dropout(weights, p=self.dropout)
        out = _torch.bmm(weights, v)  # (N * H, L, D)
        out = out.transpose(0, 1).reshape(L, N, E)
        out = self.out_proj(out)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        weights = weights.reshape(N, H, L, S)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            weights = weights.squeeze(0)
        return out, weights


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear MultiheadAttention projects its output with (PyTorch's name for it)."""


def _activation(name_or_fn):
    if callable(name_or_fn):
        return name_or_fn
    if name_or_fn == "relu":
        return F.relu
    if name_or_fn == "gelu":
        return F.gelu
    raise RuntimeError("activation should be relu/gelu, not %s" % name_or_fn)


class _Layer(Module):
    """What both layers are made of, registered in PyTorch's order (so
    their state_dicts match): the attentions, the feed-forward block
    (linear1, dropout, linear2), then one norm and one dropout per block."""

    def _build(self, attentions, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
               norm_first):
        for name in attentions:
            setattr(self, name, MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first))
        self.linear1 = Linear(d_model, dim_feedforward)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model)
        self.norm_first = norm_first
        blocks = len(attentions) + 1
        for i in range(1, blocks + 1):
            setattr(self, "norm%d" % i, LayerNorm(d_model, eps=layer_norm_eps))
        for i in range(1, blocks + 1):
            setattr(self, "dropout%d" % i, Dropout(dropout))
        self.activation = _activation(activation)
        self._last_dropout = "dropout%d" % blocks

    def _sa_block(self, x, mask, padding):
        return self.dropout1(self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=padding, need_weights=False)[0])

    def _ff_block(self, x):
        last = getattr(self, self._last_dropout)
        return last(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(_Layer):
    """Self-attention then a feed-forward block, each with dropout, a
    residual connection and a layer norm (after it, or before with norm_first)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        super().__init__()
        self._build(("self_attn",), d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                    norm_first)

    def forward(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff_block(x))


class TransformerDecoderLayer(_Layer):
    """Self-attention, attention over the encoder's memory, then a
    feed-forward block; each with dropout, a residual and a layer norm."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        super().__init__()
        self._build(("self_attn", "multihead_attn"), d_model, nhead, dim_feedforward, dropout, activation,
                    layer_norm_eps, batch_first, norm_first)

    def _mha_block(self, x, memory, mask, padding):
        return self.dropout2(self.multihead_attn(x, memory, memory, attn_mask=mask, key_padding_mask=padding,
                                                 need_weights=False)[0])

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
        return self.norm3(x + self._ff_block(x))


class TransformerEncoder(Module):
    """num_layers copies of encoder_layer (each its own parameters), then norm if given."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([_copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(Module):
    """num_layers copies of decoder_layer (each its own parameters), then norm if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([_copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)
        return x if self.norm is None else self.norm(x)


class Transformer(Module):
    """The encoder-decoder of "Attention Is All You Need": forward(src, tgt, ...)."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model, eps=layer_norm_eps))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model, eps=layer_norm_eps))
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None):
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

    @staticmethod
    def generate_square_subsequent_mask(sz):
        """The causal mask: -inf above the diagonal, 0 on and below it."""
        return _torch.triu(_torch.full((sz, sz), float("-inf")), diagonal=1)


__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerDecoder", "Transformer"]
