"""ClassNeRV: dr_lib against a direct implementation, and how the cost grows with N.

- 512 digits, perplexity 32, tau* = epsilon = 0.5, 300 iterations: ``dr_lib.ClassNeRV``
  (numba kernel, the shared momentum-and-gains descent) against the stress and gradient
  written with dense numpy arrays and minimised by scipy's L-BFGS for 300 iterations,
  the way the authors' research code works (BFGS on a numpy stress; that code itself,
  Zenodo 4094851, is not available offline). Both start from the same PCA map.
- Growth: the calibration of P and one stress-and-gradient evaluation at N = 500, 1,000,
  2,000 and 5,000 MNIST digits (784 pixels), wall and CPU time (all threads). Per
  evaluation the work is O(N^2): every ordered pair once, one exponential each, in
  ``nerv._block_stress_gradient``.
- N = 5,000 MNIST digits: ``ClassNeRV(perplexity=32).fit`` with its defaults (300
  iterations, exact stress), wall and CPU time, and the map's T@10, C@10 and kNN
  gain@10. Target: under a minute on this 2-core machine.
Run with ``make bench`` or ``python benchmarks/bench_classnerv.py``.
"""

import time

import numpy as np
from _harness import compare, load_average
from scipy.optimize import minimize

from dr_lib import ClassNeRV, datasets, metrics, nerv
from dr_lib.pca import PCA


def _numpy_stress(P, log_P, beta, same, tau_in, tau_out):
    """The stress and gradient of ClassNeRV with dense numpy arrays (the direct
    route)."""
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


def _timed(function):
    """(wall seconds, CPU seconds of all threads, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def growth(sizes=(500, 1000, 2000, 5000), repeats=3):
    """Calibration and one evaluation at each N (wall and CPU); the fitted exponent."""
    X, y = datasets.mnist_subset()
    per_eval = []
    for n in sizes:
        Xn, yn = X[:n], y[:n]
        wall, cpu, (P, log_P, beta) = _timed(lambda: nerv._neighbourhoods(Xn, 32.0))
        evaluate = nerv._evaluator(P, log_P, beta, yn.astype(np.intp), 1.0, 0.0)
        Z = PCA(2).fit_transform(Xn)
        evaluate(Z, 1.0, False)  # compile, or load the cached machine code
        runs = [_timed(lambda: evaluate(Z, 1.0, False))[:2] for _ in range(repeats)]
        eval_wall, eval_cpu = (min(r[i] for r in runs) for i in (0, 1))
        per_eval.append(eval_cpu)
        print(
            f"    N = {n:5d}: calibration {wall:5.1f} s ({cpu:5.1f} s CPU); one "
            f"evaluation {eval_wall * 1e3:7.1f} ms ({eval_cpu * 1e3:7.1f} ms CPU, "
            f"{eval_cpu / n**2 * 1e9:4.1f} ns CPU per pair)",
            flush=True,
        )
    slope = np.polyfit(np.log(sizes), np.log(per_eval), 1)[0]
    print(f"    CPU time per evaluation grows as N^{slope:.2f}")


def fit_5000():
    """ClassNeRV with its defaults on 5,000 MNIST digits: time, iterations, quality."""
    X, y = datasets.mnist_subset()
    model = ClassNeRV(perplexity=32)
    wall, cpu, _ = _timed(lambda: model.fit(X, y))
    Z = model.embedding_
    print(
        f"    N = 5000: fit {wall:6.1f} s ({cpu:6.1f} s CPU, target < 60 s wall), "
        f"{model.n_iter_} iterations; T@10 {metrics.trustworthiness(X, Z, 10):.4f}, "
        f"C@10 {metrics.continuity(X, Z, 10):.4f}, "
        f"kNN gain@10 {metrics.knn_gain(X, Z, y, 10):+.4f}",
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
