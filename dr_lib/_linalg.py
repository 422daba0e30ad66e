"""Small linear-algebra building blocks shared by the spectral methods.

Each one is a step that several chapters derive: centring a Gram or squared-distance
matrix on both sides, taking the leading eigenpairs of a symmetric matrix with a
deterministic sign (PCA, MDS, kernel PCA), and the bottom eigenpairs of a sparse
positive semi-definite matrix (LLE, Laplacian eigenmaps). These helpers take arrays that
the public functions and estimators have already validated, through
``dr_lib._validation``.
"""

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh, splu
from scipy.spatial.distance import cdist

#: Up to this many columns, squared distances are computed directly rather than by BLAS.
LOW_DIMENSION = 8

#: Above this size, and for few pairs, the top eigenpairs come from ARPACK (Lanczos),
#: which needs only matrix-vector products; below it a dense LAPACK call is faster and
#: exact. The same rule as scikit-learn's ``eigen_solver="auto"``.
ITERATIVE_MIN_SIZE, ITERATIVE_MAX_PAIRS = 200, 10

#: Up to this size a dense eigenproblem is solved whole by numpy's ``eigh``, beyond it
#: by SciPy's ``eigh`` for the requested pairs only. numpy and SciPy each bundle their
#: own OpenBLAS with its own thread pool; when a fit alternates them (numpy forms XᵀX,
#: SciPy diagonalises it), the idle pool's threads spin on the cores the busy one needs.
#: On two cores this doubled the time of PCA on MNIST (benchmarks/bench_pca.py). Whole
#: spectra of matrices this small are cheap, so staying with numpy's BLAS costs nothing.
WHOLE_SPECTRUM_MAX_SIZE = 1024

#: An eigenvalue of a positive semi-definite matrix below this fraction of the largest
#: is zero up to round-off: scikit-learn's rule (``_check_psd_eigenvalues``, used by its
#: KernelPCA to drop the null space).
ZERO_EIGENVALUE_RATIO = 1e-12


def squared_distances(X, Y=None):
    """All squared Euclidean distances ||x_i - y_j||^2 between rows (Y = X by default).

    For a few columns (a map) one direct pass (``cdist``) is fastest and exact; for many
    (data) the expansion ||x||^2 + ||y||^2 - 2 x^T y uses one matrix product, clipped at
    zero against round-off, with the diagonal of the Y = X case exactly 0. On 5,000
    MNIST digits (784 columns) that is 0.5 s where the pair-by-pair loop takes 25 s.

    Returns
    -------
    ndarray of shape (len(X), len(Y))
    """
    same = Y is None
    Y = X if same else Y
    if X.shape[1] <= LOW_DIMENSION:
        return cdist(X, Y, "sqeuclidean")
    D2 = np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * (X @ Y.T)
    D2 += np.einsum("ij,ij->i", Y, Y)[None, :]
    np.maximum(D2, 0.0, out=D2)
    if same:
        np.fill_diagonal(D2, 0.0)
    return D2


def centering_matrix(n):
    """The centring matrix J = I - (1/n) 1 1^T of size ``n``.

    ``J @ M`` subtracts the column means of ``M`` and ``M @ J`` the row means. Used in
    the derivations of book/02_mds ([T] (10-16), [W] 式(10.10)) and book/03_kernel_pca.
    """
    return np.eye(n) - np.full((n, n), 1.0 / n)


def double_centre(M):
    """J M J for a square matrix ``M``, in O(n^2) without forming J.

    Subtracts row means and column means and adds back the grand mean: the same matrix
    as ``centering_matrix(n) @ M @ centering_matrix(n)``.
    """
    M = np.asarray(M, dtype=np.float64)
    return M - M.mean(axis=0, keepdims=True) - M.mean(axis=1, keepdims=True) + M.mean()


def double_centre_inplace(M):
    """Overwrite the square float64 matrix ``M`` with J M J; return its column means.

    The same matrix as :func:`double_centre`, for a matrix the caller owns (a kernel or
    squared-distance matrix it has just computed): three in-place passes subtract the
    column and row means and add back the grand mean, without temporaries of size n^2.
    Kernel PCA keeps the returned column means of the uncentred K to centre the kernel
    rows of new points.
    """
    column_means = M.mean(axis=0)
    row_means = M.mean(axis=1)
    M -= column_means[None, :]
    M -= row_means[:, None]
    M += column_means.mean()
    return column_means


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
    eigenvectors as columns, signs fixed by :func:`fix_signs`. Only the top ``k`` pairs
    are computed, which is what PCA ([T] (10-8)), classical MDS ([T] (10-17)) and kernel
    PCA ([W] 式(10.24)) need: by ARPACK for a large matrix and few pairs, else by
    LAPACK, whole for a small matrix (:data:`WHOLE_SPECTRUM_MAX_SIZE`) and otherwise
    ``syevr`` with a subset of indices.
    """
    S = np.asarray(S, dtype=np.float64)
    n = S.shape[0]
    if n > ITERATIVE_MIN_SIZE and k < ITERATIVE_MAX_PAIRS:
        # A fixed start vector keeps the result reproducible. Not the all-ones vector:
        # a double-centred matrix (MDS, kernel PCA) maps it to zero.
        start = np.random.default_rng(0).uniform(-1, 1, n)
        values, vectors = eigsh(S, k=k, which="LA", v0=start)
    elif n <= WHOLE_SPECTRUM_MAX_SIZE:
        values, vectors = np.linalg.eigh(S)
        values, vectors = values[n - k :], vectors[:, n - k :]
    else:
        values, vectors = eigh(S, subset_by_index=(n - k, n - 1))
    order = np.argsort(values)[::-1]
    return values[order], fix_signs(vectors[:, order])


def nonzero_eigenvalues(eigenvalues):
    """Mask of the eigenvalues of a PSD matrix that are not zero up to round-off.

    λ is non-zero when λ > 0 and λ >= ``ZERO_EIGENVALUE_RATIO`` · λ_max, the rule by
    which scikit-learn's KernelPCA keeps "every non-zero component"
    (book/03_kernel_pca). Negative eigenvalues (round-off of a PSD matrix) count as
    zero.
    """
    eigenvalues = np.asarray(eigenvalues, dtype=np.float64)
    largest = eigenvalues.max(initial=0.0)
    return (eigenvalues > 0) & (eigenvalues >= ZERO_EIGENVALUE_RATIO * largest)


#: Shift of the shift-invert Lanczos iteration for the bottom of a positive
#: semi-definite spectrum, relative to the largest diagonal entry: M − σI is then
#: positive definite, so its factorisation never meets the exact zero eigenvalue, and
#: the eigenvalues nearest 0 are magnified most (book/05_lle,
#: book/06_laplacian_eigenmaps).
RELATIVE_SHIFT = 1e-6


def _inverse_operator(M, shift):
    """(M − shift·I)⁻¹ as a LinearOperator, from a sparse symmetric LU factorisation.

    M − shift·I is symmetric positive definite for a PSD ``M`` and ``shift < 0``, so
    SuperLU may keep the diagonal pivots (``SymmetricMode``, no row interchanges) and
    use a fill-reducing ordering of M + Mᵀ: less fill, and about half the factorisation
    time of the default unsymmetric ordering that ``eigsh(sigma=...)`` uses.
    """
    n = M.shape[0]
    shifted = (M - shift * sp.identity(n, format="csr")).tocsc()
    lu = splu(
        shifted,
        permc_spec="MMD_AT_PLUS_A",
        diag_pivot_thresh=0.0,
        options={"SymmetricMode": True},
    )
    return LinearOperator((n, n), matvec=lu.solve, dtype=np.float64)


def bottom_eigenpairs_sparse(M, k, *, shift=None, maxiter=None):
    """The ``k`` smallest eigenpairs of a sparse symmetric positive semi-definite ``M``.

    ARPACK (Lanczos) in shift-invert mode around ``shift`` (default
    −RELATIVE_SHIFT · max |M_ii|), from a fixed start vector so the result is
    reproducible. Returns ``(eigenvalues, eigenvectors)`` in increasing order; signs are
    left to the caller. Raises ``ArpackNoConvergence`` after ``maxiter`` restarts.
    """
    n = M.shape[0]
    if shift is None:
        shift = -RELATIVE_SHIFT * abs(M.diagonal()).max()
    start = np.random.default_rng(0).uniform(-1, 1, n)
    values, vectors = eigsh(
        M,
        k=k,
        sigma=shift,
        which="LM",
        v0=start,
        OPinv=_inverse_operator(M, shift),
        maxiter=maxiter,
    )
    order = np.argsort(values)
    return values[order], vectors[:, order]


def bottom_eigenpairs_plain(M, k, upper, *, maxiter):
    """The ``k`` smallest eigenpairs of a sparse symmetric ``M`` whose spectrum lies in
    [0, ``upper``], by Lanczos on ``upper``·I − M without a factorisation, or None.

    The smallest eigenvalues of M are the largest of ``upper``·I − M, which Lanczos
    finds with matrix-vector products alone: on a neighbour graph that mixes well (a
    kNN graph of high-dimensional data) in a fraction of the time of the sparse LU
    that shift-invert needs. Where the bottom eigenvalues crowd together (a swiss
    roll's, 1e-8 apart) it converges slowly: after ``maxiter`` restarts it gives up
    and returns None, and the caller factorises. From a fixed start vector, to machine
    precision (tol=0).

    Returns
    -------
    (eigenvalues, eigenvectors) in increasing order of the eigenvalues, or None
    """
    n = M.shape[0]
    flipped = (upper * sp.identity(n, format="csr") - M).tocsr()
    start = np.random.default_rng(0).uniform(-1, 1, n)
    try:
        values, vectors = eigsh(flipped, k=k, which="LA", v0=start, maxiter=maxiter)
    except ArpackNoConvergence:
        return None
    order = np.argsort(-values)
    return upper - values[order], vectors[:, order]


#: Shift-invert Lanczos converges in a few dozen iterations when the bottom eigenvalues
#: are well separated. When it has not within this many, several eigenvalues crowd at 0
#: (a nearly disconnected neighbour graph, a heat kernel with a tiny width, an LLE
#: weight matrix of a badly sampled roll) and the dense solver takes over.
MAX_LANCZOS_ITER = 100

#: The dense fallback diagonalises an N x N matrix (200 MB at N = 5000); above this size
#: a problem on which Lanczos does not converge is refused with advice instead.
DENSE_FALLBACK_MAX = 5000


def complement_of_null_vector(M, vectors, null_vector):
    """Rayleigh–Ritz in the bottom subspace of ``M``, restricted to ``null_vector``'s
    complement.

    LLE's M maps the constant vector to zero ([T] (10-24), book/05_lle), and so does the
    normalised Laplacian its vector D^{1/2} 1 (book/06_laplacian_eigenmaps). An
    eigen-solver returns the bottom eigenvectors only as orthogonal to that null vector
    as its round-off allows (10^-6 on a swiss roll whose next eigenvalues are 10^-8, and
    more or less on another CPU's BLAS), while the derivation asks for exactly
    orthogonal ones (Σ z_i = 0). Here the known null vector is projected out of the
    computed subspace span(``vectors``), which contains it up to round-off; the
    k-dimensional rest is orthonormalised, and M is diagonalised within it (the k x k
    problem Qᵀ M Q). Its eigenvectors are the eigenvectors 2, ..., k + 1 of M,
    orthogonal to ``null_vector`` to machine precision.

    Parameters
    ----------
    M : sparse or dense symmetric matrix of shape (n, n)
    vectors : ndarray of shape (n, k + 1)
        Orthonormal columns spanning the bottom invariant subspace of ``M`` (its k + 1
        smallest eigenpairs, the null vector's among them).
    null_vector : ndarray of shape (n,)
        The known eigenvector of eigenvalue 0, of any length.

    Returns
    -------
    eigenvalues : ndarray of shape (k,), increasing
    eigenvectors : ndarray of shape (n, k)
        Orthonormal, orthogonal to ``null_vector``; signs are left to the caller.
    """
    unit = null_vector / np.linalg.norm(null_vector)
    projected = vectors - np.outer(unit, unit @ vectors)
    k = vectors.shape[1] - 1
    # The projection removes one direction (the null vector's share of the subspace):
    # its singular value is round-off, the other k are 1.
    basis = np.linalg.svd(projected, full_matrices=False)[0][:, :k]
    basis -= np.outer(unit, unit @ basis)
    reduced = basis.T @ (M @ basis)
    eigenvalues, rotation = np.linalg.eigh(0.5 * (reduced + reduced.T))
    return eigenvalues, basis @ rotation


def bottom_eigenpairs(M, k, *, shift=None, what="the matrix"):
    """The ``k`` smallest eigenpairs of a sparse symmetric PSD ``M``, Lanczos or dense.

    :func:`bottom_eigenpairs_sparse` with at most ``MAX_LANCZOS_ITER`` restarts; when it
    does not converge, LAPACK on the dense matrix (up to ``DENSE_FALLBACK_MAX`` rows).
    Used by LLE and Laplacian eigenmaps (book/05_lle, book/06_laplacian_eigenmaps).

    Parameters
    ----------
    M : sparse matrix of shape (n, n)
    k : int
    shift : float, optional
        Passed to :func:`bottom_eigenpairs_sparse`.
    what : str
        How an error message names ``M`` and the parameters that shape it.

    Returns
    -------
    eigenvalues : ndarray of shape (k,), increasing
    eigenvectors : ndarray of shape (n, k)

    Raises
    ------
    ValueError
        If Lanczos does not converge and ``M`` is too large for the dense fallback.
    """
    try:
        return bottom_eigenpairs_sparse(M, k, shift=shift, maxiter=MAX_LANCZOS_ITER)
    except ArpackNoConvergence:
        n = M.shape[0]
        if n > DENSE_FALLBACK_MAX:
            raise ValueError(
                f"the bottom eigenvalues of {what} ({n} x {n}) crowd at 0, so Lanczos "
                "did not converge, and the matrix is too large for the dense solver "
                f"(> {DENSE_FALLBACK_MAX} rows). The neighbour graph is nearly "
                f"disconnected: increase n_neighbors (or the regularisation)."
            ) from None
        return eigh(M.toarray(), subset_by_index=(0, k - 1))
