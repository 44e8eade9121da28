"""torch.save and torch.load of the PyTorch edition, in PyTorch's own file
format: a zip archive holding data.pkl (the object pickled with protocol 2,
each tensor a torch._utils._rebuild_tensor_v2 call on a storage named by a
persistent id), data/<key> (each storage's bytes, little-endian) and
version. The real PyTorch loads what save writes (tensors, state dicts and
the containers around them), and load reads what the real PyTorch saves
(its float16 and bfloat16 storages as float32, int8 and int16 as int32).
A whole module pickles by reference to the edition's classes, so only the
edition loads it back. Files of asyncscope's earlier plain-pickle format
still load.

Threading: the program's thread; save is a sync point for the tensors it writes.
"""

import collections
import io
import os
import pickle
import zipfile

import numpy as _np

__all__ = ["save", "load"]

_STORAGE_OF = {"torch.float32": "FloatStorage", "torch.float64": "DoubleStorage", "torch.int64": "LongStorage",
               "torch.int32": "IntStorage", "torch.uint8": "ByteStorage", "torch.bool": "BoolStorage"}
# A storage's element type in the file, and the type its tensor gets here.
_ELEMENTS = {"FloatStorage": ("<f4", None), "DoubleStorage": ("<f8", None), "LongStorage": ("<i8", None),
             "IntStorage": ("<i4", None), "ByteStorage": ("u1", None), "BoolStorage": ("?", None),
             "CharStorage": ("i1", "<i4"), "ShortStorage": ("<i2", "<i4"), "HalfStorage": ("<f2", "<f4"),
             "BFloat16Storage": ("<u2", "bfloat16")}
# What a file of PyTorch's format before 1.6 starts with.
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
# The version record PyTorch 1.6 and later write and read.
_VERSION = b"3\n"


class _Global:
    """A name the pickle refers to as PyTorch's (torch._utils._rebuild_tensor_v2)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle wants a reduce function to be callable; only the file's reader calls it
        raise TypeError("%s.%s is the real PyTorch's" % (self.module, self.name))


class _Storage:
    def __init__(self, key, storage_type, numel):
        self.key, self.storage_type, self.numel = key, storage_type, numel


class _Writer(pickle._Pickler):
    """Protocol 2, as PyTorch writes it: tensors as _rebuild_tensor_v2 calls on storages whose bytes go to data/."""

    def __init__(self, file, storages):
        super().__init__(file, protocol=2)
        self._storages = storages

    def reducer_override(self, obj):
        from . import Tensor
        from .nn import Parameter
        if isinstance(obj, Parameter):
            return (_Global("torch._utils", "_rebuild_parameter"),
                    (obj.detach(), obj.requires_grad, collections.OrderedDict()))
        if isinstance(obj, Tensor):
            dtype = repr(obj.dtype)
            if dtype not in _STORAGE_OF:
                raise pickle.PicklingError("torch.save: no PyTorch storage type for %s" % dtype)
            values = obj.detach().cpu().numpy()
            if not values.flags.c_contiguous:
                values = values.copy(order="C")  # (ascontiguousarray would make a 0-d array 1-d)
            key = str(len(self._storages))
            self._storages.append(values.astype(values.dtype.newbyteorder("<"), copy=False).tobytes())
            shape = tuple(int(d) for d in values.shape)
            strides, step = [], 1
            for d in reversed(shape):
                strides.insert(0, step)
                step *= d
            return (_Global("torch._utils", "_rebuild_tensor_v2"),
                    (_Storage(key, _STORAGE_OF[dtype], int(values.size)), 0, shape, tuple(strides),
                     bool(obj.requires_grad), collections.OrderedDict()))
        return NotImplemented

    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            return ("storage", _Global("torch", obj.storage_type), obj.key, "cpu", obj.numel)
        return None

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + ("%s\n%s\n" % (obj.module, obj.name)).encode("ascii"))
            return
        super().save(obj, save_persistent_id)


def _is_path(f):
    return isinstance(f, (str, bytes)) or hasattr(f, "__fspath__")


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Writes obj (a tensor, a state_dict, any picklable object holding
    tensors) to f (a path or a binary file) in PyTorch's zip format."""
    storages = []
    pickled = io.BytesIO()
    _Writer(pickled, storages).dump(obj)
    name = os.path.splitext(os.path.basename(os.fsdecode(f)))[0] if _is_path(f) else "archive"
    name = name or "archive"
    target = open(f, "wb") if _is_path(f) else f
    try:
        with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
            archive.writestr(name + "/data.pkl", pickled.getvalue())
            for key, data in enumerate(storages):
                archive.writestr("%s/data/%d" % (name, key), data)
            archive.writestr(name + "/version", _VERSION)
    finally:
        if target is not f:
            target.close()


class _Reader(pickle.Unpickler):
    """Rebuilds PyTorch's tensors, parameters and storages as the edition's."""

    def __init__(self, data, archive, prefix):
        super().__init__(data)
        self._archive, self._prefix, self._loaded = archive, prefix, {}

    def find_class(self, module, name):
        from .. import torch as edition
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch._utils" and name == "_rebuild_parameter":
            return _rebuild_parameter
        if module == "torch" and name in _ELEMENTS:
            return name
        if module == "torch" and hasattr(edition, name):
            return getattr(edition, name)
        if module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError("torch.load: the file holds %s.%s, which this edition cannot rebuild (it "
                                         "loads tensors, state dicts and the containers around them)" % (module, name))
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError("torch.load: an unknown persistent id %r" % (pid,))
        storage_type, key = pid[1], pid[2]
        if key not in self._loaded:
            if storage_type not in _ELEMENTS:
                raise pickle.UnpicklingError("torch.load: storages of %s are not supported" % storage_type)
            stored, kept = _ELEMENTS[storage_type]
            raw = _np.frombuffer(self._archive.read("%s/data/%s" % (self._prefix, key)), dtype=stored)
            if kept == "bfloat16":
                raw = (raw.astype("<u4") << 16).view("<f4")
            elif kept is not None:
                raw = raw.astype(kept)
            self._loaded[key] = raw
        return self._loaded[key]


def _rebuild_tensor(storage, offset, size, stride, requires_grad=False, backward_hooks=None, metadata=None):
    from .. import torch as edition
    item = storage.itemsize
    values = _np.lib.stride_tricks.as_strided(storage[offset:], shape=tuple(size),
                                              strides=tuple(s * item for s in stride)).copy()
    t = edition.tensor(values)
    return t.requires_grad_() if requires_grad else t


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    from .nn import Parameter
    return Parameter(data, requires_grad=requires_grad)


def _move(x, where):
    from . import Tensor
    if isinstance(x, Tensor):
        return x.to(where)
    if isinstance(x, dict):
        return type(x)((k, _move(v, where)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return type(x)(_move(v, where) for v in x)
    return x


def load(f, map_location=None, pickle_module=None, weights_only=False, **pickle_load_args):
    """What save() wrote, or the real PyTorch's torch.save: tensors come back
    on the CPU, or on map_location (a device or its name)."""
    source = open(f, "rb") if _is_path(f) else f
    try:
        data = source.read()
    finally:
        if source is not f:
            source.close()
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            pickles = [n for n in names if n.endswith("/data.pkl")]
            if not pickles:
                raise RuntimeError("torch.load: a zip file without data.pkl is not a file torch.save wrote")
            prefix = pickles[0][:-len("/data.pkl")]
            obj = _Reader(io.BytesIO(archive.read(pickles[0])), archive, prefix).load()
    else:
        obj = pickle.loads(data)  # asyncscope's earlier format
        if obj == _LEGACY_MAGIC:
            raise RuntimeError("torch.load: a file of PyTorch's format before 1.6 is not supported; save it again "
                               "with a newer PyTorch")
    if isinstance(map_location, dict) or callable(map_location):
        raise NotImplementedError("torch.load: map_location as a dict or a function is not supported; give a device")
    return obj if map_location is None else _move(obj, map_location)
