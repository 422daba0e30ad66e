"""The one optimiser of the neighbour embeddings: gradient descent with momentum and
gains.

SNE, t-SNE (book/07_sne_tsne) and NeRV/ClassNeRV (book/08_nerv_classnerv) differ only in
the cost; each hands this module a function that returns the gradient of its cost at the
current map (and, when asked, the cost). The schedule is a list of :class:`Phase`
objects, e.g. t-SNE's 250 iterations of early exaggeration with momentum 0.5, then the
rest with momentum 0.8.

Each iteration, for every coordinate (van der Maaten & Hinton 2008; Jacobs 1988):

    gain  <- gain + 0.2   if the gradient's sign differs from the last step's direction
             gain * 0.8   otherwise,   then at least ``min_gain``
    step  <- momentum * step - learning_rate * gain * gradient
    z     <- z + step     (optionally: every point's step clipped to ``max_step``;
                           the map recentred on the origin)

A step and a gradient of opposite signs mean the last step went downhill and the slope
has not turned: the gain grows. Equal signs mean the last step overshot: the gain
shrinks.
"""

from dataclasses import dataclass, field

import numpy as np
from numba import njit

__all__ = ["Phase", "OptimizeResult", "momentum_phases", "gradient_descent"]


@dataclass(frozen=True)
class Phase:
    """A stretch of iterations with fixed settings.

    Attributes
    ----------
    n_iter : int
    learning_rate : float
        Multiplies the gradient the cost function returns.
    momentum : float
    exaggeration : float, default=1.0
        Passed on to the gradient function (t-SNE multiplies P by it).
    """

    n_iter: int
    learning_rate: float
    momentum: float
    exaggeration: float = 1.0


def momentum_phases(n_iter, learning_rate, switch, momentums=(0.5, 0.8)):
    """Two phases at one learning rate: ``momentums[0]`` for the first ``switch``
    iterations, then ``momentums[1]`` (SNE switches after 250, NeRV after 100).

    Returns
    -------
    list of Phase
    """
    first = min(n_iter, switch)
    return [
        Phase(first, learning_rate, momentums[0]),
        Phase(n_iter - first, learning_rate, momentums[1]),
    ]


@dataclass
class OptimizeResult:
    """What :func:`gradient_descent` returns.

    Attributes
    ----------
    embedding : ndarray of shape (n_points, n_components)
    cost : float
        The cost at the final map (computed once more there).
    n_iter : int
        Iterations run (fewer than scheduled if the gradient vanished in a phase).
    history : list of (int, float)
        (iteration, cost) every ``cost_every`` iterations.
    """

    embedding: np.ndarray
    cost: float
    n_iter: int
    history: list = field(default_factory=list)


def _progress(total, verbose, desc):
    """A text progress bar when ``verbose``, else None."""
    if not verbose:
        return None
    from tqdm import tqdm  # text mode: no widgets in the built pages

    return tqdm(total=total, desc=desc, unit="it")


def gradient_descent(
    Z,
    gradient,
    phases,
    *,
    min_gain=0.01,
    max_step=None,
    min_grad_norm=1e-7,
    min_radius=0.0,
    cost_every=50,
    recentre=True,
    verbose=False,
    desc="gradient descent",
):
    """Minimise a cost over the map ``Z`` by momentum gradient descent with adaptive
    gains.

    Parameters
    ----------
    Z : ndarray of shape (n_points, n_components)
        Starting map; not modified (the optimiser works on a copy).
    gradient : callable
        ``gradient(Z, exaggeration, compute_cost) -> (cost, grad)``; ``grad`` has the
        shape of ``Z``; ``cost`` is a float when ``compute_cost`` is True, else None.
    phases : sequence of Phase
        Run one after the other; the gains and the last step carry over.
    min_gain : float, default=0.01
    max_step : float, optional
        Largest length of one point's step (openTSNE clips at 5); None: no clipping.
    min_grad_norm : float, default=1e-7
        End a phase early when the gradient's Frobenius norm falls below this (as
        scikit-learn does) while the map is at least ``min_radius`` wide; the next phase
        still runs, since it changes the cost (an exaggerated phase that has settled is
        followed by the plain one).
    min_radius : float, default=0.0
        The smallest RMS distance of the points from their mean at which a small
        gradient counts as convergence: the width of the cost's kernel (one unit for SNE
        and t-SNE, one bandwidth for NeRV). All points at one place is a stationary
        point of every neighbour-embedding cost, and near it the gradient is linear in
        the map, so a map much smaller than its kernel has a tiny gradient whatever the
        cost still has to gain (a flat 10 x 10 grid shrank to 1e-7 under early
        exaggeration, and an absolute threshold stopped t-SNE there; book/07_sne_tsne).
        0: no such condition.
    cost_every : int, default=50
        Record the cost every this many iterations (and show it on the progress bar).
    recentre : bool, default=True
        Subtract the mean of the map after each step (the costs are translation
        invariant); False when only some points move (placing new points).
    verbose : bool, default=False
        Show a text progress bar.
    desc : str
        Label of the progress bar.

    Returns
    -------
    OptimizeResult
    """
    Z = np.array(Z, dtype=np.float64, order="C")
    step = np.zeros_like(Z)
    gains = np.ones_like(Z)
    history = []
    done = 0
    bar = _progress(sum(p.n_iter for p in phases), verbose, desc)
    try:
        for phase in phases:
            for _ in range(phase.n_iter):
                cost, grad = gradient(
                    Z, phase.exaggeration, (done + 1) % cost_every == 0
                )
                done += 1
                if cost is not None:
                    history.append((done, cost))
                _report(bar, cost)
                if (
                    _frobenius_norm(grad) < min_grad_norm
                    and _rms_radius(Z) >= min_radius
                ):
                    break  # this phase has converged; the next one starts
                _update(
                    Z,
                    np.ascontiguousarray(grad, dtype=np.float64),
                    step,
                    gains,
                    phase.momentum,
                    phase.learning_rate,
                    min_gain,
                    -1.0 if max_step is None else max_step,
                    recentre,
                )
    finally:
        if bar is not None:
            bar.close()
    cost, _ = gradient(Z, 1.0, True)
    return OptimizeResult(embedding=Z, cost=float(cost), n_iter=done, history=history)


@njit(cache=True)
def _frobenius_norm(grad):
    """sqrt(sum of squares) of the gradient, in one sequential pass.

    Not ``np.vdot``: OpenBLAS splits a long dot product over threads, which keep
    spinning after the call and take the cores from numba's threads in the next
    gradient. On 2 cores that made the FFT t-SNE fit of 20,000 points about 1.8 times
    slower (book/07_sne_tsne, "t-SNE in practice").
    """
    total = 0.0
    for i in range(grad.shape[0]):
        for k in range(grad.shape[1]):
            total += grad[i, k] * grad[i, k]
    return np.sqrt(total)


@njit(cache=True)
def _rms_radius(Z):
    """sqrt(mean_i ||z_i - mean||^2), the size of the map, in two sequential passes."""
    n, d = Z.shape
    total = 0.0
    for k in range(d):
        mean = 0.0
        for i in range(n):
            mean += Z[i, k]
        mean /= n
        for i in range(n):
            total += (Z[i, k] - mean) ** 2
    return np.sqrt(total / n)


def _report(bar, cost):
    """Advance the progress bar, showing the latest cost when there is one."""
    if bar is None:
        return
    if cost is not None:
        bar.set_postfix(cost=f"{cost:.4f}")
    bar.update()


@njit(cache=True)
def _update(
    Z, grad, step, gains, momentum, learning_rate, min_gain, max_step, recentre
):
    """One step of the momentum rule with gains, in place on Z, step and gains.

    ``max_step <= 0`` means no clipping. Returns nothing; a single pass over the map.
    """
    n, d = Z.shape
    mean = np.zeros(d)
    for i in range(n):
        length2 = 0.0
        for k in range(d):
            if np.sign(grad[i, k]) == np.sign(step[i, k]):
                gains[i, k] *= 0.8  # the last step overshot: slow down
            else:
                gains[i, k] += 0.2  # still going downhill: speed up
            gains[i, k] = max(gains[i, k], min_gain)
            step[i, k] = (
                momentum * step[i, k] - learning_rate * gains[i, k] * grad[i, k]
            )
            length2 += step[i, k] * step[i, k]
        scale = 1.0
        if max_step > 0 and length2 > max_step * max_step:
            scale = max_step / np.sqrt(length2)
        for k in range(d):
            step[i, k] *= scale
            Z[i, k] += step[i, k]
            mean[k] += Z[i, k]
    if recentre:
        for i in range(n):
            for k in range(d):
                Z[i, k] -= mean[k] / n
