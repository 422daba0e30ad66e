"""Tests of dr_lib._validation: accepted inputs come back clean, bad ones get a useful
message."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from dr_lib import _validation as v

finite_floats = st.floats(
    min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False
)
matrices = arrays(
    np.float64,
    array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=12),
    elements=finite_floats,
)


# ------------------------------------------------------------------------- check_array


@settings(max_examples=60, deadline=None)
@given(X=matrices)
def test_check_array_accepts_every_finite_matrix_unchanged(X):
    out = v.check_array(X)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, X)


@settings(max_examples=60, deadline=None)
@given(X=matrices, data=st.data(), bad=st.sampled_from([np.nan, np.inf, -np.inf]))
def test_check_array_rejects_any_nonfinite_entry_and_reports_its_position(X, data, bad):
    i = data.draw(st.integers(0, X.shape[0] - 1))
    j = data.draw(st.integers(0, X.shape[1] - 1))
    X = X.copy()
    X[i, j] = bad
    with pytest.raises(
        ValueError, match=rf"X contains 1 NaN or infinite.*X\[{i}, {j}\]"
    ):
        v.check_array(X)


def test_check_array_accepts_finite_entries_whose_sum_overflows():
    # the fast path trusts a finite sum; an infinite sum of finite entries must fall
    # through to the entry-by-entry test and pass
    X = np.full((3, 2), 1e308)
    with np.errstate(over="ignore"):
        assert np.isinf(X.sum())
    assert v.check_array(X) is X


def test_check_array_counts_all_nonfinite_values():
    X = np.zeros((3, 3))
    X[0, 2], X[2, 1] = np.nan, np.inf
    with pytest.raises(ValueError, match=r"2 NaN or infinite.*X\[0, 2\]"):
        v.check_array(X)


def test_check_array_converts_integers_and_lists():
    out = v.check_array([[1, 2], [3, 4]])
    assert out.dtype == np.float64 and out.shape == (2, 2)


def test_check_array_rejects_1d_with_reshape_hint():
    with pytest.raises(ValueError, match=r"1-D.*reshape\(-1, 1\)"):
        v.check_array(np.arange(5.0))


def test_check_array_rejects_3d():
    with pytest.raises(ValueError, match="3-D"):
        v.check_array(np.zeros((2, 2, 2)))


@pytest.mark.parametrize(
    "X", [np.array([["a", "b"]]), [[1.0, "x"]], np.zeros((2, 2), dtype=complex)]
)
def test_check_array_rejects_non_numeric(X):
    with pytest.raises(ValueError, match="must be numeric"):
        v.check_array(X, name="data")


def test_check_array_min_samples_and_features_name_the_parameter():
    with pytest.raises(ValueError, match=r"Y has 2 sample.*at least 3"):
        v.check_array(np.zeros((2, 5)), name="Y", min_samples=3)
    with pytest.raises(ValueError, match=r"X has 1 feature.*at least 2"):
        v.check_array(np.zeros((4, 1)), min_features=2)


def test_check_n_features_requires_exact_width():
    assert v.check_n_features(np.zeros((4, 2)), 2).shape == (4, 2)
    with pytest.raises(ValueError, match=r"exactly 3 columns.*\(4, 2\)"):
        v.check_n_features(np.zeros((4, 2)), 3)


def test_check_vector():
    np.testing.assert_array_equal(v.check_vector([1, 2], name="w", n=2), [1.0, 2.0])
    with pytest.raises(ValueError, match="w must be 1-D"):
        v.check_vector(np.zeros((2, 2)), name="w")
    with pytest.raises(ValueError, match="w has length 2 but there are 3"):
        v.check_vector([1, 2], name="w", n=3)
    with pytest.raises(ValueError, match="w contains 1 NaN"):
        v.check_vector([1, np.nan], name="w")


# -------------------------------------------------------------------------- integers


@pytest.mark.parametrize(
    "value, expected", [(1, 1), (3, 3), (np.int64(2), 2), (2.0, 2)]
)
def test_check_n_components_accepts_integers(value, expected):
    out = v.check_n_components(value, 3)
    assert out == expected and type(out) is int


@pytest.mark.parametrize("value", [True, 1.5, "2", None, np.nan])
def test_check_n_components_rejects_non_integers(value):
    with pytest.raises(ValueError, match="n_components=.* must be an integer"):
        v.check_n_components(value, 3)


@pytest.mark.parametrize(
    "value, pattern",
    [(0, "at least 1"), (4, r"must not exceed .*\(3\); pass n_components <= 3")],
)
def test_check_n_components_range(value, pattern):
    with pytest.raises(ValueError, match=pattern):
        v.check_n_components(value, 3)


def test_check_n_neighbors_message_names_value_and_fix():
    assert v.check_n_neighbors(149, 150) == 149
    with pytest.raises(ValueError) as info:
        v.check_n_neighbors(200, 150)
    assert str(info.value) == (
        "n_neighbors=200 must be smaller than the number of samples (150); pass "
        "n_neighbors < 150."
    )
    with pytest.raises(ValueError, match="n_neighbors=150 must be smaller"):
        v.check_n_neighbors(150, 150)
    with pytest.raises(ValueError, match="n_neighbors=0 must be at least 1"):
        v.check_n_neighbors(0, 150)


@given(value=st.integers(-50, 50), low=st.integers(-5, 5), width=st.integers(0, 10))
def test_check_integer_accepts_exactly_the_interval(value, low, width):
    high = low + width
    if low <= value <= high:
        assert v.check_integer(value, name="k", low=low, high=high) == value
    else:
        with pytest.raises(ValueError, match=f"k={value}"):
            v.check_integer(value, name="k", low=low, high=high)


# ---------------------------------------------------------------------------- labels


def test_check_labels_keeps_dtype():
    assert v.check_labels(["a", "b"], 2).dtype.kind == "U"
    np.testing.assert_array_equal(v.check_labels((0, 1, 1), 3), [0, 1, 1])


@pytest.mark.parametrize(
    "y, pattern",
    [
        (np.zeros((3, 1)), r"y must be 1-D.*np.ravel"),
        ([0, 1], "y has length 2 but there are 3 samples"),
        ([0.0, np.nan, 1.0], r"1 NaN label.*y\[1\]"),
        (np.array(["a", np.nan, "b"], dtype=object), r"NaN label.*y\[1\]"),
    ],
)
def test_check_labels_rejects(y, pattern):
    with pytest.raises(ValueError, match=pattern):
        v.check_labels(y, 3)


# -------------------------------------------------------------------- dissimilarities


def _distances(n=5, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, 3))
    return np.linalg.norm(X[:, None] - X[None, :], axis=-1)


def test_check_square_dissimilarity_accepts_distance_matrix():
    D = _distances()
    np.testing.assert_array_equal(v.check_square_dissimilarity(D), D)
    np.testing.assert_array_equal(
        v.check_square_dissimilarity(D**2, squared=True), D**2
    )


def _perturbed(kind):
    D = _distances()
    if kind == "asymmetric":
        D[0, 1] += 1e-3
    elif kind == "negative":
        D[0, 1] = D[1, 0] = -0.5
    elif kind == "diagonal":
        D[2, 2] = 0.1
    return D


@pytest.mark.parametrize(
    "kind, pattern",
    [
        ("asymmetric", r"must be symmetric: D\[0, 1\]"),
        ("negative", r"non-negative squared dissimilarities; D\[0, 1\] = -0.5"),
        ("diagonal", r"zero diagonal.*D\[2, 2\] = 0.1"),
    ],
)
def test_check_square_dissimilarity_rejects(kind, pattern):
    with pytest.raises(ValueError, match=pattern):
        v.check_square_dissimilarity(_perturbed(kind), squared=True)


def test_check_square_dissimilarity_tolerance_and_shape():
    D = _distances()
    D[0, 1] += 1e-10
    v.check_square_dissimilarity(D)
    with pytest.raises(
        ValueError, match=r"square matrix of dissimilarities; got shape \(2, 3\)"
    ):
        v.check_square_dissimilarity(np.zeros((2, 3)))


# ---------------------------------------------------------------- scalars and options


def test_check_positive():
    assert v.check_positive(2, name="noise") == 2.0
    assert v.check_positive(0, name="noise", strict=False) == 0.0
    with pytest.raises(ValueError, match="noise=0.0 must be finite and > 0"):
        v.check_positive(0, name="noise")
    for bad in (-1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match=r"noise=.* must be finite and >= 0"):
            v.check_positive(bad, name="noise", strict=False)
    for bad in (True, "1", None):
        with pytest.raises(ValueError, match="must be a real number"):
            v.check_positive(bad, name="noise")


def test_check_interval():
    np.testing.assert_array_equal(
        v.check_interval([0, 90], -90, 90, name="lat"), [0.0, 90.0]
    )
    with pytest.raises(
        ValueError, match=r"lat must lie in \[-90, 90\]; 1 value.*116.4"
    ):
        v.check_interval([39.9, 116.4], -90, 90, name="lat")


def test_check_in():
    assert v.check_in("svd", ("eigh", "svd"), name="solver") == "svd"
    with pytest.raises(ValueError, match="solver='qr' is not one of 'eigh', 'svd'"):
        v.check_in("qr", ["eigh", "svd"], name="solver")
    with pytest.raises(ValueError, match="solver=1"):
        v.check_in(1, ["eigh", "svd"], name="solver")


# ------------------------------------------- messages scikit-learn's checks recognise


@pytest.mark.parametrize(
    "X, pattern",
    [
        (np.zeros((2, 2), dtype=complex), "Complex data not supported"),
        (np.array([[1.0, {"a": 1}]], dtype=object), "argument must be .* number"),
        (np.array([["a", "b"]]), "must be numeric"),
    ],
)
def test_non_numbers_raise_an_error_that_is_both_type_and_value_error(X, pattern):
    with pytest.raises(v.DataTypeError, match=pattern) as caught:
        v.check_array(X)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)


def test_sparse_input_is_refused_with_the_fix():
    import scipy.sparse as sp

    with pytest.raises(ValueError, match=r"sparse input is not supported.*toarray\(\)"):
        v.check_array(sp.csr_matrix(np.eye(3)))


def test_messages_carry_the_phrases_of_sklearns_checks():
    with pytest.raises(ValueError, match="Reshape your data"):
        v.check_array(np.arange(3.0))
    with pytest.raises(
        ValueError, match=r"0 feature\(s\) \(shape=\(12, 0\)\) while a minimum of 1"
    ):
        v.check_array(np.zeros((12, 0)))


def test_check_array_copy_returns_an_independent_array():
    X = np.arange(6.0).reshape(3, 2)
    assert v.check_array(X) is X
    owned = v.check_array(X, copy=True)
    assert not np.shares_memory(owned, X)
    np.testing.assert_array_equal(owned, X)
    converted = v.check_array(X.astype(int), copy=True)  # converted once, not twice
    assert converted.dtype == np.float64


def test_check_transform_input_compares_with_the_fitted_width():
    from sklearn.exceptions import NotFittedError

    from dr_lib import PCA

    with pytest.raises(NotFittedError, match="not fitted"):
        v.check_transform_input(PCA(), np.zeros((2, 3)))
    fitted = PCA(1).fit(np.random.default_rng(0).normal(size=(5, 3)))
    assert v.check_transform_input(fitted, np.zeros((2, 3))).shape == (2, 3)
    with pytest.raises(ValueError, match=r"X has 2 features, but PCA is expecting 3"):
        v.check_transform_input(fitted, np.zeros((2, 2)))


def test_check_positive_spectrum_counts_nonzero_eigenvalues():
    assert v.check_positive_spectrum(np.array([3.0, 1.0, 1e-3]), 3) is not None
    with pytest.raises(ValueError, match=r"n_components=3 exceeds .* \(2;"):
        v.check_positive_spectrum(np.array([3.0, 1.0, 1e-14]), 3)


def test_check_neighbor_indices():
    good = np.array([[1, 2], [0, 2], [0, 1]])
    np.testing.assert_array_equal(v.check_neighbor_indices(good, 3), good)
    for bad, pattern in [
        (good.astype(float), "integer array"),
        (good[:2], "one row per sample"),
        (good[:, :0], "at least one column"),
        (good + 1, r"indices in \[0, 2\]"),
    ]:
        with pytest.raises(ValueError, match=pattern):
            v.check_neighbor_indices(bad, 3)
