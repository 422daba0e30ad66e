"""Kernel PCA: PCA in the feature space of a kernel, computed from the kernel matrix
alone.

Implements [W] 式(10.19)–(10.25) with the centring in feature space that the derivation
there assumes away; see book/03_kernel_pca.
"""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from dr_lib._linalg import double_centre_inplace, nonzero_eigenvalues, top_eigenpairs
from dr_lib._validation import (
    check_array,
    check_integer,
    check_positive_spectrum,
    check_transform_input,
)
from dr_lib.kernels import _kernel_function

__all__ = ["KernelPCA", "centre_new_rows"]


def centre_new_rows(K_new, column_means, grand_mean):
    """Centre kernel rows of new points with the statistics of the training kernel.

    k̃(x, x_i) = k(x, x_i) − mean_l k(x, x_l) − mean_l k(x_l, x_i) + mean_{l,l'} k(x_l,
    x_l'), the inner product of φ(x) − φ̄ and φ(x_i) − φ̄ where φ̄ is the training mean in
    feature space. For the training points themselves this is J K J. See
    book/03_kernel_pca.

    Parameters
    ----------
    K_new : ndarray of shape (n_new, n_train)
        k(x, x_i) for each new point x (row) and training point x_i (column).
    column_means : ndarray of shape (n_train,)
        mean_l k(x_l, x_i) of the training kernel matrix.
    grand_mean : float
        The mean of all entries of the training kernel matrix.
    """
    return K_new - K_new.mean(axis=1, keepdims=True) - column_means + grand_mean


class KernelPCA(TransformerMixin, BaseEstimator):
    """Kernel principal component analysis.

    The eigenproblem (Σ_i φ(x_i)φ(x_i)ᵀ) w_j = λ_j w_j of [W] 式(10.21) is solved
    through w_j = Σ_i α_ij φ(x_i) ([W] 式(10.22)) and K̃ α_j = λ_j α_j ([W] 式(10.24)),
    where K̃ is the kernel matrix centred in feature space, K̃ = J K J. Scaling α_j to α_j
    / sqrt(λ_j) gives ‖w_j‖ = 1, and a point is projected by z_j = Σ_i α_ij k̃(x_i, x)
    ([W] 式(10.25)). See book/03_kernel_pca.

    Parameters
    ----------
    n_components : int or None, default=2
        Number of components, at most the number of training samples (and at most the
        number of non-zero eigenvalues of K̃). None keeps every component whose
        eigenvalue is non-zero, by scikit-learn's rule (λ > 0 and λ >= 1e-12 λ_max, see
        :func:`dr_lib._linalg.nonzero_eigenvalues`).
    kernel : {"linear", "poly", "rbf"} or callable, default="rbf"
        See :func:`dr_lib.kernels.kernel_matrix`.
    gamma : float, optional
        Scale of "poly" and "rbf"; ``None`` means ``1 / n_features``.
    degree : int, default=3
        Degree of "poly".
    coef0 : float, default=1
        Constant of "poly".

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components_,)
        The largest eigenvalues λ_j of K̃, decreasing (no 1/N factor, as [W] 式(10.21)).
    eigenvectors_ : ndarray of shape (n_samples, n_components_)
        The coefficients α_j / sqrt(λ_j), one column per component: w_j = Φ̃ α_j has unit
        length.
    embedding_ : ndarray of shape (n_samples, n_components_)
        The projections of the training points, K̃ α_j / sqrt(λ_j) = sqrt(λ_j) α_j.
    n_components_ : int
        The number of components kept (``n_components``, or the count of non-zero
        eigenvalues for ``n_components=None``).
    X_fit_ : ndarray of shape (n_samples, n_features)
        The estimator's own copy of the training points, needed to evaluate k(x, x_i)
        for new points.
    kernel_column_means_ : ndarray of shape (n_samples,)
        Column means of the training kernel matrix K, used to centre new kernel rows.
    kernel_mean_ : float
        Mean of all entries of K, used to centre new kernel rows.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.
    """

    def __init__(self, n_components=2, *, kernel="rbf", gamma=None, degree=3, coef0=1):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, y=None):
        """Eigen-decompose the centred kernel matrix of ``X``; ``y`` is ignored."""
        X = check_array(X, min_samples=2, copy=True)  # X_fit_ keeps it: our own copy
        n_samples = len(X)
        keep_all = self.n_components is None
        n_components = (
            n_samples
            if keep_all
            else check_integer(self.n_components, name="n_components", high=n_samples)
        )
        kernel = _kernel_function(
            X,
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
        )
        K = kernel(X, X)
        column_means = double_centre_inplace(K)  # K is now J K J
        eigenvalues, alphas = top_eigenpairs(K, n_components)
        if keep_all:
            kept = nonzero_eigenvalues(eigenvalues)
            eigenvalues, alphas = eigenvalues[kept], alphas[:, kept]
        else:
            check_positive_spectrum(eigenvalues, n_components)
        self._kernel = kernel  # k(·, ·) with validated parameters, for transform
        self.X_fit_ = X
        self.n_features_in_ = X.shape[1]
        self.kernel_column_means_ = column_means
        self.kernel_mean_ = column_means.mean()
        self.n_components_ = len(eigenvalues)
        self.eigenvalues_ = eigenvalues
        self.eigenvectors_ = alphas / np.sqrt(eigenvalues)
        self.embedding_ = alphas * np.sqrt(eigenvalues)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the training projections :attr:`embedding_`."""
        return self.fit(X).embedding_

    def transform(self, X):
        """Project new points, [W] 式(10.25) with centred kernel rows.

        Costs one kernel evaluation per training point for each new point, O(N) kernel
        evaluations and O(N · n_components) further operations per point.
        """
        X = check_transform_input(self, X)
        K_new = centre_new_rows(
            self._kernel(X, self.X_fit_), self.kernel_column_means_, self.kernel_mean_
        )
        return K_new @ self.eigenvectors_
