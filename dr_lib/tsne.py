"""The SNE and t-SNE estimators, and the t-SNE gradient by three methods.

``TSNE`` minimises KL(P || Q) ([T] (10-33), corrected to the joint form) with the
gradient of [T] (10-34), generalised to ``dof`` degrees of freedom (Kobak et al. 2019),
computed

* ``"exact"``: dense over all pairs, O(N^2) time and memory (``dr_lib.sne``);
* ``"barnes_hut"``: sparse P over the nearest neighbours (attraction,
  ``_tsne_attraction``) and a Barnes–Hut tree for the repulsion (``_tsne_bh``),
  O(N log N);
* ``"fft"``: the same attraction and FFT-accelerated interpolation on a bounded grid for
  the repulsion (``_tsne_fft``): O(N) per iteration plus a fixed grid while the map is
  at most 25 units wide. On a wider map the intervals are wider than half a unit and the
  pairs of points in neighbouring intervals are summed exactly: a fixed fraction of all
  pairs for a given grid, so O(N^2), and since the grid stops growing at 80 intervals
  per axis that fraction stops shrinking (about 9 / 80^2 = 1 / 700 of the pairs, for
  points spread evenly).

``SNE`` is the original conditional method (Gaussian q_{j|i}, exact). Both optimise with
the shared momentum-and-gains gradient descent of ``dr_lib._optimize``.
``TSNE.transform`` places new points into the fixed map, one point at a time. Derived,
checked and measured in book/07_sne_tsne.
"""

from dataclasses import KW_ONLY, dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state

from dr_lib import _tsne_bh, _tsne_fft, graphs, sne
from dr_lib._optimize import Phase, gradient_descent, momentum_phases
from dr_lib._tsne_attraction import attractive_forces, sum_p_log_w
from dr_lib._validation import (
    check_array,
    check_dof,
    check_exact_fits,
    check_gradient_method,
    check_init,
    check_integer,
    check_learning_rate,
    check_perplexity,
    check_positive,
    check_transform_input,
)
from dr_lib.pca import PCA

__all__ = [
    "EXACT_BYTES_PER_PAIR",
    "INIT_STD",
    "KERNEL_WIDTH",
    "NeighbourEmbedding",
    "gradient",
    "initial_coordinates",
    "initial_map",
    "SNE",
    "TSNE",
]

#: Peak memory of the exact method per pair of samples, in bytes (P, the squared
#: distances, the kernel and the pair weights: four N x N float64 arrays, plus
#: temporaries when the cost is evaluated; measured in book/07_sne_tsne).
EXACT_BYTES_PER_PAIR = 48
#: Standard deviation of the first coordinate of the initial map (openTSNE,
#: scikit-learn).
INIT_STD = 1e-4
#: Largest step of one point in one iteration (openTSNE's max_step_norm).
MAX_STEP = 5.0
#: Width of the map kernels of SNE and t-SNE: exp(-d^2) and (1 + d^2)^(-1) fall to half
#: their peak near d = 1. A small gradient ends a phase only once the map's RMS radius
#: is at least this (``gradient_descent``'s ``min_radius``): a map much smaller than its
#: kernel is near the stationary point where all points coincide.
KERNEL_WIDTH = 1.0
#: Perplexity, iterations, learning rate and momentum used by ``TSNE.transform``.
TRANSFORM_PERPLEXITY = 5.0
TRANSFORM_ITER = 250
TRANSFORM_LEARNING_RATE = 0.5
TRANSFORM_MOMENTUM = 0.8
#: SNE's momentum is 0.5 for this many iterations, then 0.8.
SNE_MOMENTUM_SWITCH = 250


# ------------------------------------------------------------------- the gradient


def _sparse_cost_gradient(P, p_log_p, dof, repulsion):
    """The KL cost and gradient for a sparse P, with ``repulsion(Z) -> (s, r)``."""

    def evaluate(Z, exaggeration, compute_cost):
        s, r = repulsion(Z)
        total = s.sum()
        grad = 4.0 * (exaggeration * attractive_forces(P, Z, dof) - r / total)
        cost = None
        if compute_cost:
            cost = float(p_log_p - sum_p_log_w(P, Z, dof).sum() + np.log(total))
        return cost, grad

    return evaluate


def _bh_repulsion(theta, dof):
    def repulsion(Z):
        return _tsne_bh.repulsion(_tsne_bh.build_tree(Z), Z, theta, dof)

    return repulsion


def _fft_repulsion(dof):
    def repulsion(Z):
        return _tsne_fft.repulsion(Z, dof)

    return repulsion


def _cost_gradient_function(P, method, dof, angle):
    """``f(Z, exaggeration, compute_cost) -> (cost, gradient)`` for the optimiser."""
    if method == "exact":
        return lambda Z, rho, want: sne._tsne_cost_gradient(P, Z, dof, rho, want)
    p_log_p = float(np.sum(P.data * np.log(P.data)))
    repulsion = (
        _bh_repulsion(angle, dof) if method == "barnes_hut" else _fft_repulsion(dof)
    )
    return _sparse_cost_gradient(P, p_log_p, dof, repulsion)


def gradient(P, Z, *, method="exact", dof=1.0, angle=0.5, exaggeration=1.0):
    """KL(P || Q) and its gradient at the map ``Z``, by one of the three methods.

    Parameters
    ----------
    P : ndarray or scipy.sparse matrix of shape (n, n)
        Joint probabilities summing to one: dense for ``"exact"``, sparse (e.g.
        ``sne.joint_probabilities(X, method="knn")``) for the others.
    Z : array-like of shape (n, n_components)
    method : {"exact", "barnes_hut", "fft"}, default="exact"
    dof : float, default=1.0
    angle : float, default=0.5
        Barnes–Hut's opening angle theta.
    exaggeration : float, default=1.0

    Returns
    -------
    cost : float
    gradient : ndarray of shape (n, n_components)
    """
    Z = check_array(Z, name="Z", min_samples=2)
    method = check_gradient_method(method, Z.shape[1])
    dof = check_dof(dof)
    angle = check_positive(angle, name="angle", strict=False)
    exaggeration = check_positive(exaggeration, name="exaggeration")
    if method == "exact":
        P = P.toarray() if sp.issparse(P) else P
        return sne.tsne_cost_gradient(P, Z, dof, exaggeration=exaggeration)
    P = sp.csr_matrix(P)
    Z = np.ascontiguousarray(Z)
    return _cost_gradient_function(P, method, dof, angle)(Z, exaggeration, True)


# ------------------------------------------------------------------- the initial map


def initial_coordinates(X, n_components, init, random_state):
    """The unscaled start of a neighbour embedding: a copy of a given map, standard
    Gaussian noise (``init="random"``), or the top principal components (``"pca"``).

    Each method scales it to its own map (:func:`initial_map` here, the data's bandwidth
    in ``dr_lib.nerv``).

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    if isinstance(init, np.ndarray):
        return init.copy()
    if init == "random":
        return check_random_state(random_state).standard_normal((len(X), n_components))
    if n_components > X.shape[1]:
        raise ValueError(
            f"init='pca' needs n_components={n_components} <= n_features = "
            f"{X.shape[1]}; pass init='random' or fewer components."
        )
    return PCA(n_components).fit_transform(X)


def initial_map(X, n_components, init, random_state):
    """The starting map of SNE and t-SNE: :func:`initial_coordinates`, scaled small.

    The first coordinate gets standard deviation ``INIT_STD`` = 1e-4 (as in openTSNE and
    scikit-learn); a map given as an array is used as it is. A small start is not the
    "early compression" of van der Maaten and Hinton (2008), which [S] describes as one:
    that is an L2 penalty on the map's distances from the origin during the early
    iterations, which keeps the map small for as long as it lasts; ``TSNE`` does not use
    it (early exaggeration took its place). See book/07_sne_tsne.

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    Z = initial_coordinates(X, n_components, init, random_state)
    if isinstance(init, np.ndarray):
        return Z
    std = Z[:, 0].std()
    return Z * (INIT_STD / std) if std > 0 else Z


# ------------------------------------------------------------------- estimators


@dataclass(eq=False, repr=False)
class NeighbourEmbedding(TransformerMixin, BaseEstimator):
    """The parameters that SNE, t-SNE, NeRV and ClassNeRV share, declared once.

    scikit-learn reads an estimator's parameters from the signature of its ``__init__``;
    the dataclass writes that ``__init__`` from these fields, and each estimator adds
    its own fields (keyword-only) or gives a field another default. ``n_components`` may
    be passed by position, the rest by name.

    Parameters
    ----------
    n_components : int, default=2
    perplexity : float, default=30.0
        Effective number of neighbours of each point; 0 < perplexity < n_samples - 1.
    learning_rate : float or "auto", default="auto"
        Each estimator says how it scales the step.
    max_iter : int, default=1000
    init : {"pca", "random"} or ndarray of shape (n_samples, n_components),
    default="pca"
    random_state : int, RandomState or None, default=None
        Seeds the random initialisation (``init="random"``); PCA starts are
        deterministic.
    verbose : bool, default=False
        Show a text progress bar with the cost.
    """

    n_components: int = 2
    _: KW_ONLY
    perplexity: float = 30.0
    learning_rate: float | str = "auto"
    max_iter: int = 1000
    init: str | np.ndarray = "pca"
    random_state: int | np.random.RandomState | None = None
    verbose: bool = False

    def fit_transform(self, X, y=None):
        """Fit and return ``embedding_``; see ``fit``."""
        return self.fit(X, y).embedding_


def _fit_common(estimator, X):
    """Validate ``X`` and the parameters shared by SNE and t-SNE; returns X."""
    X = check_array(X, min_samples=4)
    estimator.n_features_in_ = X.shape[1]
    check_integer(estimator.n_components, name="n_components")
    check_perplexity(estimator.perplexity, len(X))
    check_integer(estimator.max_iter, name="max_iter")
    check_learning_rate(estimator.learning_rate)
    return X


@dataclass(eq=False, repr=False, kw_only=True)
class TSNE(NeighbourEmbedding):
    """t-distributed stochastic neighbour embedding.

    Minimises KL(P || Q) between the joint neighbour probabilities of the data, p_ij =
    (p_{j|i} + p_{i|j}) / (2N) ([T] (10-30), (10-31)), and those of the map, q_ij
    proportional to (1 + ||z_i - z_j||^2 / alpha)^(-alpha) ([T] (10-32) with the
    normalisation over all pairs), by gradient descent on [T] (10-34). See
    book/07_sne_tsne.

    Parameters
    ----------
    n_components : int, default=2
    perplexity : float, default=30.0
        Effective number of neighbours of each point; 0 < perplexity < n_samples - 1.
    early_exaggeration : float, default=12.0
        P is multiplied by this during the first ``early_exaggeration_iter`` iterations.
    exaggeration : float, default=1.0
        P is multiplied by this in every iteration after the early phase, as openTSNE's
        ``exaggeration`` does: 1 is t-SNE; a sustained rho > 1 strengthens the
        attraction and moves the map along the attraction–repulsion spectrum, towards
        UMAP-like maps (rho near 4 in Böhm, Berens & Kobak 2022 on 70,000 points, near 2
        on 1,000 digits in book/08b_umap) and the Laplacian eigenmap of P as rho grows,
        up to 1 / ((N - 1) lambda_2), beyond which the map collapses to a point (the
        same chapter). With ``learning_rate="auto"`` the step of that
        phase is N / rho. A rho larger than ``early_exaggeration`` makes the early
        phase the weaker one (openTSNE then raises its early factor to rho).
    learning_rate : float or "auto", default="auto"
        In the convention of openTSNE, FIt-SNE and bhtsne: it multiplies the gradient
        *without* its factor 4 (scikit-learn's learning rate multiplies the full
        gradient, so its numbers are 4 times smaller for the same step). "auto" is N /
        exaggeration in each phase (Belkina et al. 2019), as in openTSNE: N / 12, then
        N / ``exaggeration``. scikit-learn's "auto", max(N / (4 early_exaggeration),
        50), is one rate for both phases: the same step as this one during early
        exaggeration (above its floor), 12 times smaller after it (book/07_sne_tsne,
        "t-SNE in practice").
    max_iter : int, default=1000
        Iterations in total, early exaggeration included.
    init : {"pca", "random"} or ndarray of shape (n_samples, n_components),
    default="pca"
        PCA and random starts are scaled so the first coordinate has std 1e-4.
    method : {"exact", "barnes_hut", "fft"}, default="barnes_hut"
        How the gradient is computed: dense O(N^2) (limited by memory), Barnes–Hut tree
        (maps of 1 to 3 dimensions) or FFT interpolation (1-D and 2-D maps). The last
        two use P over the floor(3 perplexity) nearest neighbours.
    angle : float, default=0.5
        Barnes–Hut's opening angle theta: a cell of side s at distance d counts as one
        point when s / d < theta. 0 is exact (and slow).
    dof : float, default=1.0
        Degrees of freedom alpha of the map kernel (1 + d^2 / alpha)^(-alpha): 1 is
        t-SNE, ``np.inf`` the Gaussian of symmetric SNE, alpha < 1 heavier tails.
    random_state : int, RandomState or None, default=None
        Seeds the random initialisation (``init="random"``); PCA starts are
        deterministic.
    verbose : bool, default=False
        Show a text progress bar with the cost.
    early_exaggeration_iter : int, default=250

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
    kl_divergence_ : float
        KL(P || Q) at the final map (without exaggeration).
    n_iter_ : int
        Iterations run.
    learning_rates_ : tuple of float
        The learning rates of the two phases, in the convention above.
    cost_history_ : list of (int, float)
        KL every 50 iterations.
    affinities_ : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The joint P.
    n_features_in_ : int
    """

    early_exaggeration: float = 12.0
    exaggeration: float = 1.0
    method: str = "barnes_hut"
    angle: float = 0.5
    dof: float = 1.0
    early_exaggeration_iter: int = 250

    def _learning_rate(self, n, exaggeration):
        """The step size on the full gradient (with its 4) for one phase."""
        if self.learning_rate == "auto":
            return n / exaggeration / 4.0
        return self.learning_rate / 4.0

    def _phases(self, n):
        exaggerated = min(
            check_integer(
                self.early_exaggeration_iter, name="early_exaggeration_iter", low=0
            ),
            self.max_iter,
        )
        rho = check_positive(self.early_exaggeration, name="early_exaggeration")
        sustained = check_positive(self.exaggeration, name="exaggeration")
        return [
            Phase(exaggerated, self._learning_rate(n, rho), 0.5, rho),
            Phase(
                self.max_iter - exaggerated,
                self._learning_rate(n, sustained),
                0.8,
                sustained,
            ),
        ]

    def fit(self, X, y=None):
        """Compute P, start from ``init`` and run the two phases of gradient descent.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For NaN/inf, fewer than 4 samples, a perplexity that is not in
            (0, n_samples - 1), an unknown method, ``method="fft"`` with more than two
            components, or ``method="exact"`` on more samples than memory allows.
        """
        X = _fit_common(self, X)
        n = len(X)
        method = check_gradient_method(self.method, self.n_components)
        dof = check_dof(self.dof)
        angle = check_positive(self.angle, name="angle", strict=False)
        init = check_init(self.init, n, self.n_components)
        if method == "exact":
            check_exact_fits(n, EXACT_BYTES_PER_PAIR)
        phases = self._phases(n)
        P = sne.joint_probabilities(
            X, self.perplexity, method="exact" if method == "exact" else "knn"
        )
        Z0 = initial_map(X, self.n_components, init, self.random_state)
        result = gradient_descent(
            Z0,
            _cost_gradient_function(P, method, dof, angle),
            phases,
            max_step=MAX_STEP,
            min_radius=KERNEL_WIDTH,
            verbose=bool(self.verbose),
            desc=f"t-SNE ({method})",
        )
        self.embedding_ = result.embedding
        self.kl_divergence_ = result.cost
        self.n_iter_ = result.n_iter
        self.cost_history_ = result.history
        self.learning_rates_ = tuple(4.0 * phase.learning_rate for phase in phases)
        self.affinities_ = P
        self._fit_X = X.copy()
        return self

    def transform(self, X):
        """Place new points into the fixed map, each on its own.

        Every new point x gets conditional probabilities p_{j|x} over its floor(3 u)
        nearest training points (perplexity u = ``TRANSFORM_PERPLEXITY``), starts at the
        median map position of those neighbours, and moves to minimise KL(P_x || Q_x)
        with q_{j|x} proportional to the map kernel between it and the training points,
        by the same gradient descent. The training map does not move and new points do
        not interact, so the result for a point does not depend on the others passed
        with it. See book/07_sne_tsne.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)

        Returns
        -------
        ndarray of shape (n_new, n_components)
        """
        X = check_transform_input(self, X)
        reference = self.embedding_
        n_train = len(reference)
        perplexity = min(TRANSFORM_PERPLEXITY, (n_train - 1) / 3.0)
        k = sne.neighbour_count(perplexity, n_train + 1)
        distances, indices = graphs._kneighbors(self._fit_X, k, X)
        P, _, _ = sne.calibrate_precisions(distances**2, perplexity)
        P = sp.csr_matrix(
            (P.ravel(), indices.ravel(), np.arange(0, P.size + 1, k)),
            shape=(len(X), n_train),
        )
        Z0 = np.median(reference[indices], axis=1)
        evaluate = _placement_cost_gradient(
            P, reference, check_dof(self.dof), self.method, self.angle
        )
        result = gradient_descent(
            Z0,
            evaluate,
            [Phase(TRANSFORM_ITER, TRANSFORM_LEARNING_RATE, TRANSFORM_MOMENTUM)],
            max_step=MAX_STEP,
            # no early stop on the joint norm: points stay independent
            min_grad_norm=0.0,
            recentre=False,
            verbose=bool(self.verbose),
            desc="t-SNE transform",
        )
        return result.embedding


def _placement_cost_gradient(P, reference, dof, method, angle):
    """Cost sum_x KL(P_x || Q_x) of new points against a fixed map, and its gradient.

    d KL(P_x || Q_x) / dz = 2 sum_j (p_{j|x} - q_{j|x}) w_j^(1/alpha) (z - z_j), with
    q_{j|x} = w(z, z_j) / sum_k w(z, z_k) over the training points (book/07_sne_tsne).
    """
    p_log_p = np.asarray(
        sp.csr_matrix((P.data * np.log(P.data), P.indices, P.indptr), P.shape).sum(1)
    ).ravel()
    tree = None if method == "exact" else _tsne_bh.build_tree(reference)

    def repulsion(Z):
        if tree is not None:
            return _tsne_bh.repulsion(tree, Z, angle, dof, in_tree=False)
        D2 = sne.squared_distances(np.vstack([Z, reference]))[: len(Z), len(Z) :]
        W = sne.student_t_kernel(D2, dof)
        F = W * sne.kernel_force_factor(D2, dof)
        return W.sum(axis=1), F.sum(axis=1)[:, None] * Z - F @ reference

    def evaluate(Z, exaggeration, compute_cost):
        s, r = repulsion(Z)
        attraction = attractive_forces(P, Z, dof, reference)
        grad = 2.0 * (attraction - r / s[:, None])
        cost = None
        if compute_cost:
            per_point = p_log_p - sum_p_log_w(P, Z, dof, reference) + np.log(s)
            cost = float(per_point.sum())
        return cost, grad

    return evaluate


@dataclass(eq=False, repr=False, kw_only=True)
class SNE(NeighbourEmbedding):
    """Stochastic neighbour embedding (Hinton & Roweis 2002), exact.

    Minimises sum_i KL(P_i || Q_i) between the conditional neighbour probabilities of
    the data, p_{j|i} ([T] (10-30)), and those of the map, q_{j|i} proportional to
    exp(-||z_i - z_j||^2), with the gradient
    2 sum_j (p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}) (z_i - z_j) ([B], [S]). O(N^2) time
    and memory per iteration. See book/07_sne_tsne.

    Parameters
    ----------
    n_components : int, default=2
    perplexity : float, default=30.0
    learning_rate : float or "auto", default="auto"
        Multiplies the gradient; "auto" is 1 (a row of P sums to one, so the gradient on
        one point does not shrink with N as t-SNE's does).
    max_iter : int, default=1000
    init : {"pca", "random"} or ndarray, default="pca"
    random_state : int, RandomState or None, default=None
    verbose : bool, default=False

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
    kl_divergence_ : float
        sum_i KL(P_i || Q_i) at the final map.
    n_iter_ : int
    cost_history_ : list of (int, float)
    affinities_ : ndarray of shape (n_samples, n_samples)
        The conditional P (row i is P_i).
    n_features_in_ : int
    """

    def fit(self, X, y=None):
        """Compute the conditional P and minimise sum_i KL(P_i || Q_i).

        Returns
        -------
        self
        """
        X = _fit_common(self, X)
        n = len(X)
        init = check_init(self.init, n, self.n_components)
        check_exact_fits(n, EXACT_BYTES_PER_PAIR)
        rate = 1.0 if self.learning_rate == "auto" else float(self.learning_rate)
        P = sne.conditional_probabilities(X, self.perplexity)
        result = gradient_descent(
            initial_map(X, self.n_components, init, self.random_state),
            lambda Z, _, want: sne._sne_cost_gradient(P, Z, want),
            momentum_phases(self.max_iter, rate, SNE_MOMENTUM_SWITCH),
            max_step=MAX_STEP,
            min_radius=KERNEL_WIDTH,
            verbose=bool(self.verbose),
            desc="SNE",
        )
        self.embedding_ = result.embedding
        self.kl_divergence_ = result.cost
        self.n_iter_ = result.n_iter
        self.cost_history_ = result.history
        self.affinities_ = P
        return self
