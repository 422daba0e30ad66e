"""Small linear-algebra building blocks shared by the spectral methods (PCA, MDS, kernel PCA).

Each one is a step that several chapters derive: centring a Gram or squared-distance matrix
on both sides, and taking the leading eigenpairs of a symmetric matrix with a deterministic
sign. Input validation happens in the estimators, through ``dr_lib._validation``.
"""

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import eigsh

#: Above this size, and for few pairs, the top eigenpairs come from ARPACK (Lanczos), which
#: needs only matrix-vector products; below it a dense LAPACK call is faster and exact.
#: The same rule as scikit-learn's ``eigen_solver="auto"``.
ITERATIVE_MIN_SIZE, ITERATIVE_MAX_PAIRS = 200, 10


def centering_matrix(n):
    """The centring matrix J = I - (1/n) 1 1^T of size ``n``.

    ``J @ M`` subtracts the column means of ``M`` and ``M @ J`` the row means. Used in the
    derivations of book/02_mds ([T] (10-16), [W] 式(10.10)) and book/03_kernel_pca.
    """
    return np.eye(n) - np.full((n, n), 1.0 / n)


def double_centre(M):
    """J M J for a square matrix ``M``, in O(n^2) without forming J.

    Subtracts row means and column means and adds back the grand mean: the same matrix as
    ``centering_matrix(n) @ M @ centering_matrix(n)``.
    """
    M = np.asarray(M, dtype=np.float64)
    return M - M.mean(axis=0, keepdims=True) - M.mean(axis=1, keepdims=True) + M.mean()


def fix_signs(vectors):
    """Flip each column so that its entry of largest magnitude is positive.

    Eigenvectors and singular vectors are defined up to sign; fixing it makes results
    reproducible and comparable (scikit-learn's ``svd_flip`` uses the same rule on U).
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    rows = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[rows, np.arange(vectors.shape[1])])
    signs[signs == 0] = 1.0
    return vectors * signs


def top_eigenpairs(S, k):
    """The ``k`` largest eigenvalues of a symmetric matrix and their eigenvectors.

    Returns ``(eigenvalues, eigenvectors)`` with eigenvalues in decreasing order and the
    eigenvectors as columns, signs fixed by :func:`fix_signs`. Only the top ``k`` pairs are
    computed, which is what PCA ([T] (10-8)), classical MDS ([T] (10-17)) and kernel PCA
    ([W] 式(10.24)) need: by ARPACK for a large matrix and few pairs, else by LAPACK
    ``syevr`` with a subset of indices.
    """
    S = np.asarray(S, dtype=np.float64)
    n = S.shape[0]
    if n > ITERATIVE_MIN_SIZE and k < ITERATIVE_MAX_PAIRS:
        # A fixed start vector keeps the result reproducible. Not the all-ones vector:
        # a double-centred matrix (MDS, kernel PCA) maps it to zero.
        start = np.random.default_rng(0).uniform(-1, 1, n)
        values, vectors = eigsh(S, k=k, which="LA", v0=start)
    else:
        values, vectors = eigh(S, subset_by_index=(n - k, n - 1))
    order = np.argsort(values)[::-1]
    return values[order], fix_signs(vectors[:, order])
