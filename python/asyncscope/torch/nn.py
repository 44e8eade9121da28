"""torch.nn for the PyTorch edition: empty for now.

The chapter imports it (`from torch import nn`) without using it, so that
line works here. No layers are implemented in the PyTorch spelling yet; the
engine's layers (Dense, ReLU, L2 loss, SGD) are available in the MXNet
spelling as asyncscope.gluon.
"""

__all__ = []
