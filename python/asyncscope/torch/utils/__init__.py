"""torch.utils of the PyTorch edition: data (Dataset, TensorDataset, DataLoader)."""

from . import data

__all__ = ["data"]
