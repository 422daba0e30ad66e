"""Laplacian eigenmaps: keep graph neighbours close by solving L f = λ D f.

Implements [T] (10-27)–(10-29) and the algorithm of [B] (heat-kernel or 0/1 weights on a
k-nearest-neighbour graph, then the generalised eigenproblem L f = λ D f); see
book/06_laplacian_eigenmaps. The method is due to Belkin and Niyogi (2003).
"""

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from sklearn.base import BaseEstimator, TransformerMixin

from dr_lib._linalg import (
    ITERATIVE_MIN_SIZE,
    MAX_LANCZOS_ITER,
    bottom_eigenpairs,
    bottom_eigenpairs_plain,
    complement_of_null_vector,
    fix_signs,
)
from dr_lib._validation import (
    check_array,
    check_connected,
    check_in,
    check_integer,
    check_n_neighbors,
    check_positive,
)
from dr_lib.graphs import _degrees, _kneighbors, _knn_graph, _symmetric_laplacian

__all__ = [
    "binary_weights",
    "heat_kernel_weights",
    "default_heat_parameter",
    "generalized_bottom_eigenpairs",
    "LaplacianEigenmaps",
]

#: Shift of the shift-invert Lanczos iteration: slightly below the exact eigenvalue 0 of
#: a graph Laplacian, so that L - σI is non-singular (the value scikit-learn's
#: SpectralEmbedding uses for its "amg" solver).
SHIFT = -1e-5


def binary_weights(graph):
    """The "simple-minded" weights of [B]: w_ij = 1 on every edge of ``graph``, else 0.

    Parameters
    ----------
    graph : scipy.sparse matrix of shape (n, n)
        A neighbour graph; its stored entries are the edges.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n)
    """
    W = graph.tocsr(copy=True)
    W.data = np.ones_like(W.data)
    return W


def heat_kernel_weights(graph, t):
    """Heat-kernel weights w_ij = exp(-‖x_i − x_j‖² / t) on the edges of ``graph``.

    [T] (10-27) writes σ² for t, [B] writes t; see book/06_laplacian_eigenmaps.

    Parameters
    ----------
    graph : scipy.sparse matrix of shape (n, n)
        Edge weights are Euclidean distances, as from ``knn_graph(mode="distance")``.
    t : float
        The width, t > 0. Weights of edges much longer than sqrt(t) vanish.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n)
        Same edges as ``graph``; non-edges stay zero (not exp(0) = 1).
    """
    t = check_positive(t, name="t")
    W = graph.tocsr(copy=True)
    W.data = np.exp(-(W.data**2) / t)
    return W


def default_heat_parameter(graph):
    """The default width t: the mean squared edge length of the neighbour graph.

    With it a typical edge gets the weight exp(-1) ≈ 0.37, the shortest ones nearly 1.
    Belkin and Niyogi leave t free; this choice makes the method invariant to scaling X.
    """
    squared = graph.tocsr().data ** 2
    if not squared.size or squared.mean() == 0:
        raise ValueError(
            "t cannot default to the mean squared edge length, which is 0 (all "
            "neighbours coincide); remove duplicate points or pass t > 0 explicitly."
        )
    return float(squared.mean())


def _dense_bottom(L_sym, k):
    """The ``k`` smallest eigenpairs of a Laplacian by LAPACK, exactly."""
    return eigh(L_sym.toarray(), subset_by_index=(0, k - 1))


def _bottom_of_symmetric_laplacian(L_sym, k, factorise):
    """The ``k`` smallest eigenvectors of I − D^{-1/2} W D^{-1/2} (as columns)."""
    if L_sym.shape[0] <= ITERATIVE_MIN_SIZE:
        return _dense_bottom(L_sym, k)[1]
    if not factorise:
        # the spectrum of the normalised Laplacian lies in [0, 2]
        found = bottom_eigenpairs_plain(L_sym, k, 2.0, maxiter=MAX_LANCZOS_ITER)
        if found is not None:
            return found[1]
    return bottom_eigenpairs(L_sym, k, shift=SHIFT, what="the normalised Laplacian")[1]


def generalized_bottom_eigenpairs(W, k, *, factorise=True):
    """The ``k`` smallest solutions of L f = λ D f for the affinity matrix ``W``.

    With u = D^{1/2} f the problem becomes the symmetric one
    (I − D^{-1/2} W D^{-1/2}) u = λ u, so f = D^{-1/2} u; unit u gives fᵀ D f = 1 and
    distinct f are D-orthogonal, the constraint Zᵀ D Z = I of [T] (10-29). The first
    solution is the constant vector with λ = 0. See book/06_laplacian_eigenmaps.

    Parameters
    ----------
    W : scipy.sparse matrix of shape (n, n)
        Symmetric non-negative affinities of a connected graph.
    k : int
        Number of pairs, k < n.
    factorise : bool, default=True
        How a large problem is solved: shift-invert Lanczos on a sparse LU of the
        Laplacian (robust where the bottom eigenvalues crowd at 0, as on a swiss roll),
        or, with False, plain Lanczos first (no factorisation: several times faster on
        a graph that mixes well, such as UMAP's graph of MNIST) and shift-invert only
        if it does not converge. Both are accurate to machine precision.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        0 = λ_0 ≤ λ_1 ≤ ... (increasing).
    F : ndarray of shape (n, k)
        The generalised eigenvectors as columns, signs fixed by ``fix_signs``.
    """
    W = sp.csr_matrix(W, dtype=np.float64)
    degrees = _degrees(W)
    L_sym = _symmetric_laplacian(W, degrees)
    U = _bottom_of_symmetric_laplacian(L_sym, k, factorise)
    # The trivial solution u_0 = D^{1/2} 1 is known exactly: keep it, and take the
    # others in its complement, so that every f_j is D-orthogonal to 1 to machine
    # precision.
    root_degrees = np.sqrt(degrees)
    eigenvalues, U = complement_of_null_vector(L_sym, U, root_degrees)
    eigenvalues = np.concatenate([[0.0], eigenvalues])
    U = np.column_stack([root_degrees / np.linalg.norm(root_degrees), U])
    return eigenvalues, fix_signs(U / root_degrees[:, None])


class LaplacianEigenmaps(TransformerMixin, BaseEstimator):
    """Laplacian eigenmaps (Belkin and Niyogi).

    Builds the symmetrised k-nearest-neighbour graph (an edge when either point is among
    the other's neighbours), weights its edges by the heat kernel ([T] (10-27)) or by 1
    ([B]'s simple-minded weights), and minimises Σ_ij w_ij ‖z_i − z_j‖² = 2 tr(Zᵀ L Z)
    subject to Zᵀ D Z = I ([T] (10-28)–(10-29)). The solution is given by the
    generalised eigenvectors L f = λ D f ([B]) with the smallest non-zero λ; the
    constant eigenvector (λ = 0) is dropped. See book/06_laplacian_eigenmaps.

    Parameters
    ----------
    n_neighbors : int, default=10
        Neighbours per point in the k-nearest-neighbour graph.
    n_components : int, default=2
        Dimension of the embedding, at most n_samples − 2.
    weights : {"heat", "binary"}, default="heat"
        Edge weights: exp(−‖x_i − x_j‖² / t), or 1.
    t : float, optional
        Width of the heat kernel; ``None`` means the mean squared edge length of the
        graph (see :func:`default_heat_parameter`). Ignored for ``weights="binary"``.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        The generalised eigenvectors f_1, ..., f_{n_components}; embedding_ᵀ D
        embedding_ = I.
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The weights W.
    eigenvalues_ : ndarray of shape (n_components,)
        λ_1 ≤ ... ≤ λ_{n_components} of the kept eigenvectors (λ_0 = 0 is dropped).
    t_ : float or None
        The heat-kernel width used (None for binary weights).
    n_features_in_ : int
        Number of features seen in :meth:`fit`.

    Notes
    -----
    scikit-learn's ``SpectralEmbedding`` solves the same problem (normalised Laplacian,
    then division by sqrt(degree)), but its default affinity is the 0/1 kNN graph
    symmetrised as (A + Aᵀ)/2, with weight 1/2 on one-sided edges.
    """

    def __init__(self, n_neighbors=10, n_components=2, *, weights="heat", t=None):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.weights = weights
        self.t = t

    def _affinity(self, graph):
        """The weight matrix W on the edges of ``graph``, and the heat width used."""
        if self.weights == "binary":
            return binary_weights(graph), None
        t = default_heat_parameter(graph) if self.t is None else self.t
        return heat_kernel_weights(graph, t), t

    def fit(self, X, y=None):
        """Embed ``X``; ``y`` is ignored."""
        X = check_array(X, min_samples=3)
        n_neighbors = check_n_neighbors(self.n_neighbors, len(X))
        n_components = check_integer(
            self.n_components, name="n_components", high=len(X) - 2
        )
        check_in(self.weights, ("heat", "binary"), name="weights")
        _, neighbors = _kneighbors(X, n_neighbors)
        graph = _knn_graph(X, neighbors, mode="distance", symmetrize="max")
        check_connected(graph, n_neighbors=n_neighbors)
        W, self.t_ = self._affinity(graph)
        eigenvalues, F = generalized_bottom_eigenpairs(W, n_components + 1)
        self.n_features_in_ = X.shape[1]
        self.affinity_matrix_ = W
        self.eigenvalues_ = eigenvalues[1:]
        self.embedding_ = F[:, 1:]
        return self

    def fit_transform(self, X, y=None):
        """Fit and return :attr:`embedding_`."""
        return self.fit(X).embedding_
