"""The shared linear-algebra steps and the Procrustes alignment."""

import numpy as np
import pytest
from scipy.stats import special_ortho_group

from dr_lib import metrics
from dr_lib._linalg import (
    centering_matrix,
    complement_of_null_vector,
    double_centre,
    double_centre_inplace,
    fix_signs,
    top_eigenpairs,
)

rng = np.random.default_rng(1)


def test_double_centre_equals_J_M_J():
    M = rng.normal(size=(7, 7))
    J = centering_matrix(7)
    np.testing.assert_allclose(double_centre(M), J @ M @ J, atol=1e-12)
    np.testing.assert_allclose(double_centre(M).sum(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(double_centre(M).sum(axis=1), 0, atol=1e-12)


def test_double_centre_inplace_overwrites_with_J_M_J_and_returns_column_means():
    M = rng.normal(size=(7, 7))  # not symmetric: row and column means differ
    expected = centering_matrix(7) @ M @ centering_matrix(7)
    column_means = M.mean(axis=0)
    work = M.copy()
    returned = double_centre_inplace(work)
    np.testing.assert_allclose(work, expected, atol=1e-12)
    np.testing.assert_allclose(returned, column_means, atol=1e-15)


def test_centering_matrix_is_a_symmetric_projection():
    J = centering_matrix(5)
    np.testing.assert_allclose(J @ J, J, atol=1e-12)
    np.testing.assert_allclose(J, J.T)
    np.testing.assert_allclose(J @ np.ones(5), 0, atol=1e-12)


def test_fix_signs_makes_the_largest_entry_positive_and_is_idempotent():
    V = rng.normal(size=(6, 3))
    F = fix_signs(V)
    assert np.all(F[np.argmax(np.abs(F), axis=0), range(3)] > 0)
    np.testing.assert_allclose(np.abs(F), np.abs(V))
    np.testing.assert_allclose(fix_signs(-V), F)


def test_top_eigenpairs_match_the_full_decomposition():
    A = rng.normal(size=(8, 8))
    S = A @ A.T
    values, vectors = top_eigenpairs(S, 3)
    full = np.sort(np.linalg.eigvalsh(S))[::-1]
    np.testing.assert_allclose(values, full[:3])
    np.testing.assert_allclose(S @ vectors, vectors * values, atol=1e-9)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(3), atol=1e-12)


@pytest.mark.parametrize(
    "n, k", [(8, 3), (300, 2), (300, 12)]
)  # dense and iterative paths
def test_top_eigenpairs_of_a_double_centred_matrix(n, k):
    A = rng.normal(size=(n, 5))
    S = double_centre(np.exp(-0.1 * ((A[:, None] - A[None]) ** 2).sum(-1)))
    values, vectors = top_eigenpairs(S, k)
    full_values, full_vectors = np.linalg.eigh(S)
    np.testing.assert_allclose(values, full_values[::-1][:k], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(
        np.abs(vectors), np.abs(full_vectors[:, ::-1][:, :k]), atol=1e-7
    )
    np.testing.assert_allclose(vectors, fix_signs(vectors))


def _psd_with_null_vector(null, eigenvalues, seed):
    """Q diag(0, eigenvalues) Qᵀ whose first eigenvector is ``null`` (normalised)."""
    n = len(null)
    basis = np.column_stack([null, np.random.default_rng(seed).normal(size=(n, n - 1))])
    Q = np.linalg.qr(basis)[0]
    values = np.concatenate([[0.0], eigenvalues])
    return (Q * values) @ Q.T, Q


def test_complement_of_null_vector_recovers_the_next_eigenpairs():
    n = 40
    null = rng.uniform(0.5, 2.0, n)  # like D^{1/2} 1 of a graph
    M, Q = _psd_with_null_vector(null, np.linspace(0.1, 3.0, n - 1), seed=3)
    bottom = np.linalg.eigh(M)[1][:, :4]
    values, vectors = complement_of_null_vector(M, bottom, null)
    np.testing.assert_allclose(values, [0.1, 0.1 + 2.9 / (n - 2), 0.1 + 5.8 / (n - 2)])
    np.testing.assert_allclose(np.abs(vectors.T @ Q[:, 1:4]), np.eye(3), atol=1e-10)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(3), atol=1e-14)


def test_complement_of_null_vector_is_exact_where_the_eigensolver_is_not():
    # Eigenvalues 1e-17 and 2e-17 are zero to round-off, so LAPACK returns any basis of
    # the three-dimensional bottom cluster: its second and third vectors carry a share
    # of the null vector of order one. The complement keeps none of it.
    n = 50
    ones = np.ones(n)
    M, Q = _psd_with_null_vector(ones, np.r_[1e-17, 2e-17, np.linspace(1, 2, n - 3)], 4)
    bottom = np.linalg.eigh(M)[1][:, :3]
    assert np.abs(ones @ bottom[:, 1:]).max() > 1e-3
    values, vectors = complement_of_null_vector(M, bottom, ones)
    assert np.abs(ones @ vectors).max() < 1e-13
    np.testing.assert_allclose(values, 0.0, atol=1e-14)
    # the same plane as the exact eigenvectors 2 and 3
    np.testing.assert_allclose(np.linalg.svd(vectors.T @ Q[:, 1:3])[1], 1.0, atol=1e-12)


def test_procrustes_undoes_rotation_reflection_scale_and_shift():
    Y = rng.normal(size=(30, 3))
    Q = special_ortho_group.rvs(3, random_state=2) @ np.diag(
        [1, 1, -1]
    )  # with a reflection
    reference = 2.5 * Y @ Q + np.array([1.0, -2.0, 3.0])
    aligned, disparity = metrics.procrustes(Y, reference)
    np.testing.assert_allclose(aligned, reference, atol=1e-10)
    assert disparity < 1e-20


def test_procrustes_without_scale_leaves_a_residual_for_a_scaled_copy():
    Y = rng.normal(size=(20, 2))
    _, disparity = metrics.procrustes(Y, 3 * Y, scale=False)
    assert disparity == pytest.approx(4 / 9)


def test_procrustes_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="same samples"):
        metrics.procrustes(np.zeros((5, 2)), np.zeros((4, 2)))
