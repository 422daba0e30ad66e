"""dr_lib.LocallyLinearEmbedding against scikit-learn's, every method, N = 2000.

Both embed the same 2,000 swiss-roll points in two dimensions with n_neighbors = 12.
scikit-learn runs with its default eigen_solver="auto" (ARPACK in shift-invert mode at
this size, as dr_lib) and a fixed random_state. dr_lib assembles M from dense local
blocks in one sparse call and computes the barycenter weights in one batched solve.
Run with ``make bench`` or ``python benchmarks/bench_lle.py``.
"""

from _harness import compare
from sklearn.manifold import LocallyLinearEmbedding as SkLLE

from dr_lib import LocallyLinearEmbedding, datasets

N_SAMPLES, N_NEIGHBORS = 2000, 12


def main():
    """Print one line per method and return the ratios ours / scikit-learn."""
    X, _ = datasets.swiss_roll(N_SAMPLES, random_state=0)
    ratios = {}
    for method in ["standard", "modified", "hessian", "ltsa"]:
        ours = LocallyLinearEmbedding(N_NEIGHBORS, 2, method=method)
        reference = SkLLE(
            n_neighbors=N_NEIGHBORS, n_components=2, method=method, random_state=0
        )
        ratios[method] = compare(
            f"LLE {method} N={N_SAMPLES} k={N_NEIGHBORS}",
            lambda ours=ours: ours.fit(X),
            lambda reference=reference: reference.fit(X),
            min_repeats=2,
        )
    return ratios


if __name__ == "__main__":
    main()
