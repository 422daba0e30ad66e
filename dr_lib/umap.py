"""UMAP: a fuzzy neighbour graph, embedded by stochastic gradient descent.

Uniform manifold approximation and projection (McInnes, Healy & Melville 2018) in four
parts, each a function of this module:

1. **The graph.** Over the k - 1 nearest neighbours of each point x_i (k =
   ``n_neighbors`` counts the point itself, as umap-learn does), rho_i is the distance
   to the nearest one at a positive distance, and sigma_i solves (:func:`calibrate`)

       sum_j exp(-max(d_ij - rho_i, 0) / sigma_i) = log2 k,

   so that the directed memberships v_{j|i} = exp(-max(d_ij - rho_i, 0) / sigma_i)
   (:func:`memberships`) give the nearest neighbour 1 and add up to log2 k. The fuzzy
   union makes them symmetric: v_ij = v_{j|i} + v_{i|j} - v_{j|i} v_{i|j}
   (:func:`fuzzy_union`, :func:`fuzzy_graph`).
2. **The map kernel** w(d) = 1 / (1 + a d^(2b)), with (a, b) fitted by least squares
   to the curve that is 1 up to ``min_dist`` and exp(-(d - min_dist) / spread) beyond
   (:func:`fit_ab`, :func:`map_kernel`).
3. **The cost**, the fuzzy cross-entropy between the graph and the map,

       C = sum_{i<j} v_ij log(v_ij / w_ij) + (1 - v_ij) log((1 - v_ij) / (1 - w_ij)),

   whose gradient is grad_{y_i} C = sum_j [v_ij c_att(d_ij^2) + (1 - v_ij)
   c_rep(d_ij^2)] (y_i - y_j) with c_att = 2ab d^(2(b-1)) / (1 + a d^(2b)) (attraction)
   and c_rep = -2b / (d^2 (1 + a d^(2b))) (repulsion) (:func:`cross_entropy`).
4. **The optimiser**: not the gradient of C, but stochastic steps over edges sampled in
   proportion to v_ij, each followed by repulsion from a few points drawn at random
   (:func:`optimize_layout`, the loop in ``dr_lib._umap_sgd``). It starts from the
   Laplacian eigenmap of the graph (``dr_lib.laplacian_eigenmaps``; of each component,
   placed apart, when the graph is disconnected), PCA or random points, scaled into a
   box 10 units wide (:func:`initial_map`).

The neighbour search is ``dr_lib.graphs``' exact one (umap-learn searches exactly below
4,096 points and approximately, by nearest-neighbour descent, above). See the UMAP
chapter of the book.
"""

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from scipy.optimize import least_squares
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state

from dr_lib import _umap_sgd
from dr_lib._linalg import fix_signs
from dr_lib._validation import (
    check_array,
    check_init,
    check_integer,
    check_min_dist,
    check_positive,
    check_transform_input,
    check_umap_neighbors,
)
from dr_lib.graphs import _kneighbors, connected_components
from dr_lib.laplacian_eigenmaps import generalized_bottom_eigenpairs
from dr_lib.pca import PCA

__all__ = [
    "SUM_TOL",
    "MAP_SIZE",
    "calibrate",
    "memberships",
    "fuzzy_union",
    "fuzzy_graph",
    "fit_ab",
    "map_kernel",
    "cross_entropy",
    "default_epochs",
    "initial_map",
    "optimize_layout",
    "UMAP",
]

#: The bisection on sigma_i stops when the sum of memberships is this close to log2 k
#: (umap-learn's tolerance) ...
SUM_TOL = 1e-5
#: ... or after this many steps.
MAX_BISECTION_STEPS = 64
#: sigma_i is at least this fraction of the mean distance to the row's neighbours: the
#: floor umap-learn sets for rows whose sum cannot reach log2 k (many duplicates).
MIN_SIGMA_FRACTION = 1e-3
#: Every start is shifted and scaled, the same factor on each axis, so that it fills
#: [0, MAP_SIZE] along its widest axis: the size the rates and the clipping of the
#: optimiser are made for (umap-learn scales each axis to [0, 10]).
MAP_SIZE = 10.0
#: Points on which the default number of epochs drops from 500 to 200 (umap-learn's).
LARGE_GRAPH = 10_000
#: The (a, b) fit samples the target curve at this many points of [0, 3 spread].
AB_GRID_POINTS = 300
#: New points are placed in a third of the fit's epochs, at a quarter of its rate
#: (umap-learn's choice).
TRANSFORM_EPOCH_FRACTION = 1 / 3
TRANSFORM_RATE_FRACTION = 1 / 4


# ---------------------------------------------------------------------- the graph


@njit(cache=True, parallel=True)
def _calibrate_rows(distances, target, tol, max_steps, rho, sigma):
    """rho_i and sigma_i of every row (sorted distances), by bisection on sigma_i.

    The sum s(sigma) = sum_j exp(-max(d_j - rho, 0) / sigma) increases with sigma, from
    the number of neighbours at distance <= rho (sigma -> 0) to their total count
    (sigma -> inf): a sum above the target lowers the upper end of the bracket, one
    below raises the lower end, and sigma doubles until an upper end is known. Rows are
    independent, so the result does not depend on the number of threads.
    """
    n, m = distances.shape
    for i in prange(n):
        row = distances[i]
        nearest = 0.0
        for j in range(m):
            if row[j] > 0.0:
                nearest = row[j]
                break
        lo, hi, s = 0.0, np.inf, 1.0
        for _ in range(max_steps):
            total = 0.0
            for j in range(m):
                excess = row[j] - nearest
                total += np.exp(-excess / s) if excess > 0.0 else 1.0
            if abs(total - target) < tol:
                break
            if total > target:  # too wide: narrow
                hi = s
                s = 0.5 * (lo + hi)
            else:
                lo = s
                s = 2.0 * s if hi == np.inf else 0.5 * (lo + hi)
        rho[i] = nearest
        sigma[i] = max(s, MIN_SIGMA_FRACTION * np.mean(row))


def calibrate(distances, n_neighbors):
    """rho_i and sigma_i of every point: the nearest positive distance, and the width
    that makes the memberships add up to log2 k.

    Solves sum_j exp(-max(d_ij - rho_i, 0) / sigma_i) = log2 k over the row's neighbours
    by bisection (to ``SUM_TOL``); sigma_i is at least ``MIN_SIGMA_FRACTION`` times the
    row's mean distance (rows with many duplicates cannot reach the target).

    Parameters
    ----------
    distances : array-like of shape (n_points, k - 1)
        Distances to each point's nearest neighbours, each row in increasing order
        (the point itself not included).
    n_neighbors : int
        k, which counts the point itself.

    Returns
    -------
    rho, sigma : ndarray of shape (n_points,)
    """
    distances = np.ascontiguousarray(check_array(distances, name="distances"))
    k = check_integer(n_neighbors, name="n_neighbors", low=2)
    rho = np.empty(len(distances))
    sigma = np.empty(len(distances))
    _calibrate_rows(distances, np.log2(k), SUM_TOL, MAX_BISECTION_STEPS, rho, sigma)
    return rho, sigma


def memberships(distances, rho, sigma):
    """v_{j|i} = exp(-max(d_ij - rho_i, 0) / sigma_i): 1 up to the nearest neighbour,
    then decaying with the excess distance in units of sigma_i.

    Returns
    -------
    ndarray of the shape of ``distances``
    """
    excess = np.maximum(distances - rho[:, None], 0.0)
    return np.exp(-excess / sigma[:, None])


def fuzzy_union(V):
    """v_ij = v_{j|i} + v_{i|j} - v_{j|i} v_{i|j} (the probabilistic OR), for a sparse
    matrix V of directed memberships.

    Symmetric; an edge that only one of the two points chose keeps its one membership.

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    V = sp.csr_matrix(V)
    transpose = V.T.tocsr()
    union = (V + transpose - V.multiply(transpose)).tocsr()
    union.eliminate_zeros()
    union.sort_indices()
    return union


def _directed_graph(distances, indices, n_neighbors, n_columns):
    """The directed memberships as a CSR matrix (one row per point), with rho, sigma."""
    rho, sigma = calibrate(distances, n_neighbors)
    V = memberships(distances, rho, sigma)
    n, m = V.shape
    graph = sp.csr_matrix(
        (V.ravel(), indices.ravel(), np.arange(0, n * m + 1, m)), shape=(n, n_columns)
    )
    return graph, rho, sigma


def fuzzy_graph(X, n_neighbors=15):
    """UMAP's fuzzy neighbour graph of the samples, with rho and sigma.

    The k - 1 nearest neighbours of each sample (exact Euclidean search, ties broken
    by index: ``dr_lib.graphs``), their memberships (:func:`calibrate`,
    :func:`memberships`) and the fuzzy union (:func:`fuzzy_union`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_neighbors : int, default=15
        k, counting the point itself: 2 <= k < n_samples.

    Returns
    -------
    graph : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, entries in (0, 1], no diagonal.
    rho, sigma : ndarray of shape (n_samples,)
    """
    X = check_array(X, min_samples=3)
    k = check_umap_neighbors(n_neighbors, len(X))
    distances, indices = _kneighbors(X, k - 1)
    directed, rho, sigma = _directed_graph(distances, indices, k, len(X))
    return fuzzy_union(directed), rho, sigma


# ---------------------------------------------------------------- the map kernel


def map_kernel(d2, a, b):
    """w = 1 / (1 + a d^(2b)) at squared distance ``d2``: UMAP's membership in the
    map."""
    return 1.0 / (1.0 + a * np.asarray(d2, dtype=np.float64) ** b)


def _target_curve(x, min_dist, spread):
    """1 up to ``min_dist``, exp(-(x - min_dist) / spread) beyond."""
    return np.where(x < min_dist, 1.0, np.exp(-(x - min_dist) / spread))


def fit_ab(min_dist=0.1, spread=1.0):
    """(a, b) of the map kernel 1 / (1 + a x^(2b)), fitted to UMAP's target curve.

    Least squares over ``AB_GRID_POINTS`` distances evenly spaced on [0, 3 spread],
    against the curve that is 1 up to ``min_dist`` and exp(-(x - min_dist) / spread)
    beyond, with the Jacobian in closed form: for f = 1 / (1 + a x^(2b)),
    df/da = -x^(2b) f^2 and df/db = -2 a x^(2b) log(x) f^2. The same fit as
    umap-learn's ``find_ab_params`` (which calls ``curve_fit``): (a, b) = (1.577,
    0.895) for the defaults.

    Parameters
    ----------
    min_dist : float, default=0.1
        0 <= min_dist <= spread.
    spread : float, default=1.0

    Returns
    -------
    a, b : float
    """
    min_dist, spread = check_min_dist(min_dist, spread)
    x = np.linspace(0.0, 3.0 * spread, AB_GRID_POINTS)
    y = _target_curve(x, min_dist, spread)
    positive = x > 0
    log_x = np.zeros_like(x)
    log_x[positive] = np.log(x[positive])

    def residuals(params):
        a, b = params
        return 1.0 / (1.0 + a * x ** (2 * b)) - y

    def jacobian(params):
        a, b = params
        power = x ** (2 * b)
        f2 = (1.0 / (1.0 + a * power)) ** 2
        return np.column_stack([-power * f2, -2.0 * a * power * log_x * f2])

    fit = least_squares(
        residuals, x0=[1.0, 1.0], jac=jacobian, xtol=1e-12, ftol=1e-12, gtol=1e-12
    )
    return float(fit.x[0]), float(fit.x[1])


# --------------------------------------------------------------------- the cost


def cross_entropy(graph, Y, a, b):
    """The fuzzy cross-entropy between the graph and the map, and its gradient: exact,
    over all pairs, O(N^2) (for checks on small maps; the fit samples it instead).

    C = sum_{i<j} v_ij log(v_ij / w_ij) + (1 - v_ij) log((1 - v_ij) / (1 - w_ij)), with
    0 log 0 = 0 and w_ij = 1 / (1 + a d_ij^(2b)), and

        grad_{y_i} C = sum_{j != i} [v_ij c_att(d_ij^2) + (1 - v_ij) c_rep(d_ij^2)]
                       (y_i - y_j),

    c_att = 2ab d^(2(b-1)) / (1 + a d^(2b)), c_rep = -2b / (d^2 (1 + a d^(2b))) (the
    coefficients of ``dr_lib._umap_sgd`` with epsilon = 0). Distinct points only.

    Parameters
    ----------
    graph : sparse matrix or array-like of shape (n, n)
        Symmetric memberships v_ij in [0, 1], zero diagonal.
    Y : array-like of shape (n, n_components)
    a, b : float

    Returns
    -------
    cost : float
    gradient : ndarray of shape (n, n_components)
    """
    Y = check_array(Y, name="Y", min_samples=2)
    V = graph.toarray() if sp.issparse(graph) else check_array(graph, name="graph")
    diff = Y[:, None, :] - Y[None, :, :]
    d2 = np.einsum("ijk,ijk->ij", diff, diff)
    off = ~np.eye(len(Y), dtype=bool)
    d2_off = np.where(off, d2, 1.0)
    t = d2_off**b
    w = 1.0 / (1.0 + a * t)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_v = np.where(V > 0, np.log(np.where(V > 0, V, 1.0)), 0.0)
        log_not_v = np.where(V < 1, np.log(np.where(V < 1, 1.0 - V, 1.0)), 0.0)
    terms = V * (log_v - np.log(w)) + (1.0 - V) * (log_not_v - np.log1p(-w))
    cost = 0.5 * float(terms[off].sum())
    c_att = 2.0 * a * b * (t / d2_off) / (1.0 + a * t)
    c_rep = -2.0 * b / (d2_off * (1.0 + a * t))
    M = np.where(off, V * c_att + (1.0 - V) * c_rep, 0.0)
    return cost, M.sum(axis=1)[:, None] * Y - M @ Y


# ------------------------------------------------------------------ the optimiser


def default_epochs(n_samples):
    """500 epochs up to ``LARGE_GRAPH`` points, 200 beyond (umap-learn's default)."""
    return 500 if n_samples <= LARGE_GRAPH else 200


def _edges(graph, n_epochs):
    """Heads, tails and per-epoch probabilities of the edges that are ever sampled.

    p_e = v_e / max v; an edge with N p_e < 1 is never sampled in N epochs and is left
    out.
    """
    graph = sp.csr_matrix(graph)
    heads = np.repeat(np.arange(graph.shape[0], dtype=np.int64), np.diff(graph.indptr))
    tails = graph.indices.astype(np.int64)
    probability = graph.data / graph.data.max()
    kept = n_epochs * probability >= 1.0
    return heads[kept], tails[kept], np.ascontiguousarray(probability[kept])


def _seed(random_state):
    """An integer seed for the optimiser's generator, drawn from ``random_state``."""
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def _run(head_map, tail_map, edges, n_epochs, settings, state, verbose, desc):
    """All epochs, in one call, or epoch by epoch behind a progress bar."""
    heads, tails, probability = edges
    a, b, rate, negatives, move_tails = settings
    chunks = [(0, n_epochs)]
    bar = None
    if verbose:
        from tqdm import tqdm  # text mode: no widgets in the built pages

        chunks = [(n, n + 1) for n in range(n_epochs)]
        bar = tqdm(total=n_epochs, desc=desc, unit="epoch")
    for first, last in chunks:
        _umap_sgd.run_epochs(
            head_map, tail_map, heads, tails, probability, first, last, n_epochs,
            a, b, rate, negatives, move_tails, state,
        )  # fmt: skip
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()


def optimize_layout(
    graph,
    Y0,
    *,
    a,
    b,
    n_epochs,
    learning_rate=1.0,
    negative_sample_rate=5,
    random_state=None,
    verbose=False,
):
    """UMAP's stochastic gradient descent on the map, from ``Y0``.

    Every epoch n = 1, ..., N visits the edges row by row; an edge of weight v_ij is
    sampled when floor(n p) > floor((n - 1) p), p = v_ij / max v (so floor(N p) times
    in all); a sample moves y_i and y_j towards each other along -grad (-log w_ij) and
    then y_i away from ``negative_sample_rate`` random points m along
    -grad (-log(1 - w_im)), each coordinate of each gradient clipped to [-4, 4], at the
    rate learning_rate (1 - (n - 1) / N). See ``dr_lib._umap_sgd``.

    Parameters
    ----------
    graph : sparse matrix of shape (n, n)
        Symmetric memberships (e.g. :func:`fuzzy_graph`).
    Y0 : array-like of shape (n, n_components)
        The start (not modified).
    a, b : float
        The map kernel (:func:`fit_ab`).
    n_epochs : int
    learning_rate : float, default=1.0
    negative_sample_rate : int, default=5
        Points drawn at random per sampled edge; 0 switches the repulsion off.
    random_state : int, RandomState or None, default=None
        Seeds the draws of the negative samples.
    verbose : bool, default=False
        Show a text progress bar.

    Returns
    -------
    ndarray of shape (n, n_components)
    """
    Y = np.array(check_array(Y0, name="Y0"), dtype=np.float64, order="C")
    n_epochs = check_integer(n_epochs, name="n_epochs")
    settings = (
        float(a),
        float(b),
        check_positive(learning_rate, name="learning_rate"),
        check_integer(negative_sample_rate, name="negative_sample_rate", low=0),
        True,
    )
    state = _umap_sgd.seed_state(_seed(random_state))
    edges = _edges(graph, n_epochs)
    _run(Y, Y, edges, n_epochs, settings, state, verbose, "UMAP")
    return Y


# ---------------------------------------------------------------- the initial map


def _scaled(Y):
    """``Y`` shifted to start at 0 on every axis, scaled to ``MAP_SIZE`` along its
    widest axis (the same factor on every axis), and rounded to single precision.

    The rounding (umap-learn's start is single precision too) absorbs the round-off
    by which an eigen-solver or PCA differs between BLAS thread counts and kernels
    (1e-15 of the map's size, against a grid of 6e-8): the optimiser, which would
    amplify any difference, starts from the same map.
    """
    Y = Y - Y.min(axis=0)
    width = Y.max()
    Y = Y * (MAP_SIZE / width) if width > 0 else Y
    return Y.astype(np.float32).astype(np.float64)


#: On a disconnected graph, each component's own layout is scaled to this fraction of
#: the distance between the two nearest component centres (its radius), so that the
#: components start apart.
COMPONENT_RADIUS = 0.25


def _unit_radius(Y):
    """``Y`` centred on its mean and scaled so that its farthest point is at distance 1
    (left as it is when all its points coincide)."""
    Y = Y - Y.mean(axis=0)
    radius = np.sqrt((Y**2).sum(axis=1)).max()
    return Y / radius if radius > 0 else Y


def _principal_coordinates(points, n_components):
    """The rows of ``points`` on their top ``n_components`` principal axes (zeros
    beyond the rank), signs fixed."""
    centred = points - points.mean(axis=0)
    _, _, Vt = np.linalg.svd(centred, full_matrices=False)
    coords = np.zeros((len(points), n_components))
    kept = min(n_components, Vt.shape[0])
    coords[:, :kept] = fix_signs(centred @ Vt[:kept].T)
    return coords


def _spectral_start(X, graph, n_components):
    """The Laplacian eigenmap of the graph; of each component, on a disconnected one.

    A connected graph: eigenvectors 2, ..., n_components + 1 of L f = lambda D f
    (``dr_lib.laplacian_eigenmaps``). A disconnected graph has one eigenvalue 0 per
    component (their indicators are the eigenvectors), so no map of the whole: each
    component gets the Laplacian eigenmap of its own subgraph (a component with too
    few points for one, n_components + 1 or fewer, its data's principal coordinates),
    scaled to radius ``COMPONENT_RADIUS``, and is centred where the principal
    coordinates of the components' means put it, scaled so that the nearest two
    centres are 1 apart.
    """
    count, labels = connected_components(graph)
    if count == 1:
        _, F = generalized_bottom_eigenpairs(graph, n_components + 1, factorise=False)
        return F[:, 1:]
    means = np.array([X[labels == c].mean(axis=0) for c in range(count)])
    centres = _principal_coordinates(means, n_components)
    gaps = np.sqrt(((centres[:, None] - centres[None]) ** 2).sum(-1))
    nearest = gaps[~np.eye(count, dtype=bool)].min()
    centres /= nearest if nearest > 0 else 1.0
    Y = np.empty((len(X), n_components))
    for c in range(count):
        members = np.flatnonzero(labels == c)
        if len(members) > n_components + 1:
            sub = graph[members][:, members]
            _, F = generalized_bottom_eigenpairs(sub, n_components + 1, factorise=False)
            local = F[:, 1:]
        else:
            local = _principal_coordinates(X[members], n_components)
        Y[members] = centres[c] + COMPONENT_RADIUS * _unit_radius(local)
    return Y


def initial_map(X, graph, n_components, init, random_state):
    """The start of the optimiser, scaled into [0, ``MAP_SIZE``].

    ``"spectral"``: the Laplacian eigenmap of the fuzzy graph, eigenvectors 2, ...,
    n_components + 1 of L f = lambda D f (``dr_lib.laplacian_eigenmaps``), or of each
    of its components, placed apart, on a disconnected graph; ``"pca"``: the top
    principal components of X; ``"random"``: uniform in the box; an array: used as
    given, then scaled like the others.

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    if isinstance(init, np.ndarray):
        return _scaled(init)
    if init == "random":
        rng = check_random_state(random_state)
        return _scaled(rng.uniform(0.0, MAP_SIZE, size=(len(X), n_components)))
    if init == "pca":
        if n_components > X.shape[1]:
            raise ValueError(
                f"init='pca' needs n_components={n_components} <= n_features = "
                f"{X.shape[1]}; pass init='spectral' or init='random'."
            )
        return _scaled(PCA(n_components).fit_transform(X))
    return _scaled(_spectral_start(X, graph, n_components))


# ------------------------------------------------------------------- the estimator


class UMAP(TransformerMixin, BaseEstimator):
    """Uniform manifold approximation and projection (McInnes, Healy & Melville 2018).

    Builds the fuzzy neighbour graph of the data (:func:`fuzzy_graph`), fits the map
    kernel 1 / (1 + a d^(2b)) to ``min_dist`` and ``spread`` (:func:`fit_ab`), and
    lays the graph out by UMAP's stochastic gradient descent on the fuzzy
    cross-entropy (:func:`optimize_layout`). See the UMAP chapter of the book.

    Parameters
    ----------
    n_neighbors : int, default=15
        k, the size of each point's neighbourhood, counting the point itself (as
        umap-learn does): 2 <= k < n_samples.
    n_components : int, default=2
    min_dist : float, default=0.1
        The distance up to which the map's kernel stays near 1: how tightly points may
        pack. 0 <= min_dist <= spread.
    spread : float, default=1.0
        The scale of the kernel's decay beyond ``min_dist``.
    n_epochs : int or None, default=None
        None: 500 up to 10,000 samples, 200 beyond.
    learning_rate : float, default=1.0
        The rate of the first epoch; it decays linearly to 0.
    negative_sample_rate : int, default=5
        Random points each sampled edge pushes its head away from; 0: no repulsion.
    init : {"spectral", "pca", "random"} or ndarray of shape (n_samples,
    n_components), default="spectral"
        The start, scaled into a box 10 units wide (:func:`initial_map`): the
        Laplacian eigenmap of the graph (of each component, placed apart, when the
        graph is disconnected), the principal components, or uniform random points.
    random_state : int, RandomState or None, default=None
        Seeds the random start and the negative samples. The same seed gives the same
        map, whatever the number of threads.
    verbose : bool, default=False
        Show a text progress bar over the epochs.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
    graph_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The fuzzy graph v_ij.
    rho_, sigma_ : ndarray of shape (n_samples,)
        Each point's distance to its nearest neighbour and its width.
    a_, b_ : float
        The map kernel.
    n_epochs_ : int
        The epochs run.
    n_features_in_ : int
    """

    def __init__(
        self,
        n_neighbors=15,
        n_components=2,
        *,
        min_dist=0.1,
        spread=1.0,
        n_epochs=None,
        learning_rate=1.0,
        negative_sample_rate=5,
        init="spectral",
        random_state=None,
        verbose=False,
    ):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.min_dist = min_dist
        self.spread = spread
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.negative_sample_rate = negative_sample_rate
        self.init = init
        self.random_state = random_state
        self.verbose = verbose

    def _settings(self, n_samples):
        """Validated (k, epochs, rate, negatives, a, b) for ``n_samples`` points."""
        k = check_umap_neighbors(self.n_neighbors, n_samples)
        epochs = (
            default_epochs(n_samples)
            if self.n_epochs is None
            else check_integer(self.n_epochs, name="n_epochs")
        )
        rate = check_positive(self.learning_rate, name="learning_rate")
        negatives = check_integer(
            self.negative_sample_rate, name="negative_sample_rate", low=0
        )
        a, b = fit_ab(self.min_dist, self.spread)
        return k, epochs, rate, negatives, a, b

    def fit(self, X, y=None):
        """Build the fuzzy graph of ``X`` and lay it out; ``y`` is ignored.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For NaN/inf, fewer than 3 samples, n_neighbors outside [2, n_samples - 1],
            min_dist > spread, a negative min_dist, a spread, learning rate or number
            of epochs that is not positive, an unknown init, or a PCA start with more
            components than features.
        """
        X = check_array(X, min_samples=3, copy=True)
        n = len(X)
        k, epochs, rate, negatives, a, b = self._settings(n)
        n_components = check_integer(self.n_components, name="n_components")
        init = check_init(
            self.init, n, n_components, options=("spectral", "pca", "random")
        )
        distances, indices = _kneighbors(X, k - 1)
        directed, rho, sigma = _directed_graph(distances, indices, k, n)
        graph = fuzzy_union(directed)
        seed = check_random_state(self.random_state)
        Y = np.array(initial_map(X, graph, n_components, init, seed), order="C")
        state = _umap_sgd.seed_state(_seed(seed))
        self._transform_seed = _seed(seed)
        _run(
            Y,
            Y,
            _edges(graph, epochs),
            epochs,
            (a, b, rate, negatives, True),
            state,
            bool(self.verbose),
            "UMAP",
        )
        self.embedding_ = Y
        self.graph_ = graph
        self.rho_, self.sigma_ = rho, sigma
        self.a_, self.b_ = a, b
        self.n_epochs_ = epochs
        self.n_features_in_ = X.shape[1]
        self._fit_X = X
        self._placement = (k, rate, negatives)  # what transform needs of the settings
        return self

    def fit_transform(self, X, y=None):
        """Fit and return :attr:`embedding_`."""
        return self.fit(X).embedding_

    def transform(self, X):
        """Place new points into the fixed map.

        Each new point x gets memberships to its k - 1 nearest training points by the
        fit's formula (rho, sigma and v_{j|x} of :func:`calibrate`), starts at the
        membership-weighted mean of their map positions, and moves by the fit's
        stochastic gradient descent with the training map fixed: attraction along its
        own edges, repulsion from training points drawn at random, for a third of the
        fit's epochs at a quarter of its rate (``TRANSFORM_EPOCH_FRACTION``,
        ``TRANSFORM_RATE_FRACTION``). New points do not interact, and each draws its
        negative samples from its own stream, seeded at fit and keyed by its nearest
        training points: a point's place does not depend on the others passed with
        it.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)

        Returns
        -------
        ndarray of shape (n_new, n_components)
        """
        X = check_transform_input(self, X)
        k, rate, negatives = self._placement
        n_train = len(self._fit_X)
        distances, indices = _kneighbors(self._fit_X, k - 1, X)
        V, _, _ = _directed_graph(distances, indices, k, n_train)
        weights = V.data.reshape(len(X), k - 1)
        Z = np.einsum("ij,ijk->ik", weights, self.embedding_[indices])
        Z = np.ascontiguousarray(Z / weights.sum(axis=1, keepdims=True))
        epochs = max(1, int(self.n_epochs_ * TRANSFORM_EPOCH_FRACTION))
        settings = (self.a_, self.b_, rate * TRANSFORM_RATE_FRACTION, negatives, False)
        reference = np.array(self.embedding_, order="C")  # writable, even unpickled
        state = _umap_sgd.stream_seeds(self._transform_seed, indices.astype(np.int64))
        _run(Z, reference, _edges(V, epochs), epochs, settings, state, False, "")
        return Z
