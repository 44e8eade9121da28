"""torch.nn's containers in the PyTorch edition: Sequential, ModuleList and
ModuleDict.

Threading: the frontend thread, as every op of the edition.
"""

import collections as _collections

from .module import Module


class Sequential(Module):
    """Modules applied in order: Sequential(a, b, c)(x) is c(b(a(x)));
    indexing gives a module (an int) or a Sequential (a slice)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], _collections.OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Sequential(_collections.OrderedDict(list(self._modules.items())[index]))
        n = len(self)
        if not -n <= index < n:
            raise IndexError("index %d is out of range" % index)
        return list(self._modules.values())[index % n]

    def __setitem__(self, index, module):
        key = list(self._modules)[index]
        self._modules[key] = module

    def __delitem__(self, index):
        keys = list(self._modules)
        for k in (keys[index] if isinstance(index, slice) else [keys[index]]):
            del self._modules[k]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    """A list of modules whose parameters belong to the module holding it."""

    def __init__(self, modules=None):
        super().__init__()
        for m in modules or []:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, index):
        return list(self._modules.values())[index]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class ModuleDict(Module):
    """Modules by name, registered as children (in insertion order)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def update(self, modules):
        pairs = modules.items() if hasattr(modules, "items") else modules
        for key, module in pairs:
            self.add_module(key, module)
