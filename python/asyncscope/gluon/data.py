"""gluon.data of the MXNet edition: Dataset, ArrayDataset, SimpleDataset and
DataLoader (batch_size, shuffle, last_batch 'keep' / 'discard' / 'rollover').

A DataLoader over an ArrayDataset of asyncscope arrays makes each batch by
indexing the arrays with a slice of the epoch's order (a seeded random
permutation when shuffling): the batch is pushed and returned at once, so
batching never waits for the engine. Other datasets are read sample by
sample and stacked."""

from .. import _core
from .. import ndarray as _nd

__all__ = ["Dataset", "ArrayDataset", "SimpleDataset", "DataLoader"]


def _is_array(x):
    return isinstance(x, (_core.nd.NDArray, _core.np.ndarray))


class Dataset:
    """A map-style dataset: __getitem__(i) and __len__."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def transform(self, fn, lazy=True):
        """A dataset of fn(*sample) for each sample."""
        return _Transformed(self, fn)

    def transform_first(self, fn, lazy=True):
        """A dataset whose samples have fn applied to their first element."""
        def first(*sample):
            return (fn(sample[0]),) + tuple(sample[1:]) if len(sample) > 1 else fn(sample[0])
        return _Transformed(self, first)


class _Transformed(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __getitem__(self, idx):
        item = self._data[idx]
        return self._fn(*item) if isinstance(item, tuple) else self._fn(item)

    def __len__(self):
        return len(self._data)


class SimpleDataset(Dataset):
    """A dataset of a list's (or any sequence's) items."""

    def __init__(self, data):
        self._data = data

    def __getitem__(self, idx):
        return self._data[idx]

    def __len__(self):
        return len(self._data)


class ArrayDataset(Dataset):
    """Samples are the i-th elements of arrays of one length: (x[i], y[i], ...),
    or x[i] alone for one array."""

    def __init__(self, *args):
        if not args:
            raise ValueError("ArrayDataset needs at least one array")
        self._length = len(args[0])
        for i, a in enumerate(args):
            if len(a) != self._length:
                raise ValueError("All arrays must have the same length; array[0] has length %d while array[%d] "
                                 "has %d." % (self._length, i, len(a)))
        self._data = args

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(a[idx] for a in self._data)

    def __len__(self):
        return self._length


def _stack(samples):
    first = samples[0]
    if isinstance(first, _core.np.ndarray):
        from .. import np as _np
        return _np.stack(list(samples))
    if isinstance(first, _core.nd.NDArray):
        return _nd.stack(*samples)
    if isinstance(first, tuple):
        return tuple(_stack([s[i] for s in samples]) for i in range(len(first)))
    if isinstance(first, list):
        return [_stack([s[i] for s in samples]) for i in range(len(first))]
    return _nd.array(list(samples))


class DataLoader:
    """Batches of a dataset: batch_size samples each, in order or, with
    shuffle, in a new seeded random order each epoch. The last, smaller
    batch is kept ('keep'), dropped ('discard'), or its samples lead the
    next epoch ('rollover')."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False, thread_pool=False,
                 prefetch=None):
        if batch_size is None or batch_size <= 0:
            raise ValueError("batch_size must be a positive integer, got %s" % batch_size)
        if sampler is not None or batch_sampler is not None:
            raise ValueError("DataLoader: samplers are not supported; use shuffle and last_batch")
        last_batch = last_batch or "keep"
        if last_batch not in ("keep", "discard", "rollover"):
            raise ValueError("last_batch must be one of 'keep', 'discard', or 'rollover', but got %s" % last_batch)
        self._dataset = dataset
        self._batch_size = batch_size
        self._shuffle = shuffle
        self._last_batch = last_batch
        self._batchify = batchify_fn
        self._carried = []  # indices rolled over from the last epoch
        self.num_workers = num_workers  # accepted: batches are made on the frontend and pushed

    def __len__(self):
        n = len(self._dataset) + len(self._carried)
        if self._last_batch == "keep":
            return (n + self._batch_size - 1) // self._batch_size
        return n // self._batch_size

    def _order(self, n, like):
        """The epoch's order, as an int64 array of like's flavour (indexing it
        pushes a gather) or, without an array to follow, a list."""
        if like is None:
            order = list(range(n))
            if self._shuffle:
                order = [int(i) for i in _nd.random.shuffle(_nd.arange(n, dtype="int64")).asnumpy()]
            return order
        if isinstance(like, _core.np.ndarray):
            from .. import np as _np
            return _np.random.permutation(n) if self._shuffle else None
        return _nd.random.shuffle(_nd.arange(n, dtype="int64")) if self._shuffle else None

    def __iter__(self):
        n = len(self._dataset)
        arrays = self._dataset._data if type(self._dataset) is ArrayDataset else None
        fast = arrays is not None and all(_is_array(a) for a in arrays) and not self._carried and \
            self._batchify is None and self._last_batch != "rollover"
        if fast:
            order = self._order(n, arrays[0])
            for start in range(0, n, self._batch_size):
                stop = min(start + self._batch_size, n)
                if stop - start < self._batch_size and self._last_batch == "discard":
                    break
                key = slice(start, stop) if order is None else order[start:stop]
                batch = tuple(a[key] for a in arrays)
                yield batch[0] if len(batch) == 1 else batch
            return
        order = self._carried + self._order(n, None)
        self._carried = []
        batchify = self._batchify or _stack
        for start in range(0, len(order), self._batch_size):
            idx = order[start:start + self._batch_size]
            if len(idx) < self._batch_size:
                if self._last_batch == "discard":
                    break
                if self._last_batch == "rollover":
                    self._carried = idx
                    break
            yield batchify([self._dataset[i] for i in idx])
