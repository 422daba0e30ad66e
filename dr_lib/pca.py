"""Principal component analysis, by the eigen route and by the SVD route; see
book/01_pca.

The sources store samples as columns, ``X_src = X.T``; [T] calls ``S = X_src X_src^T``
(the *scatter* matrix, no 1/N) the covariance matrix, [W] keeps that ``X X^T`` and [N]
divides by N. All three share the eigenvectors; only the eigenvalues are scaled. Here,
as in scikit-learn, ``explained_variance_`` is the eigenvalue of the unbiased covariance
``Xc.T @ Xc / (n_samples - 1)``, i.e. the eigenvalue of [T]'s ``S`` divided by N − 1, or
the eigenvalue of the 1/N covariance of [W] and [N] multiplied by N / (N − 1).
"""

from numbers import Integral, Real

import numpy as np
from scipy.linalg import svd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from dr_lib._linalg import fix_signs, top_eigenpairs
from dr_lib._validation import (
    check_array,
    check_in,
    check_integer,
    check_interval,
    check_n_features,
    check_positive,
    check_transform_input,
)

__all__ = ["PCA", "SOLVERS", "MEAN_GUARD"]

#: The two ways of computing the principal directions.
SOLVERS = ("eigh", "svd")


#: The eigen route forms the scatter matrix as XᵀX − N x̄x̄ᵀ, without a centred copy of X.
#: Its rounding errors are those of XᵀX, larger than those of the centred product by the
#: factor 1 + N‖x̄‖²/λ₁ at most (λ₁ the largest eigenvalue of the scatter matrix). While
#: N‖x̄‖² <= MEAN_GUARD · λ₁ (the mean lies within 10 standard deviations of the leading
#: component from the origin) that costs at most two decimal digits; beyond, PCA
#: centres.
MEAN_GUARD = 100.0


def _mean_dominates(mean, n_samples, largest_eigenvalue):
    """Whether N‖x̄‖² > MEAN_GUARD · λ₁: forming XᵀX would then cost accuracy."""
    return n_samples * (mean @ mean) > MEAN_GUARD * largest_eigenvalue


def _eigh_route(X, mean, k):
    """Top ``k`` eigenpairs of the scatter matrix ``(X − x̄)ᵀ(X − x̄)`` ([T] Algorithm
    10-1).

    Returns the eigenvalues (squared singular values of the centred data), in decreasing
    order, the eigenvectors as rows, and the trace (the total scatter). Implements [T]
    (10-7)/(10-8) and [W] 式(10.17). The scatter matrix is computed as XᵀX − N x̄x̄ᵀ, the
    same matrix without a centred copy of X, unless the mean dominates the spread
    (:data:`MEAN_GUARD`); then X is centred first.
    """
    S = X.T @ X
    S -= len(X) * np.outer(mean, mean)
    values, vectors = top_eigenpairs(S, k)
    if _mean_dominates(mean, len(X), values[0]):
        Xc = X - mean
        S = Xc.T @ Xc
        values, vectors = top_eigenpairs(S, k)
    return np.clip(values, 0.0, None), vectors.T, np.trace(S)


def _svd_route(X, mean, k):
    """Top ``k`` squared singular values and right singular vectors of the centred data.

    The economical SVD ``X − x̄ = U Σ V^T`` (LAPACK ``gesdd``): the columns of V (the U
    of the sources, who store samples as columns) are the eigenvectors of the scatter
    matrix and Σ² its eigenvalues ([T] §10.1, last paragraph; [N]). Also returns the
    total scatter, the sum of all Σ².
    """
    _, s, Vt = svd(X - mean, full_matrices=False, check_finite=False)
    squares = s**2
    return squares[:k], fix_signs(Vt[:k].T).T, squares.sum()


_ROUTES = {"eigh": _eigh_route, "svd": _svd_route}


def _is_fraction(n_components):
    """True when ``n_components`` is a non-integral real number (a variance
    fraction)."""
    return (
        isinstance(n_components, Real)
        and not isinstance(n_components, Integral)
        and not float(n_components).is_integer()
    )


def _check_fraction(fraction):
    """Validate a fraction of variance to keep, 0 < f < 1."""
    fraction = check_positive(fraction, name="n_components")
    return float(check_interval(fraction, 0.0, 1.0, name="n_components"))


def _n_for_fraction(ratios, fraction):
    """Fewest leading components whose cumulative variance ratio exceeds ``fraction``.

    The rule of scikit-learn (``searchsorted(..., side="right") + 1``), capped at the
    number of ratios available.
    """
    n = int(np.searchsorted(np.cumsum(ratios), fraction, side="right")) + 1
    return min(n, len(ratios))


class PCA(TransformerMixin, BaseEstimator):
    """Principal component analysis: project centred data onto the top eigenvectors.

    Implements [T] §10.1, (10-1)–(10-8) and Algorithm 10-1: centre, diagonalise the
    scatter matrix ``S = X_src X_src^T`` ([T]) — equivalently solve ``X X^T W = W Λ``
    ([W] 式(10.17), with one multiplier per column, not a single λ) — and keep the
    eigenvectors of the largest eigenvalues; or take them from the SVD of the centred
    data ([T] §10.1, [N]). Derived and checked in book/01_pca.

    Parameters
    ----------
    n_components : int, float or None, default=None
        int in ``[1, min(n_samples, n_features)]``: the number of components D'. float
        ``0 < f < 1``: keep the fewest components whose cumulative explained variance
        ratio exceeds ``f`` (scikit-learn's rule). None: keep
        ``min(n_samples, n_features)``.
    solver : {"eigh", "svd"}, default="eigh"
        "eigh" diagonalises the ``(n_features, n_features)`` scatter matrix, computing
        only the eigenpairs needed (cheap when n_samples >> n_features); "svd" takes the
        economical SVD of the ``(n_samples, n_features)`` centred data (cheap when
        n_features >> n_samples, and more accurate for small eigenvalues).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Orthonormal rows, the principal directions ``w_1, ..., w_D'`` of [T] (10-1); the
        sign of each row makes its entry of largest magnitude positive (as
        scikit-learn).
    explained_variance_ : ndarray of shape (n_components_,)
        Variance along each direction with the unbiased 1/(n_samples − 1), as
        scikit-learn: the eigenvalues of [T]'s ``S = X X^T`` divided by N − 1.
    explained_variance_ratio_ : ndarray of shape (n_components_,)
        ``explained_variance_`` over the total variance (the trace of the covariance).
    singular_values_ : ndarray of shape (n_components_,)
        Singular values of the centred data; their squares are the eigenvalues of ``S``.
    mean_ : ndarray of shape (n_features,)
        The sample mean x̄ of [T] (10-3).
    n_components_ : int
        The number of components kept.
    n_features_in_ : int
        Number of features seen in ``fit``.
    n_samples_ : int
        Number of samples seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from dr_lib import PCA
    >>> X = np.random.default_rng(0).normal(size=(50, 4))
    >>> PCA(n_components=2).fit_transform(X).shape
    (50, 2)
    """

    def __init__(self, n_components=None, *, solver="eigh"):
        self.n_components = n_components
        self.solver = solver

    def _requested(self, k_max):
        """The validated ``n_components``: an int, or a float fraction in (0, 1)."""
        if self.n_components is None:
            return k_max
        if _is_fraction(self.n_components):
            return _check_fraction(self.n_components)
        return check_integer(self.n_components, name="n_components", high=k_max)

    def fit(self, X, y=None):
        """Fit the principal directions to ``X`` of shape (n_samples, n_features).

        ``y`` is ignored (PCA is unsupervised). Returns ``self``.
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit to ``X`` and return its coordinates.

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        return self._scores(self._fit(X))

    def _fit(self, X):
        """Fit ([T] Algorithm 10-1) and return the validated ``X``."""
        X = check_array(X, min_samples=2)
        route = _ROUTES[check_in(self.solver, SOLVERS, name="solver")]
        n_samples, n_features = X.shape
        k_max = min(n_samples, n_features)
        requested = self._requested(k_max)
        self.mean_ = X.mean(axis=0)
        n_eig = requested if isinstance(requested, int) else k_max
        eigenvalues, components, total = route(X, self.mean_, n_eig)
        ratios = eigenvalues / total if total > 0 else np.zeros_like(eigenvalues)
        k = n_eig if isinstance(requested, int) else _n_for_fraction(ratios, requested)
        self.components_ = components[:k]
        self.singular_values_ = np.sqrt(eigenvalues[:k])
        self.explained_variance_ = eigenvalues[:k] / (n_samples - 1)
        self.explained_variance_ratio_ = ratios[:k]
        self.n_components_ = k
        self.n_features_in_ = n_features
        self.n_samples_ = n_samples
        return X

    def _scores(self, X):
        """``(X − x̄) Wᵀ`` for validated ``X``, computed as ``X Wᵀ − x̄ Wᵀ``.

        No centred copy of X, unless the training mean dominates the spread
        (:data:`MEAN_GUARD`), when the subtraction x̄ Wᵀ would cancel digits.
        """
        W = self.components_
        if _mean_dominates(self.mean_, self.n_samples_, self.singular_values_[0] ** 2):
            return (X - self.mean_) @ W.T
        scores = X @ W.T
        scores -= self.mean_ @ W.T
        return scores

    def transform(self, X):
        """Coordinates ``z = W^T (x − x̄)`` ([T] (10-1) on centred data), one row per
        sample.

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        return self._scores(check_transform_input(self, X))

    def inverse_transform(self, Z):
        """Reconstruction ``x̂ = x̄ + W z`` ([T] (10-3)) from coordinates ``Z``.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        Z = check_n_features(Z, self.n_components_, name="Z")
        return Z @ self.components_ + self.mean_
