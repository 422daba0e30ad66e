"""Kernel PCA: PCA in the feature space of a kernel, computed from the kernel matrix alone.

Implements [W] 式(10.19)–(10.25) with the centring in feature space that the derivation
there assumes away; see book/03_kernel_pca.
"""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from dr_lib._linalg import double_centre, top_eigenpairs
from dr_lib._validation import check_array, check_integer, check_n_features
from dr_lib.kernels import kernel_matrix

__all__ = ["KernelPCA", "centre_new_rows"]


def centre_new_rows(K_new, column_means, grand_mean):
    """Centre kernel rows of new points with the statistics of the training kernel.

    k̃(x, x_i) = k(x, x_i) − mean_l k(x, x_l) − mean_l k(x_l, x_i) + mean_{l,l'} k(x_l, x_l'),
    the inner product of φ(x) − φ̄ and φ(x_i) − φ̄ where φ̄ is the training mean in
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


def _check_positive_spectrum(eigenvalues, n_samples):
    """Raise if a kept eigenvalue of the centred kernel is zero (or negative) numerically.

    α_j / sqrt(λ_j) needs λ_j > 0; a zero eigenvalue means the centred feature vectors
    span fewer than ``n_components`` dimensions. Zero is judged as by
    ``numpy.linalg.matrix_rank``: below λ_max · n_samples · machine epsilon.
    """
    n_components = len(eigenvalues)
    tol = max(eigenvalues[0], 0.0) * n_samples * np.finfo(np.float64).eps
    rank = int(np.sum(eigenvalues > tol))
    if rank < n_components:
        raise ValueError(
            f"n_components={n_components} exceeds the number of positive eigenvalues of "
            f"the centred kernel matrix ({rank}; the feature vectors span only {rank} "
            f"dimensions). Pass n_components <= {rank}, or a kernel with a richer feature "
            f"space."
        )


class KernelPCA(TransformerMixin, BaseEstimator):
    """Kernel principal component analysis.

    The eigenproblem (Σ_i φ(x_i)φ(x_i)ᵀ) w_j = λ_j w_j of [W] 式(10.21) is solved through
    w_j = Σ_i α_ij φ(x_i) ([W] 式(10.22)) and K̃ α_j = λ_j α_j ([W] 式(10.24)), where K̃ is
    the kernel matrix centred in feature space, K̃ = J K J. Scaling α_j to α_j / sqrt(λ_j)
    gives ‖w_j‖ = 1, and a point is projected by z_j = Σ_i α_ij k̃(x_i, x) ([W] 式(10.25)).
    See book/03_kernel_pca.

    Parameters
    ----------
    n_components : int, default=2
        Number of components, at most the number of training samples (and at most the
        number of positive eigenvalues of K̃).
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
    eigenvalues_ : ndarray of shape (n_components,)
        The largest eigenvalues λ_j of K̃, decreasing (no 1/N factor, as [W] 式(10.21)).
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        The coefficients α_j / sqrt(λ_j), one column per component: w_j = Φ̃ α_j has unit
        length.
    embedding_ : ndarray of shape (n_samples, n_components)
        The projections of the training points, K̃ α_j / sqrt(λ_j) = sqrt(λ_j) α_j.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training points, needed to evaluate k(x, x_i) for new points.
    kernel_column_means_ : ndarray of shape (n_samples,)
        Column means of the training kernel matrix K, used to centre new kernel rows.
    kernel_mean_ : float
        Mean of all entries of K, used to centre new kernel rows.
    """

    def __init__(self, n_components=2, *, kernel="rbf", gamma=None, degree=3, coef0=1):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def _kernel(self, X, Y=None):
        """k between the rows of ``X`` and ``Y`` with this estimator's kernel parameters."""
        return kernel_matrix(
            X,
            Y,
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
        )

    def fit(self, X, y=None):
        """Eigen-decompose the centred kernel matrix of ``X``; ``y`` is ignored."""
        X = check_array(X, min_samples=2)
        n_components = check_integer(
            self.n_components, name="n_components", high=len(X)
        )
        K = self._kernel(X)
        eigenvalues, alphas = top_eigenpairs(double_centre(K), n_components)
        _check_positive_spectrum(eigenvalues, len(X))
        self.X_fit_ = X
        self.kernel_column_means_ = K.mean(axis=0)
        self.kernel_mean_ = K.mean()
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
        check_is_fitted(self)
        X = check_n_features(X, self.X_fit_.shape[1])
        K_new = centre_new_rows(
            self._kernel(X, self.X_fit_), self.kernel_column_means_, self.kernel_mean_
        )
        return K_new @ self.eigenvectors_
