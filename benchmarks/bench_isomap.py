"""dr_lib.Isomap against scikit-learn's Isomap on 2,000 swiss-roll points,
n_neighbors=10.

Both build the same symmetrised 10-nearest-neighbour graph, run Dijkstra from every
point and embed the geodesic distances in two dimensions (dr_lib through the
classical-MDS step of ClassicalMDS, scikit-learn through KernelPCA). dr_lib's Dijkstra
(dr_lib._dijkstra) splits the sources over the cores; scipy's runs them one after
another. Run with ``make bench`` or ``python benchmarks/bench_isomap.py``.
"""

from _harness import compare
from sklearn.manifold import Isomap as SkIsomap

from dr_lib import Isomap, datasets

N_SAMPLES, N_NEIGHBORS = 2000, 10


def main():
    """Print one line and return the ratio ours / scikit-learn."""
    X, _ = datasets.swiss_roll(N_SAMPLES, random_state=0)
    ours = Isomap(n_neighbors=N_NEIGHBORS, n_components=2)
    reference = SkIsomap(n_neighbors=N_NEIGHBORS, n_components=2)
    return compare(
        f"Isomap swiss roll N={N_SAMPLES} k={N_NEIGHBORS}",
        lambda: ours.fit(X),
        lambda: reference.fit(X),
        min_repeats=3,
        budget=10.0,
    )


if __name__ == "__main__":
    main()
