"""torch.onnx of the PyTorch edition: importable, so that programs that
import it run; export is not in this edition and says so when called.

Threading: any.
"""


def export(*args, **kwargs):
    """Not in this edition: raises NotImplementedError."""
    raise NotImplementedError("torch.onnx.export is not in asyncscope's PyTorch edition (it has no ONNX exporter)")


__all__ = ["export"]
