"""NeRV and ClassNeRV: neighbour embeddings that trade missed against false neighbours.

NeRV (Venna, Peltonen, Nybo, Aidos & Kaski 2010; [S]) compares the Gaussian neighbourhood
P_i of every data point, p_{j|i} proportional to exp(-beta_i ||x_i - x_j||^2) with beta_i
set by the perplexity (``dr_lib.sne``), with the neighbourhood Q_i of its map point,
q_{j|i} proportional to exp(-beta_i ||z_i - z_j||^2) with the *same* beta_i, and minimises

    J = tau sum_i KL(P_i || Q_i) + (1 - tau) sum_i KL(Q_i || P_i):

the first term punishes missed neighbours (recall), the second false ones (precision).
ClassNeRV (Colange, Peltonen, Aupetit, Dutta & Lespinats 2020; [S]) splits every
neighbourhood into the pairs of the same class and those of different classes and weighs
them with tau_in and tau_out, each part with the generalised (unnormalised) KL divergence
d(p, q) = p log(p / q) - p + q. Writing tau_ij for tau_in or tau_out,

    J = sum_i sum_{j != i} tau_ij d(p_{j|i}, q_{j|i}) + (1 - tau_ij) d(q_{j|i}, p_{j|i}),

and with tau_in = tau_out = tau it is NeRV exactly (the -p + q terms sum to zero). Both
estimators share one cost-and-gradient kernel and the momentum-and-gains gradient descent
of ``dr_lib._optimize`` (as SNE and t-SNE do). Derived and checked in book/08_nerv_classnerv.

For large N, ``method="knn"`` calibrates beta_i and P on the nearest neighbours (a
cheaper model) and sums the map side over candidate pairs only (a truncation whose error
is bounded by exp(-MAP_CUTOFF) per dropped pair); see :func:`_knn_neighbourhoods`.

Rows of ``X`` and ``Z`` are samples (the book's formulas write them as columns).
"""

import numpy as np
from numba import njit, prange
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state

from dr_lib import sne
from dr_lib._optimize import Phase, gradient_descent
from dr_lib._validation import (
    check_array,
    check_class_labels,
    check_class_weights,
    check_exact_fits,
    check_in,
    check_init,
    check_integer,
    check_map_rows,
    check_nerv_tau,
    check_perplexity,
    check_positive,
)
from dr_lib.pca import PCA

__all__ = [
    "BYTES_PER_PAIR",
    "class_weights",
    "neighbourhoods",
    "stress_gradient",
    "NeRV",
    "ClassNeRV",
]

#: Memory of the fit per pair of samples, in bytes: P, log P, the pair weights M and
#: W = M + M^T, four N x N float64 arrays (log P is built in the squared distances).
BYTES_PER_PAIR = 32
#: Step size of ``learning_rate="auto"``, in units of 1 / median(beta_i): larger steps
#: (1, as SNE takes with unit bandwidths) diverged on the digits (book/08_nerv_classnerv).
AUTO_LEARNING_RATE = 0.1
#: Largest step of one point in one iteration, in units of 1 / sqrt(median(beta_i))
#: (t-SNE's MAX_STEP in a map of unit bandwidth).
MAX_STEP = 5.0
#: Up to this many samples, ``method="auto"`` is the exact O(N^2) evaluation: from a PCA
#: start the knn path keeps nearly every pair for many iterations (the map is compressed),
#: and at N = 2,000 the exact fit was the faster one (benchmarks/bench_classnerv.py).
EXACT_MAX_SAMPLES = 4000
#: ``method="knn"`` drops the map pairs with beta_i ||z_i - z_j||^2 more than this above
#: the row's nearest data neighbour: each dropped q_{j|i} < exp(-MAP_CUTOFF) ~ 2e-9.
MAP_CUTOFF = 20.0
#: Momentum of the first ``MOMENTUM_SWITCH`` iterations, and of the rest (as SNE).
MOMENTUMS = (0.5, 0.8)
MOMENTUM_SWITCH = 100
#: The evaluations of the stress: all pairs, the kNN model, or by size.
METHODS = ("auto", "exact", "knn")


def class_weights(tau_star, epsilon):
    """(tau_in, tau_out) = (tau_star + epsilon, tau_star - epsilon), ClassNeRV's weights.

    The inverse of tau_star = (tau_in + tau_out) / 2, epsilon = (tau_in - tau_out) / 2
    ([S]; Colange et al. 2020). Admissible: 0 <= tau_star <= 1 and
    0 <= epsilon <= min(tau_star, 1 - tau_star), so that both weights lie in [0, 1] and
    the within-class pairs weigh missed neighbours at least as much as the others do.
    """
    tau_star, epsilon = check_class_weights(tau_star, epsilon)
    return tau_star + epsilon, tau_star - epsilon


# ------------------------------------------------------------------ the neighbourhoods


def neighbourhoods(X, perplexity=32.0):
    """The data neighbourhoods of NeRV: p_{j|i}, log p_{j|i} and the precisions beta_i.

    p_{j|i} = exp(-beta_i ||x_i - x_j||^2) / sum_{k != i} exp(-beta_i ||x_i - x_k||^2), the
    p_{j|i} of SNE ([T] (10-30), ``dr_lib.sne.conditional_probabilities``) with every
    row of perplexity ``perplexity``. The logarithm is computed from the distances
    (log-sum-exp), not from P: far pairs have p_{j|i} that underflow to 0 while
    log p_{j|i} stays finite, and KL(Q_i || P_i) needs it.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    perplexity : float, default=32.0

    Returns
    -------
    P : ndarray of shape (n_samples, n_samples)
        Rows sum to one; zero diagonal.
    log_P : ndarray of shape (n_samples, n_samples)
        -inf on the diagonal.
    beta : ndarray of shape (n_samples,)
    """
    X = check_array(X, min_samples=4)
    perplexity = check_perplexity(perplexity, len(X))
    return _neighbourhoods(X, perplexity)


def _neighbourhoods(X, perplexity):
    """:func:`neighbourhoods` of validated input."""
    D2 = sne.squared_distances(X)
    P, beta, _ = sne.calibrate_precisions(D2, perplexity, diagonal_is_self=True)
    np.fill_diagonal(D2, np.inf)
    D2 -= D2.min(axis=1, keepdims=True)
    D2 *= -beta[:, None]  # now the exponents, at most 0
    D2 -= np.log(np.exp(D2).sum(axis=1, keepdims=True))
    return P, D2, beta


# ------------------------------------------------------------------ stress and gradient


@njit(cache=True, parallel=True)
def _pair_weights(Z, beta, P, log_P, codes, tau_in, tau_out, M, row_cost):
    """Fill M[i, j] = beta_i dJ_i/ds_ij (s_ij = beta_i ||z_i - z_j||^2) and the row costs.

    For the softmax q_{j|i} = exp(-s_ij) / sum_k exp(-s_ik) and a row cost J_i(q),
    dJ_i/ds_ij = -(c_ij - q_{j|i} sum_k c_ik) with c_ij = q_{j|i} dJ_i/dq_{j|i}
    = tau_ij (q - p) + (1 - tau_ij) q log(q / p) (book/08_nerv_classnerv). Three passes
    over a row: the exponents, then q, c and the cost, then M; one exp per pair.
    """
    n, d = Z.shape
    for i in prange(n):
        q_row = np.empty(n)
        s_min = np.inf
        for j in range(n):
            s = 0.0
            for k in range(d):
                diff = Z[i, k] - Z[j, k]
                s += diff * diff
            M[i, j] = beta[i] * s
            if j != i and M[i, j] < s_min:
                s_min = M[i, j]
        total = 0.0
        for j in range(n):
            q_row[j] = 0.0 if j == i else np.exp(s_min - M[i, j])
            total += q_row[j]
        log_norm = np.log(total) - s_min
        c_sum = 0.0
        cost = 0.0
        for j in range(n):
            if j == i:
                M[i, j] = 0.0
                continue
            q = q_row[j] / total
            q_row[j] = q
            p = P[i, j]
            log_ratio = -M[i, j] - log_norm - log_P[i, j]
            tau = tau_in if codes[i] == codes[j] else tau_out
            M[i, j] = tau * (q - p) + (1.0 - tau) * q * log_ratio
            c_sum += M[i, j]
            cost += tau * (q - p - p * log_ratio) + (1.0 - tau) * (
                q * log_ratio - q + p
            )
        for j in range(n):
            M[i, j] = -beta[i] * (M[i, j] - q_row[j] * c_sum)
        row_cost[i] = cost


@njit(cache=True, parallel=True)
def _pair_forces(W, Z, grad):
    """grad_i = 2 sum_j W_ij (z_i - z_j) with W = M + M^T, row by row in parallel."""
    n, d = Z.shape
    for i in prange(n):
        for k in range(d):
            grad[i, k] = 0.0
        for j in range(n):
            w = W[i, j]
            for k in range(d):
                grad[i, k] += w * (Z[i, k] - Z[j, k])
        for k in range(d):
            grad[i, k] *= 2.0


def _evaluator(P, log_P, beta, codes, tau_in, tau_out):
    """``evaluate(Z, exaggeration, compute_cost) -> (cost, gradient)`` for the optimiser.

    ``exaggeration`` is accepted for the optimiser's interface and not used. The pair
    weights M and their symmetrisation W = M + M^T live in two N x N buffers reused by
    every call (numpy transposes by blocks; reading M's columns in the loop would not).
    """
    n = len(P)
    M = np.empty((n, n))
    W = np.empty((n, n))
    row_cost = np.empty(n)

    def evaluate(Z, _exaggeration, compute_cost):
        _pair_weights(Z, beta, P, log_P, codes, tau_in, tau_out, M, row_cost)
        np.add(M, M.T, out=W)
        grad = np.empty_like(Z)
        _pair_forces(W, Z, grad)
        return (float(row_cost.sum()) if compute_cost else None), grad

    return evaluate


# ------------------------------------------------------------------ the fast path


def _knn_neighbourhoods(X, perplexity):
    """The neighbourhoods of ``method="knn"``: kNN rows of P, and the log-tail everywhere.

    beta_i is calibrated on the k = floor(3 perplexity) nearest neighbours
    (``dr_lib.sne``'s kNN path), and p_{j|i} is that row: zero beyond the k neighbours,
    so missed neighbours are counted among them only (as fast t-SNE does). A false
    neighbour beyond them needs log p_{j|i} finite; it is the same Gaussian's tail,
    log p~_{j|i} = -beta_i (||x_i - x_j||^2 - d_min) - log S_i with S_i the kNN row's
    normaliser, one N x N array (8 bytes per pair).

    Returns
    -------
    P : ndarray of shape (n, k)
        Rows sum to one; ``knn`` holds the columns, each row sorted.
    knn : ndarray of shape (n, k)
    log_P : ndarray of shape (n, n)
        log p~_{j|i}; equal to log P on the kNN pairs; -inf on the diagonal.
    beta : ndarray of shape (n,)
    """
    P, sq, knn, beta = sne._knn_conditional(X, perplexity)
    order = np.argsort(knn, axis=1)
    P = np.take_along_axis(P, order, axis=1)
    knn = np.ascontiguousarray(np.take_along_axis(knn, order, axis=1), dtype=np.intp)
    d_min = sq.min(axis=1)
    log_norm = np.log(np.exp(-beta[:, None] * (sq - d_min[:, None])).sum(axis=1))
    log_P = sne.squared_distances(X)
    log_P -= d_min[:, None]
    log_P *= -beta[:, None]
    log_P -= log_norm[:, None]
    np.fill_diagonal(log_P, -np.inf)
    return np.ascontiguousarray(P), knn, log_P, beta


@njit(cache=True, parallel=True)
def _tail_mass(log_P, knn, codes, tau_in, tau_out):
    """sum_i sum_{j not in kNN(i), j != i} (1 - tau_ij) p~_{j|i}: the +p of d(q, p) there.

    A constant of the stress (it does not depend on the map), added once.
    """
    n = log_P.shape[0]
    rows = np.zeros(n)
    for i in prange(n):
        total = 0.0
        m = 0
        for j in range(n):
            if m < knn.shape[1] and knn[i, m] == j:
                m += 1
                continue
            if j != i:
                tau = tau_in if codes[i] == codes[j] else tau_out
                total += (1.0 - tau) * np.exp(log_P[i, j])
        rows[i] = total
    return rows.sum()


@njit(cache=True)
def _sq(Z, i, j):
    s = 0.0
    for k in range(Z.shape[1]):
        diff = Z[i, k] - Z[j, k]
        s += diff * diff
    return s


@njit(cache=True)
def _radius2(Z, beta, knn, cutoff, i):
    """Squared map radius of row i: beta_i r^2 = (nearest data neighbour's s) + cutoff."""
    s_floor = np.inf
    for m in range(knn.shape[1]):
        s_floor = min(s_floor, beta[i] * _sq(Z, i, knn[i, m]))
    return (s_floor + cutoff) / beta[i]


@njit(cache=True)
def _row_candidates(Z, beta, knn, cutoff, order, first, i, cols, start, fill):
    """Count (and, if ``fill``, store from ``cols[start]``) the candidates of row i.

    First the map points within the radius, found in the strip of ``first`` (the first
    coordinate, sorted by ``order``) by bisection, then the kNN pairs outside it.
    """
    r2 = _radius2(Z, beta, knn, cutoff, i)
    r = np.sqrt(r2)
    lo = np.searchsorted(first, Z[i, 0] - r, side="left")
    hi = np.searchsorted(first, Z[i, 0] + r, side="right")
    c = 0
    for t in range(lo, hi):
        j = order[t]
        if j != i and _sq(Z, i, j) <= r2:
            if fill:
                cols[start + c] = j
            c += 1
    for m in range(knn.shape[1]):
        j = knn[i, m]
        if _sq(Z, i, j) > r2:
            if fill:
                cols[start + c] = j
            c += 1
    return c


@njit(cache=True, parallel=True)
def _candidates(Z, beta, knn, cutoff, order, first):
    """The candidate pairs of every row as CSR (indptr, cols): one pass counts, one fills."""
    n = Z.shape[0]
    counts = np.zeros(n + 1, dtype=np.intp)
    cols = np.empty(0, dtype=np.intp)
    for i in prange(n):
        counts[i + 1] = _row_candidates(
            Z, beta, knn, cutoff, order, first, i, cols, 0, False
        )
    indptr = np.cumsum(counts)
    cols = np.empty(indptr[n], dtype=np.intp)
    for i in prange(n):
        _row_candidates(Z, beta, knn, cutoff, order, first, i, cols, indptr[i], True)
    return indptr, cols


@njit(cache=True, parallel=True)
def _sparse_pair_weights(
    Z, beta, P, knn, log_P, codes, tau_in, tau_out, indptr, cols, M, row_cost
):
    """:func:`_pair_weights` over the candidate pairs only (``M`` aligned with ``cols``).

    q_{j|i} is normalised over the candidates; p_{j|i} is P's entry for a kNN pair
    (found by bisection in the sorted row) and 0 otherwise; log p~ comes from ``log_P``.
    """
    n = Z.shape[0]
    for i in prange(n):
        a, b = indptr[i], indptr[i + 1]
        s_min = np.inf
        for t in range(a, b):
            M[t] = beta[i] * _sq(Z, i, cols[t])
            s_min = min(s_min, M[t])
        total = 0.0
        for t in range(a, b):
            total += np.exp(s_min - M[t])
        log_norm = np.log(total) - s_min
        c_sum = 0.0
        cost = 0.0
        q_row = np.empty(b - a)
        for t in range(a, b):
            j = cols[t]
            log_q = -M[t] - log_norm
            q = np.exp(log_q)
            q_row[t - a] = q
            m = np.searchsorted(knn[i], j)
            p = P[i, m] if m < knn.shape[1] and knn[i, m] == j else 0.0
            log_ratio = log_q - log_P[i, j]
            tau = tau_in if codes[i] == codes[j] else tau_out
            M[t] = tau * (q - p) + (1.0 - tau) * q * log_ratio
            c_sum += M[t]
            cost += tau * (q - p - p * log_ratio) + (1.0 - tau) * (
                q * log_ratio - q + p
            )
        for t in range(a, b):
            M[t] = -beta[i] * (M[t] - q_row[t - a] * c_sum)
        row_cost[i] = cost


@njit(cache=True)
def _sparse_forces(Z, indptr, cols, M, grad):
    """grad_i = 2 sum_j (M_ij + M_ji)(z_i - z_j) over the stored pairs (both ends)."""
    n, d = Z.shape
    for i in range(n):
        for k in range(d):
            grad[i, k] = 0.0
    for i in range(n):
        for t in range(indptr[i], indptr[i + 1]):
            j = cols[t]
            for k in range(d):
                force = 2.0 * M[t] * (Z[i, k] - Z[j, k])
                grad[i, k] += force
                grad[j, k] -= force


def _knn_evaluator(P, knn, log_P, beta, codes, tau_in, tau_out):
    """The optimiser's ``evaluate`` for ``method="knn"``, O(N (k + candidates)) per call.

    The stress of the kNN model (see :func:`_knn_neighbourhoods`) up to the pairs beyond
    every candidate set, each with q_{j|i} < exp(-MAP_CUTOFF) times the row's largest.
    """
    constant = _tail_mass(log_P, knn, codes, tau_in, tau_out)
    row_cost = np.empty(len(P))

    def evaluate(Z, _exaggeration, compute_cost):
        order = np.argsort(Z[:, 0], kind="stable")
        indptr, cols = _candidates(
            Z, beta, knn, MAP_CUTOFF, order, np.ascontiguousarray(Z[order, 0])
        )
        M = np.empty(len(cols))
        _sparse_pair_weights(
            Z, beta, P, knn, log_P, codes, tau_in, tau_out, indptr, cols, M, row_cost
        )
        grad = np.empty_like(Z)
        _sparse_forces(Z, indptr, cols, M, grad)
        return (constant + float(row_cost.sum()) if compute_cost else None), grad

    return evaluate


def _setup(X, perplexity, method, codes, tau_in, tau_out):
    """(evaluate, beta) of the chosen method; "auto" is exact up to EXACT_MAX_SAMPLES."""
    if method == "auto":
        method = "exact" if len(X) <= EXACT_MAX_SAMPLES else "knn"
    if method == "exact":
        check_exact_fits(len(X), BYTES_PER_PAIR)
        P, log_P, beta = _neighbourhoods(X, perplexity)
        return _evaluator(P, log_P, beta, codes, tau_in, tau_out), beta
    P, knn, log_P, beta = _knn_neighbourhoods(X, perplexity)
    return _knn_evaluator(P, knn, log_P, beta, codes, tau_in, tau_out), beta


def stress_gradient(
    X, Z, y=None, *, tau_in=0.5, tau_out=None, perplexity=32.0, method="exact"
):
    """ClassNeRV's stress and its gradient at the map ``Z``; NeRV's when ``tau_out == tau_in``.

    J = sum_i sum_{j != i} tau_ij d(p_{j|i}, q_{j|i}) + (1 - tau_ij) d(q_{j|i}, p_{j|i}),
    d(a, b) = a log(a / b) - a + b, tau_ij = tau_in for pairs of the same class and
    tau_out otherwise; q_{j|i} is proportional to exp(-beta_i ||z_i - z_j||^2). The
    gradient is dJ/dz_i = 2 sum_j (M_ij + M_ji)(z_i - z_j) with
    M_ij = -beta_i (c_ij - q_{j|i} sum_k c_ik),
    c_ij = tau_ij (q_{j|i} - p_{j|i}) + (1 - tau_ij) q_{j|i} log(q_{j|i} / p_{j|i}),
    derived in book/08_nerv_classnerv. With a single weight the d's -p + q terms cancel
    and J = tau sum_i KL(P_i || Q_i) + (1 - tau) sum_i KL(Q_i || P_i), NeRV's stress.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    Z : array-like of shape (n_samples, n_components)
    y : array-like of shape (n_samples,), optional
        Class labels; None treats all pairs alike (NeRV).
    tau_in : float in [0, 1], default=0.5
    tau_out : float in [0, 1], optional
        Defaults to ``tau_in`` (NeRV).
    perplexity : float, default=32.0
    method : {"exact", "knn", "auto"}, default="exact"
        "exact": every pair, beta_i calibrated on all of them. "knn": the fast model and
        its truncated sums (:func:`_knn_neighbourhoods`, :func:`_knn_evaluator`).

    Returns
    -------
    cost : float
    gradient : ndarray of shape (n_samples, n_components)
    """
    method = check_in(method, METHODS, name="method")
    X = check_array(X, min_samples=4)
    Z = check_map_rows(Z, len(X))
    perplexity = check_perplexity(perplexity, len(X))
    tau_in = check_nerv_tau(tau_in, name="tau_in")
    tau_out = tau_in if tau_out is None else check_nerv_tau(tau_out, name="tau_out")
    codes = np.zeros(len(X), dtype=np.intp)
    if y is not None:
        _, codes = check_class_labels(y, len(X))
    evaluate, _ = _setup(X, perplexity, method, codes, tau_in, tau_out)
    return evaluate(Z, 1.0, True)


# ------------------------------------------------------------------ the estimators


def _initial_map(X, n_components, init, random_state, beta):
    """The starting map: the top principal components at the data's scale, or noise.

    The map's neighbourhoods use the data's precisions beta_i, so the map lives at the
    data's scale; ``"random"`` draws Gaussian noise of standard deviation
    1 / sqrt(2 median(beta)), one typical bandwidth sigma.
    """
    if isinstance(init, np.ndarray):
        return init.copy()
    if init == "random":
        noise = check_random_state(random_state).standard_normal((len(X), n_components))
        return noise / np.sqrt(2.0 * np.median(beta))
    if n_components > X.shape[1]:
        raise ValueError(
            f"init='pca' needs n_components={n_components} <= n_features = "
            f"{X.shape[1]}; pass init='random' or fewer components."
        )
    return PCA(n_components).fit_transform(X)


def _phases(max_iter, learning_rate):
    """Momentum 0.5 for the first iterations, then 0.8, at one learning rate."""
    first = min(max_iter, MOMENTUM_SWITCH)
    return [
        Phase(first, learning_rate, MOMENTUMS[0]),
        Phase(max_iter - first, learning_rate, MOMENTUMS[1]),
    ]


def _fit(estimator, X, codes, tau_in, tau_out, desc):
    """Calibrate P, minimise the stress from the initial map; sets the fitted attributes."""
    n = len(X)
    check_integer(estimator.n_components, name="n_components")
    perplexity = check_perplexity(estimator.perplexity, n)
    max_iter = check_integer(estimator.max_iter, name="max_iter")
    init = check_init(estimator.init, n, estimator.n_components)
    rate = estimator.learning_rate
    if rate == "auto":
        rate = AUTO_LEARNING_RATE
    rate = check_positive(rate, name="learning_rate")
    method = check_in(estimator.method, METHODS, name="method")
    evaluate, beta = _setup(X, perplexity, method, codes, tau_in, tau_out)
    # Steps in units of one bandwidth: a rate r on the map rescaled by sqrt(median beta)
    # is the rate r / median(beta) here.
    scale = np.median(beta)
    result = gradient_descent(
        _initial_map(X, estimator.n_components, init, estimator.random_state, beta),
        evaluate,
        _phases(max_iter, rate / scale),
        max_step=MAX_STEP / np.sqrt(scale),
        verbose=bool(estimator.verbose),
        desc=desc,
    )
    estimator.embedding_ = result.embedding
    estimator.stress_ = result.cost
    estimator.n_iter_ = result.n_iter
    estimator.cost_history_ = result.history
    estimator.n_features_in_ = X.shape[1]
    return estimator


_PARAMETERS_DOC = """
    n_components : int, default=2
    perplexity : float, default=32.0
        Effective number of neighbours of every data point; sets beta_i.
    learning_rate : float or "auto", default="auto"
        Step size in units of 1 / median(beta_i); "auto" is ``AUTO_LEARNING_RATE``.
    max_iter : int, default=300
    init : {"pca", "random"} or ndarray, default="pca"
        The principal components at the data's scale, noise of one bandwidth, or a map.
    random_state : int, RandomState or None, default=None
        Used by ``init="random"`` only.
    method : {"auto", "exact", "knn"}, default="auto"
        "exact": all pairs, O(N^2) per iteration. "knn": beta_i and P on the
        floor(3 perplexity) nearest neighbours, map sums over candidate pairs (the data
        neighbours and the map points within MAP_CUTOFF). "auto": exact up to
        EXACT_MAX_SAMPLES samples.
    verbose : bool, default=False
        A text progress bar.
"""

_ATTRIBUTES_DOC = """
    embedding_ : ndarray of shape (n_samples, n_components)
    stress_ : float
        The stress at the final map.
    n_iter_ : int
    cost_history_ : list of (int, float)
        (iteration, stress) every 50 iterations.
    n_features_in_ : int
"""


class _NeighbourRetrieval(TransformerMixin, BaseEstimator):
    """What NeRV and ClassNeRV share: the parameters of the fit and fit_transform."""

    def fit_transform(self, X, y=None):
        """Fit and return ``embedding_``; see ``fit``."""
        return self.fit(X, y).embedding_


class NeRV(_NeighbourRetrieval):
    __doc__ = (
        """Neighbour retrieval visualiser (Venna et al. 2010); see ``method`` for large N.

    Minimises tau sum_i KL(P_i || Q_i) + (1 - tau) sum_i KL(Q_i || P_i): tau = 1 is SNE
    with the data's bandwidths in the map (missed neighbours only, recall), tau = 0 punishes
    false neighbours only (precision). See book/08_nerv_classnerv.

    Parameters
    ----------
    tau : float in [0, 1], default=0.5"""
        + _PARAMETERS_DOC
        + """
    Attributes
    ----------"""
        + _ATTRIBUTES_DOC
    )

    def __init__(
        self,
        n_components=2,
        *,
        tau=0.5,
        perplexity=32.0,
        learning_rate="auto",
        max_iter=300,
        init="pca",
        random_state=None,
        method="auto",
        verbose=False,
    ):
        self.n_components = n_components
        self.tau = tau
        self.perplexity = perplexity
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.init = init
        self.random_state = random_state
        self.method = method
        self.verbose = verbose

    def fit(self, X, y=None):
        """Embed ``X``; ``y`` is ignored.

        Returns
        -------
        self
        """
        X = check_array(X, min_samples=4)
        tau = check_nerv_tau(self.tau, name="tau")
        codes = np.zeros(len(X), dtype=np.intp)
        return _fit(self, X, codes, tau, tau, "NeRV")


class ClassNeRV(_NeighbourRetrieval):
    __doc__ = (
        """Class-aware NeRV (Colange et al. 2020); see ``method`` for large N.

    Within-class pairs are weighted by tau_in = tau_star + epsilon, between-class pairs by
    tau_out = tau_star - epsilon, each part with the generalised KL divergence; the
    distortions the map cannot avoid go where they do least harm to the classes: missed
    neighbours between classes, false neighbours within them. ``epsilon=0`` is
    :class:`NeRV` with ``tau=tau_star``. See book/08_nerv_classnerv.

    Parameters
    ----------
    tau_star : float in [0, 1], default=0.5
    epsilon : float, default=0.5
        0 <= epsilon <= min(tau_star, 1 - tau_star)."""
        + _PARAMETERS_DOC
        + """
    Attributes
    ----------"""
        + _ATTRIBUTES_DOC
        + """    classes_ : ndarray of shape (n_classes,)
    """
    )

    def __init__(
        self,
        n_components=2,
        *,
        tau_star=0.5,
        epsilon=0.5,
        perplexity=32.0,
        learning_rate="auto",
        max_iter=300,
        init="pca",
        random_state=None,
        method="auto",
        verbose=False,
    ):
        self.n_components = n_components
        self.tau_star = tau_star
        self.epsilon = epsilon
        self.perplexity = perplexity
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.init = init
        self.random_state = random_state
        self.method = method
        self.verbose = verbose

    def fit(self, X, y):
        """Embed ``X`` steered by the class labels ``y`` (at least two classes).

        Returns
        -------
        self
        """
        X = check_array(X, min_samples=4)
        self.classes_, codes = check_class_labels(y, len(X))
        tau_in, tau_out = class_weights(self.tau_star, self.epsilon)
        return _fit(self, X, codes, tau_in, tau_out, "ClassNeRV")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
