"""dr_lib.metrics: trustworthiness, continuity, co-ranking, kNN accuracy,
quality_table."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.manifold import trustworthiness as sk_trustworthiness
from sklearn.model_selection import LeaveOneOut, cross_val_score
from sklearn.neighbors import KNeighborsClassifier

from dr_lib import metrics

rng = np.random.default_rng(5)
X = rng.normal(size=(120, 6))
Y = X[:, :2] + 0.3 * rng.normal(size=(120, 2))


@pytest.mark.parametrize("k", [1, 5, 10, 30, 59])
def test_trustworthiness_equals_sklearn(k):
    ours = metrics.trustworthiness(X, Y, n_neighbors=k)
    assert abs(ours - sk_trustworthiness(X, Y, n_neighbors=k)) < 1e-12
    assert 0 <= ours <= 1


@settings(max_examples=20, deadline=None)
@given(n=st.integers(8, 40), d=st.integers(1, 50), seed=st.integers(0, 1000))
def test_trustworthiness_equals_sklearn_on_generated_shapes(n, d, seed):
    r = np.random.default_rng(seed)
    A, B = r.normal(size=(n, d)), r.normal(size=(n, 2))
    k = max(1, n // 4)
    ref = sk_trustworthiness(A, B, n_neighbors=k)
    assert abs(metrics.trustworthiness(A, B, k) - ref) < 1e-12


def _continuity_from_the_definition(X_high, X_low, k):
    """Venna & Kaski's continuity, written out: penalise the extrusions.

    For each point i, V_k(i) holds the points among its k nearest in X_high that are not
    among its k nearest in X_low; each costs (rank of j among the neighbours of i in
    X_low) − k. C(k) = 1 − 2 / (n k (2n − 3k − 1)) · total cost.
    """
    n = len(X_high)
    cost = 0
    for i in range(n):
        d_high = [np.linalg.norm(X_high[i] - X_high[j]) for j in range(n)]
        d_low = [np.linalg.norm(X_low[i] - X_low[j]) for j in range(n)]
        others = [j for j in range(n) if j != i]
        by_high = sorted(others, key=lambda j: (d_high[j], j))
        by_low = sorted(others, key=lambda j: (d_low[j], j))
        low_rank = {j: r + 1 for r, j in enumerate(by_low)}
        for j in by_high[:k]:
            if low_rank[j] > k:  # an extrusion: a true neighbour torn away
                cost += low_rank[j] - k
    return 1 - 2 / (n * k * (2 * n - 3 * k - 1)) * cost


def test_tied_distances_are_ranked_by_index_in_both_spaces():
    # a 5 x 5 grid against a shuffled copy: every point has tied neighbours in both
    # spaces
    grid = np.array([(a, b) for a in range(5) for b in range(5)], dtype=float)
    shuffled = grid[np.random.default_rng(0).permutation(25)]
    for k in (1, 2, 4, 8):
        expected = _continuity_from_the_definition(shuffled, grid, k)
        assert metrics.trustworthiness(grid, shuffled, k) == pytest.approx(
            expected, abs=1e-12
        )
        assert metrics.continuity(shuffled, grid, k) == pytest.approx(
            expected, abs=1e-12
        )


@pytest.mark.parametrize("k", [1, 4, 10, 25])
def test_continuity_equals_its_definition(k):
    small_X, small_Y = X[:60], Y[:60]
    expected = _continuity_from_the_definition(small_X, small_Y, k)
    assert metrics.continuity(small_X, small_Y, k) == pytest.approx(expected, abs=1e-12)
    assert (
        expected < 1
    )  # the embedding tears neighbourhoods: the test has something to find


def test_an_isometry_is_perfectly_trustworthy_and_continuous():
    Q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    Z = 3 * X @ Q + 1
    assert metrics.trustworthiness(X, Z) == pytest.approx(1, abs=1e-15)
    assert metrics.continuity(X, Z) == pytest.approx(1, abs=1e-15)


def test_k_must_be_below_half_the_samples():
    with pytest.raises(ValueError, match="n_neighbors"):
        metrics.trustworthiness(X, Y, n_neighbors=60)
    with pytest.raises(ValueError, match="samples"):
        metrics.trustworthiness(X, Y[:-1])


def test_coranking_matrix_counts_every_ordered_pair():
    Q = metrics.coranking_matrix(X, Y)
    assert Q.shape == (119, 119) and Q.dtype.kind == "i"
    assert Q.sum() == 120 * 119
    np.testing.assert_array_equal(Q.sum(axis=0), 120)  # each rank once per point
    np.testing.assert_array_equal(Q.sum(axis=1), 120)


def test_identity_embedding_has_diagonal_coranking_and_unit_quality():
    Q = metrics.coranking_matrix(X, X)
    np.testing.assert_array_equal(Q, 120 * np.eye(119, dtype=int))
    np.testing.assert_allclose(metrics.qnx_curve(X, X), 1)
    assert metrics.rnx_auc(X, X) == pytest.approx(1, abs=1e-12)


def test_random_embedding_is_at_chance_level():
    big = rng.normal(size=(400, 5))
    random = rng.normal(size=(400, 2))
    qnx = metrics.qnx_curve(big, random)
    K = np.arange(1, 399)
    chance = K / 399
    assert np.all(
        np.abs(qnx[9:] - chance[9:]) < 0.02
    )  # K >= 10: enough pairs to average
    assert abs(metrics.rnx_auc(big, random)) < 0.02
    assert metrics.rnx_auc(X, Y) > 0.2  # a structured embedding is clearly above chance


def test_trustworthiness_from_the_coranking_matrix():
    """T(k) penalises the intrusions of the co-ranking matrix: rows k.., columns <=
    k."""
    Q = metrics.coranking_matrix(X, Y)
    n, k = 120, 10
    ranks = np.arange(1, n)
    penalty = ((ranks[k:] - k)[:, None] * Q[k:, :k]).sum()
    expected = 1 - 2 / (n * k * (2 * n - 3 * k - 1)) * penalty
    assert metrics.trustworthiness(X, Y, k) == pytest.approx(expected, abs=1e-12)


def test_knn_recall_is_qnx_at_k_and_an_overlap_counted_by_hand():
    Z = Y + 0.3 * np.random.default_rng(6).normal(size=Y.shape)
    qnx = metrics.qnx_curve(X, Z)
    for k in (1, 5, 15):
        recall = metrics.knn_recall(X, Z, k)
        assert recall == pytest.approx(qnx[k - 1], abs=1e-12)  # the co-ranking route
        by_hand = np.mean(  # and the definition, with sets
            [
                len(
                    set(np.argsort(np.linalg.norm(X - X[i], axis=1))[1 : k + 1])
                    & set(np.argsort(np.linalg.norm(Z - Z[i], axis=1))[1 : k + 1])
                )
                / k
                for i in range(len(X))
            ]
        )
        assert recall == pytest.approx(by_hand, abs=1e-12)
    assert metrics.knn_recall(X, X, 10) == 1.0


def test_knn_accuracy_equals_leave_one_out_sklearn():
    labels = (Y[:, 0] > 0).astype(int)
    Z = Y + 0.5 * np.random.default_rng(5).normal(size=Y.shape)
    ours = metrics.knn_accuracy(Z, labels, n_neighbors=5)
    ref = cross_val_score(KNeighborsClassifier(5), Z, labels, cv=LeaveOneOut()).mean()
    assert ours == pytest.approx(ref, abs=1e-12)
    assert 0.5 < ours < 1


def test_knn_accuracy_is_one_on_separated_classes_with_string_labels():
    Z = np.vstack([rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + 50])
    y = np.array(["a"] * 30 + ["b"] * 30)
    assert metrics.knn_accuracy(Z, y, n_neighbors=3) == 1.0
    shuffled = np.random.default_rng(0).permutation(y)
    assert abs(metrics.knn_accuracy(Z, shuffled, n_neighbors=3) - 0.5) < 0.2


def test_quality_table_rows_and_columns():
    table = metrics.quality_table(X, {"good": (Y, 0.5), "raw": X[:, :2]})
    assert list(table.index) == ["good", "raw"]
    assert list(table.columns) == ["trustworthiness", "continuity", "seconds"]
    assert table.loc["good", "trustworthiness"] == metrics.trustworthiness(X, Y)
    assert table.loc["good", "seconds"] == 0.5 and np.isnan(table.loc["raw", "seconds"])
    plain = metrics.quality_table(X, {"good": Y}, n_neighbors=5)
    assert list(plain.columns) == ["trustworthiness", "continuity"]
    assert plain.loc["good", "continuity"] == metrics.continuity(X, Y, 5)
