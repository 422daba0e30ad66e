"""Classical MDS (dr_lib.mds) against the mathematics and against scikit-learn."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from scipy.stats import special_ortho_group
from sklearn.decomposition import PCA as SkPCA
from sklearn.manifold import ClassicalMDS as SkClassicalMDS

from dr_lib import mds
from dr_lib._linalg import centering_matrix
from dr_lib.mds import ClassicalMDS

rng = np.random.default_rng(7)


def _same_up_to_column_signs(A, B, atol):
    """Assert A = B diag(s) for some signs s."""
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A, B * signs, atol=atol)


# ------------------------------------------------------------------ double centring


def test_double_centering_is_minus_half_J_D2_J_and_recovers_the_gram_matrix():
    Z = rng.normal(size=(9, 3))
    D2 = cdist(Z, Z, "sqeuclidean")
    J = centering_matrix(9)
    B = mds.double_centering(D2)
    np.testing.assert_allclose(B, -0.5 * J @ D2 @ J, atol=1e-12)
    Zc = Z - Z.mean(axis=0)
    np.testing.assert_allclose(B, Zc @ Zc.T, atol=1e-10)


def test_double_centering_validates_its_input():
    with pytest.raises(ValueError, match="symmetric"):
        mds.double_centering(np.array([[0.0, 1.0], [2.0, 0.0]]))


# --------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(min_value=3, max_value=12),
    k=st.integers(min_value=1, max_value=6),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_k_components_reproduce_all_distances_of_points_in_R_k(n, k, seed):
    k = min(k, n - 1)  # n points in general position span at most n - 1 dimensions
    X = np.random.default_rng(seed).normal(size=(n, k))
    Z = ClassicalMDS(k).fit_transform(X)
    np.testing.assert_allclose(cdist(Z, Z), cdist(X, X), atol=1e-8)


def test_precomputed_distances_give_the_same_embedding_as_the_data():
    X = rng.normal(size=(15, 4))
    from_data = ClassicalMDS(3).fit(X)
    from_D = ClassicalMDS(3, dissimilarity="precomputed").fit(cdist(X, X))
    np.testing.assert_allclose(from_D.embedding_, from_data.embedding_, atol=1e-10)
    np.testing.assert_allclose(from_D.eigenvalues_, from_data.eigenvalues_, rtol=1e-12)


def test_invariant_to_translating_and_rotating_the_input():
    X = rng.normal(size=(20, 5))
    R = special_ortho_group.rvs(5, random_state=3)
    moved = X @ R + rng.normal(size=5) * 10
    a, b = ClassicalMDS(3).fit(X), ClassicalMDS(3).fit(moved)
    np.testing.assert_allclose(b.eigenvalues_, a.eigenvalues_, rtol=1e-10)
    _same_up_to_column_signs(b.embedding_, a.embedding_, atol=1e-8)


def test_embedding_is_centred_with_column_norms_equal_to_the_eigenvalues():
    model = ClassicalMDS(3).fit(rng.normal(size=(25, 6)))
    Z = model.embedding_
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(Z.T @ Z, np.diag(model.eigenvalues_), atol=1e-9)


def test_embedding_is_deterministic_and_signs_fixed():
    X = rng.normal(size=(12, 4))
    Z = ClassicalMDS(2).fit_transform(X)
    np.testing.assert_array_equal(Z, ClassicalMDS(2).fit_transform(X))
    assert np.all(Z[np.argmax(np.abs(Z), axis=0), [0, 1]] > 0)


# ----------------------------------------------------- eigenvalues and the warning


@pytest.mark.parametrize("n", [30, 260])  # the exact and the Lanczos branch
def test_smallest_eigenvalue_matches_the_full_spectrum(n):
    X = rng.normal(size=(n, 3))
    D = cdist(X, X, "cityblock")  # L1 distances in R^3 are not Euclidean
    model = ClassicalMDS(2, dissimilarity="precomputed").fit(D)
    spectrum = np.linalg.eigvalsh(mds.double_centering(D**2))
    np.testing.assert_allclose(model.smallest_eigenvalue_, spectrum[0], rtol=1e-5)
    assert model.smallest_eigenvalue_ < -1e-3 * model.eigenvalues_[0]
    np.testing.assert_allclose(model.eigenvalues_, spectrum[::-1][:2], rtol=1e-10)


def test_smallest_eigenvalue_of_a_low_rank_euclidean_b_by_lanczos():
    # 300 points in R^3: B has rank 3 and 297 zero eigenvalues, the case on which
    # Lanczos on B itself (a relative tolerance on an eigenvalue near zero) does not
    # converge.
    X = rng.normal(size=(300, 3))
    assert len(X) > mds.EXACT_SMALLEST_MAX_N
    model = ClassicalMDS(2, dissimilarity="precomputed").fit(cdist(X, X))
    assert abs(model.smallest_eigenvalue_) < 1e-7 * model.eigenvalues_[0]
    # From the points themselves B is known to be PSD with B 1 = 0: no eigen-solve.
    from_points = ClassicalMDS(2).fit(X)
    assert from_points.smallest_eigenvalue_ == 0.0
    np.testing.assert_allclose(from_points.embedding_, model.embedding_, atol=1e-10)


def test_euclidean_input_has_no_negative_eigenvalue():
    X = rng.normal(size=(40, 3))
    model = ClassicalMDS(2, dissimilarity="precomputed").fit(cdist(X, X))
    assert model.smallest_eigenvalue_ > -1e-9 * model.eigenvalues_[0]


def test_warns_and_zeroes_columns_when_too_few_eigenvalues_are_positive():
    X = rng.normal(size=(10, 2))
    with pytest.warns(UserWarning, match="Only 2 of the n_components=4"):
        model = ClassicalMDS(4).fit(X)
    np.testing.assert_array_equal(model.embedding_[:, 2:], 0.0)
    assert np.all(np.isfinite(model.embedding_))


def test_no_warning_when_all_requested_eigenvalues_are_positive():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ClassicalMDS(2).fit(rng.normal(size=(10, 2)))


# ------------------------------------------------------------ against scikit-learn


@pytest.mark.parametrize("shape", [(40, 6), (8, 30)])  # n > d and n < d
def test_agrees_with_sklearn_classical_mds(shape):
    X = rng.normal(size=shape)
    ours = ClassicalMDS(3).fit(X)
    ref = SkClassicalMDS(n_components=3).fit(X)
    _same_up_to_column_signs(ours.embedding_, ref.embedding_, atol=1e-8)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-8)


def test_agrees_with_sklearn_on_precomputed_non_euclidean_distances():
    X = rng.normal(size=(30, 4))
    D = cdist(X, X, "cityblock")
    ours = ClassicalMDS(2, dissimilarity="precomputed").fit(D)
    ref = SkClassicalMDS(n_components=2, metric="precomputed").fit(D)
    _same_up_to_column_signs(ours.embedding_, ref.embedding_, atol=1e-8)


@pytest.mark.parametrize("shape", [(50, 7), (9, 20)])
def test_equals_pca_scores_on_euclidean_distances(shape):
    X = rng.normal(size=shape) @ rng.normal(size=(shape[1], shape[1]))
    ours = ClassicalMDS(3).fit(X)
    pca = SkPCA(n_components=3, svd_solver="full").fit(X)
    _same_up_to_column_signs(ours.embedding_, pca.transform(X), atol=1e-8)
    np.testing.assert_allclose(
        ours.eigenvalues_, (shape[0] - 1) * pca.explained_variance_, rtol=1e-8
    )


# ------------------------------------------------------------------------ bad input


def _distances(n=5):
    X = rng.normal(size=(n, 2))
    return cdist(X, X)


def _asymmetric():
    D = _distances()
    D[0, 1] += 1.0
    return D


def _negative():
    D = _distances()
    D[0, 1] = D[1, 0] = -1.0
    return D


def _nonzero_diagonal():
    D = _distances()
    D[2, 2] = 0.5
    return D


@pytest.mark.parametrize(
    "D, message",
    [
        (_distances()[:, :4], "square"),
        (_asymmetric(), "symmetric"),
        (_negative(), "non-negative"),
        (_nonzero_diagonal(), "zero diagonal"),
    ],
)
def test_bad_precomputed_matrices_raise(D, message):
    with pytest.raises(ValueError, match=message):
        ClassicalMDS(2, dissimilarity="precomputed").fit(D)


@pytest.mark.parametrize(
    "kwargs, X, message",
    [
        ({}, np.array([[0.0, np.nan], [1.0, 2.0]]), "NaN or infinite"),
        ({}, np.array([[0.0, np.inf], [1.0, 2.0]]), "NaN or infinite"),
        ({}, np.ones((1, 3)), "at least 2"),
        ({}, np.ones(4), "2-D"),
        ({"n_components": 6}, np.eye(5), "at most 5"),
        ({"n_components": 0}, np.eye(5), "at least 1"),
        ({"n_components": 1.5}, np.eye(5), "must be an integer"),
        ({"dissimilarity": "cosine"}, np.eye(5), "'euclidean', 'precomputed'"),
    ],
)
def test_bad_input_raises_a_useful_value_error(kwargs, X, message):
    with pytest.raises(ValueError, match=message):
        ClassicalMDS(**kwargs).fit(X)


def test_parameters_are_stored_unchanged():
    model = ClassicalMDS(n_components=3, dissimilarity="precomputed")
    assert model.get_params() == {"n_components": 3, "dissimilarity": "precomputed"}
