"""The keyword forms PyTorch gives its functions across the board, added
once to every function of the edition's namespaces (torch, torch.linalg)
rather than to each:

- ``out=``: the result written into the given tensor (or tuple of tensors,
  for the functions that return several: torch.max(x, 0, out=(v, i))), as
  PyTorch writes it: cast to out's type where PyTorch allows the cast
  (never a floating result into an integer tensor, nor a number into a
  bool one), out resized (with a warning if it had elements) when its shape
  differs, refused while autograd records an argument that requires grad;
  out is returned. Here the result is computed, then copied into out: two
  ops on the timeline where PyTorch's kernel writes out directly.
- the factories' ``requires_grad=``, ``layout=torch.strided`` and
  ``pin_memory=`` (a no-op on the CPU): torch.eye(4, 5, requires_grad=True)
  is a leaf that requires grad.
- PyTorch's name for the backward of the functions (and Tensor methods)
  that are made here of several engine ops, or of one engine op PyTorch
  names otherwise (BACKWARD_NAMES): F.mse_loss(x, t).grad_fn is
  <MseLossBackward0>, x.unsqueeze(0).grad_fn <UnsqueezeBackward0>, as
  printed tensors and grad_fn.name() show them.

Threading: install() while the package is imported; the wrappers on any
thread that may call the function they wrap.
"""

import functools
import warnings

# PyTorch's factory functions: they take requires_grad= (and layout=, pin_memory=).
FACTORIES = frozenset({
    "ones", "zeros", "empty", "full", "eye", "arange", "range", "linspace", "logspace", "rand", "randn", "randint",
    "randperm", "tensor", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
    "randint_like", "empty_strided", "scalar_tensor", "normal",
})
_TYPE_NAMES = {"float32": "Float", "float64": "Double", "int32": "Int", "int64": "Long", "uint8": "Byte",
               "bool": "Bool"}


def _first(args, kwargs, name, at):
    return kwargs[name] if name in kwargs else (args[at] if len(args) > at else None)


def _linear_name(args, kwargs):
    x, bias = _first(args, kwargs, "input", 0), _first(args, kwargs, "bias", 2)
    if x is None or x.dim() < 2:
        return None
    if x.dim() == 2:
        return "MmBackward0" if bias is None else "AddmmBackward0"
    return None if bias is None else "ViewBackward0"


def _nll_name(args, kwargs):
    x = _first(args, kwargs, "input", 0)
    return "NllLossBackward0" if x is not None and x.dim() <= 2 else None


def _pow_name(args, kwargs):
    exponent = _first(args, kwargs, "exponent", 1)
    return "PowBackward0" if isinstance(exponent, (int, float)) else None


def _clamp_name(args, kwargs):
    low, high = _first(args, kwargs, "min", 1), _first(args, kwargs, "max", 2)
    scalars = all(v is None or isinstance(v, (int, float)) for v in (low, high))
    return "ClampBackward1" if scalars else None


def _squeeze_name(args, kwargs):
    return "SqueezeBackward0" if _first(args, kwargs, "dim", 1) is None else "SqueezeBackward1"


def _reshape_name(args, kwargs):
    x = _first(args, kwargs, "input", 0)
    return "ReshapeAliasBackward0" if x is not None and x.is_contiguous() else "UnsafeViewBackward0"


def _contiguous_name(args, kwargs):
    return None if args[0].is_contiguous() else "CloneBackward0"


# Function or method name -> PyTorch 1.13's name of its backward (or a
# function of the call's arguments that gives it, None to leave the engine op's).
BACKWARD_NAMES = {
    "linear": _linear_name, "mse_loss": "MseLossBackward0", "binary_cross_entropy": "BinaryCrossEntropyBackward0",
    "binary_cross_entropy_with_logits": "BinaryCrossEntropyWithLogitsBackward0", "cross_entropy": _nll_name,
    "nll_loss": _nll_name, "smooth_l1_loss": "SmoothL1LossBackward0", "huber_loss": "HuberLossBackward0",
    "softmax": "SoftmaxBackward0", "log_softmax": "LogSoftmaxBackward0", "gelu": "GeluBackward0",
    "softplus": "SoftplusBackward0", "leaky_relu": "LeakyReluBackward0", "elu": "EluBackward0",
    "layer_norm": "NativeLayerNormBackward0", "batch_norm": "NativeBatchNormBackward0",
    "conv1d": "ConvolutionBackward0", "conv2d": "ConvolutionBackward0", "conv3d": "ConvolutionBackward0",
    "conv_transpose1d": "ConvolutionBackward0", "conv_transpose2d": "ConvolutionBackward0",
    "max_pool2d": "MaxPool2DWithIndicesBackward0", "avg_pool2d": "AvgPool2DBackward0",
    "embedding": "EmbeddingBackward0", "stack": "StackBackward0", "unsqueeze": "UnsqueezeBackward0",
    "transpose": "TransposeBackward0", "swapaxes": "TransposeBackward0", "permute": "PermuteBackward0",
    "squeeze": _squeeze_name, "split": "SplitBackward0", "chunk": "SplitBackward0", "repeat": "RepeatBackward0",
    "std": "StdBackward0", "var": "VarBackward0", "dot": "DotBackward0", "mv": "MvBackward0",
    "clamp": _clamp_name, "clip": _clamp_name, "pow": _pow_name, "__pow__": _pow_name, "reshape": _reshape_name,
    "flatten": _reshape_name, "contiguous": _contiguous_name,
}


def _name_result(result, name, args, kwargs, Tensor):
    spec = BACKWARD_NAMES.get(name)
    if spec is None:
        return
    parts = result if isinstance(result, (tuple, list)) else (result,)
    if not any(isinstance(p, Tensor) and p.requires_grad for p in parts):
        return
    backward = spec if isinstance(spec, str) else spec(args, kwargs)
    if backward is None:
        return
    for p in parts:
        if isinstance(p, Tensor):
            p._name_grad_fn(backward)


def name_backwards(namespace, names, Tensor, method=False):
    """Gives the functions (or, with method, the Tensor methods) of `names`
    in BACKWARD_NAMES PyTorch's names for their backward."""
    for name in names:
        fn = getattr(Tensor, name, None) if method else namespace.get(name)
        if fn is None or name not in BACKWARD_NAMES or getattr(fn, "_asyncscope_named", False):
            continue

        def named(*args, _fn=fn, _name=name, **kwargs):
            result = _fn(*args, **kwargs)
            _name_result(result, _name, args, kwargs, Tensor)
            return result

        functools.update_wrapper(named, fn)
        named._asyncscope_named = True
        if method:
            setattr(Tensor, name, named)
        else:
            namespace[name] = named


def _type_name(t):
    return _TYPE_NAMES.get(t.dtype._asyncscope_dtype, t.dtype._asyncscope_dtype)


def install(namespace, names, torch):
    """Wraps each function `names` lists in `namespace` (a module's dict)
    with the forms above; `torch` is the edition's package (its Tensor,
    is_grad_enabled and strided layout)."""
    for name in names:
        fn = namespace.get(name)
        if fn is None or isinstance(fn, type) or not callable(fn) or getattr(fn, "_asyncscope_variants", False):
            continue
        if not _returns_tensors(name):
            continue
        namespace[name] = _wrapped(fn, name, torch, name in FACTORIES)


# Functions of the namespaces that never return tensors: left as they are.
_NOT_OPS = frozenset({
    "manual_seed", "seed", "initial_seed", "is_tensor", "is_storage", "is_grad_enabled", "set_grad_enabled",
    "no_grad", "enable_grad", "save", "load", "numel", "is_floating_point", "is_nonzero", "get_default_dtype",
    "set_default_dtype", "set_printoptions", "device", "Size", "dtype", "from_numpy", "as_tensor", "is_complex",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "compile", "get_rng_state",
    "set_rng_state", "typename", "result_type", "can_cast", "promote_types", "broadcast_shapes",
})


def _returns_tensors(name):
    return name not in _NOT_OPS and not name.startswith("_")


def _wrapped(fn, name, torch, factory):
    Tensor = torch.Tensor
    named = name in BACKWARD_NAMES

    def write_one(out, result):
        if not isinstance(out, Tensor):
            raise TypeError("%s(): argument 'out' must be Tensor, not %s" % (name, type(out).__name__))
        if not isinstance(result, Tensor):
            raise TypeError("%s() got an unexpected keyword argument 'out'" % name)
        if torch.is_grad_enabled() and (out.requires_grad or result.requires_grad):
            raise RuntimeError("%s(): functions with out=... arguments don't support automatic differentiation, "
                               "but one of the arguments requires grad." % name)
        into_bool = out.dtype == torch.bool and result.dtype != torch.bool
        if into_bool or (result.is_floating_point() and not out.is_floating_point()):
            raise RuntimeError("result type %s can't be cast to the desired output type %s"
                               % (_type_name(result), _type_name(out)))
        if tuple(out.shape) != tuple(result.shape):
            if out.numel() != 0:
                warnings.warn("%s(): out had shape %s, the result has shape %s: out was resized (give out= a "
                              "tensor of the result's shape, or one with no elements)"
                              % (name, list(out.shape), list(result.shape)), UserWarning, stacklevel=3)
            out._rebind(result if result.dtype == out.dtype else result.to(out.dtype))
        else:
            out.copy_(result)

    def write(out, result):
        if isinstance(out, (tuple, list)) and isinstance(result, tuple):
            if len(result) != len(out):
                raise TypeError("%s(): out= takes %d tensors here, not %d" % (name, len(result), len(out)))
            for o, r in zip(out, result):
                write_one(o, r)
            return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
        write_one(out, result)
        return out

    if factory:
        @functools.wraps(fn)
        def variant(*args, out=None, requires_grad=False, layout=None, pin_memory=False, **kwargs):
            if layout is not None and layout is not torch.strided:
                raise RuntimeError("%s(): layout=%r: only torch.strided tensors are in this edition" % (name, layout))
            result = fn(*args, **kwargs)
            _name_result(result, name, args, kwargs, Tensor)
            if out is not None:
                result = write(out, result)
            if requires_grad:
                result.requires_grad_(True)
            return result
    else:
        @functools.wraps(fn)
        def variant(*args, out=None, **kwargs):
            result = fn(*args, **kwargs)
            if named:
                _name_result(result, name, args, kwargs, Tensor)
            return result if out is None else write(out, result)

    variant._asyncscope_variants = True
    return variant
