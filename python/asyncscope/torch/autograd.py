"""torch.autograd of the PyTorch edition: grad() and backward() as PyTorch
has them, on the engine's autograd (the gradient ops are pushed and return
at once, like every op)."""

from .. import _core


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """The gradients of outputs (summed, each weighted by its grad_outputs)
    with respect to inputs, as a tuple; no tensor's .grad changes. The graph
    is freed unless retain_graph. None for an input the outputs do not use
    when allow_unused, an error otherwise."""
    if create_graph:
        raise RuntimeError("grad: create_graph=True (gradients of gradients) is not supported")
    single = not isinstance(inputs, (list, tuple))
    try:
        result = _core.autograd.grad(outputs, inputs, grad_outputs, bool(retain_graph), allow_unused)
    except (ValueError, TypeError) as e:
        raise RuntimeError(str(e)) from None
    return tuple(result) if not single else (result[0],)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    """Pushes the gradient ops of tensors into their leaves' .grad (accumulating)."""
    if create_graph:
        raise RuntimeError("backward: create_graph=True is not supported")
    _core.autograd.backward(tensors, grad_tensors, bool(retain_graph))
