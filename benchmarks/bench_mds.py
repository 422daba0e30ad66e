"""dr_lib.ClassicalMDS against scikit-learn's ClassicalMDS at N = 2000, two components.

Both embed the same precomputed Euclidean distances of 2,000 swiss-roll points.
scikit-learn computes every eigenpair of B; dr_lib computes the top two (Lanczos) plus
the smallest eigenvalue (Lanczos), which it reports as ``smallest_eigenvalue_``.
Run with ``make bench`` or ``python benchmarks/bench_mds.py``.
"""

from _harness import compare
from scipy.spatial.distance import cdist
from sklearn.manifold import ClassicalMDS as SkClassicalMDS

from dr_lib import ClassicalMDS, datasets

N_SAMPLES = 2000


def main():
    """Print one line and return the ratio ours / scikit-learn."""
    X, _ = datasets.swiss_roll(N_SAMPLES, random_state=0)
    D = cdist(X, X)
    ours = ClassicalMDS(2, dissimilarity="precomputed")
    reference = SkClassicalMDS(n_components=2, metric="precomputed")
    return compare(
        f"ClassicalMDS precomputed N={N_SAMPLES}",
        lambda: ours.fit(D),
        lambda: reference.fit(D),
        min_repeats=2,
    )


if __name__ == "__main__":
    main()
