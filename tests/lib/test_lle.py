"""LocallyLinearEmbedding and barycenter_weights against scikit-learn and the
mathematics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from scipy.sparse.linalg import ArpackNoConvergence
from scipy.stats import special_ortho_group
from sklearn.manifold import LocallyLinearEmbedding as SkLLE
from sklearn.manifold._locally_linear import barycenter_weights as sk_barycenter_weights

from dr_lib import LocallyLinearEmbedding, _linalg, datasets
from dr_lib.graphs import kneighbors
from dr_lib.lle import DENSE_MAX_SAMPLES, barycenter_weights, embedding_matrix
from dr_lib.metrics import procrustes

METHODS = ["standard", "modified", "hessian", "ltsa"]

# data not used in the notebooks: a noisy paraboloid patch in R^4
rng = np.random.default_rng(77)
UV = rng.uniform(-1, 1, size=(180, 2))
X = np.column_stack([UV, UV[:, 0] ** 2 - 0.5 * UV[:, 1] ** 2, np.sin(UV[:, 1])])
X += 0.01 * rng.normal(size=X.shape)


def test_weights_sum_to_one_and_match_sklearn():
    _, nbrs = kneighbors(X, 9)
    w = barycenter_weights(X, nbrs, reg=1e-3)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(
        w, sk_barycenter_weights(X, X, nbrs, reg=1e-3), atol=1e-8
    )


@given(st.integers(2, 4), st.integers(0, 10_000))
@settings(max_examples=20, deadline=None)
def test_weights_rebuild_a_point_in_the_affine_span_exactly(k, seed):
    g = np.random.default_rng(seed)
    neighbours = g.normal(size=(k, 6))  # K <= D, generic neighbours
    coefficients = g.dirichlet(np.ones(k)) * 2 - 1 / k  # any affine combination
    coefficients /= coefficients.sum()
    point = coefficients @ neighbours
    extra = g.normal(size=(k + 1, 6))  # generic points for the other rows
    data = np.vstack([point, neighbours, extra])
    others = np.arange(k + 1, 2 * k + 2)
    rows = [list(range(1, k + 1))] + [
        [j for j in others if j != r][:k] for r in range(1, len(data))
    ]
    # x_0 in the affine span makes C_0 singular (C_0 w = 0): a tiny reg picks that w
    w = barycenter_weights(data, np.array(rows), reg=1e-12)
    np.testing.assert_allclose(w[0] @ neighbours, point, atol=1e-9)
    np.testing.assert_allclose(w[0], coefficients, atol=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_M_is_psd_with_the_constant_vector_in_its_null_space(method):
    _, nbrs = kneighbors(X, 10)
    M = embedding_matrix(X, nbrs, 2, method=method).toarray()
    np.testing.assert_allclose(M, M.T, atol=1e-10)
    assert np.linalg.eigvalsh(M).min() > -1e-9 * np.abs(M).max()
    np.testing.assert_allclose(M @ np.ones(len(X)), 0.0, atol=1e-9 * np.abs(M).max())


@pytest.mark.parametrize("method", METHODS)
def test_agrees_with_sklearn_dense(method):
    ours = LocallyLinearEmbedding(10, 2, method=method).fit(X)
    theirs = SkLLE(
        n_neighbors=10, n_components=2, method=method, eigen_solver="dense"
    ).fit(X)
    assert procrustes(ours.embedding_, theirs.embedding_)[1] < 1e-8
    np.testing.assert_allclose(
        ours.reconstruction_error_, theirs.reconstruction_error_, rtol=1e-6, atol=1e-12
    )


def test_sparse_solver_agrees_with_dense():
    g = np.random.default_rng(5)
    t = g.uniform(0, 3, DENSE_MAX_SAMPLES + 100)
    Y = np.column_stack([t, g.uniform(0, 1, len(t)), np.sin(2 * t)])
    ours = LocallyLinearEmbedding(10, 2).fit(Y)
    theirs = SkLLE(n_neighbors=10, n_components=2, eigen_solver="dense").fit(Y)
    assert procrustes(ours.embedding_, theirs.embedding_)[1] < 1e-6


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [400, DENSE_MAX_SAMPLES + 500], ids=["dense", "sparse"])
def test_every_column_sums_to_zero_to_machine_precision(method, n):
    # [T] (10-24): Σ_i z_i = 0. Taken straight from the eigen-solvers, the columns of
    # this swiss roll sum to between 1e-11 and 1e-5 (depending on the method, the solver
    # and the BLAS); projecting out the constant vector makes them 1e-15.
    Y = datasets.swiss_roll(n, random_state=0)[0]
    Z = LocallyLinearEmbedding(12, 2, method=method).fit(Y).embedding_
    assert np.abs(Z.sum(axis=0)).max() < 1e-13
    np.testing.assert_allclose(Z.T @ Z, np.eye(2), atol=1e-13)


def test_transform_agrees_with_sklearn():
    new = X[:20] + 0.02
    ours = LocallyLinearEmbedding(10, 2).fit(X)
    theirs = SkLLE(n_neighbors=10, n_components=2, eigen_solver="dense").fit(X)
    signs = np.sign(np.sum(ours.embedding_ * theirs.embedding_, axis=0))
    np.testing.assert_allclose(
        ours.transform(new), theirs.transform(new) * signs, atol=1e-8
    )


@pytest.mark.parametrize("method", METHODS)
def test_invariant_to_rotation_translation_and_scaling(method):
    Q = special_ortho_group.rvs(4, random_state=3)
    moved = 3.5 * X @ Q + np.array([1.0, -2.0, 5.0, 0.3])
    a = LocallyLinearEmbedding(10, 2, method=method).fit(X).embedding_
    b = LocallyLinearEmbedding(10, 2, method=method).fit(moved).embedding_
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_fixed_signs_make_fits_reproducible():
    a = LocallyLinearEmbedding(10, 2).fit_transform(X)
    np.testing.assert_array_equal(a, LocallyLinearEmbedding(10, 2).fit_transform(X))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_neighbors": 180}, "n_neighbors=180 must be smaller"),
        ({"n_neighbors": 5, "method": "hessian"}, "n_neighbors=5 must be at least 6"),
        ({"method": "lle"}, "method='lle' is not one of"),
        ({"reg": -1.0}, "reg=-1.0 must be finite and >= 0"),
        ({"n_components": 5}, "n_components=5 must not exceed"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LocallyLinearEmbedding(**{"n_neighbors": 10, **kwargs}).fit(X)


def test_nan_and_singular_gram_are_clear_errors():
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LocallyLinearEmbedding(10, 2).fit(bad)
    _, nbrs = kneighbors(X, 9)
    with pytest.raises(ValueError, match="pass reg > 0"):
        barycenter_weights(X, nbrs, reg=0.0)  # K = 9 > D = 4: C is singular


def test_duplicate_points_are_allowed():
    doubled = np.vstack([X, X[:5]])
    Y = LocallyLinearEmbedding(10, 2).fit_transform(doubled)
    assert np.isfinite(Y).all()


def test_transform_checks_the_number_of_features():
    with pytest.raises(ValueError, match="2 features, but LocallyLinearEmbedding is"):
        LocallyLinearEmbedding(10, 2).fit(X).transform(np.ones((3, 2)))


def test_embedding_matrix_validates_its_arguments():
    _, neighbors = kneighbors(X, 6)
    M = embedding_matrix(X, neighbors, 2)
    assert M.shape == (len(X), len(X))
    with pytest.raises(ValueError, match="neighbors must hold indices"):
        embedding_matrix(X, neighbors + len(X), 2)
    with pytest.raises(ValueError, match="method='pca' is not one of"):
        embedding_matrix(X, neighbors, 2, method="pca")
    with pytest.raises(
        ValueError, match="n_components=9 must not exceed the number of features"
    ):
        embedding_matrix(X, neighbors, 9)


def test_lanczos_that_stalls_falls_back_to_the_dense_solver(monkeypatch):
    # Badly sampled rolls give M several eigenvalues at 0, where shift-invert Lanczos
    # can stall (e.g. swiss_roll(2000, random_state=7) with 5 neighbours); the fit must
    # still return the bottom eigenvectors, from LAPACK.
    def stalled(*args, **kwargs):
        raise ArpackNoConvergence("no convergence", np.zeros(0), np.zeros((0, 0)))

    X, _ = datasets.swiss_roll(DENSE_MAX_SAMPLES + 100, random_state=0)
    expected = LocallyLinearEmbedding(10, 2).fit_transform(X)
    monkeypatch.setattr(_linalg, "bottom_eigenpairs_sparse", stalled)
    fallback = LocallyLinearEmbedding(10, 2).fit_transform(X)
    assert np.max(subspace_angles(expected, fallback)) < 1e-6
