"""Gluon (MXNet edition): blocks to subclass and layers (gluon.nn), the
recurrent layers (gluon.rnn), losses (gluon.loss), parameters and the Trainer over asyncscope's C++ layers, and
datasets and loaders (gluon.data).

    net = nn.Sequential()
    net.add(nn.Dense(2048, activation='relu'), nn.Dense(1))
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.005})
"""

from .. import _core
from . import data, loss, nn, rnn

Trainer = _core.gluon.Trainer
Parameter = _core.gluon.Parameter
ParameterDict = _core.gluon.ParameterDict
Block = nn.Block
HybridBlock = nn.HybridBlock

__all__ = ["Trainer", "Parameter", "ParameterDict", "Block", "HybridBlock", "data", "loss", "nn", "rnn"]
