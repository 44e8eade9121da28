"""torch.nn.utils of the PyTorch edition: gradient clipping
(clip_grad_norm_, clip_grad_value_) and a model's parameters as one vector
(parameters_to_vector, vector_to_parameters), as PyTorch 1.13 has them.
The clipping is a few ops per parameter, pushed under no_grad; the total
norm it returns is a 0-d tensor (reading it is a sync point).

Threading: the thread that runs the training loop.
"""

from ... import torch as _torch


def _with_grads(parameters):
    if isinstance(parameters, _torch.Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients together so that their norm (of all of them as
    one vector) is at most max_norm; returns that norm before scaling."""
    params = _with_grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not params:
        return _torch.tensor(0.0)
    with _torch.no_grad():
        if norm_type == float("inf"):
            norms = [p.grad.abs().max() for p in params]
            total = norms[0] if len(norms) == 1 else _torch.stack(norms).max()
        else:
            total = _torch.stack([_torch.linalg.vector_norm(p.grad, norm_type) for p in params])
            total = _torch.linalg.vector_norm(total, norm_type)
        if error_if_nonfinite and not bool(_torch.isfinite(total)):
            raise RuntimeError("The total norm of order %s for gradients from `parameters` is non-finite, so it "
                               "cannot be clipped. To disable this error and scale the gradients by the non-finite "
                               "norm anyway, set `error_if_nonfinite=False`" % norm_type)
        factor = _torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for p in params:
            p.grad.mul_(factor)
    return total


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient's elements to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with _torch.no_grad():
        for p in _with_grads(parameters):
            p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """The parameters' values, flattened and joined into one vector."""
    return _torch.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Writes the parts of vec back into the parameters, in their order."""
    if not isinstance(vec, _torch.Tensor):
        raise TypeError("expected torch.Tensor, but got: %s" % type(vec).__name__)
    offset = 0
    with _torch.no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].reshape(p.shape))
            offset += n


__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]
