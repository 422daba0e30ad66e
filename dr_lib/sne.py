"""Stochastic neighbour embedding: the affinities, and the exact costs and gradients.

What the neighbour embeddings of book/07_sne_tsne and book/08_nerv_classnerv share:

* the conditional probabilities p_{j|i} of [T] (10-30) with one Gaussian bandwidth per
  point, found by bisection on the precision beta_i = 1 / (2 sigma_i^2) so that every
  row has the requested perplexity 2^H (:func:`calibrate_precisions`,
  :func:`conditional_probabilities`), over all pairs or over the nearest neighbours;
* the joint probabilities p_ij = (p_{j|i} + p_{i|j}) / (2N) of [T] (10-31)
  (:func:`joint_probabilities`), dense or sparse;
* the exact O(N^2) costs and gradients: SNE, sum_i KL(P_i || Q_i) with Gaussian
  q_{j|i} (:func:`sne_cost_gradient`); symmetric SNE and t-SNE, KL(P || Q) with a joint
  q_ij whose kernel has ``dof`` degrees of freedom (:func:`tsne_cost_gradient`,
  [T] (10-32)-(10-34) with the normalisation corrected).

Rows of ``X`` and ``Z`` are samples (the book's formulas write them as columns). The
fast approximations of the t-SNE gradient live in the private modules
``_tsne_attraction``, ``_tsne_bh`` and ``_tsne_fft``. Derived and checked in
book/07_sne_tsne.
"""

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from scipy.special import xlogy

from dr_lib._linalg import squared_distances
from dr_lib._validation import (
    check_array,
    check_dof,
    check_in,
    check_integer,
    check_perplexity,
    check_perplexity_reachable,
    check_positive,
    check_probability_matrix,
)
from dr_lib.graphs import kneighbors

__all__ = [
    "ENTROPY_TOL",
    "MAX_BISECTION_STEPS",
    "neighbour_count",
    "entropy_bits",
    "perplexity_of_rows",
    "calibrate_precisions",
    "conditional_probabilities",
    "joint_probabilities",
    "squared_distances",
    "student_t_kernel",
    "kernel_force_factor",
    "conditional_q",
    "joint_q",
    "sne_cost_gradient",
    "tsne_cost_gradient",
]

#: The bisection stops when the row entropy is this close to log(perplexity), in nats.
ENTROPY_TOL = 1e-5
#: ... or after this many halvings of the bracket.
MAX_BISECTION_STEPS = 200


def neighbour_count(perplexity, n_samples):
    """Neighbours kept per point by the sparse affinities: min(N - 1, floor(3
    perplexity)).

    A Gaussian whose perplexity is u puts almost no mass beyond its 3u nearest
    neighbours (van der Maaten 2014); openTSNE uses the same count.
    """
    return int(min(n_samples - 1, np.floor(3 * perplexity)))


# ------------------------------------------------------------------ entropy, perplexity


def entropy_bits(P):
    """Entropy H(P_i) = -sum_j p_ij log2 p_ij of every row of a probability matrix, in
    bits.

    Zero entries contribute nothing (p log p -> 0). Dense arrays and scipy sparse
    matrices are accepted; each row should sum to one.

    Returns
    -------
    ndarray of shape (n_rows,)
    """
    if sp.issparse(P):
        P = sp.csr_matrix(P)
        terms = P.copy()
        terms.data = _plogp(terms.data)
        return -np.asarray(terms.sum(axis=1)).ravel() / np.log(2)
    return -np.sum(_plogp(np.asarray(P, dtype=np.float64)), axis=1) / np.log(2)


def _plogp(p):
    """p log p, elementwise, with 0 log 0 = 0."""
    out = np.zeros_like(p)
    positive = p > 0
    out[positive] = p[positive] * np.log(p[positive])
    return out


def perplexity_of_rows(P):
    """Perplexity 2^H(P_i) of every row, the effective number of neighbours ([S],
    [B])."""
    return 2.0 ** entropy_bits(P)


# ---------------------------------------------------------------- the bisection on beta


@njit(cache=True, inline="always")
def _row_min(row, skip):
    """The smallest entry of the row, entry ``skip`` excluded (-1: none excluded)."""
    d_min = np.inf
    for j in range(row.shape[0]):
        if j != skip and row[j] < d_min:
            d_min = row[j]
    return d_min


@njit(cache=True)
def _row_distribution(row, skip, beta, out):
    """exp(-beta (d_j - d_min)) over the row (entry ``skip`` excluded), normalised in
    ``out``.

    Returns the entropy of the normalised row in nats:
    H = log S + beta <d - d_min>, with S the sum of the unnormalised weights.
    """
    d_min = _row_min(row, skip)
    total = 0.0
    weighted = 0.0
    for j in range(row.shape[0]):
        if j == skip:
            out[j] = 0.0
            continue
        shifted = row[j] - d_min
        w = np.exp(-beta * shifted)
        out[j] = w
        total += w
        weighted += w * shifted
    for j in range(row.shape[0]):
        out[j] /= total
    return np.log(total) + beta * weighted / total


@njit(cache=True)
def _initial_beta(row, skip):
    """1 / (mean squared distance beyond the nearest): a starting point of the right
    scale."""
    d_min = _row_min(row, skip)
    total = 0.0
    count = 0
    for j in range(row.shape[0]):
        if j != skip:
            total += row[j] - d_min
            count += 1
    return 1.0 if total <= 0 else count / total


@njit(cache=True, parallel=True)
def _bisect_rows(sq_dist, diagonal_is_self, target, tol, max_steps, P, beta, steps):
    """Bisection on beta_i for every row, in parallel; fills ``P``, ``beta`` and
    ``steps``.

    The entropy decreases monotonically in beta (book/07_sne_tsne), so the bracket
    [lo, hi] always contains the solution: a too-high entropy raises lo, a too-low one
    lowers hi; until an upper bound is known, beta doubles.
    """
    for i in prange(sq_dist.shape[0]):
        row = sq_dist[i]
        skip = i if diagonal_is_self else -1
        b = _initial_beta(row, skip)
        lo, hi = 0.0, np.inf
        n = 0
        while True:
            n += 1
            gap = _row_distribution(row, skip, b, P[i]) - target
            if abs(gap) <= tol or n >= max_steps:
                break
            if gap > 0:  # too flat: sharpen
                lo = b
                b = 2.0 * b if hi == np.inf else 0.5 * (b + hi)
            else:
                hi = b
                b = 0.5 * (b + lo)
        beta[i] = b
        steps[i] = n


def calibrate_precisions(
    sq_distances,
    perplexity,
    *,
    diagonal_is_self=False,
    tol=ENTROPY_TOL,
    max_steps=MAX_BISECTION_STEPS,
):
    """Row-wise Gaussian affinities with a given perplexity: bisection on beta_i.

    For each row i, finds beta_i = 1 / (2 sigma_i^2) such that
    p_j = exp(-beta_i d_j^2) / sum_k exp(-beta_i d_k^2) has entropy log(perplexity)
    (nats), i.e. perplexity 2^{H in bits} equal to ``perplexity`` ([T] (10-30), [S] and
    [B] on the binary search). Distances are shifted by the row minimum before
    exponentiating, which changes nothing after normalisation but avoids underflow.

    Parameters
    ----------
    sq_distances : array-like of shape (n_rows, n_candidates)
        Squared distances from point i to its candidate neighbours.
    perplexity : float
        Target perplexity, 0 < perplexity < number of candidates, and at least the
        number of candidates tied at a row's smallest distance (a ValueError names
        the first row that cannot reach it).
    diagonal_is_self : bool, default=False
        Whether entry (i, i) is the point itself (a square all-pairs matrix); it then
        gets probability 0.
    tol : float, default=ENTROPY_TOL
        Tolerance on the entropy, in nats.
    max_steps : int, default=MAX_BISECTION_STEPS

    Returns
    -------
    P : ndarray of shape (n_rows, n_candidates)
        Each row a probability distribution.
    beta : ndarray of shape (n_rows,)
    steps : ndarray of shape (n_rows,)
        Entropy evaluations each row needed.
    """
    sq = check_array(sq_distances, name="sq_distances")
    candidates = sq.shape[1] - (1 if diagonal_is_self else 0)
    perplexity = check_perplexity(perplexity, candidates + 1)
    tol = check_positive(tol, name="tol")
    max_steps = check_integer(max_steps, name="max_steps")
    check_perplexity_reachable(
        sq, perplexity, diagonal_is_self=bool(diagonal_is_self), tol=tol
    )
    sq = np.ascontiguousarray(sq)
    P = np.empty_like(sq)
    beta = np.empty(len(sq))
    steps = np.empty(len(sq), dtype=np.int64)
    _bisect_rows(
        sq, bool(diagonal_is_self), np.log(perplexity), tol, max_steps, P, beta, steps
    )
    return P, beta, steps


# ---------------------------------------------------------------- P: conditional, joint


def conditional_probabilities(X, perplexity=30.0, *, method="exact"):
    """The conditional neighbour probabilities p_{j|i} of SNE, [T] (10-30).

    p_{j|i} = exp(-beta_i ||x_i - x_j||^2) / sum_{k != i} exp(-beta_i ||x_i - x_k||^2),
    p_{i|i} = 0, with beta_i = 1 / (2 sigma_i^2) set by :func:`calibrate_precisions` so
    that every row has perplexity ``perplexity``. See book/07_sne_tsne.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    perplexity : float, default=30.0
        Effective number of neighbours; 0 < perplexity < n_samples - 1.
    method : {"exact", "knn"}, default="exact"
        "exact": every pair, a dense (N, N) matrix. "knn": only the
        :func:`neighbour_count` nearest neighbours of each point, a sparse CSR matrix
        whose rows still sum to one.

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Row i is the distribution P_i; rows sum to one.
    """
    method = check_in(method, ("exact", "knn"), name="method")
    X = check_array(X, min_samples=4)
    n = len(X)
    perplexity = check_perplexity(perplexity, n)
    if method == "exact":
        P, _, _ = calibrate_precisions(
            squared_distances(X), perplexity, diagonal_is_self=True
        )
        return P
    k = neighbour_count(perplexity, n)
    distances, indices = kneighbors(X, k)
    P, _, _ = calibrate_precisions(distances**2, perplexity)
    return sp.csr_matrix(
        (P.ravel(), indices.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n)
    )


def joint_probabilities(X, perplexity=30.0, *, method="exact"):
    """The symmetric joint probabilities p_ij = (p_{j|i} + p_{i|j}) / (2N), [T] (10-31).

    They sum to one over all pairs, p_ij = p_ji, and every point keeps
    sum_j p_ij > 1 / (2N) ([S]'s argument for outliers). See book/07_sne_tsne.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    perplexity : float, default=30.0
    method : {"exact", "knn"}, default="exact"
        Dense over all pairs, or sparse over the nearest neighbours
        (:func:`conditional_probabilities`).

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    P = conditional_probabilities(X, perplexity, method=method)
    joint = (P + P.T) / (2.0 * P.shape[0])
    if sp.issparse(joint):
        joint = sp.csr_matrix(joint)
        joint.sort_indices()
    return joint


# ------------------------------------------------------------------------ Q in the map


def student_t_kernel(sq_dist, dof=1.0):
    """The heavy-tailed kernel w = (1 + d^2 / alpha)^(-alpha) of t-SNE with alpha =
    ``dof``.

    alpha = 1 is [T] (10-32), the Cauchy kernel 1 / (1 + d^2); alpha -> inf gives the
    Gaussian exp(-d^2) of (symmetric) SNE, used when ``dof=np.inf``; alpha < 1 has
    heavier tails (Kobak et al. 2019). See book/07_sne_tsne.
    """
    if np.isinf(dof):
        return np.exp(-sq_dist)
    if dof == 1.0:
        return 1.0 / (1.0 + sq_dist)
    return (1.0 + sq_dist / dof) ** (-dof)


def kernel_force_factor(sq_dist, dof=1.0):
    """The factor w^(1/alpha) = -d log w / d(d^2) = 1 / (1 + d^2 / alpha) of the
    gradient.

    It is 1 for the Gaussian (``dof=np.inf``) and w itself for t-SNE (alpha = 1).
    """
    if np.isinf(dof):
        return np.ones_like(sq_dist)
    return 1.0 / (1.0 + sq_dist / dof)


def conditional_q(Z):
    """SNE's map probabilities q_{j|i} = exp(-||z_i - z_j||^2) / sum_{k != i} (...),
    q_{i|i} = 0.

    Returns
    -------
    ndarray of shape (n, n); rows sum to one.
    """
    return _conditional_q(check_array(Z, name="Z", min_samples=2))


def _conditional_q(Z):
    D2 = squared_distances(Z)
    np.fill_diagonal(D2, np.inf)
    E = np.exp(-(D2 - D2.min(axis=1, keepdims=True)))
    return E / E.sum(axis=1, keepdims=True)


def joint_q(Z, dof=1.0):
    """The joint map probabilities q_ij = w_ij / sum_{k != l} w_kl, q_ii = 0.

    With w the kernel of :func:`student_t_kernel`: t-SNE for ``dof=1``, symmetric SNE
    for ``dof=np.inf``. The sum runs over all pairs, not over row i ([T] (10-32)
    normalises per row, an erratum shown in book/07_sne_tsne).

    Returns
    -------
    ndarray of shape (n, n); all entries sum to one.
    """
    Z = check_array(Z, name="Z", min_samples=2)
    W = student_t_kernel(squared_distances(Z), check_dof(dof))
    np.fill_diagonal(W, 0.0)
    return W / W.sum()


def _kl(P, Q):
    """sum p log(p / q) over the entries with p > 0."""
    positive = P > 0
    return float(np.sum(P[positive] * np.log(P[positive] / Q[positive])))


def _gradient_from_pairs(M, Z):
    """sum_j M_ij (z_i - z_j) for every i, i.e. (diag(M 1) - M) Z in rows-as-samples
    form."""
    return M.sum(axis=1)[:, None] * Z - M @ Z


def sne_cost_gradient(P, Z):
    """Cost and gradient of SNE: J = sum_i KL(P_i || Q_i) with Gaussian q_{j|i}.

    dJ/dz_i = 2 sum_j (p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}) (z_i - z_j), the gradient
    of [B] and [S] (Hinton & Roweis 2002), derived in book/07_sne_tsne.

    Parameters
    ----------
    P : array-like of shape (n, n)
        Conditional probabilities, rows summing to one, zero diagonal
        (from :func:`conditional_probabilities`).
    Z : array-like of shape (n, n_components)
        The map.

    Returns
    -------
    cost : float
    gradient : ndarray of shape (n, n_components)
    """
    Z = check_array(Z, name="Z", min_samples=2)
    P = check_probability_matrix(P, len(Z), rows_sum_to_one=True)
    return _sne_cost_gradient(P, Z)


def _sne_cost_gradient(P, Z, compute_cost=True):
    """:func:`sne_cost_gradient` on validated arrays; the cost only when asked."""
    Q = _conditional_q(Z)
    cost = _kl(P, Q) if compute_cost else None
    M = P - Q
    M += M.T
    return cost, 2.0 * _gradient_from_pairs(M, Z)


def tsne_cost_gradient(P, Z, dof=1.0, *, exaggeration=1.0):
    """Cost and gradient of t-SNE (and of symmetric SNE): J = KL(P || Q), exact O(N^2).

    dJ/dz_i = 4 sum_j (p_ij - q_ij) w_ij^(1/alpha) (z_i - z_j) with
    w_ij = (1 + ||z_i - z_j||^2 / alpha)^(-alpha): [T] (10-34) for alpha = 1, the
    heavy-tailed family of Kobak et al. (2019) for other alpha, and symmetric SNE's
    4 sum_j (p_ij - q_ij)(z_i - z_j) for ``dof=np.inf``. Derived in book/07_sne_tsne.

    Parameters
    ----------
    P : array-like of shape (n, n)
        Joint probabilities summing to one (from :func:`joint_probabilities`).
    Z : array-like of shape (n, n_components)
    dof : float, default=1.0
        alpha > 0, or ``np.inf`` for the Gaussian kernel.
    exaggeration : float, default=1.0
        Factor rho on P in the gradient (early exaggeration: the attraction becomes
        4 rho sum_j p_ij w^(1/alpha) (z_i - z_j)). The cost is always KL(P || Q).

    Returns
    -------
    cost : float
    gradient : ndarray of shape (n, n_components)
    """
    Z = check_array(Z, name="Z", min_samples=2)
    P = check_probability_matrix(P, len(Z), rows_sum_to_one=False)
    dof = check_dof(dof)
    exaggeration = check_positive(exaggeration, name="exaggeration")
    return _tsne_cost_gradient(P, Z, dof, exaggeration)


def _tsne_cost_gradient(P, Z, dof, exaggeration, compute_cost=True):
    """:func:`tsne_cost_gradient` on validated dense arrays; the cost only when asked.

    Besides P it holds two N x N arrays: T = w^(1/alpha) = 1 / (1 + d^2 / alpha), built
    in the buffer of the squared distances, and M = (rho P - Q) * T, built in the buffer
    of w. For alpha = 1, w = T; for the Gaussian, T = 1.
    """
    T = squared_distances(Z)
    if np.isinf(dof):
        np.negative(T, out=T)
        log_w = T  # log w = -d^2, zero on the diagonal
        W = np.exp(T)
    else:
        T /= dof
        T += 1.0
        np.reciprocal(T, out=T)  # T = w^(1/alpha), 1 on the diagonal
        log_w = None
        W = T.copy() if dof == 1.0 else T**dof
    np.fill_diagonal(W, 0.0)
    total = W.sum()
    cost = None
    if compute_cost:
        if log_w is None:
            log_w = dof * np.log(T)  # 0 on the diagonal, where p_ii = 0 too
        cost = float(xlogy(P, P).sum() - np.vdot(P, log_w) + np.log(total))
    W *= -1.0 / total
    W += exaggeration * P
    if not np.isinf(dof):
        W *= T  # M = (rho P - Q) w^(1/alpha)
    return cost, 4.0 * _gradient_from_pairs(W, Z)
