"""Mahalanobis metrics: distances under a positive semi-definite M, and maps W with M =
W W^T.

The squared Mahalanobis distance of [W] 式(10.34) is
``||x_i - x_j||_M^2 = (x_i - x_j)^T M (x_i - x_j)``; with ``M = W W^T`` it is the
squared Euclidean distance between ``W^T x_i`` and ``W^T x_j``. Metric learning (NCA,
MMC, and LDA as a special case) learns either ``M`` or ``W``; these helpers go from one
to the other. Derived and checked in book/09_metric_learning. ([W] calls the map P; the
book calls it W.)
"""

import numpy as np
from scipy.linalg import eigh
from sklearn.base import BaseEstimator, TransformerMixin

from dr_lib._linalg import fix_signs
from dr_lib._validation import (
    check_array,
    check_integer,
    check_n_features,
    check_psd_matrix,
    check_transform_input,
)

__all__ = ["squared_distances", "nearest_psd", "factor"]


def squared_distances(X, M, Y=None):
    """Squared Mahalanobis distances ``||x_i - y_j||_M^2`` between the rows of X and Y.

    Implements [W] 式(10.34) in matrix form,
    ``diag(X M X^T) 1^T + 1 diag(Y M Y^T)^T - 2 X M Y^T`` (rows are samples here); with
    ``M = I`` it is the squared Euclidean distance of 式(10.32), with a diagonal M the
    weighted one of 式(10.33). See book/09_metric_learning.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    M : array-like of shape (n_features, n_features)
        Symmetric positive semi-definite metric matrix.
    Y : array-like of shape (n_samples_Y, n_features), optional
        Defaults to ``X``.

    Returns
    -------
    ndarray of shape (n_samples_X, n_samples_Y)
        Non-negative (round-off below zero is clipped).
    """
    X = check_array(X)
    M = check_psd_matrix(M, X.shape[1])
    Y = X if Y is None else check_n_features(Y, X.shape[1], name="Y")
    XM, YM = X @ M, Y @ M
    squared = (
        np.einsum("ij,ij->i", XM, X)[:, None]
        + np.einsum("ij,ij->i", YM, Y)[None, :]
        - 2.0 * XM @ Y.T
    )
    return np.maximum(squared, 0.0)


def nearest_psd(M):
    """The positive semi-definite matrix nearest to a symmetric ``M`` in Frobenius norm.

    Clips the negative eigenvalues of ``M`` to zero: with ``M = U diag(m) U^T``, the
    answer is ``U diag(max(m, 0)) U^T`` (Higham, 1988). Metric learners that take
    gradient steps on ``M`` use it to return to the cone of valid metrics. See
    book/09_metric_learning.

    Parameters
    ----------
    M : array-like of shape (n, n)
        Symmetric (it is symmetrised as ``(M + M^T) / 2`` first).

    Returns
    -------
    ndarray of shape (n, n)
    """
    M = check_array(M, name="M")
    if M.shape[0] != M.shape[1]:
        raise ValueError(
            f"M must be square; got shape {M.shape}. Pass an (n, n) symmetric matrix."
        )
    values, vectors = eigh((M + M.T) / 2)
    return (vectors * np.maximum(values, 0.0)) @ vectors.T


def factor(M, n_components=None):
    """A map ``W`` with ``M = W W^T``, returned as rows (``W^T``), from the eigenvectors
    of M.

    With ``M = U diag(m) U^T`` (eigenvalues decreasing), ``W = U_k diag(sqrt(m_k))`` for
    the top ``k`` eigenpairs: the columns of W are orthogonal, not orthonormal. Every
    other factor of the same rank is ``W Q`` with ``Q`` orthogonal
    (book/09_metric_learning, "Which W"). With ``n_components`` smaller than the rank of
    M, ``W W^T`` is the best rank-``k`` approximation of M.

    Parameters
    ----------
    M : array-like of shape (n_features, n_features)
        Symmetric positive semi-definite.
    n_components : int, optional
        Number of rows to return. By default the numerical rank of M (eigenvalues above
        ``n_features * eps * max eigenvalue``), at least 1.

    Returns
    -------
    ndarray of shape (n_components, n_features)
        ``components`` with ``components.T @ components`` = M (or its rank-k
        approximation); each row's entry of largest magnitude is positive.
    """
    M = check_psd_matrix(M)
    if n_components is not None:
        n_components = check_integer(n_components, name="n_components", high=len(M))
    return _factor(M, n_components)


def _factor(M, n_components):
    """:func:`factor` for a validated symmetric PSD matrix."""
    values, vectors = eigh(M)
    values, vectors = np.clip(values[::-1], 0.0, None), vectors[:, ::-1]
    if n_components is None:
        tolerance = len(M) * np.finfo(float).eps * max(values[0], 0.0)
        n_components = max(int(np.sum(values > tolerance)), 1)
    vectors = fix_signs(vectors[:, :n_components])
    return (vectors * np.sqrt(values[:n_components])).T


class _LearnedLinearMap(TransformerMixin, BaseEstimator):
    """Base of the metric learners that store ``components_ = W^T`` (NCA, MMC).

    Learning needs labels (or pairs drawn from them); mapping does not: ``transform`` is
    ``X @ components_.T``, under which Euclidean distance is the learned Mahalanobis
    distance with ``M = W W^T`` ([W] 式(10.34)).
    """

    def transform(self, X):
        """Map ``X`` to ``X @ components_.T`` (``z = W^T x`` for each sample).

        Returns
        -------
        ndarray of shape (n_samples, len(components_))
        """
        X = check_transform_input(self, X)
        return X @ self.components_.T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
