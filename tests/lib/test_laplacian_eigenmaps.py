"""Laplacian eigenmaps against the mathematics (L f = λ D f) and against scikit-learn.

scikit-learn's SpectralEmbedding computes the eigenvectors u of the symmetric normalised
Laplacian I − D^{-1/2} W D^{-1/2} (``csgraph.laplacian(normed=True)``, shift-invert
ARPACK at σ = −1e-5) and returns u / sqrt(d) = D^{-1/2} u, i.e. the generalised
eigenvectors f of L f = λ D f with fᵀ D f = 1, without the constant one and with the
sign rule of ``_deterministic_vector_sign_flip`` (largest |entry| positive) — the same
normalisation as dr_lib. Its default affinity differs: the 0/1 kNN graph symmetrised as
(A + Aᵀ)/2.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from scipy.sparse.linalg import ArpackNoConvergence
from sklearn.manifold import SpectralEmbedding
from sklearn.neighbors import kneighbors_graph

from dr_lib import LaplacianEigenmaps, _linalg
from dr_lib.graphs import degree_matrix, knn_graph, laplacian
from dr_lib.laplacian_eigenmaps import (
    SHIFT,
    _dense_bottom,
    binary_weights,
    default_heat_parameter,
    generalized_bottom_eigenpairs,
    heat_kernel_weights,
)

# data not used in the notebooks: a noisy trefoil knot (small) and a noisy torus (large)
rng = np.random.default_rng(1234)
_s = rng.uniform(0, 2 * np.pi, 150)
X_SMALL = np.column_stack(
    [np.sin(_s) + 2 * np.sin(2 * _s), np.cos(_s) - 2 * np.cos(2 * _s), -np.sin(3 * _s)]
) + 0.05 * rng.normal(size=(150, 3))
_u, _v = rng.uniform(0, 2 * np.pi, (2, 600))
X_LARGE = np.column_stack(
    [(3 + np.cos(_v)) * np.cos(_u), (3 + np.cos(_v)) * np.sin(_u), np.sin(_v)]
) + 0.02 * rng.normal(size=(600, 3))


def generalized_residual(W, F, eigenvalues):
    """max |L F − D F Λ| for the generalised eigenproblem."""
    L, D = laplacian(W), degree_matrix(W)
    return np.abs(L @ F - (D @ F) * eigenvalues).max()


def align_signs(A, B):
    return B * np.sign(np.sum(A * B, axis=0))


@pytest.mark.parametrize("X", [X_SMALL, X_LARGE], ids=["dense", "sparse"])
@pytest.mark.parametrize("weights", ["heat", "binary"])
def test_generalised_eigenproblem_and_d_orthonormality(X, weights):
    le = LaplacianEigenmaps(8, 3, weights=weights).fit(X)
    W, F = le.affinity_matrix_, le.embedding_
    assert generalized_residual(W, F, le.eigenvalues_) < 1e-8
    d = degree_matrix(W).diagonal()
    np.testing.assert_allclose(F.T @ (d[:, None] * F), np.eye(3), atol=1e-9)
    # D-orthogonal to the constant to machine precision: its share is projected out
    assert np.abs(d @ F).max() < 1e-13 * d.sum()
    assert np.all(np.diff(le.eigenvalues_) >= -1e-12)
    assert 0 < le.eigenvalues_[0] and le.eigenvalues_[-1] <= 2


def test_constant_vector_is_the_first_solution():
    W = LaplacianEigenmaps(8).fit(X_SMALL).affinity_matrix_
    np.testing.assert_allclose(laplacian(W) @ np.ones(150), 0, atol=1e-12)
    eigenvalues, F = generalized_bottom_eigenpairs(W, 2)
    assert eigenvalues[0] == 0.0  # the trivial solution is known, not computed
    np.testing.assert_allclose(F[:, 0], 1 / np.sqrt(W.sum()), rtol=1e-13)


def test_not_eigenvectors_of_l_itself():
    # [T] claims the columns are eigenvectors of L; with unequal degrees they are not
    le = LaplacianEigenmaps(8, 2, weights="binary").fit(X_SMALL)
    L, F = laplacian(le.affinity_matrix_), le.embedding_
    rayleigh = np.sum(F * (L @ F), axis=0) / np.sum(F * F, axis=0)
    assert np.abs(L @ F - F * rayleigh).max() > 1e-2 * np.abs(L @ F).max()


@pytest.mark.parametrize("X", [X_SMALL, X_LARGE], ids=["dense", "sparse"])
def test_matches_sklearn_on_the_same_affinity(X):
    le = LaplacianEigenmaps(8, 3).fit(X)
    theirs = SpectralEmbedding(3, affinity="precomputed", random_state=0)
    Y = theirs.fit_transform(le.affinity_matrix_)
    np.testing.assert_allclose(le.embedding_, Y, atol=1e-8, rtol=0)  # same sign rule


def test_sklearn_default_affinity_reproduced_through_dr_lib():
    # SpectralEmbedding(n_neighbors=8) counts each point as its own first neighbour
    # (include_self=True), weighs one-sided edges 1/2, and csgraph.laplacian ignores the
    # self-loops; with that W, dr_lib's solver gives the same subspace
    A = kneighbors_graph(X_LARGE, 8, mode="connectivity", include_self=True)
    W_sklearn = (0.5 * (A + A.T)).tolil()
    W_sklearn.setdiag(0)
    W_sklearn = W_sklearn.tocsr()
    _, F = generalized_bottom_eigenpairs(W_sklearn, 3)
    Y = SpectralEmbedding(2, n_neighbors=8, random_state=0).fit_transform(X_LARGE)
    assert np.max(subspace_angles(F[:, 1:], Y)) < 1e-8
    # that is dr_lib's binary graph with 7 neighbours, one-sided edges halved
    W_binary = binary_weights(knn_graph(X_LARGE, 7))
    np.testing.assert_array_equal((W_binary != 0).toarray(), (W_sklearn != 0).toarray())
    assert set(np.unique(W_sklearn.data)) == {0.5, 1.0}
    # and dr_lib's default (8 neighbours, heat weights) is a genuinely different
    # subspace
    ours = LaplacianEigenmaps(8, 2).fit_transform(X_LARGE)
    assert np.max(subspace_angles(ours, Y)) > 1e-3


def test_dense_and_sparse_solvers_agree():
    W = LaplacianEigenmaps(8).fit(X_LARGE).affinity_matrix_
    L_sym = laplacian(W, kind="symmetric")
    values_dense, U_dense = _dense_bottom(L_sym, 4)
    values_sparse, U_sparse = _linalg.bottom_eigenpairs_sparse(L_sym, 4, shift=SHIFT)
    np.testing.assert_allclose(np.sort(values_sparse), values_dense, atol=1e-10)
    assert np.max(subspace_angles(U_dense, U_sparse)) < 1e-7


def test_plain_lanczos_gives_the_factorised_solution():
    # a graph that mixes well (a kNN graph of 20-D blobs): plain Lanczos converges
    from sklearn.datasets import make_blobs

    blobs, _ = make_blobs(600, n_features=20, centers=1, random_state=0)
    W = LaplacianEigenmaps(8).fit(blobs).affinity_matrix_
    values, F = generalized_bottom_eigenpairs(W, 4)
    values_plain, F_plain = generalized_bottom_eigenpairs(W, 4, factorise=False)
    np.testing.assert_allclose(values_plain, values, atol=1e-12)
    assert np.max(subspace_angles(F[:, 1:], F_plain[:, 1:])) < 1e-8


def test_plain_lanczos_that_stalls_hands_over_to_the_factorisation(monkeypatch):
    # the torus's bottom eigenvalues crowd together: plain Lanczos may stall there
    W = LaplacianEigenmaps(8).fit(X_LARGE).affinity_matrix_
    values, F = generalized_bottom_eigenpairs(W, 3)
    from dr_lib import laplacian_eigenmaps

    monkeypatch.setattr(
        laplacian_eigenmaps, "bottom_eigenpairs_plain", lambda *a, **k: None
    )
    values_fallback, F_fallback = generalized_bottom_eigenpairs(W, 3, factorise=False)
    np.testing.assert_array_equal(values_fallback, values)
    np.testing.assert_array_equal(F_fallback, F)


def test_plain_lanczos_reports_no_convergence_as_none():
    W = LaplacianEigenmaps(8).fit(X_LARGE).affinity_matrix_
    L_sym = laplacian(W, kind="symmetric")
    assert _linalg.bottom_eigenpairs_plain(L_sym, 3, 2.0, maxiter=1) is None


def test_heat_and_binary_weights():
    graph = knn_graph(X_SMALL, 6)
    heat = heat_kernel_weights(graph, 0.7)
    np.testing.assert_allclose(heat.data, np.exp(-(graph.data**2) / 0.7))
    assert (heat != 0).nnz == graph.nnz and heat.max() <= 1
    np.testing.assert_array_equal(binary_weights(graph).data, 1.0)
    # t -> infinity turns the heat kernel into the 0/1 weights
    far = heat_kernel_weights(graph, 1e12)
    np.testing.assert_allclose(
        far.toarray(), binary_weights(graph).toarray(), atol=1e-9
    )
    assert default_heat_parameter(graph) == pytest.approx(np.mean(graph.data**2))
    assert LaplacianEigenmaps(6).fit(X_SMALL).t_ == pytest.approx(
        np.mean(graph.data**2)
    )


def test_invariance_to_rotation_translation_and_scale():
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    moved = 4.0 * X_SMALL @ Q + np.array([5.0, -2.0, 7.0])
    for weights in ["heat", "binary"]:
        a = LaplacianEigenmaps(8, 2, weights=weights).fit_transform(X_SMALL)
        b = LaplacianEigenmaps(8, 2, weights=weights).fit_transform(moved)
        np.testing.assert_allclose(a, b, atol=1e-8)


def test_fixed_t_is_not_scale_invariant():
    a = LaplacianEigenmaps(8, 2, t=1.0).fit(X_SMALL)
    b = LaplacianEigenmaps(8, 2, t=1.0).fit(3.0 * X_SMALL)
    assert not np.allclose(a.affinity_matrix_.data, b.affinity_matrix_.data)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(8, 30), d=st.integers(2, 50), seed=st.integers(0, 2**16))
def test_shapes_and_constraint_hypothesis(n, d, seed):
    X = np.random.default_rng(seed).normal(size=(n, d))  # n < d allowed
    le = LaplacianEigenmaps(n // 2, 2).fit(X)  # k >= n/2: always connected
    assert le.embedding_.shape == (n, 2) and le.eigenvalues_.shape == (2,)
    d_ = le.affinity_matrix_.sum(axis=1).A.ravel()
    np.testing.assert_allclose(
        le.embedding_.T @ (d_[:, None] * le.embedding_), np.eye(2), atol=1e-8
    )


def test_duplicate_points_are_allowed():
    X = np.vstack([X_SMALL, X_SMALL[:5]])
    Y = LaplacianEigenmaps(8, 2).fit_transform(X)
    # a copy takes a neighbour slot, so the two neighbourhoods differ slightly
    gap = np.linalg.norm(Y[150:] - Y[:5], axis=1)
    assert np.all(gap < 0.01 * np.median(np.linalg.norm(Y - Y.mean(0), axis=1)))


@pytest.mark.parametrize(
    "params, X, match",
    [
        ({"n_neighbors": 150}, X_SMALL, "n_neighbors=150 must be smaller"),
        ({"weights": "gaussian"}, X_SMALL, "weights='gaussian'"),
        ({"t": -1.0}, X_SMALL, "t=-1.0 must be finite and > 0"),
        ({"n_components": 149}, X_SMALL, "n_components=149 must be at least 1"),
        ({"n_components": 0}, X_SMALL, "n_components=0"),
        ({}, np.vstack([X_SMALL, X_SMALL + 100]), "2 connected components"),
        ({}, np.where(np.arange(450).reshape(150, 3) == 7, np.nan, X_SMALL), "NaN"),
        ({}, X_SMALL[:, 0], "2-D"),
    ],
)
def test_bad_input(params, X, match):
    with pytest.raises(ValueError, match=match):
        LaplacianEigenmaps(**params).fit(X)


def test_all_duplicates_need_an_explicit_t():
    X = np.zeros((12, 2))
    with pytest.raises(ValueError, match="pass t > 0"):
        LaplacianEigenmaps(3).fit(X)
    W = heat_kernel_weights(knn_graph(X, 3), 1.0)
    assert sp.issparse(W) and np.all(W.data == 1.0)


def _stalled(*args, **kwargs):
    raise ArpackNoConvergence("no convergence", np.zeros(0), np.zeros((600, 0)))


def test_sparse_solver_falls_back_to_dense_when_lanczos_stalls(monkeypatch):
    W = LaplacianEigenmaps(8).fit(X_LARGE).affinity_matrix_
    L_sym = laplacian(W, kind="symmetric")
    monkeypatch.setattr(_linalg, "bottom_eigenpairs_sparse", _stalled)
    values, U = _linalg.bottom_eigenpairs(L_sym, 3, shift=SHIFT)
    values_dense, U_dense = _dense_bottom(L_sym, 3)
    np.testing.assert_array_equal(values, values_dense)
    np.testing.assert_array_equal(U, U_dense)


def test_a_stalled_solver_on_a_large_matrix_asks_for_more_neighbours(monkeypatch):
    W = LaplacianEigenmaps(8).fit(X_LARGE).affinity_matrix_
    L_sym = laplacian(W, kind="symmetric")
    monkeypatch.setattr(_linalg, "bottom_eigenpairs_sparse", _stalled)
    monkeypatch.setattr(_linalg, "DENSE_FALLBACK_MAX", 100)
    with pytest.raises(ValueError, match="increase n_neighbors"):
        _linalg.bottom_eigenpairs(L_sym, 3, what="the normalised Laplacian")
