"""dr_lib.LaplacianEigenmaps against scikit-learn's SpectralEmbedding: swiss roll, N =
2000.

Both build a 10-nearest-neighbour graph from the raw points and take the two smallest
non-trivial generalised eigenvectors of L f = λ D f by shift-invert ARPACK on the
symmetric normalised Laplacian. The affinities differ slightly (dr_lib: heat-kernel
weights on the OR-symmetrised graph; scikit-learn: 1 and 1/2 on a graph that counts each
point as its own first neighbour), which changes no cost. A second line times the
eigen-solve alone on one shared affinity matrix (scikit-learn with
affinity="precomputed").
Run with ``make bench`` or ``python benchmarks/bench_laplacian_eigenmaps.py``.
"""

from _harness import compare
from sklearn.manifold import SpectralEmbedding

from dr_lib import LaplacianEigenmaps, datasets
from dr_lib.laplacian_eigenmaps import generalized_bottom_eigenpairs

N_SAMPLES, N_NEIGHBORS = 2000, 10


def main():
    """Print one line per comparison and return the ratios ours / scikit-learn."""
    X, _ = datasets.swiss_roll(N_SAMPLES, random_state=0)
    ours = LaplacianEigenmaps(N_NEIGHBORS, 2)
    reference = SpectralEmbedding(2, n_neighbors=N_NEIGHBORS, random_state=0)
    ratios = {
        "from X": compare(
            f"LaplacianEigenmaps swiss roll N={N_SAMPLES} k={N_NEIGHBORS}",
            lambda: ours.fit(X),
            lambda: reference.fit(X),
        )
    }
    W = ours.affinity_matrix_
    precomputed = SpectralEmbedding(2, affinity="precomputed", random_state=0)
    ratios["eigen-solve"] = compare(
        "  eigen-solve only, same affinity",
        lambda: generalized_bottom_eigenpairs(W, 3),
        lambda: precomputed.fit(W),
    )
    return ratios


if __name__ == "__main__":
    main()
