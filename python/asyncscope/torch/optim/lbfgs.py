"""torch.optim.LBFGS of the PyTorch edition: limited-memory BFGS over all
parameters as one flat vector, with PyTorch's settings (lr, max_iter,
max_eval, tolerance_grad, tolerance_change, history_size) and step(closure)
that re-evaluates the closure once per iteration, without a line search
(line_search_fn=None: a fixed step lr, the first one scaled down by the
gradient's size) or with "strong_wolfe" (a bracketing search on the Wolfe
conditions, by cubic interpolation).

Each iteration's vector arithmetic is engine ops; its scalars (dot
products, norms) are read with item(), so each iteration waits for the
closure's work: L-BFGS decides its next step from them.

Threading: as any optimizer, the thread that runs the training loop.
"""

from ... import torch as _torch
from . import Optimizer


def _cubic_minimum(x1, f1, g1, x2, f2, g2, low, high):
    """The minimiser in [low, high] of the cubic through (x1, f1, g1) and
    (x2, f2, g2) (values and slopes), or the interval's middle when it has none."""
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    square = d1 * d1 - g1 * g2
    if square < 0:
        return (low + high) / 2
    d2 = square ** 0.5 * (1 if x2 >= x1 else -1)
    x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    return min(max(x, low), high)


class LBFGS(Optimizer):
    """L-BFGS (Nocedal and Wright, Numerical Optimization, algorithm 7.4)."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one vector ------------------------------------------
    def _flat_grad(self):
        parts = [p.grad.reshape(-1) if p.grad is not None else _torch.zeros(p.numel(), dtype=p.dtype)
                 for p in self._params]
        return _torch.cat(parts)

    def _move(self, step, direction):
        """Each parameter += step * its part of direction."""
        offset = 0
        with _torch.no_grad():
            for p in self._params:
                n = p.numel()
                p.add_(direction[offset:offset + n].reshape(p.shape), alpha=step)
                offset += n

    def _values(self):
        return [p.detach().clone() for p in self._params]

    def _restore(self, values):
        with _torch.no_grad():
            for p, v in zip(self._params, values):
                p.copy_(v)

    def _evaluate(self, closure, start, step, direction):
        """The loss and flat gradient at start + step * direction (the parameters are put back)."""
        self._move(step, direction)
        with _torch.enable_grad():
            loss = float(closure())
        grad = self._flat_grad()
        self._restore(start)
        return loss, grad

    # -- the search along a direction ------------------------------------------
    def _strong_wolfe(self, closure, loss, grad, step, direction, gtd, c1=1e-4, c2=0.9, tolerance=1e-9,
                      max_evals=25):
        start = self._values()
        d_norm = float(direction.abs().max())
        f_new, g_new = self._evaluate(closure, start, step, direction)
        evals = 1
        gtd_new = float(g_new.dot(direction))
        t_prev, f_prev, g_prev, gtd_prev = 0.0, loss, grad, gtd
        done = False
        iterations = 0
        # Bracket a step that satisfies the conditions.
        while iterations < max_evals:
            if f_new > loss + c1 * step * gtd or (iterations > 1 and f_new >= f_prev):
                bracket = [t_prev, step]
                values, grads, slopes = [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
                break
            if abs(gtd_new) <= -c2 * gtd:
                bracket, values, grads = [step], [f_new], [g_new]
                done = True
                break
            if gtd_new >= 0:
                bracket = [t_prev, step]
                values, grads, slopes = [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
                break
            low, high = step + 0.01 * (step - t_prev), step * 10
            t_prev, f_prev, g_prev, gtd_prev = step, f_new, g_new, gtd_new
            step = _cubic_minimum(t_prev, f_prev, gtd_prev, step, f_new, gtd_new, low, high) \
                if iterations else min(max(step * 2, low), high)
            f_new, g_new = self._evaluate(closure, start, step, direction)
            evals += 1
            gtd_new = float(g_new.dot(direction))
            iterations += 1
        else:
            bracket, values, grads, slopes = [0.0, step], [loss, f_new], [grad, g_new], [gtd, gtd_new]
        # Zoom into the bracket.
        while not done and iterations < max_evals:
            if abs(bracket[1] - bracket[0]) * d_norm < tolerance:
                break
            lo, hi = (0, 1) if values[0] <= values[-1] else (1, 0)
            a, b = min(bracket), max(bracket)
            step = _cubic_minimum(bracket[0], values[0], slopes[0], bracket[1], values[1], slopes[1], a, b)
            if min(b - step, step - a) < 0.1 * (b - a):  # too near an end: move it inward
                step = b - 0.1 * (b - a) if abs(step - b) < abs(step - a) else a + 0.1 * (b - a)
            f_new, g_new = self._evaluate(closure, start, step, direction)
            evals += 1
            gtd_new = float(g_new.dot(direction))
            iterations += 1
            if f_new > loss + c1 * step * gtd or f_new >= values[lo]:
                bracket[hi], values[hi], grads[hi], slopes[hi] = step, f_new, g_new, gtd_new
            else:
                if abs(gtd_new) <= -c2 * gtd:
                    done = True
                elif gtd_new * (bracket[hi] - bracket[lo]) >= 0:
                    bracket[hi], values[hi], grads[hi], slopes[hi] = bracket[lo], values[lo], grads[lo], slopes[lo]
                bracket[lo], values[lo], grads[lo], slopes[lo] = step, f_new, g_new, gtd_new
        best = 0 if len(bracket) == 1 or values[0] <= values[-1] else 1
        step = bracket[best]
        self._move(step, direction)
        return values[best], grads[best], step, evals

    # -- one step --------------------------------------------------------------
    def step(self, closure):
        """Runs up to max_iter iterations (max_eval closure calls) and returns
        the loss of the first call, as PyTorch's LBFGS does."""
        if closure is None:
            raise RuntimeError("LBFGS.step() needs a closure that re-evaluates the model and returns the loss")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state.setdefault(self._params[0], {"func_evals": 0, "n_iter": 0})

        with _torch.enable_grad():
            first_loss = closure()
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if float(grad.abs().max()) <= tolerance_grad:
            return first_loss

        direction, step = state.get("d"), state.get("t")
        steps, changes, rho = state.get("old_stps", []), state.get("old_dirs", []), state.get("ro", [])
        scale = state.get("H_diag", 1.0)
        previous_grad, previous_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        iteration = 0
        while iteration < max_iter:
            iteration += 1
            state["n_iter"] += 1
            with _torch.no_grad():
                if state["n_iter"] == 1:
                    direction = -grad
                    steps, changes, rho, scale = [], [], [], 1.0
                else:
                    # The newest curvature pair, kept when it is positive.
                    change = grad - previous_grad
                    taken = direction * step
                    curvature = float(change.dot(taken))
                    if curvature > 1e-10:
                        if len(steps) == group["history_size"]:
                            steps.pop(0), changes.pop(0), rho.pop(0)
                        steps.append(taken), changes.append(change), rho.append(1.0 / curvature)
                        scale = curvature / float(change.dot(change))
                    # The two-loop recursion: the inverse Hessian estimate times -grad.
                    q = -grad
                    alphas = [0.0] * len(steps)
                    for i in range(len(steps) - 1, -1, -1):
                        alphas[i] = float(steps[i].dot(q)) * rho[i]
                        q = q - alphas[i] * changes[i]
                    r = q * scale
                    for i in range(len(steps)):
                        beta = float(changes[i].dot(r)) * rho[i]
                        r = r + (alphas[i] - beta) * steps[i]
                    direction = r
                previous_grad, previous_loss = grad.clone(), loss
                step = min(1.0, 1.0 / float(grad.abs().sum())) * lr if state["n_iter"] == 1 else lr
                slope = float(grad.dot(direction))
            if slope > -tolerance_change:
                break
            searched = 0
            if group["line_search_fn"] == "strong_wolfe":
                loss, grad, step, searched = self._strong_wolfe(closure, loss, grad, step, direction, slope)
            else:
                self._move(step, direction)
                if iteration != max_iter:
                    with _torch.enable_grad():
                        loss = float(closure())
                    grad = self._flat_grad()
                    searched = 1
            evals += searched
            state["func_evals"] += searched
            if iteration == max_iter or evals >= max_eval:
                break
            if float(grad.abs().max()) <= tolerance_grad:
                break
            if float((direction * step).abs().max()) <= tolerance_change:
                break
            if abs(loss - previous_loss) < tolerance_change:
                break
        state.update(d=direction, t=step, old_stps=steps, old_dirs=changes, ro=rho, H_diag=scale,
                     prev_flat_grad=previous_grad, prev_loss=previous_loss)
        return first_loss
