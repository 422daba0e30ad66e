"""Isomap: classical MDS on geodesic distances estimated through a neighbour graph.

The three steps of [T] §10.4 and [W] §10.5 (Isomap), derived and run in book/04_isomap:
the k-nearest-neighbour graph (``dr_lib.graphs.knn_graph``), shortest paths through it
as estimates of the geodesic distances (``dr_lib.graphs.geodesic_distances``), and
classical MDS of those distances (``dr_lib.mds.ClassicalMDS``, [T] (10-16)-(10-18)).
"""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.neighbors import NearestNeighbors

from dr_lib import graphs
from dr_lib._validation import (
    check_array,
    check_connected,
    check_n_neighbors,
    check_transform_input,
)
from dr_lib.mds import ClassicalMDS

__all__ = ["Isomap", "out_of_sample_geodesics", "mds_out_of_sample"]


def out_of_sample_geodesics(distances, indices, dist_matrix):
    """Geodesic distances from new points to the training points, through their
    neighbours.

    A new point x with nearest training points i_1..i_k (at distances e_1..e_k) reaches
    training point j along the shortest path that first steps to one of them:
    d(x, j) = min_m (e_m + D[i_m, j]). See book/04_isomap.

    Parameters
    ----------
    distances, indices : ndarray of shape (n_new, k)
        Distances to, and indices of, each new point's nearest training points.
    dist_matrix : ndarray of shape (n_train, n_train)
        The training geodesic distances D.

    Returns
    -------
    ndarray of shape (n_new, n_train)
    """
    geodesics = distances[:, [0]] + dist_matrix[indices[:, 0]]
    for m in range(1, indices.shape[1]):
        np.minimum(
            geodesics, distances[:, [m]] + dist_matrix[indices[:, m]], out=geodesics
        )
    return geodesics


def mds_out_of_sample(new_distances, dist_matrix, embedding, eigenvalues):
    """Classical-MDS coordinates of new points from their distances to the training
    points.

    z = 1/2 Lambda_k^{-1} Z^T (delta - d^2), where d^2 holds the new point's squared
    distances, delta the row means of the training squared distances D^(2), and Z the
    training embedding with eigenvalues Lambda_k (derived in book/04_isomap from
    B = -1/2 J D^(2) J, [T] (10-16)). On a training point it returns that point's row of
    Z exactly. Columns with a non-positive eigenvalue stay 0, as in ``ClassicalMDS``.

    Parameters
    ----------
    new_distances : ndarray of shape (n_new, n_train)
    dist_matrix : ndarray of shape (n_train, n_train)
    embedding : ndarray of shape (n_train, k)
    eigenvalues : ndarray of shape (k,)

    Returns
    -------
    ndarray of shape (n_new, k)
    """
    row_means = np.mean(dist_matrix**2, axis=1)
    scale = np.zeros_like(eigenvalues)
    np.divide(0.5, eigenvalues, out=scale, where=eigenvalues > 0)
    return (row_means - new_distances**2) @ embedding * scale


class Isomap(TransformerMixin, BaseEstimator):
    """Isometric mapping (Isomap).

    Builds the k-nearest-neighbour graph with Euclidean edge lengths, symmetrised as "i
    among the neighbours of j or j among those of i"; takes all shortest path lengths as
    the geodesic distances (Dijkstra); embeds them by classical MDS ([T] §10.4 steps
    1-3, [W] §10.5 Isomap, [T] (10-16)-(10-18)). See book/04_isomap.

    Parameters
    ----------
    n_neighbors : int, default=5
        Neighbours per point, smaller than the number of samples. Too small: the graph
        falls apart (a ValueError names the number of components); too large: edges cut
        across the manifold ("short circuits").
    n_components : int, default=2
        Dimension of the embedding.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        Classical-MDS coordinates of the geodesic distances (signs fixed by
        ``ClassicalMDS``).
    dist_matrix_ : ndarray of shape (n_samples, n_samples)
        Geodesic (shortest-path) distances between the training points.
    graph_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The symmetrised kNN graph, Euclidean edge lengths.
    eigenvalues_ : ndarray of shape (n_components,)
        The top eigenvalues of B = -1/2 J D^(2) J for the geodesic D.
    mds_ : ClassicalMDS
        The classical MDS of ``dist_matrix_`` (as precomputed distances, which are not
        validated again). Its ``smallest_eigenvalue_`` is None: Isomap skips that
        eigen-solve; ``ClassicalMDS(dissimilarity="precomputed").fit(dist_matrix_)``
        computes it.
    nbrs_ : sklearn.neighbors.NearestNeighbors
        Fitted on ``X_fit_``: its candidates, re-ranked by exact distance and index
        (:func:`dr_lib.graphs.kneighbors`), gave the neighbours that built ``graph_``,
        and give those of new points in ``transform``.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The estimator's own copy of the training points.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.

    Notes
    -----
    Duplicate points are allowed: they are joined at distance 0 and get the same
    coordinates (each uses up one of the other's neighbours).
    """

    def __init__(self, n_neighbors=5, n_components=2):
        self.n_neighbors = n_neighbors
        self.n_components = n_components

    def fit(self, X, y=None):
        """Build the graph, the geodesic distances and their classical-MDS embedding.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For NaN/inf, ``n_neighbors >= n_samples``, or a disconnected neighbour
            graph.
        """
        X = check_array(X, min_samples=2, copy=True)  # X_fit_ keeps it: our own copy
        k = check_n_neighbors(self.n_neighbors, len(X))
        self.n_features_in_ = X.shape[1]
        self.nbrs_ = NearestNeighbors(n_neighbors=k).fit(X)
        self.X_fit_ = X
        _, indices = graphs._kneighbors(X, k, index=self.nbrs_)
        self.graph_ = check_connected(graphs._knn_graph(X, indices), n_neighbors=k)
        self.dist_matrix_ = graphs._shortest_paths(self.graph_)
        self.mds_ = ClassicalMDS(self.n_components, dissimilarity="precomputed")
        self.mds_._fit_distances(self.dist_matrix_, smallest=False)  # valid by design
        self.embedding_ = self.mds_.embedding_
        self.eigenvalues_ = self.mds_.eigenvalues_
        return self

    def fit_transform(self, X, y=None):
        """Fit and return ``embedding_``; see :meth:`fit`."""
        return self.fit(X).embedding_

    def transform(self, X):
        """Embed new points: geodesics through their neighbours, then the MDS formula.

        Each new point is joined to its ``n_neighbors`` nearest training points
        (:func:`out_of_sample_geodesics`) and placed by the classical-MDS out-of-sample
        formula (:func:`mds_out_of_sample`). Derived in book/04_isomap.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)

        Returns
        -------
        ndarray of shape (n_new, n_components)
        """
        X = check_transform_input(self, X)
        k = self.nbrs_.n_neighbors
        distances, indices = graphs._kneighbors(self.X_fit_, k, X, index=self.nbrs_)
        geodesics = out_of_sample_geodesics(distances, indices, self.dist_matrix_)
        return mds_out_of_sample(
            geodesics, self.dist_matrix_, self.embedding_, self.eigenvalues_
        )
