"""The attractive half of the t-SNE gradient over a sparse P, in numba.

With a sparse joint P (the nearest neighbours only,
``dr_lib.sne.joint_probabilities(..., method="knn")``) the attraction sum_j p_ij
w_ij^(1/alpha) (z_i - z_j) runs over the stored entries of row i: O(N k) work, split
over rows in parallel. The same pass gives the one P-dependent term of the cost, sum_ij
p_ij log w_ij. The kernel is that of ``dr_lib.sne.student_t_kernel``;
``kernel_and_force`` is shared with the Barnes–Hut and FFT modules. See
book/07_sne_tsne, section "Making it fast".
"""

import numpy as np
from numba import njit, prange

__all__ = ["kernel_and_force", "log_kernel", "attractive_forces", "sum_p_log_w"]


@njit(cache=True, inline="always")
def kernel_and_force(d2, dof):
    """(w, w^(1/alpha)) at squared distance d2: the kernel and its force factor.

    w = (1 + d2/alpha)^(-alpha); alpha = inf is the Gaussian exp(-d2), force factor 1.
    """
    if dof == np.inf:
        return np.exp(-d2), 1.0
    t = 1.0 / (1.0 + d2 / dof)
    if dof == 1.0:
        return t, t
    return t**dof, t


@njit(cache=True, inline="always")
def log_kernel(d2, dof):
    """log w at squared distance d2, without underflow for the Gaussian (log w =
    -d2)."""
    if dof == np.inf:
        return -d2
    return -dof * np.log1p(d2 / dof)


@njit(cache=True, inline="always")
def _squared_distance(Z, i, reference, j):
    """||z_i - r_j||^2 between row i of Z and row j of the reference map."""
    d2 = 0.0
    for k in range(Z.shape[1]):
        diff = Z[i, k] - reference[j, k]
        d2 += diff * diff
    return d2


@njit(cache=True, parallel=True)
def _attraction(indptr, indices, data, Z, reference, dof, out):
    n, d = Z.shape
    for i in prange(n):
        if d == 2:
            # the usual 2-D map: scalar accumulators stay in registers (2.5x faster than
            # the general loop below, measured in book/07_sne_tsne)
            z0, z1 = Z[i, 0], Z[i, 1]
            f0 = 0.0
            f1 = 0.0
            for e in range(indptr[i], indptr[i + 1]):
                j = indices[e]
                x0 = z0 - reference[j, 0]
                x1 = z1 - reference[j, 1]
                _, t = kernel_and_force(x0 * x0 + x1 * x1, dof)
                f = data[e] * t
                f0 += f * x0
                f1 += f * x1
            out[i, 0] = f0
            out[i, 1] = f1
            continue
        for k in range(d):
            out[i, k] = 0.0
        for e in range(indptr[i], indptr[i + 1]):
            j = indices[e]
            _, t = kernel_and_force(_squared_distance(Z, i, reference, j), dof)
            f = data[e] * t
            for k in range(d):
                out[i, k] += f * (Z[i, k] - reference[j, k])


def attractive_forces(P, Z, dof, reference=None):
    """sum_j p_ij w_ij^(1/alpha) (z_i - z_j) for every row i of a CSR matrix P.

    Parameters
    ----------
    P : scipy.sparse.csr_matrix of shape (n, n_reference)
    Z : ndarray of shape (n, d), float64, C-contiguous
    dof : float
    reference : ndarray of shape (n_reference, d), optional
        The points z_j (a fixed map when new points are placed); ``Z`` itself by
        default.

    Returns
    -------
    ndarray of shape (n, d)
    """
    out = np.empty_like(Z)
    reference = Z if reference is None else reference
    _attraction(P.indptr, P.indices, P.data, Z, reference, float(dof), out)
    return out


@njit(cache=True, parallel=True)
def _row_p_log_w(indptr, indices, data, Z, reference, dof, out):
    n = Z.shape[0]
    for i in prange(n):
        total = 0.0
        for e in range(indptr[i], indptr[i + 1]):
            d2 = _squared_distance(Z, i, reference, indices[e])
            total += data[e] * log_kernel(d2, dof)
        out[i] = total


def sum_p_log_w(P, Z, dof, reference=None):
    """sum_ij p_ij log w_ij over the stored entries of P, row by row.

    With sum_ij p_ij = 1, KL(P || Q) = sum p log p - sum p log w + log sum_{k != l}
    w_kl.

    Returns
    -------
    ndarray of shape (n,)
        The sum over each row; rows are added by the caller in a fixed order.
    """
    rows = np.empty(Z.shape[0])
    reference = Z if reference is None else reference
    _row_p_log_w(P.indptr, P.indices, P.data, Z, reference, float(dof), rows)
    return rows
