"""dr_lib.Isomap against scikit-learn, its out-of-sample formula, and its input
checks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_swiss_roll
from sklearn.manifold import Isomap as SkIsomap

from dr_lib import Isomap, graphs, metrics
from dr_lib.isomap import mds_out_of_sample, out_of_sample_geodesics
from dr_lib.mds import ClassicalMDS

# Not the book's data: scikit-learn's generator with its own seed, and a helix.
X, _ = make_swiss_roll(400, random_state=123)
t = np.linspace(0, 4 * np.pi, 150)
HELIX = np.column_stack([np.cos(t), np.sin(t), 0.3 * t])


@pytest.fixture(scope="module")
def fitted():
    return Isomap(n_neighbors=8).fit(X), SkIsomap(n_neighbors=8, n_components=2).fit(X)


def test_geodesic_matrix_equals_sklearn(fitted):
    ours, ref = fitted
    np.testing.assert_allclose(ours.dist_matrix_, ref.dist_matrix_, atol=1e-8, rtol=0)


def test_embedding_equals_sklearn_up_to_rotation(fitted):
    ours, ref = fitted
    _, disparity = metrics.procrustes(ours.embedding_, ref.embedding_, scale=False)
    assert disparity < 1e-6


def test_transform_equals_sklearn_up_to_the_same_rotation(fitted):
    ours, ref = fitted
    new, _ = make_swiss_roll(50, random_state=7)
    both = np.vstack([ours.embedding_, ours.transform(new)])
    ref_both = np.vstack([ref.embedding_, ref.transform(new)])
    _, disparity = metrics.procrustes(both, ref_both, scale=False)
    assert disparity < 1e-6


def test_transform_of_the_training_points_returns_the_embedding(fitted):
    ours, _ = fitted
    np.testing.assert_allclose(ours.transform(X), ours.embedding_, atol=1e-8)


def test_embedding_is_classical_mds_of_the_geodesics(fitted):
    """Classical MDS written out here with a dense eigh, not through dr_lib.mds."""
    ours, _ = fitted
    n = len(ours.dist_matrix_)
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ ours.dist_matrix_**2 @ J
    values, vectors = np.linalg.eigh(B)
    top, V = values[::-1][:2], vectors[:, ::-1][:, :2]
    np.testing.assert_allclose(ours.eigenvalues_, top, rtol=1e-9)
    expected = V * np.sqrt(top) * np.sign(np.sum(V * ours.embedding_, axis=0))
    np.testing.assert_allclose(ours.embedding_, expected, atol=1e-8 * np.sqrt(top[0]))


def test_dijkstra_equals_floyd_warshall_on_the_isomap_graph(fitted):
    ours, _ = fitted
    floyd = graphs.geodesic_distances(ours.graph_, method="floyd-warshall")
    np.testing.assert_allclose(floyd, ours.dist_matrix_, atol=1e-10)


def test_helix_unrolls_to_its_arc_length():
    Y = Isomap(n_neighbors=4, n_components=1).fit_transform(HELIX)
    arc = t * np.hypot(1, 0.3)
    assert abs(np.corrcoef(Y[:, 0], arc)[0, 1]) > 0.9999


SMALL_ROLL = X[:150]


@settings(max_examples=10, deadline=None)
@given(angle=st.floats(0, 2 * np.pi), shift=st.floats(-5, 5))
def test_invariant_to_rotation_and_translation(angle, shift):
    c, s = np.cos(angle), np.sin(angle)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    Y1 = Isomap(n_neighbors=8).fit_transform(SMALL_ROLL)
    Y2 = Isomap(n_neighbors=8).fit_transform(SMALL_ROLL @ R.T + shift)
    _, disparity = metrics.procrustes(Y2, Y1, scale=False)
    assert disparity < 1e-9


def test_scaling_the_data_scales_the_embedding():
    Y1 = Isomap(n_neighbors=8).fit_transform(SMALL_ROLL)
    Y2 = Isomap(n_neighbors=8).fit_transform(3 * SMALL_ROLL)
    _, disparity = metrics.procrustes(Y2, 3 * Y1, scale=False)
    assert disparity < 1e-9


@settings(max_examples=15, deadline=None)
@given(n=st.integers(6, 25), d=st.integers(3, 40), seed=st.integers(0, 1000))
def test_generated_shapes_including_more_features_than_samples(n, d, seed):
    A = np.random.default_rng(seed).normal(size=(n, d))
    k = n - 1  # the complete graph: geodesics are the Euclidean distances
    ours = Isomap(n_neighbors=k).fit(A)
    E = np.linalg.norm(A[:, None] - A[None], axis=-1)
    np.testing.assert_allclose(ours.dist_matrix_, E, atol=1e-10)
    ref = SkIsomap(n_neighbors=k, n_components=2).fit(A)
    _, disparity = metrics.procrustes(ours.embedding_, ref.embedding_, scale=False)
    assert disparity < 1e-6


def test_out_of_sample_geodesics_by_hand():
    D = np.array([[0.0, 1, 3], [1, 0, 2], [3, 2, 0]])
    distances = np.array([[0.5, 2.0]])
    indices = np.array([[2, 0]])
    # via point 2: [3.5, 2.5, 0.5]; via point 0: [2.0, 3.0, 5.0]
    expected = [[2.0, 2.5, 0.5]]
    np.testing.assert_array_equal(
        out_of_sample_geodesics(distances, indices, D), expected
    )


def test_mds_out_of_sample_recovers_euclidean_points():
    P = np.random.default_rng(3).normal(size=(30, 2))
    E = np.linalg.norm(P[:, None] - P[None], axis=-1)
    mds = ClassicalMDS(2, dissimilarity="precomputed").fit(E)
    new = np.array([[0.3, -0.2], [2.0, 1.0]])
    d = np.linalg.norm(new[:, None] - P[None], axis=-1)
    Z = mds_out_of_sample(d, E, mds.embedding_, mds.eigenvalues_)
    aligned, disparity = metrics.procrustes(
        np.vstack([mds.embedding_, Z]), np.vstack([P, new]), scale=False
    )
    assert disparity < 1e-20 + 1e-12


def test_disconnected_graph_names_the_components():
    two = np.vstack([HELIX, HELIX + 50])
    with pytest.raises(
        ValueError, match=r"n_neighbors=3 has 2 connected components.*n_neighbors > 3"
    ):
        Isomap(n_neighbors=3).fit(two)


@pytest.mark.parametrize("k", [150, 151, 0])
def test_bad_n_neighbors(k):
    with pytest.raises(ValueError, match="n_neighbors"):
        Isomap(n_neighbors=k).fit(HELIX)


def test_nan_is_rejected_with_its_position():
    bad = HELIX.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN.*X\[7, 2\]"):
        Isomap().fit(bad)


def test_duplicate_points_get_identical_coordinates():
    dup = np.vstack([HELIX, HELIX[[10, 20]]])
    ours = Isomap(n_neighbors=5).fit(dup)
    assert ours.dist_matrix_[10, 150] == 0
    np.testing.assert_allclose(ours.embedding_[150], ours.embedding_[10], atol=1e-10)
    np.testing.assert_allclose(ours.embedding_[151], ours.embedding_[20], atol=1e-10)


def test_transform_checks_the_number_of_features(fitted):
    ours, _ = fitted
    with pytest.raises(ValueError, match="3 columns"):
        ours.transform(np.zeros((2, 4)))
