"""An edition's Python surface, declared once per function.

A function made of the edition's ops is declared where it is defined, with
the forms the framework gives it:

    surface = Surface("torch")

    @surface.op(method=True, in_place=True)
    def tril(input, diagonal=0): ...

makes torch.tril, Tensor.tril and Tensor.tril_ from the one definition;
`names=` gives further spellings (torch.true_divide beside torch.div),
`function=False` declares a method only (Tensor.new_zeros), and
`surface.method(name, fn)` a method written inline. `install` puts them on
the module and the array class: a module function (in place of a binding
of that name), a method and an in-place form where the class has none (the C++
bindings' own methods win, being faster), and appends the module's names
to its __all__. The in-place form writes the result back with copy_ (one
engine write of the tensor's var), refusing, as PyTorch does, a floating
result for an integer tensor. In the torch edition, a function taking
`dim` / `keepdim` takes `axis` / `keepdims` too, as PyTorch's argument
parser does (the C++ bindings get the same from python/core/numpy_names.cpp).

Threading: declarations and install run at import, on the importing thread.
"""

import functools as _functools
import inspect as _inspect


class Surface:
    """The functions and methods one edition's composed module declares."""

    def __init__(self, edition):
        self.edition = edition
        self.functions = {}  # module name -> function
        self.methods = {}  # array class name -> function
        self.in_place = []  # names whose method gets a NAME_ form

    def op(self, *names, function=True, method=False, in_place=False):
        """Declares the decorated function under its own name (or `names`)."""
        def declare(fn):
            for name in names or (fn.__name__,):
                if function:
                    self.functions[name] = fn
                if method:
                    self.methods[name] = fn
                if in_place:
                    self.in_place.append(name)
            return fn
        return declare

    def method(self, name, fn, in_place=False):
        """Declares fn as the array class's method `name` only."""
        self.methods[name] = fn
        if in_place:
            self.in_place.append(name)

    def in_place_forms(self, *names):
        """Declares NAME_ for methods the array class has already (its bindings')."""
        self.in_place.extend(names)

    def install(self, namespace, array_class, refuse_float_into_int=None):
        """Adds the declared functions to `namespace` (a module's globals,
        with its __all__) and the methods to `array_class`."""
        exported = namespace.setdefault("__all__", [])
        spell = _numpy_names if self.edition == "torch" else (lambda fn: fn)
        for name, fn in self.functions.items():
            namespace[name] = spell(fn)
            if name not in exported:
                exported.append(name)
        for name, fn in self.methods.items():
            if not hasattr(array_class, name):
                setattr(array_class, name, spell(fn))
        for name in self.in_place:
            if not hasattr(array_class, name + "_"):
                setattr(array_class, name + "_", _in_place(getattr(array_class, name), name, refuse_float_into_int))


def _numpy_names(fn):
    """fn, taking axis / keepdims for its dim / keepdim (fn itself when it
    has neither, or an axis of its own)."""
    try:
        params = _inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    if "axis" in params or not {"dim", "keepdim"} & set(params):
        return fn

    @_functools.wraps(fn)
    def spelled(*args, **kwargs):
        if "axis" in kwargs and "dim" not in kwargs:
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs and "keepdim" not in kwargs:
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)
    return spelled


def _in_place(out_of_place, name, refuse):
    def method(self, *args, **kwargs):
        result = out_of_place(self, *args, **kwargs)
        if refuse is not None:
            refuse(self, result)
        return self.copy_(result)

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = "%s(), in place: the result replaces this array's values and the array is returned." % name
    return method
