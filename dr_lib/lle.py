"""Locally linear embedding and its variants: modified LLE, Hessian LLE and LTSA.

Every method builds a sparse, symmetric, positive semi-definite N x N matrix M from
local blocks, one per neighbourhood, and embeds the points with the bottom eigenvectors
of M, dropping the constant one. Standard LLE implements [T] (10-19)-(10-26) and
Algorithm 10-2 ([W] 式(10.27)-(10.31)) with the sign of [T] (10-22) corrected; the
variants are the three that [B] names. See book/05_lle.
"""

import numpy as np
from scipy.linalg import eigh, qr, svd
from scipy.sparse import coo_matrix
from sklearn.base import BaseEstimator, TransformerMixin

from dr_lib._linalg import bottom_eigenpairs, complement_of_null_vector, fix_signs
from dr_lib._validation import (
    check_array,
    check_in,
    check_integer,
    check_n_components,
    check_n_neighbors,
    check_neighbor_indices,
    check_positive,
    check_transform_input,
)
from dr_lib.graphs import _kneighbors

__all__ = [
    "barycenter_weights",
    "embedding_matrix",
    "bottom_eigenvectors",
    "LocallyLinearEmbedding",
]

METHODS = ("standard", "modified", "hessian", "ltsa")

#: Up to this many samples the bottom eigenvectors come from a dense LAPACK call; above
#: it from ARPACK in shift-invert mode on the sparse M.
DENSE_MAX_SAMPLES = 500


def _affine_weights(points, neighbourhoods, reg):
    """Weights w (summing to one) that best rebuild each point from its neighbourhood.

    ``points`` has shape (n, D) and ``neighbourhoods`` (n, K, D). Solves
    (C + r I) w ∝ 1 with the local Gram matrix C_jk = (x_j - x_i)ᵀ(x_k - x_i) and
    r = reg · tr(C) (r = reg when tr(C) = 0), then rescales w to sum to one.
    """
    n, k = neighbourhoods.shape[:2]
    differences = neighbourhoods - points[:, None, :]
    gram = differences @ differences.transpose(0, 2, 1)
    trace = np.trace(gram, axis1=1, axis2=2)
    gram += np.where(trace > 0, reg * trace, reg)[:, None, None] * np.eye(k)
    try:
        w = np.linalg.solve(gram, np.ones((n, k, 1)))[..., 0]
    except np.linalg.LinAlgError:
        raise ValueError(
            f"the local Gram matrix is singular (n_neighbors={k} exceeds the local "
            f"dimension, or neighbours coincide) and reg={reg} does not regularise it; "
            f"pass reg > 0, e.g. reg=1e-3."
        ) from None
    return w / w.sum(axis=1, keepdims=True)


def barycenter_weights(X, neighbors, reg=1e-3):
    """Reconstruction weights of every point from its neighbours, [T] (10-22) corrected.

    w_i = C_i⁻¹ 1 / (1ᵀ C_i⁻¹ 1) with the local Gram matrix
    (C_i)_jk = (x_i − x_j)ᵀ(x_i − x_k) ([W] 式(10.28)). As in scikit-learn, C_i is
    replaced by C_i + reg · tr(C_i) · I, which makes it invertible when n_neighbors
    exceeds the local dimension; ``reg=0`` gives the exact weights when C_i is
    invertible. See book/05_lle.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    neighbors : array-like of int, shape (n_samples, n_neighbors)
        ``neighbors[i]`` are the indices of the points that rebuild ``X[i]``.
    reg : float, default=1e-3
        Regularisation, relative to the trace of each local Gram matrix.

    Returns
    -------
    ndarray of shape (n_samples, n_neighbors)
        Row i holds the weights of ``X[neighbors[i]]``; every row sums to one.
    """
    X = check_array(X)
    neighbors = check_neighbor_indices(neighbors, len(X))
    reg = check_positive(reg, name="reg", strict=False)
    return _affine_weights(X, X[neighbors], reg)


def _standard_blocks(X, neighbors, reg):
    """Blocks e eᵀ on {i} ∪ N_i with e = (−1, w_i): they add up to (I − W)ᵀ(I − W)."""
    w = _affine_weights(X, X[neighbors], reg)
    e = np.hstack([-np.ones((len(X), 1)), w])[:, :, None]
    return e @ e.transpose(0, 2, 1)


def _local_frame(X_local):
    """Left singular vectors and squared singular values (zero-padded to K) of K
    points."""
    u, s, _ = svd(X_local, full_matrices=True)
    variances = np.zeros(len(X_local))
    variances[: len(s)] = s**2
    return u, variances


def _modified_blocks(X, neighbors, n_components, reg):
    """Blocks E Eᵀ on {i} ∪ N_i for modified LLE (Zhang & Wang's multiple weights).

    Each point gets s_i weight vectors instead of one: the regularised LLE weights plus
    vectors from the "almost null" eigen-space of the local Gram matrix, mixed by a
    Householder reflection so that every one of them sums to one. s_i is the number of
    trailing local variances whose share stays below η, the median over points of
    (variance beyond n_components) / (variance within n_components).
    """
    frames = [_local_frame(X[nbrs] - x) for x, nbrs in zip(X, neighbors)]
    variances = np.array([v for _, v in frames])
    k = neighbors.shape[1]
    eta = np.median(
        variances[:, n_components:].sum(1) / variances[:, :n_components].sum(1)
    )
    head = np.cumsum(variances, axis=1)[:, :-1]
    tail_share = variances.sum(1, keepdims=True) / head - 1
    sizes = np.sum(tail_share < eta, axis=1)
    blocks = np.zeros((len(X), k + 1, k + 1))
    for i, ((u, var), s_i) in enumerate(zip(frames, sizes)):
        ridge = reg * var.sum()
        w_reg = u @ ((u.T @ np.ones(k)) / (var + ridge))
        w_reg /= w_reg.sum()
        V = u[:, k - s_i :]
        alpha = np.linalg.norm(V.sum(0)) / np.sqrt(s_i)
        h = alpha - V.sum(0)
        norm = np.linalg.norm(h)
        h = h / norm if norm > 1e-12 else 0 * h
        weights = V - 2 * np.outer(V @ h, h) + (1 - alpha) * w_reg[:, None]
        E = np.vstack([-np.ones(s_i), weights])
        blocks[i] = E @ E.T
    return blocks


def _hessian_blocks(X, neighbors, n_components):
    """Blocks H Hᵀ on N_i for Hessian LLE (Donoho & Grimes).

    In local tangent coordinates t (the top left singular vectors of the centred
    neighbourhood), the columns of Q after 1, t_1, ..., t_d in a QR factorisation of
    [1, t, t_j t_k (j <= k)] are orthogonal to every affine function of t; their
    quadratic form estimates the Hessian of a function on the patch. As scikit-learn
    does, all those columns are kept and each is scaled by its sum (when not tiny).
    """
    d = n_components
    blocks = []
    for nbrs in neighbors:
        patch = X[nbrs] - X[nbrs].mean(0)
        t = svd(patch, full_matrices=False)[0][:, :d]
        products = [t[:, j] * t[:, k] for j in range(d) for k in range(j, d)]
        Y = np.column_stack([np.ones(len(nbrs)), t, *products])
        H = qr(Y)[0][:, d + 1 :]
        sums = H.sum(0)
        H = H / np.where(np.abs(sums) < 1e-4, 1.0, sums)
        blocks.append(H @ H.T)
    return np.array(blocks)


def _ltsa_blocks(X, neighbors, n_components):
    """Blocks I − G Gᵀ on N_i for LTSA (Zhang & Zha).

    G = [1/√K, t] holds the constant and the top local tangent coordinates t of the
    centred neighbourhood; I − G Gᵀ projects onto what an affine map of the tangent
    coordinates cannot explain, the alignment error of the patch.
    """
    k = neighbors.shape[1]
    blocks = []
    for nbrs in neighbors:
        t = svd(X[nbrs] - X[nbrs].mean(0), full_matrices=False)[0][:, :n_components]
        G = np.column_stack([np.full(k, 1 / np.sqrt(k)), t])
        blocks.append(np.eye(k) - G @ G.T)
    return np.array(blocks)


def _assemble(index_sets, blocks, n_samples):
    """The sparse sum of ``blocks[i]`` placed at rows and columns ``index_sets[i]``."""
    m = index_sets.shape[1]
    rows = np.repeat(index_sets, m, axis=1).ravel()
    cols = np.tile(index_sets, (1, m)).ravel()
    return coo_matrix(
        (blocks.ravel(), (rows, cols)), shape=(n_samples, n_samples)
    ).tocsr()


def embedding_matrix(X, neighbors, n_components, *, reg=1e-3, method="standard"):
    """The sparse N x N matrix M whose bottom eigenvectors give the embedding.

    For "standard", M = (I − W)ᵀ(I − W) ([W] 式(10.31), [T] (10-26) with samples as
    rows). Every method's M is symmetric positive semi-definite and maps the constant
    vector to zero. See book/05_lle.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    neighbors : array-like of int, shape (n_samples, n_neighbors)
        ``neighbors[i]`` are the indices of the neighbours of ``X[i]`` (itself
        excluded).
    n_components : int
        Target dimension, at most ``n_features``.
    reg : float, default=1e-3
        Regularisation of the local Gram matrices ("standard" and "modified").
    method : {"standard", "modified", "hessian", "ltsa"}, default="standard"

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    X = check_array(X)
    neighbors = check_neighbor_indices(neighbors, len(X))
    method = check_in(method, METHODS, name="method")
    n_components = check_n_components(n_components, X.shape[1])
    reg = check_positive(reg, name="reg", strict=False)
    return _embedding_matrix(X, neighbors, n_components, reg, method)


def _embedding_matrix(X, neighbors, n_components, reg, method):
    """:func:`embedding_matrix` for validated arguments."""
    with_self = np.hstack([np.arange(len(X))[:, None], neighbors])
    if method == "standard":
        index_sets, blocks = with_self, _standard_blocks(X, neighbors, reg)
    elif method == "modified":
        index_sets, blocks = (
            with_self,
            _modified_blocks(X, neighbors, n_components, reg),
        )
    elif method == "hessian":
        index_sets, blocks = neighbors, _hessian_blocks(X, neighbors, n_components)
    else:
        index_sets, blocks = neighbors, _ltsa_blocks(X, neighbors, n_components)
    return _assemble(index_sets, blocks, len(X))


def bottom_eigenvectors(M, n_components):
    """Eigenpairs 2, ..., n_components + 1 (from the bottom) of the symmetric PSD ``M``.

    The bottom pair (eigenvalue 0, the constant vector) is dropped, exactly: the bottom
    n_components + 1 eigenvectors are computed, and the kept ones are those of M within
    the complement of the constant vector
    (:func:`dr_lib._linalg.complement_of_null_vector`), so every column sums to zero up
    to machine precision, as the constraint Σ_i z_i = 0 of [T] (10-24) asks, whatever
    the BLAS. Dense LAPACK for up to ``DENSE_MAX_SAMPLES`` rows; above, ARPACK in
    shift-invert mode around a small negative shift (M − σI is then positive definite,
    so its factorisation never meets the exact zero eigenvalue), from a fixed start
    vector, and LAPACK after all when Lanczos does not converge
    (:func:`dr_lib._linalg.bottom_eigenpairs`). Returns ``(eigenvalues, vectors)``,
    increasing, signs fixed by :func:`dr_lib._linalg.fix_signs`.
    """
    n = M.shape[0]
    if n <= DENSE_MAX_SAMPLES:
        vectors = eigh(M.toarray(), subset_by_index=(0, n_components))[1]
    else:
        vectors = bottom_eigenpairs(
            M, n_components + 1, what="the LLE matrix M (set by n_neighbors and reg)"
        )[1]
    values, vectors = complement_of_null_vector(M, vectors, np.ones(n))
    return values, fix_signs(vectors)


class LocallyLinearEmbedding(TransformerMixin, BaseEstimator):
    """Locally linear embedding ([T] §10.5, Algorithm 10-2) and three variants ([B]).

    Parameters
    ----------
    n_neighbors : int, default=5
        Neighbours K of each point (self excluded), as [T]'s K.
    n_components : int, default=2
        Target dimension D' (at most the number of features).
    reg : float, default=1e-3
        Regularisation of the local Gram matrices, relative to their trace (standard and
        modified LLE, and the weights of new points in :meth:`transform`).
    method : {"standard", "modified", "hessian", "ltsa"}, default="standard"
        "hessian" needs n_neighbors > n_components · (n_components + 3) / 2.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        Bottom eigenvectors 2, ..., n_components + 1 of M, unit length (the source's
        constraint Z Zᵀ = N I only rescales them by √N).
    reconstruction_error_ : float
        The sum of the kept eigenvalues, tr(Zᵀ M Z) for the unit-length embedding.
    eigenvalues_ : ndarray of shape (n_components,)
        The kept eigenvalues of M, increasing.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The estimator's own copy of the training points, needed by :meth:`transform`.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.
    """

    def __init__(self, n_neighbors=5, n_components=2, *, reg=1e-3, method="standard"):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.reg = reg
        self.method = method

    def _check_params(self, X):
        """Validate the parameters against ``X``.

        Returns ``(n_neighbors, n_components, reg, method)``.
        """
        method = check_in(self.method, METHODS, name="method")
        n_components = check_n_components(self.n_components, X.shape[1])
        check_integer(n_components, name="n_components", high=len(X) - 2)
        low = {
            "hessian": n_components * (n_components + 3) // 2 + 1,
            "modified": n_components,
        }.get(method, 1)
        check_integer(self.n_neighbors, name="n_neighbors", low=low)
        n_neighbors = check_n_neighbors(self.n_neighbors, len(X))
        reg = check_positive(self.reg, name="reg", strict=False)
        return n_neighbors, n_components, reg, method

    def fit(self, X, y=None):
        """Find neighbours, build M, keep its bottom eigenvectors; ``y`` is ignored."""
        X = check_array(X, min_samples=3, copy=True)  # X_fit_ keeps it: our own copy
        n_neighbors, n_components, reg, method = self._check_params(X)
        _, neighbors = _kneighbors(X, n_neighbors)
        M = _embedding_matrix(X, neighbors, n_components, reg, method)
        self.eigenvalues_, self.embedding_ = bottom_eigenvectors(M, n_components)
        self.reconstruction_error_ = float(self.eigenvalues_.sum())
        self.X_fit_ = X
        self.n_features_in_ = X.shape[1]
        return self

    def fit_transform(self, X, y=None):
        """Fit and return :attr:`embedding_`."""
        return self.fit(X).embedding_

    def transform(self, X):
        """Embed new points: their barycenter weights on their training neighbours.

        z = Σ_j w_j z_j over the n_neighbors nearest training points, the weights from
        :func:`barycenter_weights` with this estimator's ``reg`` ([T] (10-19) applied to
        a new point), for every method.
        """
        X = check_transform_input(self, X)
        _, neighbors = _kneighbors(self.X_fit_, self.n_neighbors, query=X)
        weights = _affine_weights(X, self.X_fit_[neighbors], self.reg)
        return np.einsum("nk,nkc->nc", weights, self.embedding_[neighbors])
