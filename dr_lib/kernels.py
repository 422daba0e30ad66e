"""Kernel functions k(x, y) = φ(x)ᵀφ(y) and the kernel (Gram) matrix K_ij = k(x_i, y_j).

Each kernel is a line or two of numpy, working in the memory of the matrix it returns
(an N x N kernel matrix is the largest object kernel PCA makes). Rows of ``X`` and ``Y``
are samples, so the matrix has shape ``(len(X), len(Y))``; [W] 式(10.23) writes one
entry, κ(x_i, x_j) = φ(x_i)ᵀφ(x_j). See book/03_kernel_pca.
"""

from functools import partial

import numpy as np

from dr_lib._linalg import squared_distances
from dr_lib._validation import (
    check_array,
    check_in,
    check_integer,
    check_n_features,
    check_positive,
)

__all__ = [
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "kernel_matrix",
    "KERNELS",
]


def linear_kernel(X, Y):
    """k(x, y) = xᵀy: the feature map is the identity, so kernel PCA is PCA."""
    return X @ Y.T


def polynomial_kernel(X, Y, *, gamma, degree, coef0):
    """k(x, y) = (γ xᵀy + c₀)^d.

    Its feature space holds the monomials of the coordinates of degree at most d when
    c₀ > 0, and those of degree exactly d when c₀ = 0.
    """
    K = X @ Y.T
    K *= gamma
    K += coef0
    K **= degree
    return K


def rbf_kernel(X, Y, *, gamma):
    """k(x, y) = exp(−γ ‖x − y‖²): the Gaussian (RBF) kernel, an infinite feature
    space."""
    K = squared_distances(X, Y)
    K *= -gamma
    return np.exp(K, out=K)


KERNELS = ("linear", "poly", "rbf")


def _kernel_function(X, *, kernel="rbf", gamma=None, degree=3, coef0=1):
    """The kernel with validated parameters, as a function ``f(X, Y)`` of two arrays.

    Validates the parameters once (``gamma=None`` becomes ``1 / n_features`` of the
    validated training data ``X``), so that an estimator can evaluate the kernel again
    in ``transform`` without validating them again. ``f`` takes validated float64 arrays
    with the same number of columns and returns the ``(len(X), len(Y))`` matrix; it can
    be pickled with the estimator.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated training data (only its number of columns is used).
    kernel, gamma, degree, coef0
        As in :func:`kernel_matrix`.

    Returns
    -------
    callable
    """
    if callable(kernel):
        return partial(_callable_kernel, kernel=kernel)
    check_in(kernel, KERNELS, name="kernel")
    if kernel == "linear":
        return linear_kernel
    gamma = 1.0 / X.shape[1] if gamma is None else check_positive(gamma, name="gamma")
    if kernel == "rbf":
        return partial(rbf_kernel, gamma=gamma)
    degree = check_integer(degree, name="degree")
    coef0 = check_positive(coef0, name="coef0", strict=False)
    return partial(polynomial_kernel, gamma=gamma, degree=degree, coef0=coef0)


def _callable_kernel(X, Y, *, kernel):
    """``kernel(X, Y)``, checked to be a finite matrix of shape ``(len(X), len(Y))``."""
    K = check_array(kernel(X, Y), name="kernel(X, Y)")
    if K.shape != (len(X), len(Y)):
        raise ValueError(
            f"kernel(X, Y) must return a matrix of shape {(len(X), len(Y))}, one entry "
            f"per pair of rows; got shape {K.shape}. Make the callable return k(X[i], "
            "Y[j]) at position [i, j]."
        )
    return K


def kernel_matrix(X, Y=None, *, kernel="rbf", gamma=None, degree=3, coef0=1):
    """The kernel matrix K_ij = k(x_i, y_j) between the rows of ``X`` and of ``Y``.

    Implements [W] 式(10.23) for a whole data set; see book/03_kernel_pca.

    Parameters
    ----------
    X : array-like of shape (n_x, n_features)
    Y : array-like of shape (n_y, n_features), optional
        Defaults to ``X``, which gives the symmetric Gram matrix of [W] 式(10.24).
    kernel : {"linear", "poly", "rbf"} or callable, default="rbf"
        A callable is called as ``kernel(X, Y)`` and must return the ``(n_x, n_y)``
        matrix.
    gamma : float > 0, optional
        Scale of "poly" and "rbf"; ``None`` means ``1 / n_features`` (as scikit-learn).
    degree : int >= 1, default=3
        Degree of "poly".
    coef0 : float >= 0, default=1
        Constant c₀ of "poly"; non-negative so that the kernel is positive
        semi-definite.

    Returns
    -------
    ndarray of shape (n_x, n_y)
    """
    X = check_array(X)
    Y = X if Y is None else check_n_features(Y, X.shape[1], name="Y")
    function = _kernel_function(
        X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0
    )
    return function(X, Y)
