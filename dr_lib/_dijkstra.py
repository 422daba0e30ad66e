"""Dijkstra's algorithm from every vertex of a sparse graph, in numba, sources in
parallel.

Step 2 of Isomap ([T] §10.4, [W] §10.5) needs the shortest-path length between every
pair of vertices of the neighbour graph. SciPy's ``csgraph.dijkstra`` does it in one
thread and holds the GIL, so threads cannot share its sources; here each source is an
independent search and the sources are split over numba's threads. The priority queue is
a binary heap of (tentative distance, vertex) with lazy deletion: a vertex may be pushed
once per improvement and is settled the first time it is popped. See book/04_isomap.
"""

import numpy as np
from numba import njit, prange

__all__ = ["all_sources"]

#: The sources are cut into this many blocks, each with its own heap and flags (reused
#: from one source to the next): enough to balance two to eight threads.
BLOCKS = 32


@njit(cache=True, inline="always")
def _place(keys, nodes, position, key, node):
    """Write the entry (key, node) at ``position`` of the heap arrays."""
    keys[position] = key
    nodes[position] = node


@njit(cache=True, inline="always")
def _push(keys, nodes, size, key, node):
    """Insert (key, node) into the heap of ``size`` entries; return the new size."""
    position = size
    while position > 0:
        parent = (position - 1) // 2
        if keys[parent] <= key:
            break
        _place(keys, nodes, position, keys[parent], nodes[parent])
        position = parent
    _place(keys, nodes, position, key, node)
    return size + 1


@njit(cache=True, inline="always")
def _pop_into_root(keys, nodes, size):
    """Remove the root (read it first) by sifting the last entry down; return the
    size."""
    size -= 1
    key, node = keys[size], nodes[size]
    position = 0
    while True:
        child = 2 * position + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if key <= keys[child]:
            break
        _place(keys, nodes, position, keys[child], nodes[child])
        position = child
    _place(keys, nodes, position, key, node)
    return size


@njit(cache=True)
def _search(indptr, neighbours, lengths, source, dist, settled, keys, nodes):
    """Shortest-path lengths from ``source`` into ``dist`` (inf where unreachable)."""
    dist[:] = np.inf
    settled[:] = False
    dist[source] = 0.0
    size = _push(keys, nodes, 0, 0.0, source)
    while size > 0:
        here, vertex = keys[0], nodes[0]
        size = _pop_into_root(keys, nodes, size)
        if settled[vertex]:
            continue  # an outdated entry: the vertex was reached by a shorter path
        settled[vertex] = True
        for edge in range(indptr[vertex], indptr[vertex + 1]):
            other = neighbours[edge]
            candidate = here + lengths[edge]
            if candidate < dist[other]:
                dist[other] = candidate
                size = _push(keys, nodes, size, candidate, other)


@njit(cache=True, parallel=True)
def _all_sources(indptr, neighbours, lengths, out):
    n = out.shape[0]
    size = (n + BLOCKS - 1) // BLOCKS
    for block in prange(BLOCKS):
        settled = np.empty(n, dtype=np.bool_)
        # Every push follows an improvement along an edge, plus the source itself.
        keys = np.empty(len(lengths) + 1)
        nodes = np.empty(len(lengths) + 1, dtype=np.int64)
        for source in range(block * size, min(n, (block + 1) * size)):
            _search(
                indptr, neighbours, lengths, source, out[source], settled, keys, nodes
            )


def all_sources(indptr, neighbours, lengths, n):
    """The ``(n, n)`` shortest-path lengths of a graph given by its CSR arrays.

    Row i holds the lengths from vertex i, ``inf`` for vertices it cannot reach. Edges
    are followed in the direction stored (row to column); an edge stored several times
    counts with its shortest length. Lengths must be non-negative (the caller validates
    them).

    Parameters
    ----------
    indptr : ndarray of shape (n + 1,)
    neighbours : ndarray of shape (n_edges,)
        The column (head vertex) of every stored edge.
    lengths : ndarray of shape (n_edges,)
    n : int
        Number of vertices.

    Returns
    -------
    ndarray of shape (n, n)
    """
    out = np.empty((n, n))
    _all_sources(
        np.asarray(indptr, dtype=np.int64),
        np.asarray(neighbours, dtype=np.int64),
        np.asarray(lengths, dtype=np.float64),
        out,
    )
    return out
