"""dr_lib.graphs: neighbour graphs, components, shortest paths and Laplacians."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import laplacian as sp_laplacian
from scipy.sparse.csgraph import shortest_path
from sklearn.datasets import load_digits
from sklearn.neighbors import NearestNeighbors, kneighbors_graph, radius_neighbors_graph
from threadpoolctl import threadpool_limits

from dr_lib import graphs

rng = np.random.default_rng(11)
X = rng.normal(size=(60, 4))


def test_kneighbors_match_sklearn_and_exclude_self():
    distances, indices = graphs.kneighbors(X, 6)
    ref_d, ref_i = NearestNeighbors(n_neighbors=6).fit(X).kneighbors()
    np.testing.assert_array_equal(indices, ref_i)
    np.testing.assert_allclose(distances, ref_d, atol=1e-12)
    assert not np.any(indices == np.arange(60)[:, None])
    assert np.all(np.diff(distances, axis=1) >= 0)


def test_kneighbors_with_duplicates_finds_the_copy_at_distance_zero():
    Xd = np.vstack([X, X[:1]])
    distances, indices = graphs.kneighbors(Xd, 3)
    assert indices[0, 0] == 60 and distances[0, 0] == 0
    assert indices[60, 0] == 0


def _ranked_by_definition(points, X, k, exclude_self):
    """Neighbours by exact distance, ties by the smaller index: a loop over all
    pairs."""
    rows = []
    for i, x in enumerate(points):
        squared = ((X - x) ** 2).sum(axis=1)
        order = [j for j in np.lexsort((np.arange(len(X)), squared)) if not (
            exclude_self and j == i
        )]  # fmt: skip
        rows.append(order[:k])
    return np.array(rows)


@pytest.mark.parametrize("k", [1, 10, 40])
def test_kneighbors_rank_by_exact_distance_and_break_ties_by_index(k):
    # 8x8 digits: integer pixels, so many distances tie exactly
    digits = load_digits().data[:400]
    duplicated = np.vstack([digits, digits[:30], digits[:5]])  # copies at distance 0
    for data, query in (
        (digits, None),
        (duplicated, None),
        (digits, digits[::7] + 0.5),
    ):
        indices = graphs.kneighbors(data, k, query=query)[1]
        expected = _ranked_by_definition(
            data if query is None else query, data, k, exclude_self=query is None
        )
        np.testing.assert_array_equal(indices, expected)


def test_kneighbors_do_not_depend_on_the_number_of_threads():
    # scikit-learn's own search breaks the digits' ties differently with 1 and 2 threads
    digits = load_digits().data
    results = []
    for threads in (1, 2):
        with threadpool_limits(threads):
            results.append(graphs.kneighbors(digits, 10))
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_array_equal(results[0][0], results[1][0])


@pytest.mark.parametrize("k", [0, 60, 61, 2.5])
def test_kneighbors_rejects_bad_n_neighbors(k):
    with pytest.raises(ValueError, match="n_neighbors"):
        graphs.kneighbors(X, k)


def test_nan_is_rejected():
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        graphs.knn_graph(Xn, 5)


def test_knn_graph_max_is_the_union_as_in_sklearn():
    G = graphs.knn_graph(X, 5)
    K = kneighbors_graph(X, 5, mode="distance")
    assert sp.issparse(G) and G.format == "csr"
    np.testing.assert_allclose(G.toarray(), K.maximum(K.T).toarray(), atol=1e-12)
    np.testing.assert_allclose(G.toarray(), G.T.toarray())


def test_knn_graph_min_is_mutual_and_none_is_directed():
    K = kneighbors_graph(X, 5, mode="connectivity")
    mutual = graphs.knn_graph(X, 5, mode="connectivity", symmetrize="min")
    directed = graphs.knn_graph(X, 5, mode="connectivity", symmetrize="none")
    np.testing.assert_array_equal(mutual.toarray(), K.minimum(K.T).toarray())
    np.testing.assert_array_equal(directed.toarray(), K.toarray())
    assert np.all(directed.sum(axis=1) == 5)


def test_knn_graph_rejects_unknown_options():
    with pytest.raises(ValueError, match="symmetrize"):
        graphs.knn_graph(X, 5, symmetrize="or")
    with pytest.raises(ValueError, match="mode"):
        graphs.knn_graph(X, 5, mode="heat")


def test_duplicate_points_keep_a_zero_length_edge():
    Xd = np.vstack([X, X[:2]])
    G = graphs.knn_graph(Xd, 4)
    assert G[0, 60] == 0 and (0, 60) in set(zip(*G.nonzero())) | _explicit(G)
    D = graphs.geodesic_distances(G)
    assert D[0, 60] == 0 and D[1, 61] == 0


def _explicit(G):
    rows = np.repeat(np.arange(G.shape[0]), np.diff(G.indptr))
    return set(zip(rows.tolist(), G.indices.tolist()))


def test_epsilon_graph_matches_sklearn():
    G = graphs.epsilon_graph(X, 1.5)
    R = radius_neighbors_graph(X, 1.5, mode="distance")
    np.testing.assert_allclose(G.toarray(), R.toarray(), atol=1e-12)
    with pytest.raises(ValueError, match="radius"):
        graphs.epsilon_graph(X, -1.0)


def test_connected_components_counts_separated_clusters():
    two = np.vstack([X, X + 100])
    n_components, labels = graphs.connected_components(graphs.knn_graph(two, 3))
    assert n_components == 2
    assert len(set(labels[:60])) == 1 and labels[0] != labels[60]


def test_geodesics_equal_scipy_and_floyd_warshall():
    G = graphs.knn_graph(X, 6)
    dijkstra = graphs.geodesic_distances(G)
    ref = shortest_path(kneighbors_graph(X, 6, mode="distance"), directed=False)
    np.testing.assert_allclose(dijkstra, ref, atol=1e-12)
    floyd = graphs.geodesic_distances(G, method="floyd-warshall")
    np.testing.assert_allclose(floyd, dijkstra, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 40), density=st.floats(0.05, 0.6), seed=st.integers(0, 10_000))
def test_dijkstra_equals_scipy_on_random_directed_graphs(n, density, seed):
    # Asymmetric lengths, one-way edges, explicit zero lengths and unreachable vertices:
    # every stored edge is undirected and a pair stored both ways counts with the
    # shorter.
    r = np.random.default_rng(seed)
    stored = r.random((n, n)) < density
    np.fill_diagonal(stored, False)
    lengths = np.where(r.random((n, n)) < 0.1, 0.0, r.random((n, n)))
    rows, cols = np.nonzero(stored)
    G = sp.csr_matrix((lengths[rows, cols], (rows, cols)), shape=(n, n))
    ref = shortest_path(G, method="D", directed=False)
    ours = graphs._shortest_paths(G)
    np.testing.assert_allclose(ours, ref, atol=1e-12)
    np.testing.assert_array_equal(np.isinf(ours), np.isinf(ref))


def test_geodesics_dominate_euclidean_distances():
    D = graphs.geodesic_distances(graphs.knn_graph(X, 6))
    E = np.linalg.norm(X[:, None] - X[None], axis=-1)
    assert np.all(D >= E - 1e-12)


def test_floyd_warshall_on_a_path_graph():
    inf = np.inf
    W = np.array([[0, 1, inf, inf], [1, 0, 2, inf], [inf, 2, 0, 3], [inf, inf, 3, 0]])
    expected = np.array([[0, 1, 3, 6], [1, 0, 2, 5], [3, 2, 0, 3], [6, 5, 3, 0]])
    np.testing.assert_array_equal(graphs.floyd_warshall(W), expected)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 12), seed=st.integers(0, 10_000))
def test_floyd_warshall_equals_dijkstra_on_random_graphs(n, seed):
    r = np.random.default_rng(seed)
    W = np.where(r.random((n, n)) < 0.4, r.random((n, n)), np.inf)
    np.fill_diagonal(W, 0)
    dense = np.where(np.isinf(W), 0, W)
    ref = shortest_path(sp.csr_matrix(dense), directed=True)
    np.testing.assert_allclose(graphs.floyd_warshall(W), ref, atol=1e-12)


def test_disconnected_graph_names_the_number_of_components():
    three = np.vstack([X, X + 100, X - 100])
    with pytest.raises(ValueError, match=r"3 connected components.*n_neighbors"):
        graphs.geodesic_distances(graphs.knn_graph(three, 3))
    with pytest.raises(ValueError, match="3 connected components"):
        graphs.geodesic_distances(graphs.knn_graph(three, 3), method="floyd-warshall")


def test_unknown_method_is_rejected():
    with pytest.raises(ValueError, match="method"):
        graphs.geodesic_distances(graphs.knn_graph(X, 6), method="bellman")


def test_degree_matrix_holds_the_row_sums():
    W = graphs.knn_graph(X, 5)
    D = graphs.degree_matrix(W)
    np.testing.assert_allclose(D.diagonal(), np.asarray(W.sum(axis=1)).ravel())
    assert D.nnz == 60


def test_laplacians_match_their_definitions_and_scipy():
    W = graphs.knn_graph(X, 5, mode="connectivity").toarray()
    d = W.sum(axis=1)
    L = graphs.laplacian(W).toarray()
    np.testing.assert_allclose(L, np.diag(d) - W, atol=1e-12)
    np.testing.assert_allclose(L @ np.ones(60), 0, atol=1e-12)
    assert np.linalg.eigvalsh(L).min() > -1e-10
    rw = graphs.laplacian(W, kind="random_walk").toarray()
    np.testing.assert_allclose(rw, np.eye(60) - W / d[:, None], atol=1e-12)
    sym = graphs.laplacian(W, kind="symmetric").toarray()
    np.testing.assert_allclose(sym, sp_laplacian(W, normed=True), atol=1e-12)
    np.testing.assert_allclose(sym, sym.T, atol=1e-12)


def test_laplacian_isolated_vertex_and_bad_kind():
    W = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 0]])
    rw = graphs.laplacian(W, kind="random_walk").toarray()
    np.testing.assert_allclose(rw, [[1, -1, 0], [-1, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="kind"):
        graphs.laplacian(W, kind="normalized")


def test_kneighbors_of_query_points_match_sklearn():
    Q = rng.normal(size=(7, 4))
    distances, indices = graphs.kneighbors(X, 5, query=Q)
    ref_d, ref_i = NearestNeighbors(n_neighbors=5).fit(X).kneighbors(Q)
    np.testing.assert_array_equal(indices, ref_i)
    np.testing.assert_allclose(distances, ref_d, atol=1e-12)
    # a query point that is a sample finds that sample first, at distance 0
    distances, indices = graphs.kneighbors(X, 3, query=X[[4, 9]])
    np.testing.assert_array_equal(indices[:, 0], [4, 9])
    np.testing.assert_array_equal(distances[:, 0], 0.0)
    assert graphs.kneighbors(X, 60, query=Q)[1].shape == (7, 60)  # k = n is allowed


def test_kneighbors_query_is_validated():
    with pytest.raises(ValueError, match="query must have exactly 4 columns"):
        graphs.kneighbors(X, 3, query=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="n_neighbors=61"):
        graphs.kneighbors(X, 61, query=X[:2])
