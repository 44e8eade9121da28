"""Gluon's losses: L2Loss gives weight/2 * (label - pred)^2 per sample. As in
MXNet, the second argument is viewed in the first's shape, so the chapter's
loss(y, net(X)) works, and the gradient flows through either argument."""

from .. import _core

L2Loss = _core.gluon.L2Loss

__all__ = ["L2Loss"]
