"""dr_lib.Isomap against scikit-learn's Isomap on 2,000 swiss-roll points, n_neighbors=10.

Both build the same symmetrised 10-nearest-neighbour graph, run Dijkstra from every point
and embed the geodesic distances in two dimensions (dr_lib through ClassicalMDS, which also
reports the smallest eigenvalue of B; scikit-learn through KernelPCA).
Run with ``make bench`` or ``python benchmarks/bench_isomap.py``.
"""

from _harness import compare
from sklearn.manifold import Isomap as SkIsomap

from dr_lib import Isomap, datasets

X, _ = datasets.swiss_roll(2000, random_state=0)
ours = Isomap(n_neighbors=10, n_components=2)
reference = SkIsomap(n_neighbors=10, n_components=2)
compare(
    "Isomap swiss roll N=2000 k=10",
    lambda: ours.fit(X),
    lambda: reference.fit(X),
    repeats=3,
)
