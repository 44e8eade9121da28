"""Initializers (mxnet.init): net.initialize(init.Xavier()). The default is
Uniform(0.07) for weights; biases start at zero."""

from . import _core

Uniform = _core.init.Uniform
Normal = _core.init.Normal
Xavier = _core.init.Xavier
Zero = _core.init.Zero
One = _core.init.One
Constant = _core.init.Constant

__all__ = ["Uniform", "Normal", "Xavier", "Zero", "One", "Constant"]
