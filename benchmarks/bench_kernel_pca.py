"""dr_lib.KernelPCA against scikit-learn's KernelPCA: RBF kernel, N = 2000, two
components.

Both fit the same 2,000 points of two noisy concentric circles. scikit-learn runs with
its exact solver (eigen_solver="dense", the same work as dr_lib: a LAPACK
eigendecomposition restricted to the top pairs) and with its default ("auto", which
picks ARPACK here: a few Lanczos iterations, O(N^2) each, instead of an O(N^3)
tridiagonalisation). Run with ``make bench`` or
``python benchmarks/bench_kernel_pca.py``.
"""

from _harness import compare
from sklearn.datasets import make_circles
from sklearn.decomposition import KernelPCA as SklearnKernelPCA

from dr_lib import KernelPCA

N_SAMPLES, GAMMA = 2000, 2.0


def main():
    """Print one line per scikit-learn solver and return the ratios ours /
    scikit-learn."""
    X, _ = make_circles(n_samples=N_SAMPLES, factor=0.3, noise=0.05, random_state=0)
    ours = KernelPCA(2, kernel="rbf", gamma=GAMMA)
    ratios = {}
    for solver in ["dense", "auto"]:
        reference = SklearnKernelPCA(
            2, kernel="rbf", gamma=GAMMA, eigen_solver=solver, random_state=0
        )
        ratios[solver] = compare(
            f"KernelPCA rbf N={N_SAMPLES} vs eigen_solver={solver!r}",
            lambda: ours.fit(X),
            lambda reference=reference: reference.fit(X),
            min_repeats=2 if solver == "dense" else 3,
        )
    return ratios


if __name__ == "__main__":
    main()
