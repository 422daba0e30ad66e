"""dr_lib.PCA against scikit-learn's PCA on MNIST-5k (5,000 x 784), both solvers.

Each dr_lib route is timed against the scikit-learn solver that does the same work
("eigh" vs svd_solver="covariance_eigh", "svd" vs svd_solver="full"), and both against
scikit-learn's default ("auto", which picks a randomized SVD for 50 components here).
Run with ``make bench`` or ``python benchmarks/bench_pca.py``.
"""

from _harness import compare
from sklearn.decomposition import PCA as SklearnPCA

from dr_lib import PCA, datasets

N_COMPONENTS = 50
PAIRS = [
    ("eigh", "covariance_eigh"),
    ("svd", "full"),
    ("eigh", "auto"),
    ("svd", "auto"),
]


def main():
    """Print one line per pair of solvers and return the ratios ours / scikit-learn."""
    X, _ = datasets.mnist_subset()
    ratios = {}
    for ours, theirs in PAIRS:
        name = f"PCA({N_COMPONENTS}) MNIST-5k {ours} vs sklearn {theirs}"
        ratios[name] = compare(
            name,
            lambda: PCA(N_COMPONENTS, solver=ours).fit_transform(X),
            lambda: SklearnPCA(
                N_COMPONENTS, svd_solver=theirs, random_state=0
            ).fit_transform(X),
            repeats=5,
        )
    return ratios


if __name__ == "__main__":
    main()
