"""ClassNeRV: dr_lib against a direct implementation, and how the cost grows with N.

- 512 digits, perplexity 32, tau* = epsilon = 0.5, 300 iterations: ``dr_lib.ClassNeRV``
  (numba kernel, the shared momentum-and-gains descent) against the stress and gradient
  written with dense numpy arrays and minimised by scipy's L-BFGS for 300 iterations, the
  way the authors' research code works (BFGS on a numpy stress; that code itself, Zenodo
  4094851, is not available offline). Both start from the same PCA map.
- Growth: the time of one stress-and-gradient evaluation at N = 1,000, 2,000 and 5,000
  MNIST digits (784 pixels), with the calibration of P timed apart; a full fit is
  calibration + 300 evaluations. Per evaluation the work is O(N^2) (every pair once).
- N = 5,000 MNIST digits, ``method="knn"`` (beta_i and P on the floor(3 perplexity)
  nearest neighbours, map sums over candidate pairs): the whole fit, 300 iterations, and
  the candidate pairs per point at the start and at the end (target: under a minute).
Run with ``make bench`` or ``python benchmarks/bench_classnerv.py``.
"""

import time

import numpy as np
from _harness import compare, load_average
from scipy.optimize import minimize

from dr_lib import ClassNeRV, datasets, nerv
from dr_lib.pca import PCA


def _numpy_stress(P, log_P, beta, same, tau_in, tau_out):
    """The stress and gradient of ClassNeRV with dense numpy arrays (the direct route)."""
    tau = np.where(same, tau_in, tau_out)
    n = len(P)
    off = ~np.eye(n, dtype=bool)

    def fun(flat):
        Z = flat.reshape(n, -1)
        S = beta[:, None] * ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
        S[~off] = np.inf
        log_q = -S - np.log(np.exp(-S).sum(axis=1, keepdims=True))
        Q = np.exp(log_q)
        with np.errstate(invalid="ignore"):  # -inf - (-inf) on the diagonal
            ratio = np.where(off, log_q - log_P, 0.0)
        cost = np.sum(tau * (Q - P - P * ratio) + (1 - tau) * (Q * ratio - Q + P))
        C = tau * (Q - P) + (1 - tau) * Q * ratio
        M = -beta[:, None] * (C - Q * C.sum(axis=1, keepdims=True))
        W = M + M.T
        grad = 2 * (W.sum(axis=1)[:, None] * Z - W @ Z)
        return cost, grad.ravel()

    return fun


def bench_512():
    """One ratio: the fit on 512 digits, ours against numpy + L-BFGS."""
    X, y = datasets.digits()
    sample = np.sort(np.random.default_rng(0).choice(len(X), 512, replace=False))
    X, y = X[sample], y[sample]
    Z0 = PCA(2).fit_transform(X)

    def reference():
        P, log_P, beta = nerv.neighbourhoods(X, 32.0)
        fun = _numpy_stress(P, log_P, beta, y[:, None] == y[None, :], 1.0, 0.0)
        return minimize(
            fun, Z0.ravel(), jac=True, method="L-BFGS-B", options={"maxiter": 300}
        )

    ours = ClassNeRV(perplexity=32, init=Z0)
    ratio = compare(
        "ClassNeRV 512 digits, 300 iterations",
        lambda: ours.fit(X, y),
        reference,
        min_repeats=2,
    )
    start = time.process_time()
    ours.fit(X, y)
    print(
        f"    one fit: {time.process_time() - start:.1f} s of CPU time (target <= 8 s)"
    )
    return ratio


def growth(sizes=(1000, 2000, 5000), repeats=3):
    """Seconds of the calibration and of one evaluation at each N; the fitted exponent."""
    X, y = datasets.mnist_subset()
    per_eval = []
    for n in sizes:
        Xn, yn = X[:n], y[:n]
        start = time.perf_counter()
        P, log_P, beta = nerv._neighbourhoods(Xn, 32.0)
        calibration = time.perf_counter() - start
        evaluate = nerv._evaluator(P, log_P, beta, yn.astype(np.intp), 1.0, 0.0)
        Z = PCA(2).fit_transform(Xn)
        evaluate(Z, 1.0, False)  # compile
        start = time.perf_counter()
        for _ in range(repeats):
            evaluate(Z, 1.0, False)
        seconds = (time.perf_counter() - start) / repeats
        per_eval.append(seconds)
        print(
            f"    N = {n:5d}: calibration {calibration:6.2f} s, one evaluation "
            f"{seconds * 1e3:8.1f} ms, a 300-iteration fit about "
            f"{calibration + 300 * seconds:6.1f} s",
            flush=True,
        )
    slope = np.polyfit(np.log(sizes), np.log(per_eval), 1)[0]
    print(f"    time per evaluation grows as N^{slope:.2f}")


def _candidates_per_point(Z, beta, knn):
    """Mean number of candidate pairs per point of the knn evaluation at the map ``Z``."""
    order = np.argsort(Z[:, 0])
    indptr, _ = nerv._candidates(
        Z, beta, knn, nerv.MAP_CUTOFF, order, np.ascontiguousarray(Z[order, 0])
    )
    return np.diff(indptr).mean()


def fit_5000():
    """Wall time of ClassNeRV(method="knn") on 5,000 MNIST digits, and its pair counts."""
    X, y = datasets.mnist_subset()
    start = time.perf_counter()
    _, knn, _, beta = nerv._knn_neighbourhoods(X, 32.0)
    setup = time.perf_counter() - start
    model = ClassNeRV(perplexity=32, method="knn")
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    Z0 = PCA(2).fit_transform(X)
    print(
        f"    N = 5000, method='knn': fit {seconds:6.1f} s (target < 60 s; neighbourhoods "
        f"{setup:.1f} s); candidate pairs per point "
        f"{_candidates_per_point(Z0, beta, knn):.0f} at the PCA start, "
        f"{_candidates_per_point(model.embedding_, beta, knn):.0f} at the end",
        flush=True,
    )


def main():
    """Run the three parts and print the machine's load."""
    print(load_average())
    bench_512()
    growth()
    fit_5000()
    print(load_average())


if __name__ == "__main__":
    main()
