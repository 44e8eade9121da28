"""torch.nn of the PyTorch edition: Module, Sequential, ModuleList and
ModuleDict, the layers a reader writes first (Linear, LazyLinear, ReLU,
Sigmoid, Tanh, Softmax, Flatten, Unflatten, Dropout, Identity), more
activations (LeakyReLU, ELU, SiLU, Softplus, GELU), LayerNorm, Embedding,
Conv1d / Conv2d, MaxPool1d / 2d, AvgPool1d / 2d, AdaptiveAvgPool1d / 2d,
AdaptiveMaxPool1d, BatchNorm1d / 2d, the
recurrent RNN, LSTM, GRU and their cells (nn/rnn.py), Parameter, the losses (MSELoss, L1Loss, CrossEntropyLoss, NLLLoss,
BCELoss, BCEWithLogitsLoss, HuberLoss, SmoothL1Loss) and nn.functional /
nn.init.

Every layer is made of the engine's ops: a forward pass is pushed and
returns at once, is recorded for autograd when a parameter needs a
gradient, and each op shows on the timeline with the script line that ran
it. Modules are plain Python objects, as in PyTorch: subclass Module, set
layers and Parameters as attributes in __init__, and write forward.

Where each is: nn/module.py (Module, Parameter), nn/containers.py,
nn/layers.py (Linear and the first layers, the activations as modules),
nn/conv.py (convolutions, pools, batch norm), nn/lazy.py, nn/loss_modules.py,
nn/rnn.py, nn/transformer.py; the functions in nn/functional.py (with
nn/activations.py and nn/losses.py), nn/init.py and nn/utils.py.

Threading: the frontend thread, as every op of the edition."""

from . import functional, init
from .module import Module, Parameter, UninitializedParameter, zero_grads
from .containers import ModuleDict, ModuleList, Sequential
from .layers import (ELU, GELU, Dropout, Embedding, Flatten, Identity, LayerNorm, LeakyReLU, Linear, LogSoftmax,
                     ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh, Unflatten)
from .conv import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AvgPool1d, AvgPool2d, BatchNorm1d,
                   BatchNorm2d, Conv1d, Conv2d, MaxPool1d, MaxPool2d)
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyConv1d, LazyConv2d, LazyLinear
from .loss_modules import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss,
                           SmoothL1Loss)

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Parameter", "UninitializedParameter", "Linear",
           "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "ReLU", "Sigmoid", "Tanh",
           "Softmax", "LogSoftmax", "Flatten", "Unflatten", "Dropout", "Identity", "LeakyReLU", "ELU", "SiLU",
           "Softplus", "GELU", "LayerNorm", "Embedding", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
           "BatchNorm1d", "BatchNorm2d", "Conv1d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d",
           "MSELoss", "L1Loss", "CrossEntropyLoss", "BCEWithLogitsLoss", "NLLLoss", "BCELoss", "HuberLoss",
           "SmoothL1Loss", "functional", "init"]

from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell  # noqa: E402 (after __all__, which it extends)

__all__ += ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

from . import utils  # noqa: E402
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder,  # noqa: E402
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)

__all__ += ["utils", "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerEncoderLayer",
            "TransformerDecoder", "TransformerDecoderLayer"]
