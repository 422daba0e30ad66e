"""NeRV and ClassNeRV: neighbour embeddings that trade missed against false neighbours.

NeRV (Venna, Peltonen, Nybo, Aidos & Kaski 2010; [S]) compares the Gaussian
neighbourhood P_i of every data point, p_{j|i} proportional to exp(-beta_i ||x_i -
x_j||^2) with beta_i set by the perplexity (``dr_lib.sne``), with the neighbourhood Q_i
of its map point, q_{j|i} proportional to exp(-beta_i ||z_i - z_j||^2) with the *same*
beta_i, and minimises

    J = tau sum_i KL(P_i || Q_i) + (1 - tau) sum_i KL(Q_i || P_i):

the first term punishes missed neighbours (recall), the second false ones (precision).
ClassNeRV (Colange, Peltonen, Aupetit, Dutykh & Lespinats 2020; [S]) splits every
neighbourhood into the pairs of the same class and those of different classes and weighs
them with tau_in and tau_out, each part with the generalised (unnormalised) KL
divergence d(p, q) = p log(p / q) - p + q. Writing tau_ij for tau_in or tau_out,

    J = sum_i sum_{j != i} tau_ij d(p_{j|i}, q_{j|i})
        + (1 - tau_ij) d(q_{j|i}, p_{j|i}),

and with tau_in = tau_out = tau it is NeRV exactly (the -p + q terms sum to zero). Both
estimators share one cost-and-gradient kernel and the momentum-and-gains gradient
descent of ``dr_lib._optimize`` (as SNE and t-SNE do). Derived and checked in
book/08_nerv_classnerv.

Rows of ``X`` and ``Z`` are samples (the book's formulas write them as columns).
"""

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from dr_lib import sne
from dr_lib._optimize import gradient_descent, momentum_phases
from dr_lib._validation import (
    check_array,
    check_class_labels,
    check_class_weights,
    check_exact_fits,
    check_init,
    check_integer,
    check_map_rows,
    check_nerv_tau,
    check_perplexity,
    check_positive,
)
from dr_lib._vector_exp import exp_nonpositive
from dr_lib.tsne import NeighbourEmbedding, initial_coordinates

__all__ = [
    "BYTES_PER_PAIR",
    "class_weights",
    "neighbourhoods",
    "stress_gradient",
    "NeRV",
    "ClassNeRV",
]

#: Memory of the fit per pair of samples, in bytes: P and log P, two N x N float64
#: arrays (the stress and gradient need no N x N temporary: ``_block_stress_gradient``).
BYTES_PER_PAIR = 16
#: The rows are cut into this many blocks, each with its own gradient buffer (d x N):
#: enough to balance the threads, and a fixed number so that the sum does not depend on
#: how many threads run.
BLOCKS = 16
#: Step size of ``learning_rate="auto"``, in units of 1 / median(beta_i): larger steps
#: (1, as SNE takes with unit bandwidths) diverged on the digits
#: (book/08_nerv_classnerv).
AUTO_LEARNING_RATE = 0.1
#: Largest step of one point in one iteration, in units of 1 / sqrt(median(beta_i))
#: (t-SNE's MAX_STEP in a map of unit bandwidth).
MAX_STEP = 5.0
#: The momentum is 0.5 for this many iterations, then 0.8 (as SNE's, switched earlier).
MOMENTUM_SWITCH = 100


def class_weights(tau_star, epsilon):
    """(tau_in, tau_out) = (tau_star + epsilon, tau_star - epsilon), ClassNeRV's
    weights.

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

    p_{j|i} = exp(-beta_i ||x_i - x_j||^2) / sum_{k != i} exp(-beta_i ||x_i - x_k||^2),
    the p_{j|i} of SNE ([T] (10-30), ``dr_lib.sne.conditional_probabilities``) with
    every row of perplexity ``perplexity``. The logarithm is computed from the distances
    (log-sum-exp), not from P: far pairs have p_{j|i} that underflow to 0 while log
    p_{j|i} stays finite, and KL(Q_i || P_i) needs it.

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
    # log p_{j|i} = log p_{n|i} - beta_i (d_ij^2 - d_in^2) with n the nearest neighbour,
    # whose p_{n|i} is the row's largest and never underflows: no N x N temporary.
    rows = np.arange(len(D2))
    nearest = D2.argmin(axis=1)
    D2 -= D2[rows, nearest][:, None]
    D2 *= -beta[:, None]
    D2 += np.log(P[rows, nearest])[:, None]
    return P, D2, beta


# ------------------------------------------------------------------ stress and gradient


@njit(cache=True, parallel=True, fastmath={"contract", "nsz", "reassoc"})
def _block_stress_gradient(
    Zt, beta, P, log_P, codes, tau_in, tau_out, compute_cost, own, scattered, row_cost
):
    """The stress and gradient in one pass over all pairs, rows split into fixed blocks.

    Row i, with s_ij = beta_i ||z_i - z_j||^2 (``Zt`` is the map transposed, d x N, so
    every loop over j is contiguous): q_{j|i} = exp(s_min - s_ij) / sum, then
    c_ij = tau_ij (q - p) + (1 - tau_ij) q log(q / p) and its row sum C_i, then
    M_ij = -beta_i (c_ij - q_{j|i} C_i) (book/08_nerv_classnerv, eq-nerv-softmax-chain).
    The pair (i, j) pushes f = 2 M_ij (z_i - z_j) onto z_i (``own``) and -f onto z_j:
    dJ/dz_i = 2 sum_j (M_ij + M_ji)(z_i - z_j). Block b adds its -f into its own
    ``scattered[b]``, so blocks never write the same memory; the caller adds the blocks
    in a fixed order, and the result does not depend on the number of threads. One
    exponential per pair, by the vectorised ``_vector_exp.exp_nonpositive``; every loop
    over j is branch-free (tau_ij is selected arithmetically), so that the compiler may
    vectorise it, and sums may be reassociated (fast-math ``reassoc``: the sums change
    in the last bits, the same in every run). No N x N temporary (four row buffers per
    block).
    """
    d, n = Zt.shape
    n_blocks = scattered.shape[0]
    size = (n + n_blocks - 1) // n_blocks
    tau_gap = tau_in - tau_out
    for b in prange(n_blocks):
        out = scattered[b]
        out[:] = 0.0
        s_row = np.empty(n)
        q_row = np.empty(n)
        m_row = np.empty(n)
        scratch = np.empty(n)
        for i in range(b * size, min(n, (b + 1) * size)):
            s_row[:] = 0.0
            for k in range(d):
                z = Zt[k, i]
                for j in range(n):
                    diff = z - Zt[k, j]
                    s_row[j] += diff * diff
            s_row *= beta[i]
            s_row[i] = np.inf  # q_{i|i} = 0
            s_min = np.inf
            for j in range(
                n
            ):  # a loop: ndarray.min() checks for NaN and is not vectorised
                s_min = min(s_min, s_row[j])
            for j in range(n):
                m_row[j] = s_min - s_row[j]
            exp_nonpositive(m_row, q_row, scratch)
            total = 0.0
            for j in range(n):
                total += q_row[j]
            q_row *= 1.0 / total
            log_norm = np.log(total) - s_min
            code = codes[i]
            c_sum = 0.0
            for j in range(n):  # c_ij, 0 at j = i (where log_ratio is not a number)
                log_ratio = -s_row[j] - log_norm - log_P[i, j]
                tau = tau_out + tau_gap * (codes[j] == code)
                c = tau * (q_row[j] - P[i, j]) + (1.0 - tau) * q_row[j] * log_ratio
                m_row[j] = c if j != i else 0.0
                c_sum += m_row[j]
            cost = 0.0
            if compute_cost:
                for lo, hi in ((0, i), (i + 1, n)):  # every j != i
                    for j in range(lo, hi):
                        q, p = q_row[j], P[i, j]
                        log_ratio = -s_row[j] - log_norm - log_P[i, j]
                        tau = tau_out + tau_gap * (codes[j] == code)
                        cost += tau * (q - p - p * log_ratio) + (1.0 - tau) * (
                            q * log_ratio - q + p
                        )
            row_cost[i] = cost
            for j in range(n):  # now 2 M_ij
                m_row[j] = -2.0 * beta[i] * (m_row[j] - q_row[j] * c_sum)
            for k in range(d):
                z = Zt[k, i]
                pull = 0.0
                for j in range(n):
                    f = m_row[j] * (z - Zt[k, j])
                    pull += f
                    out[k, j] -= f
                own[k, i] = pull


def _evaluator(P, log_P, beta, codes, tau_in, tau_out):
    """``evaluate(Z, exaggeration, compute_cost) -> (cost, gradient)`` for the
    optimiser.

    ``exaggeration`` is accepted for the optimiser's interface and not used. The work
    buffers are O(N) per block and reused by every call.
    """
    n = len(P)
    row_cost = np.zeros(n)
    buffers = {}

    def evaluate(Z, _exaggeration, compute_cost):
        d = Z.shape[1]
        if d not in buffers:
            buffers[d] = (np.empty((d, n)), np.empty((BLOCKS, d, n)))
        own, scattered = buffers[d]
        _block_stress_gradient(
            np.ascontiguousarray(Z.T, dtype=np.float64),
            beta,
            P,
            log_P,
            codes,
            tau_in,
            tau_out,
            bool(compute_cost),
            own,
            scattered,
            row_cost,
        )
        grad = own.copy()
        for part in scattered:  # a fixed order: the same sum on any number of threads
            grad += part
        return (float(row_cost.sum()) if compute_cost else None), grad.T.copy()

    return evaluate


def stress_gradient(X, Z, y=None, *, tau_in=0.5, tau_out=None, perplexity=32.0):
    """ClassNeRV's stress and its gradient at the map ``Z``; NeRV's when
    ``tau_out == tau_in``.

    J = sum_i sum_{j != i} tau_ij d(p_{j|i}, q_{j|i})
        + (1 - tau_ij) d(q_{j|i}, p_{j|i}),
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

    Returns
    -------
    cost : float
    gradient : ndarray of shape (n_samples, n_components)
    """
    X = check_array(X, min_samples=4)
    Z = check_map_rows(Z, len(X))
    perplexity = check_perplexity(perplexity, len(X))
    tau_in = check_nerv_tau(tau_in, name="tau_in")
    tau_out = tau_in if tau_out is None else check_nerv_tau(tau_out, name="tau_out")
    codes = np.zeros(len(X), dtype=np.intp)
    if y is not None:
        _, codes = check_class_labels(y, len(X))
    P, log_P, beta = _neighbourhoods(X, perplexity)
    return _evaluator(P, log_P, beta, codes, tau_in, tau_out)(Z, 1.0, True)


# ------------------------------------------------------------------ the estimators


def _initial_map(X, n_components, init, random_state, beta):
    """The starting map: the top principal components at the data's scale, or noise.

    The map's neighbourhoods use the data's precisions beta_i, so the map lives at the
    data's scale; ``"random"`` draws Gaussian noise of standard deviation
    1 / sqrt(2 median(beta)), one typical bandwidth sigma.
    """
    Z = initial_coordinates(X, n_components, init, random_state)
    if isinstance(init, str) and init == "random":
        Z /= np.sqrt(2.0 * np.median(beta))
    return Z


def _fit(estimator, X, codes, tau_in, tau_out, desc):
    """Calibrate P, minimise the stress from the initial map; sets the fitted
    attributes."""
    n = len(X)
    check_integer(estimator.n_components, name="n_components")
    perplexity = check_perplexity(estimator.perplexity, n)
    max_iter = check_integer(estimator.max_iter, name="max_iter")
    init = check_init(estimator.init, n, estimator.n_components)
    rate = estimator.learning_rate
    if rate == "auto":
        rate = AUTO_LEARNING_RATE
    rate = check_positive(rate, name="learning_rate")
    check_exact_fits(n, BYTES_PER_PAIR)
    P, log_P, beta = _neighbourhoods(X, perplexity)
    # Steps in units of one bandwidth: a rate r on the map rescaled by sqrt(median beta)
    # is the rate r / median(beta) here.
    scale = np.median(beta)
    result = gradient_descent(
        _initial_map(X, estimator.n_components, init, estimator.random_state, beta),
        _evaluator(P, log_P, beta, codes, tau_in, tau_out),
        momentum_phases(max_iter, rate / scale, MOMENTUM_SWITCH),
        max_step=MAX_STEP / np.sqrt(scale),
        min_radius=1.0
        / np.sqrt(scale),  # one bandwidth: see _optimize.gradient_descent
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


@dataclass(eq=False, repr=False, kw_only=True)
class _NeighbourRetrieval(NeighbourEmbedding):
    """What NeRV and ClassNeRV share: the parameters of ``NeighbourEmbedding``, with
    their own defaults for the perplexity and the number of iterations."""

    perplexity: float = 32.0
    max_iter: int = 300


@dataclass(eq=False, repr=False, kw_only=True)
class NeRV(_NeighbourRetrieval):
    __doc__ = (
        """Neighbour retrieval visualiser (Venna et al. 2010), exact, O(N^2) per
    iteration.

    Minimises tau sum_i KL(P_i || Q_i) + (1 - tau) sum_i KL(Q_i || P_i): tau = 1 is SNE
    with the data's bandwidths in the map (missed neighbours only, recall), tau = 0
    punishes false neighbours only (precision). See book/08_nerv_classnerv.

    Parameters
    ----------
    tau : float in [0, 1], default=0.5"""
        + _PARAMETERS_DOC
        + """
    Attributes
    ----------"""
        + _ATTRIBUTES_DOC
    )

    tau: float = 0.5

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


@dataclass(eq=False, repr=False, kw_only=True)
class ClassNeRV(_NeighbourRetrieval):
    __doc__ = (
        """Class-aware NeRV (Colange et al. 2020), exact, O(N^2) per iteration.

    Within-class pairs are weighted by tau_in = tau_star + epsilon, between-class pairs
    by tau_out = tau_star - epsilon, each part with the generalised KL divergence; the
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

    tau_star: float = 0.5
    epsilon: float = 0.5

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
