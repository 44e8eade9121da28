"""A reader's program, unmodified, on asyncscope's editions: while a host
runs it (``asyncscope script``, the app's script mode, ``python3 -m
asyncscope``), ``import torch`` (and ``torch.nn``, ``torch.optim``, ...)
gives the PyTorch edition, ``import mxnet`` (``mxnet.nd``, ``mxnet.np``,
``mxnet.gluon``, ...) the MXNet edition, and ``import d2l`` asyncscope's d2l
helpers, so every op it runs is traced.

The packages built on the real PyTorch (torchvision, torchaudio,
torchtext), when installed, are the real ones on the real PyTorch: each is
loaded with the real ``torch`` in ``sys.modules``, the edition's aliases put
back afterwards, and one line on stderr says that their tensors are the real
torch's (not traced, and not the edition's: ``.numpy()`` carries them over).

The aliased modules are the editions' own objects (``torch.nn is
asyncscope.torch.nn``); their ``__name__`` and ``__spec__`` stay
asyncscope's. A name the edition lacks raises ModuleNotFoundError naming
what is missing.

Threading: install() and uninstall() on the thread that starts and ends the
run, with the GIL; the finder answers any thread's imports.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys

# A program's top-level name -> the module that stands for it.
ALIASES = {"torch": "asyncscope.torch", "mxnet": "asyncscope", "d2l": "asyncscope.d2l"}
EDITIONS = {"torch": "PyTorch edition", "mxnet": "MXNet edition", "d2l": "d2l helpers"}
# Installed packages that import the real torch themselves.
REAL_TORCH_USERS = ("torchvision", "torchaudio", "torchtext")


def _root(fullname):
    return fullname.partition(".")[0]


def _is_torch(name):
    return name == "torch" or name.startswith("torch.")


class _Alias(importlib.abc.Loader):
    """Loads a name as an existing module: the edition's, unchanged."""

    def __init__(self, module):
        self._module = module
        self._spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # The import system set __spec__ to the alias's spec: the module keeps its own.
        if self._spec is not None:
            module.__spec__ = self._spec


class _OnRealTorch(importlib.abc.Loader):
    """Runs a package's module with the real torch in sys.modules."""

    def __init__(self, loader, finder):
        self._loader = loader
        self._finder = finder

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        with self._finder.real_torch():
            self._loader.exec_module(module)


class _RealTorchScope:
    def __init__(self, finder):
        self._finder = finder

    def __enter__(self):
        finder = self._finder
        finder._depth += 1
        if finder._depth == 1:
            finder._edition_modules = {k: sys.modules.pop(k) for k in list(sys.modules) if _is_torch(k)}
            sys.modules.update(finder._real_modules)

    def __exit__(self, *exc):
        finder = self._finder
        finder._depth -= 1
        if finder._depth == 0:
            finder._real_modules = {k: sys.modules.pop(k) for k in list(sys.modules) if _is_torch(k)}
            sys.modules.update(finder._edition_modules)
            finder._edition_modules = {}
        return False


class EditionFinder(importlib.abc.MetaPathFinder):
    """The meta-path finder that install() puts first on sys.meta_path."""

    def __init__(self, stderr=None):
        self._depth = 0  # > 0 while a real-torch package's module runs
        self._real_modules = {}
        self._edition_modules = {}
        self._said = False
        self._stderr = stderr
        self.aliased = []  # names this finder put in sys.modules
        self.saved = {}  # what install() took out of sys.modules

    def real_torch(self):
        return _RealTorchScope(self)

    def find_spec(self, fullname, path=None, target=None):
        root = _root(fullname)
        if root in REAL_TORCH_USERS:
            return self._real_torch_spec(fullname, path)
        if self._depth > 0 or root not in ALIASES:
            return None
        target_name = ALIASES[root] + fullname[len(root):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name is not None and e.name != target_name:
                raise  # something the edition's module itself imports
            raise ModuleNotFoundError("No module named %r: asyncscope's %s has no %s (run with --no-redirect for "
                                      "the real package, untraced)" % (fullname, EDITIONS[root], target_name),
                                      name=fullname) from None
        self.aliased.append(fullname)
        return importlib.machinery.ModuleSpec(fullname, _Alias(module), is_package=hasattr(module, "__path__"))

    def _real_torch_spec(self, fullname, path):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        if not self._said:
            self._said = True
            stream = self._stderr or sys.stderr
            print("asyncscope: %s is the real package on the real PyTorch: its tensors are torch's own, not the "
                  "edition's, and are not traced (.numpy() carries them over)" % _root(fullname),
                  file=stream, flush=True)
        spec.loader = _OnRealTorch(spec.loader, self)
        return spec


_installed = None


def install():
    """Puts the editions in place of torch, mxnet and d2l for what is
    imported from now on; a second call while installed does nothing."""
    global _installed
    if _installed is not None:
        return _installed
    finder = EditionFinder()
    # What python3's own imports left there (the real torch, say) comes back at uninstall().
    finder.saved = {k: sys.modules.pop(k) for k in list(sys.modules) if _root(k) in ALIASES}
    finder._real_modules = {k: v for k, v in finder.saved.items() if _is_torch(k)}
    sys.meta_path.insert(0, finder)
    _installed = finder
    return finder


def uninstall():
    """Takes the finder out and the aliases (and any real-torch package it
    loaded) out of sys.modules, so that the next import sees python3's own."""
    global _installed
    finder, _installed = _installed, None
    if finder is None:
        return
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass
    for name in finder.aliased:
        sys.modules.pop(name, None)
    for name in list(sys.modules):
        if _root(name) in REAL_TORCH_USERS:
            del sys.modules[name]
    sys.modules.update(finder.saved)


def installed():
    """Whether the editions stand in for torch, mxnet and d2l now."""
    return _installed is not None
