"""Self-checks for the exercises of the chapter on Isomap."""

from itertools import combinations

import numpy as np
from scipy.sparse import csgraph
from scipy.spatial.distance import cdist
from sklearn.neighbors import kneighbors_graph

from dr_lib import Isomap

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


@exercise(
    "ex-iso-chord",
    answers=["graph_geodesics"],
    produce=(
        "a function `graph_geodesics(X, k)` that returns the N x N graph distances "
        "of the k-nearest-neighbour graph of the points X"
    ),
    practises="graph distances as shortest paths, and the chord bound",
    minutes=10,
)
def _chord(function):
    """Equal to Euclidean on a line; never shorter than Euclidean on a curve."""
    rng = np.random.default_rng(_RNG_SEED)
    s = np.sort(rng.uniform(0, 10, 40))
    line = np.outer(s, [1.0, 2.0, -0.5]) + [1.0, 0.0, 2.0]
    D = array_answer(
        call(function, line.copy(), 5, name="graph_geodesics"),
        name="graph_geodesics(X, k)",
        shape=(40, 40),
    )
    require(np.allclose(D, D.T), "your graph distances are not symmetric")
    require(
        np.allclose(D, cdist(line, line), rtol=1e-9, atol=1e-9),
        "on points of a straight line (k = 5) your graph distances are not the "
        "Euclidean distances: are they lengths of shortest paths, edges weighted by "
        "their length, between every pair?",
    )
    angle = np.sort(rng.uniform(0, 3, 40))
    arc = np.column_stack([np.cos(angle), np.sin(angle), np.zeros(40)])
    D = array_answer(
        call(function, arc.copy(), 4, name="graph_geodesics"),
        name="graph_geodesics(X, k)",
        shape=(40, 40),
    )
    graph = kneighbors_graph(arc, 4, mode="distance")
    shortest = csgraph.shortest_path(graph.maximum(graph.T), directed=False)
    require(
        np.allclose(D, shortest, rtol=1e-9, atol=1e-9),
        "on an arc of a circle (k = 4) your graph distances are not the lengths of "
        "the shortest paths in the k-nearest-neighbour graph",
    )
    require(
        np.all(D >= cdist(arc, arc) - 1e-9),
        "on an arc of a circle some of your graph distances are shorter than the "
        "straight line",
    )
    require(
        np.all(D <= np.abs(angle[:, None] - angle[None, :]) + 1e-9),
        "on an arc of a circle some of your graph distances are longer than the arc",
    )


@exercise(
    "ex-iso-trust-bound",
    answers=["worst_penalty"],
    produce=(
        "a function `worst_penalty(N, k)` that returns the largest possible "
        "trustworthiness penalty Σ (ρ − k) of one point, in closed form"
    ),
    practises="the normalisation of trustworthiness",
    minutes=10,
)
def _trust_bound(function):
    """Against a brute-force search over every set of k intruders (small N)."""
    for N, k in ((8, 3), (7, 2), (9, 1), (10, 4), (6, 2)):
        largest = max(
            sum(rank - k for rank in chosen if rank > k)
            for chosen in combinations(range(1, N), k)
        )
        value = number_answer(
            call(function, N, k, name="worst_penalty"), name="worst_penalty(N, k)"
        )
        require(
            np.isclose(value, largest),
            f"for N = {N}, k = {k} your worst penalty is {value:g}, but a search over "
            "every set of k intruders finds a different maximum: which ranks does "
            "the worst case hold, and from which rank on does an intruder cost?",
        )


@exercise(
    "ex-iso-circle",
    answers=["arc_distance", "embedded_radius"],
    produce=(
        "a function `arc_distance(alpha, beta)` that returns the geodesic distance "
        "between the points of the unit circle at angles alpha and beta (vectorised), "
        "and `embedded_radius`, the radius of the circle Isomap returns"
    ),
    practises="geodesics on the circle, and what classical MDS does with a loop",
    minutes=25,
)
def _circle(arc_function, radius):
    """Arcs: symmetric, at most π, the short way round; radius: a fit of the check's."""
    rng = np.random.default_rng(_RNG_SEED)
    alpha, beta = rng.uniform(0, 2 * np.pi, size=(2, 200))
    d = array_answer(
        call(arc_function, alpha.copy(), beta.copy(), name="arc_distance"),
        name="arc_distance(alpha, beta)",
        shape=(200,),
    )
    chord = np.hypot(np.cos(alpha) - np.cos(beta), np.sin(alpha) - np.sin(beta))
    require(np.all(d >= 0), "some of your arc distances are negative")
    require(
        np.all(d <= np.pi + 1e-12),
        "some of your arc distances are longer than half the circle: the geodesic "
        "takes the shorter way round",
    )
    require(
        np.allclose(2 * np.sin(d / 2), chord, atol=1e-9),
        "your arc distances do not match the angles between the points",
    )
    value = number_answer(radius, name="embedded_radius")
    angles = np.linspace(0, 2 * np.pi, 300, endpoint=False)
    fit = Isomap(n_neighbors=4, n_components=2).fit_transform(
        np.column_stack([np.cos(angles), np.sin(angles)])
    )
    measured = np.linalg.norm(fit, axis=1).mean()
    require(
        abs(value - measured) < 0.01,
        f"the check runs Isomap on 300 points of the unit circle and gets a circle of "
        f"radius {value / measured:.3g} times yours",
    )


def _point_sets(rng):
    """The check's point sets: a blob, two far clusters, a line with one wide gap."""
    blob = rng.normal(size=(40, 3))
    clusters = np.vstack([rng.normal(size=(25, 2)), rng.normal(size=(15, 2)) + 9.0])
    line = np.outer(
        np.r_[np.sort(rng.uniform(0, 4, 20)), 10 + rng.uniform(0, 1, 5)], [1.0, -2.0]
    )
    return {"blob": blob, "two clusters": clusters, "line with a gap": line}


@exercise(
    "ex-iso-epsilon",
    answers=["connecting_radius"],
    produce=(
        "a function `connecting_radius(X)` that returns the smallest ε for which the "
        "ε-graph of the points X (an edge between points at most ε apart) is connected"
    ),
    practises="the ε-ball graph of Isomap; its radius is set by the widest gap",
    minutes=20,
)
def _epsilon(function):
    """Against the longest edge of a minimum spanning tree, on three point sets."""
    rng = np.random.default_rng(_RNG_SEED)
    for name, X in _point_sets(rng).items():
        D = cdist(X, X)
        tree = csgraph.minimum_spanning_tree(D)
        want = tree.data.max()
        radius = number_answer(
            call(function, X.copy(), name="connecting_radius"),
            name="connecting_radius(X)",
        )
        joined = D <= radius * (1 + 1e-9)  # a rounding of the longest edge is no gap
        pieces = csgraph.connected_components(joined, directed=False)[0]
        require(
            pieces == 1,
            f"on the check's {name} ({len(X)} points) the ε-graph at your radius "
            f"falls into {pieces} pieces: your ε is too small",
        )
        require(
            radius <= want * (1 + 1e-9),
            f"on the check's {name} ({len(X)} points) a smaller radius than yours "
            "already connects the ε-graph: is every edge of your ε really needed?",
        )
