"""Classical (Torgerson) multidimensional scaling: distances -> inner products ->
coordinates.

The two steps derived in book/02_mds: double centring turns squared distances into the
inner-product matrix B ([T] (10-16), [W] 式(10.10)), and the top eigenpairs of B give
the coordinates ([T] (10-17)-(10-18)).
"""

import warnings

import numpy as np
from scipy.linalg import eigvalsh
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.base import BaseEstimator, TransformerMixin

from dr_lib._linalg import (
    double_centre,
    double_centre_inplace,
    squared_distances,
    top_eigenpairs,
)
from dr_lib._validation import (
    check_array,
    check_in,
    check_integer,
    check_square_dissimilarity,
)

__all__ = ["double_centering", "ClassicalMDS"]

#: Up to this size the smallest eigenvalue of B is computed exactly with LAPACK; beyond
#: it by Lanczos iteration (ARPACK), O(n^2) per iteration, to relative accuracy
#: LANCZOS_TOL.
EXACT_SMALLEST_MAX_N = 200
LANCZOS_TOL = 1e-6


def double_centering(D2):
    """Inner-product matrix B = -1/2 J D2 J from squared distances.

    Element-wise this is [W] 式(10.10),
    b_ij = -1/2 (d_ij^2 - mean_j d_ij^2 - mean_i d_ij^2 + mean_ij d_ij^2), and in matrix
    form [T] (10-16) with J = I - (1/n) 1 1^T (read with D holding *squared* distances);
    see book/02_mds. If D2 holds the squared Euclidean distances of points z_i, then B =
    Zc Zc^T for the centred points Zc (rows are samples).

    Parameters
    ----------
    D2 : array-like of shape (n, n)
        Squared dissimilarities: square, symmetric, non-negative, zero diagonal.

    Returns
    -------
    ndarray of shape (n, n)
        The double-centred matrix B; its rows and columns sum to zero.
    """
    return _inner_products(check_square_dissimilarity(D2, name="D2", squared=True))


def _inner_products(D2, *, overwrite=False):
    """B = -1/2 J D2 J for squared distances that are already validated.

    ``overwrite=True`` computes B in the memory of ``D2``, for a matrix of squared
    distances that the caller has just made and does not need again.
    """
    if not overwrite:
        return -0.5 * double_centre(D2)
    double_centre_inplace(D2)
    D2 *= -0.5
    return D2


def _smallest_eigenvalue(B, largest):
    """The smallest (most negative) eigenvalue of the symmetric matrix ``B``.

    ``largest`` is the largest eigenvalue of ``B``, already known from the top
    eigenpairs. Lanczos runs on ``B - largest * I``, whose smallest eigenvalue is the
    one sought minus ``largest``: ARPACK's relative tolerance then applies on the scale
    of the spectrum. On ``B`` itself it would apply to an eigenvalue near zero (any
    Euclidean B of low rank has many), a tolerance the iteration cannot reach in
    reasonable time.
    """
    n = len(B)
    if n <= EXACT_SMALLEST_MAX_N:
        return float(eigvalsh(B, subset_by_index=(0, 0))[0])
    shifted = LinearOperator(
        (n, n), matvec=lambda v: B @ v - largest * v, dtype=B.dtype
    )
    # A fixed random start: the all-ones vector would not do, since B 1 = 0 exactly.
    v0 = np.random.default_rng(0).standard_normal(n)
    lowest = eigsh(
        shifted, k=1, which="SA", v0=v0, tol=LANCZOS_TOL, return_eigenvectors=False
    )
    return float(lowest[0] + largest)


def _positive(eigenvalues, n):
    """Mask of the eigenvalues that are positive beyond round-off (relative to the
    largest)."""
    scale = max(abs(eigenvalues[0]), np.finfo(np.float64).tiny)
    return eigenvalues > n * np.finfo(np.float64).eps * scale


class ClassicalMDS(TransformerMixin, BaseEstimator):
    """Classical multidimensional scaling (Torgerson scaling, principal coordinates).

    Builds B = -1/2 J D^(2) J from the squared dissimilarities ([T] (10-16), [W]
    式(10.10)), takes its eigendecomposition B = V Lambda V^T ([T] (10-17)) and returns
    Z = V_k Lambda_k^(1/2) for the ``n_components`` largest eigenvalues ([T] (10-18)).
    On Euclidean distances this equals the PCA scores up to sign. See book/02_mds.

    Parameters
    ----------
    n_components : int, default=2
        Dimension k of the embedding, between 1 and the number of samples.
    dissimilarity : {"euclidean", "precomputed"}, default="euclidean"
        "euclidean": ``X`` is a data matrix (n_samples, n_features) and the Euclidean
        distances between its rows are used. "precomputed": ``X`` is an (n, n) matrix of
        distances (not squared) that must be square, symmetric, non-negative and zero on
        the diagonal; it need not be Euclidean (e.g. geodesic or L1 distances).

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        Z = V_k Lambda_k^(1/2), eigenvector signs fixed so that the largest entry of
        each column is positive. A column whose eigenvalue is not positive is set to
        zero.
    eigenvalues_ : ndarray of shape (n_components,)
        The ``n_components`` largest eigenvalues of B, in decreasing order (the squared
        norms of the embedding's columns when they are positive).
    smallest_eigenvalue_ : float or None
        The smallest eigenvalue of B. The dissimilarities are Euclidean (realisable by
        points in some R^p) exactly when B is positive semi-definite, so a clearly
        negative value (compared with ``eigenvalues_[0]``) reports a non-Euclidean
        input. With ``dissimilarity="euclidean"`` it is 0.0: B = Xc Xc^T is then
        positive semi-definite with B 1 = 0. For precomputed distances it is computed,
        exactly for n <= 200 and above that by Lanczos iteration
        (``scipy.sparse.linalg.eigsh`` on B shifted by its largest eigenvalue) to within
        about 1e-8 times ``eigenvalues_[0]``. None in the ``mds_`` of an ``Isomap``,
        which skips this eigen-solve.
    dissimilarity_matrix_ : ndarray of shape (n_samples, n_samples)
        The distances used.
    n_features_in_ : int
        Number of columns of ``X`` seen in :meth:`fit`.

    Warns
    -----
    UserWarning
        When fewer than ``n_components`` eigenvalues of B are positive: the distances
        are reproduced in fewer dimensions (or B has negative eigenvalues among the top
        ones), and the corresponding columns of ``embedding_`` are zero.

    Notes
    -----
    Classical MDS has no out-of-sample ``transform``; use :meth:`fit_transform`.
    """

    def __init__(self, n_components=2, *, dissimilarity="euclidean"):
        self.n_components = n_components
        self.dissimilarity = dissimilarity

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.dissimilarity == "precomputed"
        return tags

    def _distances(self, X):
        """The validated (n, n) distance matrix for ``X``, owned by the estimator."""
        dissimilarity = check_in(
            self.dissimilarity, ("euclidean", "precomputed"), name="dissimilarity"
        )
        if dissimilarity == "precomputed":
            D = check_square_dissimilarity(
                X, name="X (precomputed distances)", min_samples=2, copy=True
            )
            self.n_features_in_ = D.shape[1]
            return D
        X = check_array(X, min_samples=2)
        self.n_features_in_ = X.shape[1]
        return np.sqrt(squared_distances(X))

    def fit(self, X, y=None):
        """Compute the embedding from data or from precomputed distances.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Data, or distances when ``dissimilarity="precomputed"``.
        y : ignored

        Returns
        -------
        self
        """
        D = self._distances(X)
        if self.dissimilarity == "precomputed":
            return self._fit_distances(D)
        # Distances between points: B = Xc Xc^T is positive semi-definite and B 1 = 0,
        # so its smallest eigenvalue is zero exactly, and no eigen-solve is needed for
        # it.
        self._fit_distances(D, smallest=False)
        self.smallest_eigenvalue_ = 0.0
        return self

    def _fit_distances(self, D, *, smallest=True):
        """Fit to a validated distance matrix ``D`` that the estimator may keep.

        The algorithm of :meth:`fit` after validation: B = -1/2 J D^(2) J ([T] (10-16)),
        its top eigenpairs ([T] (10-17)) and Z = V_k Lambda_k^(1/2) ([T] (10-18)).
        ``Isomap`` calls it with the geodesic distances it has just computed, and with
        ``smallest=False``: it has no use for the smallest eigenvalue, whose Lanczos run
        would cost as much as the top eigenpairs (``smallest_eigenvalue_`` is then
        None).
        """
        n = len(D)
        k = check_integer(self.n_components, name="n_components", high=n)
        B = _inner_products(D**2, overwrite=True)  # D**2 is a new array
        values, vectors = top_eigenpairs(B, k)
        positive = _positive(values, n)
        if not positive.all():
            warnings.warn(
                f"Only {int(positive.sum())} of the n_components={k} largest "
                "eigenvalues of B are positive "
                f"({np.array2string(values, precision=3)}); the distances need fewer "
                "dimensions, or are not Euclidean. The embedding columns of the "
                "non-positive eigenvalues are set to zero; pass "
                f"n_components={max(int(positive.sum()), 1)} to drop them.",
                UserWarning,
                stacklevel=3,
            )
        self.dissimilarity_matrix_ = D
        self.eigenvalues_ = values
        self.smallest_eigenvalue_ = (
            _smallest_eigenvalue(B, values[0]) if smallest else None
        )
        self.embedding_ = vectors * np.sqrt(np.where(positive, values, 0.0))
        return self

    def fit_transform(self, X, y=None):
        """Fit and return ``embedding_``; see :meth:`fit`.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return self.fit(X).embedding_
