"""The class-aware quality measures of chapter 8 on cases with a known answer."""

import numpy as np
import pytest

from dr_lib import metrics


def _two_classes(n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[: n // 2, 0] += 8.0  # class 0 far from class 1
    y = np.r_[np.zeros(n // 2, int), np.ones(n - n // 2, int)]
    return X, y


def test_perfect_map_scores_one_and_gains_nothing():
    X, y = _two_classes()
    for pairs in ("between", "within"):
        assert metrics.class_trustworthiness(X, X, y, 5, pairs=pairs) == 1.0
        assert metrics.class_continuity(X, X, y, 5, pairs=pairs) == 1.0
    assert metrics.knn_gain(X, X, y, 5) == 0.0


def test_the_two_penalties_add_up_to_the_whole():
    X, y = _two_classes(seed=1)
    Z = np.random.default_rng(3).normal(size=(len(X), 2))
    for k in (3, 7):
        for whole, part in (
            (metrics.trustworthiness, metrics.class_trustworthiness),
            (metrics.continuity, metrics.class_continuity),
        ):
            lost = sum(1 - part(X, Z, y, k, pairs=p) for p in ("between", "within"))
            assert lost == pytest.approx(1 - whole(X, Z, k), abs=1e-12)


def test_a_map_that_swaps_two_classes_keeps_class_structure():
    # The map moves class 0's points onto where class 1 was and back (one translation
    # each): neighbourhoods stay within classes, so the between-class measures see
    # nothing wrong, and the kNN gain is 0.
    X, y = _two_classes()
    Z = X.copy()
    Z[y == 0, 0] -= 8.0
    Z[y == 1, 0] += 8.0
    assert metrics.class_trustworthiness(X, Z, y, 5) == 1.0
    assert metrics.class_continuity(X, Z, y, 5, pairs="between") == 1.0
    assert metrics.knn_gain(X, Z, y, 5) == 0.0


def test_a_map_that_mixes_the_classes_loses_between_class_trust():
    X, y = _two_classes()
    Z = X.copy()
    Z[:, 0] = 0.0  # the separating coordinate is gone: classes overlap
    assert metrics.class_trustworthiness(X, Z, y, 5) < 0.99
    assert metrics.knn_gain(X, Z, y, 5) < 0


def test_knn_gain_counts_by_hand():
    # Four points on a line; k = 1. Data: 0-1, 2-3 neighbours. Map: 0-2, 1-3.
    X = np.array([[0.0], [1.0], [10.0], [11.0]])
    Z = np.array([[0.0], [10.0], [1.0], [11.0]])
    y = np.array([0, 0, 1, 1])
    # Data: every nearest neighbour shares the class (1); map: none does (0).
    assert metrics.knn_gain(X, Z, y, 1) == -1.0
    assert metrics.knn_gain(Z, X, y, 1) == 1.0


def test_bad_input_names_the_parameter():
    X, y = _two_classes()
    with pytest.raises(ValueError, match="y has length"):
        metrics.knn_gain(X, X, y[:-1], 5)
    with pytest.raises(ValueError, match="pairs"):
        metrics.class_trustworthiness(X, X, y, 5, pairs="all")
    with pytest.raises(ValueError, match="n_neighbors"):
        metrics.class_continuity(X, X, y, 20)
