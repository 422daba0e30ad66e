"""Neighbourhood graphs and what the manifold-learning chapters compute on them.

A graph on the samples is stored as a scipy.sparse CSR matrix of shape (n, n): entry (i,
j) present means an edge i -> j, its value the edge weight (the Euclidean distance, or
1). Explicit zeros are edges too (duplicate points are at distance 0). Isomap
(book/04_isomap) needs the k-nearest-neighbour graph and its shortest paths ([T] §10.4,
[W] §10.5); LLE (book/05_lle) the neighbour indices; Laplacian eigenmaps
(book/06_laplacian_eigenmaps) the graph Laplacians.
"""

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from scipy.sparse import csgraph
from sklearn.neighbors import NearestNeighbors

from dr_lib import _dijkstra
from dr_lib._validation import (
    check_array,
    check_connected,
    check_in,
    check_integer,
    check_n_features,
    check_n_neighbors,
    check_positive,
    check_vector,
)

__all__ = [
    "kneighbors",
    "knn_graph",
    "epsilon_graph",
    "connected_components",
    "geodesic_distances",
    "floyd_warshall",
    "degree_matrix",
    "laplacian",
]


def kneighbors(X, n_neighbors, *, query=None):
    """The ``n_neighbors`` nearest samples of every sample (or of every query point).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_neighbors : int
        At least 1 and smaller than ``n_samples`` (a point is not its own neighbour);
        with ``query``, at most ``n_samples``.
    query : array-like of shape (n_queries, n_features), optional
        Points whose nearest samples of ``X`` are wanted (e.g. new points to embed). By
        default the samples of ``X`` themselves, each without itself.

    Returns
    -------
    distances, indices : ndarray of shape (n_samples or n_queries, n_neighbors)
        Row i lists the neighbours of sample (or query point) i in increasing Euclidean
        distance. Duplicate points are allowed: a copy of sample i is its neighbour at
        distance 0, sample i itself never.
    """
    if query is None:
        X = check_array(X, min_samples=2)
        return _kneighbors(X, check_n_neighbors(n_neighbors, len(X)))
    X = check_array(X)
    query = check_n_features(query, X.shape[1], name="query")
    k = check_integer(n_neighbors, name="n_neighbors", high=len(X))
    return _kneighbors(X, k, query)


#: scikit-learn's brute-force search ranks by the expanded distance ||x||² + ||y||² −
#: 2xᵀy, which round-off moves by up to a few ε(||x||² + ||y||²). A candidate list is
#: trusted only when its farthest entry is beyond the k-th by this many times ε(||x||² +
#: max ||y||²).
ROUNDOFF_SLACK = 64


@njit(cache=True, parallel=True)
def _candidate_squared(points, X, candidates, out):
    """out[i, c] = ||points[i] − X[candidates[i, c]]||², each summed over coordinates
    in order, without expansion; rows in parallel (each row's result is the same
    whatever the number of threads)."""
    for i in prange(candidates.shape[0]):
        for c in range(candidates.shape[1]):
            j = candidates[i, c]
            total = 0.0
            for f in range(X.shape[1]):
                diff = points[i, f] - X[j, f]
                total += diff * diff
            out[i, c] = total


def _exact_squared(points, X, candidates):
    """||points[i] − X[candidates[i, j]]||², summed over coordinates without
    expansion.

    A compiled loop: no (rows x candidates x features) temporary, which NumPy's
    gather-and-subtract needed and which took most of the search's time on MNIST
    (784 features).
    """
    out = np.empty(candidates.shape)
    _candidate_squared(
        np.ascontiguousarray(points),
        np.ascontiguousarray(X),
        np.ascontiguousarray(candidates),
        out,
    )
    return out


def _kneighbors(X, k, query=None, *, index=None):
    """:func:`kneighbors` for a validated ``X`` (and ``query``) and ``k``: the same
    neighbours on every machine.

    scikit-learn's search ranks by a rounded distance and breaks ties in an order that
    depends on its number of threads: on the 8x8 digits, whose integer pixels make
    distances tie often, one and two OpenMP threads gave different neighbours to 189 of
    1797 points, and so different Isomap, LLE and Laplacian-eigenmaps maps. Its results
    serve here only as candidates (2k + 1 per point at first), re-ranked by the exact
    distance and then by the smaller index; a point whose candidates might miss a tied
    or nearly tied sample (the farthest candidate not clearly beyond the k-th) is
    searched again with twice as many. ``index`` is a fitted ``NearestNeighbors`` on
    ``X``, if the caller keeps one.
    """
    own = query is None
    points = X if own else query
    index = NearestNeighbors().fit(X) if index is None else index
    available = len(X) - own
    scale = np.einsum("ij,ij->i", points, points) + np.einsum("ij,ij->i", X, X).max()
    slack = ROUNDOFF_SLACK * np.finfo(np.float64).eps * scale
    distances = np.empty((len(points), k))
    indices = np.empty((len(points), k), dtype=np.intp)
    rows, count = np.arange(len(points)), min(2 * k + 1, available)
    while rows.size:
        candidates = index.kneighbors(points[rows], count + own, return_distance=False)
        if own:  # drop each point itself (not its duplicates, which are neighbours)
            itself = candidates == rows[:, None]
            keep = ~itself
            keep[~itself.any(axis=1), -1] = False  # among many duplicates: one too many
            candidates = candidates[keep].reshape(len(rows), count)
        squared = _exact_squared(points[rows], X, candidates)
        order = np.lexsort((candidates, squared), axis=1)[:, :k]
        taken = np.take_along_axis(squared, order, axis=1)
        trusted = (count == available) | (
            squared.max(axis=1) - 2 * slack[rows] > taken[:, -1]
        )
        done = rows[trusted]
        distances[done] = np.sqrt(taken[trusted])
        indices[done] = np.take_along_axis(candidates, order, axis=1)[trusted]
        rows, count = rows[~trusted], min(2 * count, available)
    return distances, indices


def _edge_lengths(X, graph):
    """Set every stored entry (i, j) of ``graph`` to ||x_i - x_j|| (zeros stay as
    edges)."""
    rows, cols = _stored(graph)
    graph.data = np.linalg.norm(X[rows] - X[cols], axis=1)
    return graph


def _stored(graph):
    """Row and column index of every stored entry of a CSR matrix, in storage order."""
    rows = np.repeat(np.arange(graph.shape[0]), np.diff(graph.indptr))
    return rows, graph.indices


def _weighted(X, structure, mode):
    """The graph with the edges of ``structure`` and weights by ``mode``."""
    structure = structure.tocsr()
    structure.sort_indices()
    structure.data = np.ones_like(structure.data, dtype=np.float64)
    return _edge_lengths(X, structure) if mode == "distance" else structure


def knn_graph(X, n_neighbors, *, mode="distance", symmetrize="max"):
    """The k-nearest-neighbour graph of the samples.

    Step 1 of Isomap ([T] §10.4, [W] §10.5 Isomap): join each point to its
    ``n_neighbors`` nearest neighbours. See book/04_isomap.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_neighbors : int
        Smaller than ``n_samples``.
    mode : {"distance", "connectivity"}, default="distance"
        Edge weight: the Euclidean distance, or 1.
    symmetrize : {"max", "min", "none"}, default="max"
        "max": an edge i -- j when i is among the k nearest of j OR j among those of i
        (what Isomap and scikit-learn's ``shortest_path(directed=False)`` use); "min":
        mutual nearest neighbours only (AND); "none": the directed graph i -> kNN(i).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    mode = check_in(mode, ("distance", "connectivity"), name="mode")
    symmetrize = check_in(symmetrize, ("max", "min", "none"), name="symmetrize")
    X = check_array(X, min_samples=2)
    _, indices = _kneighbors(X, check_n_neighbors(n_neighbors, len(X)))
    return _knn_graph(X, indices, mode=mode, symmetrize=symmetrize)


def _knn_graph(X, indices, *, mode="distance", symmetrize="max"):
    """:func:`knn_graph` from validated samples and their neighbour indices."""
    n, k = indices.shape
    directed = sp.csr_matrix(
        (np.ones(n * k), indices.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n)
    )
    structure = {
        "none": directed,
        "max": directed + directed.T,
        "min": directed.multiply(directed.T),
    }[symmetrize]
    return _weighted(X, structure, mode)


def epsilon_graph(X, radius, *, mode="distance"):
    """The epsilon-neighbourhood graph: an edge between samples closer than ``radius``.

    The alternative to the kNN graph in [T] §10.4 and [B] (epsilon-ball neighbourhoods).
    Symmetric by construction; no self-loops.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    radius : float
        Positive; pairs with ||x_i - x_j|| <= radius are joined.
    mode : {"distance", "connectivity"}, default="distance"

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    mode = check_in(mode, ("distance", "connectivity"), name="mode")
    radius = check_positive(radius, name="radius")
    X = check_array(X, min_samples=2)
    structure = (
        NearestNeighbors(radius=radius)
        .fit(X)
        .radius_neighbors_graph(mode="connectivity")
    )
    return _weighted(X, structure, mode)


def connected_components(graph):
    """Number of connected components and the component of each vertex (edges
    undirected).

    Returns
    -------
    n_components : int
    labels : ndarray of shape (n,)
    """
    n_components, labels = csgraph.connected_components(graph, directed=False)
    return int(n_components), labels


def floyd_warshall(weights):
    """All-pairs shortest path lengths by the Floyd–Warshall recursion, O(n^3).

    d_ij <- min(d_ij, d_ik + d_kj) for every intermediate vertex k in turn: after step
    k, d_ij is the shortest path from i to j whose inner vertices are among the first k.
    A readable loop for the book's small example (book/04_isomap), checked equal to
    Dijkstra.

    Parameters
    ----------
    weights : array-like of shape (n, n)
        Edge lengths, ``np.inf`` for no edge; the diagonal is treated as 0.

    Returns
    -------
    ndarray of shape (n, n)
    """
    D = np.array(weights, dtype=np.float64)
    np.fill_diagonal(D, 0.0)
    for k in range(len(D)):
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    return D


def _dense_weights(graph):
    """Undirected dense edge-length matrix of a sparse graph, ``np.inf`` for no edge."""
    graph = sp.csr_matrix(graph)
    W = np.full(graph.shape, np.inf)
    rows, cols = _stored(graph)
    W[rows, cols] = graph.data
    return np.minimum(W, W.T)


def geodesic_distances(graph, *, method="dijkstra"):
    """Shortest-path lengths between all pairs of vertices, edges taken as undirected.

    Step 2 of Isomap ([T] §10.4, [W] §10.5 Isomap): the graph distance approximates the
    geodesic distance on the manifold. See book/04_isomap.

    Parameters
    ----------
    graph : sparse matrix of shape (n, n)
        Edge lengths (e.g. from :func:`knn_graph`); must be connected.
    method : {"dijkstra", "floyd-warshall"}, default="dijkstra"
        Dijkstra from every source, the sources shared among threads
        (``dr_lib._dijkstra``; a binary heap: O(n (m + n) log n) for m edges), or
        :func:`floyd_warshall` (O(n^3), dense).

    Returns
    -------
    ndarray of shape (n, n)

    Raises
    ------
    ValueError
        If the graph is disconnected (through ``dr_lib._validation.check_connected``).
    """
    method = check_in(method, ("dijkstra", "floyd-warshall"), name="method")
    graph = check_connected(sp.csr_matrix(graph))
    return _shortest_paths(graph, method)


def _shortest_paths(graph, method="dijkstra"):
    """:func:`geodesic_distances` of a connected CSR graph and a validated method."""
    if method == "floyd-warshall":
        return floyd_warshall(_dense_weights(graph))
    # Edges are undirected: a symmetric graph is searched as stored; otherwise every
    # edge is also stored reversed (columns n..2n-1 of [G, G^T] are vertices 0..n-1
    # again).
    n = graph.shape[0]
    both = graph if _is_symmetric(graph) else sp.hstack([graph, graph.T], format="csr")
    return _dijkstra.all_sources(both.indptr, both.indices % n, both.data, n)


def _is_symmetric(graph):
    """Whether a CSR graph has the same stored entries, and values, as its transpose."""
    graph = graph.sorted_indices()
    transpose = graph.T.tocsr().sorted_indices()
    return (
        np.array_equal(graph.indptr, transpose.indptr)
        and np.array_equal(graph.indices, transpose.indices)
        and np.array_equal(graph.data, transpose.data)
    )


def degree_matrix(W):
    """The diagonal degree matrix D with D_ii = sum_j W_ij.

    Parameters
    ----------
    W : sparse matrix or array-like of shape (n, n)
        Non-negative edge weights.

    Returns
    -------
    scipy.sparse.dia_matrix of shape (n, n)
    """
    return sp.diags(_degrees(sp.csr_matrix(W)))


def _degrees(W):
    """Row sums of ``W``, validated as finite."""
    return check_vector(
        np.asarray(W.sum(axis=1)).ravel(), name="degrees (row sums of W)"
    )


def _inverse(values):
    """Element-wise 1 / values, with 0 where values == 0 (isolated vertices)."""
    out = np.zeros_like(values)
    np.divide(1.0, values, out=out, where=values != 0)
    return out


def laplacian(W, *, kind="unnormalized"):
    """A graph Laplacian of the weight matrix ``W``.

    ``"unnormalized"``: L = D - W, the matrix of [T] (10-28) and [B] (Laplacian
    eigenmaps); ``"random_walk"``: L_rw = I - D^{-1} W; ``"symmetric"``: L_sym = I -
    D^{-1/2} W D^{-1/2}. An isolated vertex (degree 0) gets D^{-1}_ii = 0, the
    convention of ``scipy.sparse.csgraph.laplacian``. See book/06_laplacian_eigenmaps.

    Parameters
    ----------
    W : sparse matrix or array-like of shape (n, n)
        Symmetric non-negative weights.
    kind : {"unnormalized", "random_walk", "symmetric"}, default="unnormalized"

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n)
    """
    kind = check_in(kind, ("unnormalized", "random_walk", "symmetric"), name="kind")
    W = sp.csr_matrix(W, dtype=np.float64)
    d = _degrees(W)
    if kind == "unnormalized":
        return (sp.diags(d) - W).tocsr()
    if kind == "random_walk":
        identity = sp.identity(len(d), format="csr")
        return (identity - sp.diags(_inverse(d)) @ W).tocsr()
    return _symmetric_laplacian(W, d)


def _symmetric_laplacian(W, degrees):
    """I − D^{-1/2} W D^{-1/2} for a CSR ``W`` and its validated degrees.

    Scales the stored weights in place of a copy (w_ij / sqrt(d_i d_j)) instead of two
    sparse matrix products.
    """
    inv_sqrt = np.sqrt(_inverse(degrees))
    scaled = W.copy()
    rows, cols = _stored(scaled)
    scaled.data *= inv_sqrt[rows] * inv_sqrt[cols]
    return (sp.identity(len(degrees), format="csr") - scaled).tocsr()
