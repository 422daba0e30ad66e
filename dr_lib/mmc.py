"""Metric learning from must-link and cannot-link pairs (MMC; Xing, Ng, Jordan &
Russell, 2002).

[W] 式(10.39): find a positive semi-definite M that keeps must-link pairs close while
the cannot-link pairs stay apart,

    min_M  sum_{(i,j) in must-link} ||x_i - x_j||_M^2
    s.t.   sum_{(i,k) in cannot-link} ||x_i - x_k||_M >= 1,   M PSD,

a convex problem. It is solved here in the equivalent form of Xing et al.,
``max g(M) = sum_cannot ||x_i - x_k||_M`` subject to ``<A, M> <= 1`` and M PSD, where
``A = sum_must (x_i - x_j)(x_i - x_j)^T``. Whitening by ``A^(-1/2)`` turns the feasible
set into ``{N PSD, tr N <= 1}``, onto which the exact projection is an
eigen-decomposition followed by a projection of the eigenvalues (eigenvalue clipping,
then the trace cap). The solver is a projected gradient ascent with Barzilai-Borwein
steps and an Armijo search, and it stops on a certified bound on its distance to the
optimum (the Frank-Wolfe gap). Derived and checked against cvxpy in
book/09_metric_learning.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from dr_lib._validation import (
    check_array,
    check_class_labels,
    check_integer,
    check_n_components,
    check_pairs,
    check_positive,
)
from dr_lib.mahalanobis import _factor, _LearnedLinearMap

__all__ = ["MMC", "pairs_from_labels", "project_capped_simplex"]

#: Directions whose must-link scatter is below this fraction of the largest are
#: "unseen".
RANK_RTOL = 1e-10

#: Armijo constant: a step must gain this fraction of its first-order prediction.
ARMIJO = 1e-4
#: Most halvings of the step in one Armijo search (2^-60: below round-off).
MAX_HALVINGS = 60


# ------------------------------------------------------------------------------ pairs


def _pair_indices(codes, n_pairs, rng, same):
    """Must-link (``same=True``) or cannot-link pairs from class codes, as an (m, 2)
    array.

    In the order that groups classes, the partners of sample ``i`` with ``i < j`` form
    one contiguous run: the rest of its class (must-link) or every later class
    (cannot-link). A pair is a position in the concatenation of these runs, so pairs are
    drawn uniformly without replacement (or all are taken) without listing them first.
    """
    order = np.argsort(codes, kind="stable")
    class_end = np.cumsum(np.bincount(codes))[codes[order]]
    position = np.arange(len(codes))
    start = position + 1 if same else class_end
    stop = class_end if same else np.full(len(codes), len(codes))
    counts = stop - start
    total = int(counts.sum())
    if n_pairs is None or n_pairs >= total:
        picks = np.arange(total)
    else:
        picks = np.sort(rng.choice(total, size=n_pairs, replace=False))
    ends = np.cumsum(counts)
    first = np.searchsorted(ends, picks, side="right")
    second = start[first] + picks - (ends[first] - counts[first])
    return np.column_stack([order[first], order[second]])


def pairs_from_labels(y, n_pairs=None, *, random_state=None):
    """Must-link pairs (same label) and cannot-link pairs (different labels) from
    labels.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels, at least two classes.
    n_pairs : int, optional
        Draw this many pairs of each kind uniformly at random without replacement (all
        pairs of a kind when there are fewer). All pairs by default: about N^2/2 in all.
    random_state : int, RandomState or None

    Returns
    -------
    must_link, cannot_link : ndarray of shape (n, 2), dtype int64
        Rows ``(i, j)`` with ``i != j``.
    """
    _, codes = check_class_labels(y, len(np.asarray(y)))
    return _pairs_from_codes(codes, n_pairs, random_state)


def _pairs_from_codes(codes, n_pairs, random_state):
    """:func:`pairs_from_labels` for validated class codes."""
    if n_pairs is not None:
        n_pairs = check_integer(n_pairs, name="n_pairs")
    rng = check_random_state(random_state)
    must = _pair_indices(codes, n_pairs, rng, same=True)
    if len(must) == 0:
        raise ValueError(
            "y gives no must-link pair: every class has a single sample. Pass labels "
            "with at least one class of two or more samples."
        )
    return must, _pair_indices(codes, n_pairs, rng, same=False)


# ------------------------------------------------------------------ the feasible set


def project_capped_simplex(values):
    """Euclidean projection of a vector onto ``{v >= 0, sum(v) <= 1}``.

    Clipping at zero is the projection when the clipped vector sums to at most one;
    otherwise the projection lies on the simplex ``sum(v) = 1`` and is
    ``max(v - theta, 0)`` with the threshold ``theta`` found by sorting (Held, Wolfe and
    Crowder, 1974). Applied to eigenvalues it projects a symmetric matrix onto
    ``{N PSD, tr N <= 1}``.

    Parameters
    ----------
    values : array-like of shape (n,)

    Returns
    -------
    ndarray of shape (n,)
    """
    v = np.asarray(values, dtype=np.float64)
    clipped = np.maximum(v, 0.0)
    if clipped.sum() <= 1.0:
        return clipped
    descending = np.sort(v)[::-1]
    cumulative = np.cumsum(descending) - 1.0
    index = np.arange(1, len(v) + 1)
    rho = np.nonzero(descending - cumulative / index > 0)[0][-1]
    return np.maximum(v - cumulative[rho] / (rho + 1), 0.0)


class _FullMetric:
    """The whitened problem over symmetric matrices N:
    ``g(N) = sum_k sqrt(v_k^T N v_k)``."""

    def __init__(self, V):
        self.V = V
        r = V.shape[1]
        self.start = np.eye(r) / r

    def value_and_gradient(self, N):
        d = np.sqrt(np.maximum(np.einsum("kp,pq,kq->k", self.V, N, self.V), 0.0))
        weights = 0.5 / np.maximum(d, np.finfo(float).tiny)
        return d.sum(), (self.V.T * weights) @ self.V

    @staticmethod
    def project(S):
        values, vectors = np.linalg.eigh((S + S.T) / 2)
        return (vectors * project_capped_simplex(values)) @ vectors.T

    @staticmethod
    def linear_maximum(G):
        """``max <G, N>`` over the feasible set: the largest eigenvalue of G, or 0."""
        return max(float(np.linalg.eigvalsh(G)[-1]), 0.0)


class _DiagonalMetric:
    """The whitened problem over non-negative vectors n:
    ``g(n) = sum_k sqrt(V2_k . n)``."""

    def __init__(self, V):
        self.V2 = V**2
        r = V.shape[1]
        self.start = np.full(r, 1.0 / r)

    def value_and_gradient(self, n):
        d = np.sqrt(np.maximum(self.V2 @ n, 0.0))
        weights = 0.5 / np.maximum(d, np.finfo(float).tiny)
        return d.sum(), self.V2.T @ weights

    project = staticmethod(project_capped_simplex)

    @staticmethod
    def linear_maximum(G):
        return max(float(G.max()), 0.0)


def _maximise(problem, max_iter, tol):
    """Projected gradient ascent, Barzilai-Borwein steps, Armijo backtracking.

    Stops when the Frank-Wolfe gap ``max_{N'} <G, N' - N>`` over the feasible
    set, an upper bound on ``g* - g(N)`` for the concave g, is at most
    ``tol * g(N)``.

    Returns ``(N, g, n_iter, gap)`` with ``gap`` the final bound relative to g.
    """
    x = problem.start
    g, G = problem.value_and_gradient(x)
    step = 1.0 / max(np.linalg.norm(G), np.finfo(float).tiny)
    for n_iter in range(1, max_iter + 1):
        gap = problem.linear_maximum(G) - np.vdot(G, x)
        if gap <= tol * g:
            return x, g, n_iter - 1, gap / g
        for _ in range(MAX_HALVINGS):
            x_new = problem.project(x + step * G)
            g_new, G_new = problem.value_and_gradient(x_new)
            gain = np.vdot(G, x_new - x)  # >= 0: a property of the projection
            if g_new >= g + ARMIJO * gain:
                break
            step /= 2
        s, dG = x_new - x, G_new - G
        curvature = -np.vdot(s, dG)
        step = np.vdot(s, s) / curvature if curvature > 0 else 2 * step
        x, g, G = x_new, g_new, G_new
    gap = problem.linear_maximum(G) - np.vdot(G, x)
    return x, g, max_iter, gap / g


# ------------------------------------------------------------------------- whitening


def _unseen_error(kind):
    """The error for cannot-link differences along directions no must-link pair spans.

    Along such a direction ``v``, ``M = c v v^T`` gives every must-link pair distance 0
    and, for ``c`` large enough, meets the constraint of 式(10.39): the minimum is 0,
    and it is reached by metrics that the must-link pairs do not constrain at all
    (book/09_metric_learning, "Whitening and the exact projection").
    """
    return ValueError(
        f"The cannot-link pairs differ along {kind} that no must-link pair varies "
        f"along. A metric that weighs only such a direction gives every must-link pair "
        "distance 0 and, scaled up, meets the constraint of (10.39): the minimum is "
        "0, reached by metrics that ignore the must-link pairs, so the problem does "
        "not determine the metric. Add must_link pairs that vary along every "
        "direction, or reduce X to the directions they span first (e.g. PCA)."
    )


def _whiten_full(U_must, U_cannot):
    """``T`` (D x r) with ``T^T A T = I`` on the span of A, and ``V = U_cannot T``."""
    a, Q = np.linalg.eigh(U_must.T @ U_must)
    seen = a > RANK_RTOL * a[-1]
    outside = U_cannot @ Q[:, ~seen]
    if np.sum(outside**2) > RANK_RTOL * np.sum(U_cannot**2):
        raise _unseen_error("directions")
    T = Q[:, seen] / np.sqrt(a[seen])
    return T, U_cannot @ T


def _whiten_diagonal(U_must, U_cannot):
    """Per-feature scales ``t = a^(-1/2)`` on the features that must-link pairs vary
    in."""
    a = np.sum(U_must**2, axis=0)
    seen = a > RANK_RTOL * a.max()
    if np.sum(U_cannot[:, ~seen] ** 2) > RANK_RTOL * np.sum(U_cannot**2):
        raise _unseen_error("features")
    t = np.zeros_like(a)
    t[seen] = 1.0 / np.sqrt(a[seen])
    return t, U_cannot[:, seen] * t[seen], seen


def solve(X, must_link, cannot_link, *, diagonal=False, max_iter=1000, tol=1e-5):
    """The optimal metric of [W] 式(10.39) for given pairs.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    must_link, cannot_link : array-like of shape (n_pairs, 2)
        Index pairs (0-based rows of X), i != j.
    diagonal : bool, default=False
        Restrict M to diagonal matrices (a weight per feature, 式(10.33)).
    max_iter : int, default=1000
    tol : float, default=1e-5
        Stop when the certified relative gap of the sum of cannot-link distances is
        below.

    Returns
    -------
    M : ndarray of shape (n_features, n_features)
        Optimal metric, scaled so that the cannot-link distances sum to exactly 1.
    info : dict
        ``objective`` (the must-link sum of 式(10.39) at M), ``n_iter``, ``gap``
        (relative certified gap of the equivalent problem).
    """
    X = check_array(X, min_samples=2)
    must = check_pairs(must_link, len(X), name="must_link")
    cannot = check_pairs(cannot_link, len(X), name="cannot_link")
    max_iter = check_integer(max_iter, name="max_iter")
    tol = check_positive(tol, name="tol")
    return _solve(X, must, cannot, diagonal, max_iter, tol)


def _solve(X, must, cannot, diagonal, max_iter, tol):
    """:func:`solve` on validated arguments."""
    U_must = X[must[:, 0]] - X[must[:, 1]]
    U_cannot = X[cannot[:, 0]] - X[cannot[:, 1]]
    U_cannot = U_cannot[np.any(U_cannot != 0, axis=1)]  # identical points: always 0
    if len(U_cannot) == 0 or not np.any(U_must):
        which = "cannot_link" if len(U_cannot) == 0 else "must_link"
        raise ValueError(
            f"every pair in {which} joins two identical samples, so its distance is 0 "
            f"under every metric; pass pairs of distinct points."
        )
    if diagonal:
        t, V, seen = _whiten_diagonal(U_must, U_cannot)
        n, g, n_iter, gap = _maximise(_DiagonalMetric(V), max_iter, tol)
        weights = np.zeros(X.shape[1])
        weights[seen] = n * t[seen] ** 2
        M = np.diag(weights)
    else:
        T, V = _whiten_full(U_must, U_cannot)
        N, g, n_iter, gap = _maximise(_FullMetric(V), max_iter, tol)
        M = T @ N @ T.T
        M = (M + M.T) / 2
    M /= g**2  # the cannot-link distances now sum to 1 (their sum scales as sqrt(M))
    objective = float(np.einsum("kp,pq,kq->", U_must, M, U_must))
    return M, {"objective": objective, "n_iter": n_iter, "gap": float(gap)}


class MMC(_LearnedLinearMap):
    """Mahalanobis metric for clustering (Xing et al., 2002) from pairs or labels.

    Solves [W] 式(10.39) (see :func:`solve`) for must-link and cannot-link pairs, given
    directly or drawn from class labels (:func:`pairs_from_labels`).

    Parameters
    ----------
    n_components : int, optional
        Rows of ``components_``: the top eigen-directions of the metric (best rank-k
        approximation). By default the rank of the metric.
    diagonal : bool, default=False
        Learn a diagonal metric (one weight per feature).
    max_iter : int, default=1000
        Maximum number of projected-gradient iterations.
    tol : float, default=1e-5
        Relative certified optimality gap at which to stop.
    n_pairs : int or None, default=1000
        When fitting from labels, draw this many must-link and this many cannot-link
        pairs (None: all pairs).
    random_state : int, RandomState or None
        Seeds the pair sampling.

    Attributes
    ----------
    metric_ : ndarray of shape (n_features, n_features)
        The learned Mahalanobis matrix M; the cannot-link distances sum to 1 under it.
    components_ : ndarray of shape (n_components_, n_features)
        ``W^T`` with ``M = W W^T`` (or its best rank-``n_components`` approximation).
    objective_ : float
        The must-link sum of 式(10.39) at ``metric_``.
    gap_ : float
        Certified relative optimality gap of the sum of cannot-link distances (see
        book/09_metric_learning); below ``tol`` unless ``max_iter`` was reached.
    n_iter_ : int
    n_features_in_ : int
    """

    def __init__(
        self,
        n_components=None,
        *,
        diagonal=False,
        max_iter=1000,
        tol=1e-5,
        n_pairs=1000,
        random_state=None,
    ):
        self.n_components = n_components
        self.diagonal = diagonal
        self.max_iter = max_iter
        self.tol = tol
        self.n_pairs = n_pairs
        self.random_state = random_state

    def fit(self, X, y=None, *, must_link=None, cannot_link=None):
        """Learn the metric from labels ``y``, or from ``must_link`` and
        ``cannot_link``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Class labels; pairs are drawn with :func:`pairs_from_labels`.
        must_link, cannot_link : array-like of shape (n_pairs, 2), optional
            Index pairs given by hand (keywords; pass both, and no ``y``).

        Returns
        -------
        self
        """
        X = check_array(X, min_samples=2)
        must, cannot = self._pairs(X, y, must_link, cannot_link)
        max_iter = check_integer(self.max_iter, name="max_iter")
        tol = check_positive(self.tol, name="tol")
        n_components = (
            None
            if self.n_components is None
            else check_n_components(self.n_components, X.shape[1])
        )
        M, info = _solve(X, must, cannot, bool(self.diagonal), max_iter, tol)
        if info["gap"] > tol:
            warnings.warn(
                f"MMC stopped after max_iter={max_iter} iterations with a relative "
                f"optimality gap {info['gap']:.2g} > tol={tol:g}; increase max_iter.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.metric_ = M
        self.components_ = _factor(M, n_components)
        self.objective_ = info["objective"]
        self.gap_ = info["gap"]
        self.n_iter_ = info["n_iter"]
        self.n_features_in_ = X.shape[1]
        return self

    def _pairs(self, X, y, must_link, cannot_link):
        """The validated (must, cannot) pairs from labels or from the keywords."""
        given = must_link is not None or cannot_link is not None
        if y is not None and given:
            raise ValueError(
                "pass either y (pairs drawn from labels) or must_link and cannot_link, "
                "not both."
            )
        if y is None:
            if must_link is None or cannot_link is None:
                raise ValueError(
                    "MMC requires y to be passed, but the target y is None and no "
                    "must_link/cannot_link pairs were given; pass labels y, or both "
                    "must_link and cannot_link as index pairs, e.g. must_link=[[0, 1]]."
                )
            return (
                check_pairs(must_link, len(X), name="must_link"),
                check_pairs(cannot_link, len(X), name="cannot_link"),
            )
        _, codes = check_class_labels(y, len(X))
        return _pairs_from_codes(codes, self.n_pairs, self.random_state)
