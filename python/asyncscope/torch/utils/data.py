"""torch.utils.data of the PyTorch edition: Dataset, TensorDataset and
DataLoader (batch_size, shuffle, drop_last).

A DataLoader over a TensorDataset makes each batch by indexing the tensors
with a slice of the epoch's order (a seeded randperm when shuffling): the
batch is pushed and returned at once, so batching never waits for the
engine. Other datasets are read sample by sample and stacked."""

import builtins as _builtins
import math as _math

from ... import torch as _torch

__all__ = ["Dataset", "TensorDataset", "DataLoader", "random_split"]


class Dataset:
    """A map-style dataset: __getitem__(i) and __len__."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    """Samples are the i-th rows of tensors of one length: (x[i], y[i], ...)."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        n = tensors[0].shape[0]
        if any(t.shape[0] != n for t in tensors):
            raise ValueError("Size mismatch between tensors: %s" % [tuple(t.shape) for t in tensors])
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of dataset at indices."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, index):
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Splits dataset into non-overlapping random subsets of the given
    lengths, or of fractions of its length (summing to 1: each
    floor(fraction * len), the remainder one by one from the first), in the
    order of a randperm from generator (the run's default without it)."""
    lengths = list(lengths)
    if _math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError("Fraction at index %d is not between 0 and 1" % i)
            counts.append(int(_math.floor(len(dataset) * fraction)))
        for i in _builtins.range(len(dataset) - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = _torch.randperm(sum(lengths), generator=generator).tolist()
    out, start = [], 0
    for n in lengths:
        out.append(Subset(dataset, order[start:start + n]))
        start += n
    return out


def _collate(samples):
    first = samples[0]
    if isinstance(first, _torch.Tensor):
        return _torch.stack(list(samples))
    if isinstance(first, (tuple, list)):
        return type(first)(_collate([s[i] for s in samples]) for i in _builtins.range(len(first)))
    if isinstance(first, (int, float, bool)):
        return _torch.tensor(list(samples))
    return list(samples)


class DataLoader:
    """Batches of a dataset: batch_size samples each (the last one smaller
    unless drop_last), in order or, with shuffle, in a new seeded random
    order each epoch."""

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, num_workers=0, collate_fn=None,
                 pin_memory=False, generator=None):
        if batch_size is None or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got batch_size=%s" % batch_size)
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.num_workers = num_workers  # accepted: batches are made on the frontend and pushed
        self.collate_fn = collate_fn
        self.generator = generator

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size

    def _order(self, n):
        """The epoch's order (None: in order), drawn as PyTorch's DataLoader
        draws it: the workers' base seed, then (shuffling) the sampler's seed
        for a fresh generator's randperm, or loader.generator's randperm."""
        _torch._t._random_seed(self.generator)
        if not self.shuffle:
            return None
        generator = self.generator
        if generator is None:
            generator = _torch.Generator().manual_seed(_torch._t._random_seed(None))
        return _torch.randperm(n, generator=generator)

    def __iter__(self):
        n = len(self.dataset)
        tensors = getattr(self.dataset, "tensors", None) if type(self.dataset) is TensorDataset else None
        order = self._order(n)
        if tensors is not None and self.collate_fn is None:
            for start in _builtins.range(0, n, self.batch_size):
                stop = min(start + self.batch_size, n)
                if self.drop_last and stop - start < self.batch_size:
                    break
                if order is None:
                    yield tuple(t[start:stop] for t in tensors)
                else:
                    idx = order[start:stop]
                    yield tuple(t[idx] for t in tensors)
            return
        order = order.tolist() if order is not None else list(_builtins.range(n))
        collate = self.collate_fn or _collate
        for start in _builtins.range(0, n, self.batch_size):
            batch = order[start:start + self.batch_size]
            if self.drop_last and len(batch) < self.batch_size:
                break
            yield collate([self.dataset[i] for i in batch])
