"""Library properties that the Isomap chapter (book/04_isomap) relies on, each checked
against an independent construction: rank measures from their definitions, a co-ranking
case solved by hand, and out-of-sample geodesics by Dijkstra on an enlarged graph."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from scipy.spatial.distance import cdist

from dr_lib import Isomap, datasets, isomap, metrics


def _ranks_by_sorting(points, i):
    """{j: rank of j among the neighbours of i}, 1 = nearest, ties broken by index."""
    dist = cdist(points[[i]], points)[0]
    others = sorted(
        (j for j in range(len(points)) if j != i), key=lambda j: (dist[j], j)
    )
    return {j: rank for rank, j in enumerate(others, start=1)}


def _rank_score(penalised, chosen, k):
    """1 - 2/(Nk(2N-3k-1)) * sum over i of (rank in ``penalised`` - k), summed over the
    points among the k nearest of i in ``chosen`` but not in ``penalised``.

    eq-iso-trust is ``_rank_score(X, Y, k)`` (intruders of the embedding, penalised by
    their data rank rho_ij); eq-iso-cont is ``_rank_score(Y, X, k)`` (torn neighbours,
    penalised by their embedding rank r_ij).
    """
    n, total = len(penalised), 0
    for i in range(n):
        rank, other = _ranks_by_sorting(penalised, i), _ranks_by_sorting(chosen, i)
        extra = {j for j in other if other[j] <= k} - {j for j in rank if rank[j] <= k}
        total += sum(rank[j] - k for j in extra)
    return 1 - 2 * total / (n * k * (2 * n - 3 * k - 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 3, 7])
def test_continuity_matches_its_definition(seed, k):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(24, 5))
    Y = X[:, :2] + 0.5 * rng.normal(size=(24, 2))  # a noisy projection
    assert metrics.continuity(X, Y, k) == pytest.approx(_rank_score(Y, X, k), abs=1e-12)
    assert metrics.trustworthiness(X, Y, k) == pytest.approx(
        _rank_score(X, Y, k), abs=1e-12
    )


def test_continuity_is_not_trustworthiness():
    # the two measures differ on an embedding that tears but does not intrude
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    Y = X[:, :2].copy()
    Y[:10] += 50.0  # tear a third of the points away
    assert metrics.continuity(X, Y, 5) != pytest.approx(
        metrics.trustworthiness(X, Y, 5), abs=1e-6
    )


@pytest.mark.parametrize("n", [5, 12, 30])
def test_powers_of_three_case_solved_by_hand(n):
    # data x_i = 3^i, embedding z_i = 3^(n-1-i): rho_ij = i - j (j < i) or j (j > i),
    # r_ij = j - i (j > i) or n - 1 - j (j < i); hence Q_NX(k) = (k + 1)/n, R_NX = 1/n
    X = (3.0 ** np.arange(n))[:, None]
    Z = (3.0 ** (n - 1 - np.arange(n)))[:, None]
    Q = np.zeros((n - 1, n - 1), dtype=int)
    for i in range(n):
        for j in range(n):
            if j < i:
                Q[i - j - 1, n - 1 - j - 1] += 1
            elif j > i:
                Q[j - 1, j - i - 1] += 1
    ks = np.arange(1, n - 1)
    np.testing.assert_array_equal(metrics.coranking_matrix(X, Z), Q)
    np.testing.assert_allclose(metrics.qnx_curve(X, Z), (ks + 1) / n, rtol=1e-12)
    np.testing.assert_allclose(metrics.rnx_curve(X, Z), 1 / n, rtol=1e-12)
    assert metrics.rnx_auc(X, Z) == pytest.approx(1 / n, rel=1e-12)


def test_out_of_sample_geodesics_equal_dijkstra_on_the_enlarged_graph():
    X, _ = datasets.swiss_roll(300, random_state=0)
    X_new, _ = datasets.swiss_roll(5, random_state=1)
    model = Isomap(n_neighbors=8).fit(X)
    distances, indices = model.nbrs_.kneighbors(X_new)
    formula = isomap.out_of_sample_geodesics(distances, indices, model.dist_matrix_)
    n = len(X)
    for row in range(len(X_new)):
        enlarged = np.zeros((n + 1, n + 1))
        enlarged[:n, :n] = model.graph_.toarray()
        enlarged[n, indices[row]] = distances[row]
        by_dijkstra = dijkstra(csr_matrix(enlarged), directed=False, indices=n)[:n]
        np.testing.assert_allclose(formula[row], by_dijkstra, rtol=1e-12)
