"""dr_lib.PCA against scikit-learn's PCA: MNIST-5k (5,000 x 784) and a tall 50,000 x
100.

Each dr_lib route is timed against the scikit-learn solver that does the same work
("eigh" vs svd_solver="covariance_eigh", "svd" vs svd_solver="full"), and both against
scikit-learn's default ("auto", which picks a randomized SVD for 50 components of
MNIST). The tall matrix is the case covariance_eigh is made for (many more samples than
features): there, forming XᵀX − N x̄x̄ᵀ instead of centring a copy of X saves most. Every
timing is ``fit_transform``.
Run with ``make bench`` or ``python benchmarks/bench_pca.py``.
"""

import numpy as np
from _harness import compare
from sklearn.decomposition import PCA as SklearnPCA

from dr_lib import PCA, datasets

N_COMPONENTS = 50
MNIST_PAIRS = [
    ("eigh", "covariance_eigh"),
    ("svd", "full"),
    ("eigh", "auto"),
    ("svd", "auto"),
]


def tall_data(n_samples=50_000, n_features=100, seed=0):
    """Correlated Gaussian data with an offset mean, many more rows than columns."""
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(n_features, n_features)) / np.sqrt(n_features)
    return rng.normal(size=(n_samples, n_features)) @ mixing + rng.normal(
        size=n_features
    )


def _timed_pair(name, X, ours, theirs, n_components):
    """Compare PCA(n_components, solver=ours) with scikit-learn's svd_solver=theirs."""
    return compare(
        name,
        lambda: PCA(n_components, solver=ours).fit_transform(X),
        lambda: SklearnPCA(
            n_components, svd_solver=theirs, random_state=0
        ).fit_transform(X),
        min_repeats=3,
    )


def main():
    """Print one line per pair of solvers and return the ratios ours / scikit-learn."""
    X, _ = datasets.mnist_subset()
    ratios = {}
    for ours, theirs in MNIST_PAIRS:
        name = f"PCA({N_COMPONENTS}) MNIST-5k {ours} vs sklearn {theirs}"
        ratios[name] = _timed_pair(name, X, ours, theirs, N_COMPONENTS)
    X = tall_data()
    name = "PCA(10) 50000x100 eigh vs sklearn covariance_eigh"
    ratios[name] = _timed_pair(name, X, "eigh", "covariance_eigh", 10)
    return ratios


if __name__ == "__main__":
    main()
