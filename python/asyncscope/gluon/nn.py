"""Gluon's layers: Sequential, Dense (its input size is taken from the first
batch), ReLU. Blocks made inside `with net.name_scope():` are named as the
net's children (sequential0_dense0_weight)."""

from .. import _core

Block = _core.gluon.Block
Sequential = _core.gluon.Sequential
Dense = _core.gluon.Dense
ReLU = _core.gluon.ReLU

__all__ = ["Block", "Sequential", "Dense", "ReLU"]
