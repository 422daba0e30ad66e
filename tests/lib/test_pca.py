"""dr_lib.PCA against scikit-learn and against the mathematics of book/01_pca."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SklearnPCA

from dr_lib import PCA

SOLVERS = ["eigh", "svd"]


def correlated(n_samples, n_features, seed):
    """Gaussian data with distinct variances along skewed axes (not the notebooks'
    data)."""
    rng = np.random.default_rng(seed)
    scales = np.geomspace(5.0, 0.2, n_features)
    mixing = np.linalg.qr(rng.normal(size=(n_features, n_features)))[0]
    return rng.normal(size=(n_samples, n_features)) * scales @ mixing + rng.normal(
        size=n_features
    )


def align_signs(A, B):
    """Flip the rows of ``A`` to match the rows of ``B`` (directions are defined up to
    sign)."""
    signs = np.sign(np.sum(A * B, axis=1, keepdims=True))
    return A * signs


@pytest.fixture(scope="module")
def data():
    return correlated(120, 9, seed=11)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("n_components", [1, 4, 9])
def test_matches_sklearn(data, solver, n_components):
    ours = PCA(n_components, solver=solver).fit(data)
    ref = SklearnPCA(n_components, svd_solver="full").fit(data)
    components = align_signs(ours.components_, ref.components_)
    np.testing.assert_allclose(components, ref.components_, atol=1e-8)
    for name in [
        "explained_variance_",
        "explained_variance_ratio_",
        "singular_values_",
        "mean_",
    ]:
        np.testing.assert_allclose(getattr(ours, name), getattr(ref, name), rtol=1e-8)
    new = correlated(30, 9, seed=12)
    Z_ours, Z_ref = ours.transform(new), ref.transform(new)
    signs = np.sign(np.sum(Z_ours * Z_ref, axis=0))
    np.testing.assert_allclose(Z_ours * signs, Z_ref, atol=1e-8)
    np.testing.assert_allclose(
        ours.inverse_transform(Z_ours), ref.inverse_transform(Z_ref), atol=1e-8
    )


@pytest.mark.parametrize("solver", SOLVERS)
def test_signs_are_deterministic_and_as_sklearn(data, solver):
    ours = PCA(5, solver=solver).fit(data)
    ref = SklearnPCA(5, svd_solver="full").fit(data)
    np.testing.assert_allclose(ours.components_, ref.components_, atol=1e-8)
    largest = ours.components_[
        np.arange(5), np.argmax(np.abs(ours.components_), axis=1)
    ]
    assert np.all(largest > 0)


@pytest.mark.parametrize("fraction", [0.3, 0.8, 0.95, 0.999])
def test_fraction_of_variance_as_sklearn(data, fraction):
    ref = SklearnPCA(fraction, svd_solver="full").fit(data)
    for solver in SOLVERS:
        ours = PCA(fraction, solver=solver).fit(data)
        assert ours.n_components_ == ref.n_components_
        assert np.cumsum(ours.explained_variance_ratio_)[-1] > fraction
        assert (
            ours.n_components_ == 1
            or np.cumsum(ours.explained_variance_ratio_)[-2] <= fraction
        )


def test_solvers_agree_and_none_keeps_everything(data):
    a, b = PCA(solver="eigh").fit(data), PCA(solver="svd").fit(data)
    assert a.n_components_ == b.n_components_ == 9
    np.testing.assert_allclose(a.components_, b.components_, atol=1e-8)
    np.testing.assert_allclose(a.explained_variance_ratio_.sum(), 1.0, rtol=1e-12)


def test_variance_normalisations(data):
    """explained_variance_ uses 1/(N-1); [T]'s S = X X^T has the eigenvalues N-1 times
    larger."""
    pca = PCA(3).fit(data)
    n = len(data)
    Xc = data - data.mean(axis=0)
    scatter_eigs = np.linalg.eigvalsh(Xc.T @ Xc)[::-1][:3]
    np.testing.assert_allclose(
        pca.explained_variance_ * (n - 1), scatter_eigs, rtol=1e-10
    )
    np.testing.assert_allclose(pca.singular_values_**2, scatter_eigs, rtol=1e-10)
    np.testing.assert_allclose(
        pca.transform(data).var(axis=0, ddof=1), pca.explained_variance_, rtol=1e-10
    )


@pytest.mark.parametrize("solver", SOLVERS)
def test_full_rank_reconstruction_and_optimality(data, solver):
    full = PCA(solver=solver).fit(data)
    np.testing.assert_allclose(
        full.inverse_transform(full.transform(data)), data, atol=1e-9
    )
    pca = PCA(3, solver=solver).fit(data)
    error = np.sum((data - pca.inverse_transform(pca.transform(data))) ** 2)
    eigenvalues = PCA(solver=solver).fit(data).singular_values_ ** 2
    np.testing.assert_allclose(error, eigenvalues[3:].sum(), rtol=1e-8)
    rng = np.random.default_rng(5)
    Xc = data - data.mean(axis=0)
    for _ in range(20):
        W = np.linalg.qr(rng.normal(size=(9, 3)))[0]
        assert np.sum((Xc - Xc @ W @ W.T) ** 2) >= error - 1e-9


def test_invariant_to_translation_and_rotation(data):
    rng = np.random.default_rng(3)
    Q = np.linalg.qr(rng.normal(size=(9, 9)))[0]
    base = PCA(4).fit(data)
    moved = PCA(4).fit(data @ Q + 100.0)
    np.testing.assert_allclose(
        moved.explained_variance_, base.explained_variance_, rtol=1e-8
    )
    np.testing.assert_allclose(
        np.abs(moved.components_ @ Q.T), np.abs(base.components_), atol=1e-8
    )


@settings(max_examples=25, deadline=None)
@given(
    n_samples=st.integers(2, 15),
    n_features=st.integers(1, 15),
    seed=st.integers(0, 10_000),
    solver=st.sampled_from(SOLVERS),
)
def test_shapes_and_orthonormality(n_samples, n_features, seed, solver):
    X = np.random.default_rng(seed).normal(size=(n_samples, n_features))
    k = min(n_samples, n_features)
    pca = PCA(k, solver=solver).fit(X)
    assert pca.components_.shape == (k, n_features)
    np.testing.assert_allclose(
        pca.components_ @ pca.components_.T, np.eye(k), atol=1e-8
    )
    assert np.all(np.diff(pca.explained_variance_) <= 1e-10)
    assert pca.transform(X).shape == (n_samples, k)
    assert pca.inverse_transform(pca.transform(X)).shape == X.shape


@settings(max_examples=15, deadline=None)
@given(
    n_samples=st.integers(3, 12), extra=st.integers(1, 20), seed=st.integers(0, 10_000)
)
def test_wide_data_matches_sklearn(n_samples, extra, seed):
    """n_samples < n_features: both routes give sklearn's directions (the well-defined
    ones)."""
    X = np.random.default_rng(seed).normal(size=(n_samples, n_samples + extra))
    k = n_samples - 1
    ref = SklearnPCA(k, svd_solver="full").fit(X)
    for solver in SOLVERS:
        ours = PCA(k, solver=solver).fit(X)
        np.testing.assert_allclose(
            ours.explained_variance_, ref.explained_variance_, rtol=1e-7, atol=1e-10
        )
        np.testing.assert_allclose(
            np.abs(ours.components_ @ ref.components_.T), np.eye(k), atol=1e-6
        )


@pytest.mark.parametrize(
    "params, X, match",
    [
        ({"n_components": 0}, np.ones((5, 3)), "n_components=0 must be at least 1"),
        ({"n_components": 4}, np.eye(5, 3), "at most 3"),
        ({"n_components": 6}, np.eye(5, 8), "at most 5"),
        ({"n_components": 1.5}, np.eye(5, 3), r"n_components must lie in \[0.0, 1.0\]"),
        (
            {"n_components": -0.2},
            np.eye(5, 3),
            "n_components=-0.2 must be finite and > 0",
        ),
        ({"n_components": "two"}, np.eye(5, 3), "must be an integer"),
        (
            {"solver": "arpack"},
            np.eye(5, 3),
            "solver='arpack' is not one of 'eigh', 'svd'",
        ),
        ({}, np.array([[1.0, np.nan], [2.0, 3.0]]), "NaN or infinite"),
        ({}, np.array([[1.0, np.inf], [2.0, 3.0]]), "NaN or infinite"),
        ({}, np.ones((1, 3)), "X has 1 sample"),
        ({}, np.ones(4), "must be 2-D"),
    ],
)
def test_bad_input(params, X, match):
    with pytest.raises(ValueError, match=match):
        PCA(**params).fit(X)


def test_bad_input_after_fit(data):
    pca = PCA(2).fit(data)
    with pytest.raises(ValueError, match="X has 4 features, but PCA is expecting 9"):
        pca.transform(np.ones((3, 4)))
    with pytest.raises(ValueError, match="Z must have exactly 2 columns"):
        pca.inverse_transform(np.ones((3, 3)))


def test_transform_before_fit_raises():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        PCA(2).transform(np.ones((3, 3)))


def test_constant_data_has_zero_ratios():
    pca = PCA(2).fit(np.ones((6, 3)))
    np.testing.assert_array_equal(pca.explained_variance_ratio_, 0.0)
    np.testing.assert_allclose(
        pca.components_ @ pca.components_.T, np.eye(2), atol=1e-12
    )


@pytest.mark.parametrize("solver", SOLVERS)
def test_fit_transform_equals_fit_then_transform(data, solver):
    np.testing.assert_allclose(
        PCA(3, solver=solver).fit_transform(data),
        PCA(3, solver=solver).fit(data).transform(data),
        atol=1e-12,
    )


# ------------------------------------------- the Gram route XᵀX − N x̄x̄ᵀ and its guard


def test_gram_route_is_the_centred_scatter_matrix(data):
    """_eigh_route forms XᵀX − N x̄x̄ᵀ; centring first is the independent route."""
    import dr_lib.pca as module

    mean = data.mean(axis=0)
    values, components, total = module._eigh_route(data, mean, 4)
    Xc = data - mean
    ref_values, ref_vectors = np.linalg.eigh(Xc.T @ Xc)
    assert not module._mean_dominates(mean, len(data), ref_values[-1])
    np.testing.assert_allclose(values, ref_values[::-1][:4], rtol=1e-12)
    ref = ref_vectors[:, ::-1][:, :4].T
    np.testing.assert_allclose(align_signs(components, ref), ref, atol=1e-10)
    assert total == pytest.approx(np.sum(Xc**2), rel=1e-13)


def _far_from_the_origin():
    """Unit-scale data whose mean lies 10⁷ from the origin: N‖x̄‖² ≫ λ₁."""
    return correlated(200, 6, seed=5) + 1e7


@pytest.mark.parametrize("guard", [True, False])
def test_mean_guard_keeps_the_eigen_route_accurate(monkeypatch, guard):
    """With the guard PCA centres first and agrees with the SVD route; without it the
    Gram route cancels almost every digit, so the guard is what keeps this test
    green."""
    import dr_lib.pca as module

    X = _far_from_the_origin()
    reference = PCA(4, solver="svd").fit(X)
    if not guard:
        monkeypatch.setattr(module, "MEAN_GUARD", np.inf)
    ours = PCA(4).fit(X)
    error = np.max(np.abs(ours.explained_variance_ / reference.explained_variance_ - 1))
    if guard:
        assert error < 1e-10
        # X Wᵀ − x̄ Wᵀ would lose ~1e-8 here; the guarded scores centre first
        np.testing.assert_allclose(
            PCA(4).fit_transform(X), reference.fit_transform(X), atol=1e-10
        )
    else:
        assert error > 1e-3


def test_scores_without_centring_equal_the_centred_scores(data):
    """fit_transform and transform compute X Wᵀ − x̄ Wᵀ: the same as (X − x̄) Wᵀ."""
    pca = PCA(3).fit(data)
    new = correlated(25, 9, seed=13)
    np.testing.assert_allclose(
        pca.transform(new), (new - pca.mean_) @ pca.components_.T, atol=1e-12
    )
    np.testing.assert_allclose(
        pca.fit_transform(data), (data - pca.mean_) @ pca.components_.T, atol=1e-12
    )
