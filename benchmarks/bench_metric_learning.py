"""dr_lib's metric learners against their references, side by side.

- NCA: digits (1,797 x 64) -> 2 against scikit-learn's NeighborhoodComponentsAnalysis
  with the same start (scikit-learn's PCA directions) and the same L-BFGS settings. The
  objective is not convex and the two codes round differently, so with a tolerance their
  L-BFGS runs can stop after different numbers of iterations; the first line runs both
  for exactly 50 iterations (tol=1e-12), the second with the defaults (iterations
  printed).
- LDA: scikit-learn's LinearDiscriminantAnalysis(solver="eigen") on wine and on 20,000
  samples of 100 features in 10 classes.
- MMC: the must-link/cannot-link problem [W] 式(10.39) on standardised wine with 300
  pairs of each kind, against cvxpy + SCS on the same pairs (problem construction
  included). The optimum is compared as f / g^2, the must-link sum after rescaling M so
  that the cannot-link distances sum to one (a solver's matrix is first projected onto
  the PSD cone), with SCS and with Clarabel (interior point, the more accurate
  reference). A negative difference means dr_lib found the lower, i.e. better, value.
Run with ``make bench`` or ``python benchmarks/bench_metric_learning.py``.
"""

import time

import cvxpy as cp
import numpy as np
from _harness import compare
from sklearn.datasets import load_wine, make_classification
from sklearn.decomposition import PCA as SkPCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA
from sklearn.neighbors import NeighborhoodComponentsAnalysis as SkNCA
from sklearn.preprocessing import StandardScaler

from dr_lib import LDA, NCA, datasets, mmc


def bench_nca():
    """Two ratios: equal iteration counts, and the default tolerance."""
    X, y = datasets.digits()
    init = SkPCA(2).fit(X).components_
    ratios = {}
    for label, tol in [("50 iterations each", 1e-12), ("default tol", 1e-5)]:
        max_iter = 50 if tol < 1e-6 else 100
        ours = NCA(2, init=init, max_iter=max_iter, tol=tol)
        reference = SkNCA(2, init=init, max_iter=max_iter, tol=tol)
        ratios[f"NCA {label}"] = compare(
            f"NCA digits 64->2, {label}",
            lambda ours=ours: ours.fit(X, y),
            lambda reference=reference: reference.fit(X, y),
            min_repeats=2,
        )
        print(
            f"    L-BFGS iterations: dr_lib {ours.n_iter_}, scikit-learn "
            f"{reference.n_iter_ - 1} (its n_iter_ counts one more)"
        )
    return ratios


def bench_lda():
    """One ratio per data set."""
    wine = load_wine(return_X_y=True)
    large = make_classification(
        20_000, 100, n_informative=30, n_redundant=0, n_classes=10, random_state=0
    )
    ratios = {}
    for name, (X, y) in [("wine", wine), ("20000 x 100, 10 classes", large)]:
        ratios[f"LDA {name}"] = compare(
            f"LDA {name}",
            lambda X=X, y=y: LDA().fit(X, y),
            lambda X=X, y=y: SkLDA(solver="eigen").fit(X, y),
            min_repeats=5,
        )
    return ratios


def _sums(U, V, M):
    """Must-link sum of squared distances and cannot-link sum of distances under M."""
    f = np.einsum("kp,pq,kq->", U, M, U)
    g = np.sqrt(np.maximum(np.einsum("kp,pq,kq->k", V, M, V), 0)).sum()
    return f, g


def _cvxpy(U, V, solver):
    """Solve 式(10.39) with cvxpy and ``solver``; the PSD part of the solution."""
    D = U.shape[1]
    M = cp.Variable((D, D), PSD=True)
    distances = cp.sqrt(cp.sum(cp.multiply(V @ M, V), axis=1))
    problem = cp.Problem(cp.Minimize(cp.trace((U.T @ U) @ M)), [cp.sum(distances) >= 1])
    problem.solve(solver=solver)
    values, vectors = np.linalg.eigh((M.value + M.value.T) / 2)
    return (vectors * np.maximum(values, 0)) @ vectors.T


def bench_mmc():
    """Time ratio against cvxpy + SCS, and the optimum against SCS and Clarabel."""
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    must, cannot = mmc.pairs_from_labels(y, 300, random_state=0)
    U, V = X[must[:, 0]] - X[must[:, 1]], X[cannot[:, 0]] - X[cannot[:, 1]]
    ratio = compare(
        "MMC wine, 300 + 300 pairs vs cvxpy + SCS",
        lambda: mmc.solve(X, must, cannot),
        lambda: _cvxpy(U, V, "SCS"),
        min_repeats=2,
    )
    M_ours, info = mmc.solve(X, must, cannot)
    f_ours, g_ours = _sums(U, V, M_ours)
    ours = f_ours / g_ours**2
    for solver in ["SCS", "CLARABEL"]:
        start = time.perf_counter()
        f_ref, g_ref = _sums(U, V, _cvxpy(U, V, solver))
        seconds = time.perf_counter() - start
        reference = f_ref / g_ref**2
        print(
            f"    optimum f/g^2: dr_lib {ours:.6g}, cvxpy + {solver} {reference:.6g} "
            f"({seconds:.2f} s); dr_lib is {(ours - reference) / reference:+.3%} "
            f"relative (certified gap of dr_lib: {info['gap']:.1e})"
        )
    return {"MMC vs cvxpy+SCS": ratio}


def main():
    """Print one line per comparison and return the ratios ours / reference."""
    ratios = {}
    for bench in (bench_lda, bench_mmc, bench_nca):
        ratios.update(bench())
    return ratios


if __name__ == "__main__":
    main()
