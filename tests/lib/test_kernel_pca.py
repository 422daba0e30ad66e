"""Kernel functions and KernelPCA against scikit-learn and against the mathematics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SkPCA
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.metrics import pairwise

from dr_lib import KernelPCA
from dr_lib._linalg import centering_matrix
from dr_lib.kernel_pca import centre_new_rows
from dr_lib.kernels import kernel_matrix

# data not used in the notebooks: skewed, correlated features and a separate test set
rng = np.random.default_rng(2024)
X_TRAIN = rng.gamma(2.0, size=(120, 5)) @ rng.normal(size=(5, 5))
X_NEW = rng.gamma(2.0, size=(15, 5)) @ rng.normal(size=(5, 5))
PARAMS = {
    "linear": {},
    "poly": {"gamma": 0.05, "degree": 3, "coef0": 1.5},
    "rbf": {"gamma": 0.02},
}


def align_signs(A, B):
    """``B`` with each column's sign flipped to agree with ``A``."""
    return B * np.sign(np.sum(A * B, axis=0))


def fitted_pair(kernel, n_components=4):
    ours = KernelPCA(n_components, kernel=kernel, **PARAMS[kernel]).fit(X_TRAIN)
    theirs = SkKernelPCA(
        n_components, kernel=kernel, eigen_solver="dense", **PARAMS[kernel]
    ).fit(X_TRAIN)
    return ours, theirs


def assert_close_up_to_sign(A, B, atol=1e-8):
    scale = max(1.0, np.abs(B).max())
    np.testing.assert_allclose(A, align_signs(A, B), atol=atol * scale, rtol=0)


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_kernels_match_sklearn_pairwise(kernel):
    ours = kernel_matrix(X_TRAIN, X_NEW, kernel=kernel, **PARAMS[kernel])
    theirs = pairwise.pairwise_kernels(X_TRAIN, X_NEW, metric=kernel, **PARAMS[kernel])
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


def test_gamma_none_means_one_over_n_features():
    np.testing.assert_allclose(kernel_matrix(X_TRAIN), pairwise.rbf_kernel(X_TRAIN))
    np.testing.assert_allclose(
        kernel_matrix(X_TRAIN, kernel="poly"),
        pairwise.polynomial_kernel(X_TRAIN, coef0=1),
    )


def test_callable_kernel_is_used_as_given():
    laplacian = lambda A, B: pairwise.laplacian_kernel(A, B, gamma=0.1)  # noqa: E731
    np.testing.assert_allclose(
        kernel_matrix(X_TRAIN, X_NEW, kernel=laplacian), laplacian(X_TRAIN, X_NEW)
    )
    ours = KernelPCA(3, kernel=laplacian).fit(X_TRAIN)
    theirs = SkKernelPCA(3, kernel="precomputed", eigen_solver="dense").fit(
        laplacian(X_TRAIN, X_TRAIN)
    )
    assert_close_up_to_sign(
        ours.transform(X_NEW), theirs.transform(laplacian(X_NEW, X_TRAIN))
    )


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_fit_agrees_with_sklearn_up_to_sign(kernel):
    ours, theirs = fitted_pair(kernel)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-8)
    assert_close_up_to_sign(ours.embedding_, theirs.transform(X_TRAIN))
    assert_close_up_to_sign(ours.fit_transform(X_TRAIN), theirs.fit_transform(X_TRAIN))


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_new_point_transform_agrees_with_sklearn_up_to_sign(kernel):
    ours, theirs = fitted_pair(kernel)
    signs = np.sign(np.sum(ours.embedding_ * theirs.transform(X_TRAIN), axis=0))
    np.testing.assert_allclose(
        ours.transform(X_NEW),
        theirs.transform(X_NEW) * signs,
        atol=1e-8 * np.abs(ours.embedding_).max(),
    )


def test_linear_kernel_pca_equals_pca_scores():
    ours = KernelPCA(4, kernel="linear").fit(X_TRAIN)
    pca = SkPCA(4).fit(X_TRAIN)
    assert_close_up_to_sign(ours.embedding_, pca.transform(X_TRAIN))
    assert_close_up_to_sign(ours.transform(X_NEW), pca.transform(X_NEW))
    # eigenvalues of the centred Gram matrix = (N - 1) x sample variances
    np.testing.assert_allclose(
        ours.eigenvalues_, (len(X_TRAIN) - 1) * pca.explained_variance_, rtol=1e-10
    )


@pytest.mark.parametrize("kernel", ["poly", "rbf"])
def test_feature_space_directions_have_unit_length(kernel):
    ours = KernelPCA(4, kernel=kernel, **PARAMS[kernel]).fit(X_TRAIN)
    J = centering_matrix(len(X_TRAIN))
    K_centred = J @ kernel_matrix(X_TRAIN, kernel=kernel, **PARAMS[kernel]) @ J
    A = ours.eigenvectors_
    np.testing.assert_allclose(A.T @ K_centred @ A, np.eye(4), atol=1e-9)  # W^T W = I
    np.testing.assert_allclose(ours.transform(X_TRAIN), ours.embedding_, atol=1e-9)


def test_centre_new_rows_on_training_points_is_double_centring():
    K = kernel_matrix(X_TRAIN, kernel="rbf", gamma=0.02)
    J = centering_matrix(len(K))
    np.testing.assert_allclose(
        centre_new_rows(K, K.mean(axis=0), K.mean()), J @ K @ J, atol=1e-12
    )


def test_result_is_invariant_to_translation_and_rotation_for_rbf():
    Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    moved = X_TRAIN @ Q + 3.0
    a = KernelPCA(3, kernel="rbf", gamma=0.02).fit(X_TRAIN)
    b = KernelPCA(3, kernel="rbf", gamma=0.02).fit(moved)
    assert_close_up_to_sign(a.embedding_, b.embedding_)
    assert_close_up_to_sign(a.transform(X_NEW), b.transform(X_NEW @ Q + 3.0))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(3, 12), d=st.integers(1, 20), seed=st.integers(0, 2**16))
def test_linear_kernel_pca_matches_pca_on_random_shapes(n, d, seed):
    """Includes n_samples < n_features, where K has rank n - 1 after centring."""
    X = np.random.default_rng(seed).normal(size=(n, d))
    k = min(n - 1, d, 2)
    ours = KernelPCA(k, kernel="linear").fit(X)
    assert_close_up_to_sign(ours.embedding_, SkPCA(k).fit_transform(X), atol=1e-7)


@pytest.mark.parametrize(
    ("kwargs", "X", "message"),
    [
        ({}, [[0.0, np.nan], [1.0, 2.0], [3.0, 4.0]], "NaN"),
        ({}, [[1.0, 2.0]], "at least 2"),
        ({"n_components": 0}, X_TRAIN, "n_components"),
        ({"n_components": 500}, X_TRAIN, "n_components"),
        ({"n_components": 6, "kernel": "linear"}, X_TRAIN, "non-zero eigenvalues"),
        ({"kernel": "sigmoid"}, X_TRAIN, "kernel"),
        ({"gamma": -1.0}, X_TRAIN, "gamma"),
        ({"kernel": "poly", "degree": 2.5}, X_TRAIN, "degree"),
        ({"kernel": "poly", "coef0": -1.0}, X_TRAIN, "coef0"),
        ({"kernel": lambda A, B: A @ B.T[:, :2]}, X_TRAIN, "shape"),
    ],
)
def test_bad_input_raises_value_error(kwargs, X, message):
    with pytest.raises(ValueError, match=message):
        KernelPCA(**kwargs).fit(X)


def test_transform_checks_its_input():
    fitted = KernelPCA(2).fit(X_TRAIN)
    with pytest.raises(ValueError, match="3 features, but KernelPCA is expecting 5"):
        fitted.transform(X_NEW[:, :3])
    with pytest.raises(ValueError, match="not fitted"):
        KernelPCA(2).transform(X_NEW)


# ------------------------------------------------------------- n_components=None


def test_nonzero_rule_is_sklearns():
    """The zero threshold is scikit-learn's _check_psd_eigenvalues, entry by entry."""
    from sklearn.utils.validation import _check_psd_eigenvalues

    from dr_lib._linalg import nonzero_eigenvalues

    values = np.array([4.0, 1.0, 4e-11, 4.1e-12, 3.9e-12, 1e-15, 0.0, -1e-14])
    expected = _check_psd_eigenvalues(values.copy()) > 0
    np.testing.assert_array_equal(nonzero_eigenvalues(values), expected)
    assert (
        expected.tolist() == [True] * 4 + [False] * 4
    )  # the cut falls inside the list


CIRCLE = (
    np.column_stack([np.cos(np.linspace(0, 6, 40)), np.sin(np.linspace(0, 6, 40))])
    * np.linspace(1, 2, 40)[:, None]
)


@pytest.mark.parametrize(
    "X, kernel, params, expected",
    [
        (X_TRAIN, "linear", {}, 5),  # rank of the centred data
        # degree exactly 2 in 2-D (c0 = 0): x², xy, y², three features
        (CIRCLE, "poly", {"gamma": 1.0, "degree": 2, "coef0": 0.0}, 3),
        # degree at most 2 (c0 > 0): six monomials, minus the constant after centring
        (CIRCLE, "poly", {"gamma": 1.0, "degree": 2, "coef0": 1.0}, 5),
        (X_TRAIN, "rbf", PARAMS["rbf"], None),  # full rank up to the threshold
    ],
)
def test_n_components_none_keeps_every_nonzero_component_as_sklearn(
    X, kernel, params, expected
):
    ours = KernelPCA(None, kernel=kernel, **params).fit(X)
    theirs = SkKernelPCA(None, kernel=kernel, eigen_solver="dense", **params).fit(X)
    # The test's premise: no eigenvalue of the centred kernel lies within a factor 10
    # of the threshold 1e-12 λ_max, where round-off could split the two implementations.
    J = centering_matrix(len(X))
    K = pairwise.pairwise_kernels(X, metric=kernel, **params)
    spectrum = np.linalg.eigvalsh(J @ K @ J)
    ratio = spectrum / spectrum.max()
    assert not np.any((ratio > 1e-13) & (ratio < 1e-11))
    assert ours.n_components_ == len(theirs.eigenvalues_) == np.sum(ratio >= 1e-12)
    if expected is not None:
        assert ours.n_components_ == expected
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-7)
    new = X_NEW[:, : X.shape[1]]
    assert_close_up_to_sign(ours.transform(new), theirs.transform(new), atol=1e-6)
