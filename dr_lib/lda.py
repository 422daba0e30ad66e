"""Linear discriminant analysis (Fisher, 1936): directions that separate classes.

Fisher's criterion ``J(w) = w^T S_b w / w^T S_w w`` ([N], LDA) is maximised by the
generalised eigenvectors ``S_b w = lambda S_w w``; for two classes the only one is
``w ∝ S_w^{-1} (mu_0 - mu_1)``, and for c classes there are at most c - 1 because
``rank S_b <= c - 1``. Derived and checked in book/09_metric_learning.

Scatter matrices here are divided by the number of samples N (scikit-learn's
covariances); the directions do not depend on that choice, their scale does: the columns
of ``scalings_`` satisfy ``W^T S_w W = I`` when ``reg = 0``, and
``W^T (S_w + reg tr(S_w)/D I) W = I`` with a ridge.
"""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from dr_lib._linalg import fix_signs
from dr_lib._validation import (
    check_array,
    check_class_labels,
    check_integer,
    check_positive,
    check_transform_input,
)

__all__ = ["LDA", "scatter_matrices"]


def _class_means(X, codes, n_classes):
    """Class means (n_classes, n_features) and class sizes, by one product with a
    one-hot."""
    one_hot = (codes[None, :] == np.arange(n_classes)[:, None]).astype(np.float64)
    counts = one_hot.sum(axis=1)
    return (one_hot @ X) / counts[:, None], counts


def _scatters(X, codes, n_classes):
    """``S_w`` (D x D), the factor ``B`` (c x D) with ``S_b = B^T B``, means and
    counts."""
    means, counts = _class_means(X, codes, n_classes)
    n_samples = len(X)
    within = X - means[codes]
    S_w = within.T @ within / n_samples
    mean = counts @ means / n_samples
    B = np.sqrt(counts / n_samples)[:, None] * (means - mean)
    return S_w, B, means, mean


def scatter_matrices(X, y):
    """Within-class and between-class scatter matrices, divided by N.

    ``S_w = 1/N sum_k sum_{i in class k} (x_i - mu_k)(x_i - mu_k)^T`` and
    ``S_b = 1/N sum_k N_k (mu_k - mu)(mu_k - mu)^T``; ``S_w + S_b`` is the total
    covariance. [N] writes the two-class case with ``S_w = Sigma_0 + Sigma_1`` and
    ``S_b = (mu_0 - mu_1)(mu_0 - mu_1)^T``: other scalings of the same directions when
    the classes are of equal size (book/09_metric_learning).

    Returns
    -------
    S_w, S_b : ndarray of shape (n_features, n_features)
    """
    X = check_array(X, min_samples=2)
    classes, codes = check_class_labels(y, len(X))
    S_w, B, _, _ = _scatters(X, codes, len(classes))
    return S_w, B.T @ B


def _singular_error(n_samples, n_classes, n_features):
    """The ValueError for a singular (or numerically singular) within-class scatter."""
    if n_features > n_samples - n_classes:
        why = (
            f"its rank is at most n_samples - n_classes = {n_samples - n_classes}, "
            f"less than n_features = {n_features}"
        )
    else:
        why = (
            "some combination of features is constant within every class (a constant "
            "feature, or one that is a linear combination of others)"
        )
    return ValueError(
        f"The within-class scatter S_w is singular: {why}. Fisher's criterion is then "
        f"unbounded. Pass reg > 0 (e.g. reg=1e-3), or reduce the dimension first (PCA)."
    )


class LDA(TransformerMixin, BaseEstimator):
    """Fisher's linear discriminant analysis as a supervised dimensionality reduction.

    Solves ``S_b w = lambda S_w w`` ([N], LDA) for the ``n_components`` largest lambda
    by whitening: with ``T^T S_w T = I`` (from the eigenvectors of S_w) and
    ``S_b = B^T B`` (B has one row per class), ``w = T u`` where ``u`` is a left
    singular vector of the small ``D x c`` matrix ``T^T B^T`` and ``lambda`` its squared
    singular value. See book/09_metric_learning.

    Parameters
    ----------
    n_components : int, optional
        Number of directions, at most ``min(n_classes - 1, n_features)`` (the default).
    reg : float, default=0.0
        Ridge added to the within-class scatter, relative to its mean eigenvalue:
        ``S_w + reg * tr(S_w) / D * I``. Needed when ``S_w`` is singular, which happens
        whenever ``n_features > n_samples - n_classes``.

    Attributes
    ----------
    scalings_ : ndarray of shape (n_features, n_components)
        The directions ``w_j`` as columns, scaled so that ``W^T S W = I`` for the
        within-class scatter that was whitened, ``S = S_w + reg * tr(S_w) / D * I``.
        With ``reg = 0`` the projected classes have unit within-class covariance; with a
        ridge, ``W^T S_w W`` is smaller than ``I``. Each column's entry of largest
        magnitude is positive.
    eigenvalues_ : ndarray of shape (n_components,)
        Fisher's criterion ``J(w_j) = lambda_j`` of each direction, decreasing (with the
        ridge in its denominator when ``reg > 0``).
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``lambda_j`` over the sum of all (at most c - 1) non-zero eigenvalues.
    means_ : ndarray of shape (n_classes, n_features)
    mean_ : ndarray of shape (n_features,)
        Overall mean; ``transform`` subtracts it.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    """

    def __init__(self, n_components=None, *, reg=0.0):
        self.n_components = n_components
        self.reg = reg

    def fit(self, X, y):
        """Fit the discriminant directions to ``X`` and labels ``y``; returns self."""
        X = check_array(X, min_samples=2)
        classes, codes = check_class_labels(y, len(X))
        reg = check_positive(self.reg, name="reg", strict=False)
        n_samples, n_features = X.shape
        n_classes = len(classes)
        k = self._n_directions(n_classes, n_features)
        S_w, B, means, mean = _scatters(X, codes, n_classes)
        if reg > 0:
            S_w.flat[:: n_features + 1] += reg * np.trace(S_w) / n_features
        T = self._whitening(S_w, n_samples, n_classes)
        U, s, _ = np.linalg.svd(T.T @ B.T, full_matrices=False)
        W = T @ U[:, :k]
        eigenvalues = s**2
        self.scalings_ = fix_signs(W)
        self.eigenvalues_ = eigenvalues[:k]
        self.explained_variance_ratio_ = eigenvalues[:k] / eigenvalues.sum()
        self.means_ = means
        self.mean_ = mean
        self.classes_ = classes
        self.n_features_in_ = n_features
        return self

    def _n_directions(self, n_classes, n_features):
        """The validated number of directions, at most min(c - 1, D)."""
        k_max = min(n_classes - 1, n_features)
        if self.n_components is None:
            return k_max
        k = check_integer(self.n_components, name="n_components")
        if k > k_max:
            raise ValueError(
                f"n_components={k} is too large: LDA finds at most min(n_classes - 1, "
                f"n_features) = {k_max} directions, since the between-class scatter of "
                f"{n_classes} classes has rank at most {n_classes - 1}. Pass "
                f"n_components <= {k_max}."
            )
        return k

    @staticmethod
    def _whitening(S_w, n_samples, n_classes):
        """``T = V diag(sigma)^(-1/2)`` from ``S_w = V diag(sigma) V^T``, so
        ``T^T S_w T = I``.

        Raises the singular-S_w error when the smallest eigenvalue is at most
        ``n_features * eps`` times the largest.
        """
        n_features = len(S_w)
        sigma, V = np.linalg.eigh(S_w)
        if sigma[0] <= n_features * np.finfo(float).eps * sigma[-1]:
            raise _singular_error(n_samples, n_classes, n_features)
        return V / np.sqrt(sigma)

    def transform(self, X):
        """Project centred samples: ``(X - mean_) @ scalings_``.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X = check_transform_input(self, X)
        return (X - self.mean_) @ self.scalings_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
