"""dr_lib.TSNE against scikit-learn's and openTSNE's t-SNE, side by side (issue 9).

Four parts, each usable alone (``--part``):

- ``ratios``: whole fits (perplexity 30, 1,000 iterations of which 250 exaggerated, PCA
  start) of dr_lib ``barnes_hut`` and ``fft``, scikit-learn's Barnes–Hut and openTSNE's
  Barnes–Hut and FFT (``n_jobs=-1``, ``n_iter=750`` after its 250 exaggerated ones) on
  MNIST-2k and MNIST-5k (PCA-50 of ``datasets.mnist_subset``) and on 10,000 and 20,000
  50-D blobs. The five run interleaved (the order reverses on each repeat), and the best
  wall times give the ratios; ``make bench`` prints them in the common table. Quality of
  each map: KL(P || Q) against one P (dr_lib's kNN P, perplexity 30, evaluated with the
  FFT sums, 2e-5 relative error), trustworthiness T(10) (N <= 5,000) and 1-NN accuracy.
- ``scaling``: one fresh process per (method, N), N = 500 ... 50,000: fit time, the time
  and the span of the map in every block of 50 iterations, KL, peak resident memory.
  ``exact`` runs 1,000 iterations up to 2,000 points and 100 iterations at 5,000 (its
  time per iteration is what the table uses).
- ``span``: seconds (wall and CPU) of one FFT gradient of dr_lib and of one openTSNE FFT
  iteration at fixed clustered 2-D maps of span 20 ... 200, N = 5,000 ... 50,000: the
  bounded grid keeps dr_lib's cost flat while openTSNE's grid grows with the span.
- ``jit``: seconds of a small fit in a fresh process with an empty numba cache (the
  compile) and again with the filled cache.

``--quick`` is a smoke run (small N, few iterations); ``--store`` writes the results as
CSV and JSON to book/07_sne_tsne/data/ with the date, the machine and its load.
Run with ``make bench`` (the ratios) or ``python benchmarks/bench_tsne.py --help``.
"""

import argparse
import contextlib
import datetime
import json
import os
import pathlib
import platform
import resource
import subprocess
import sys
import tempfile
import time

import _harness
import numpy as np
from sklearn.datasets import make_blobs
from sklearn.manifold import TSNE as SkTSNE

from dr_lib import PCA, TSNE, datasets, metrics, sne, tsne

HERE = pathlib.Path(__file__).resolve().parent
DATA_DIR = HERE.parent / "book" / "07_sne_tsne" / "data"
PERPLEXITY, MAX_ITER, EXAGGERATED = 30.0, 1000, 250
RATIO_SIZES = [2000, 5000, 10_000, 20_000]
SCALING_SIZES = [500, 1000, 2000, 5000, 10_000, 20_000, 50_000]
EXACT_FULL_UP_TO, EXACT_SHORT_ITER = 2000, 100
BLOCK = 50  # iterations per timed block in the scaling runs


# ------------------------------------------------------------------------ data


def dataset(n):
    """MNIST (PCA-50) up to 5,000 points, else 50-D blobs in 10 clusters; (X, y,
    name)."""
    if n <= 5000:
        X, y = datasets.mnist_subset(n // 10)
        return PCA(50).fit_transform(X), y, f"MNIST-{n // 1000}k PCA-50"
    X, y = make_blobs(n, n_features=50, centers=10, cluster_std=4.0, random_state=0)
    return X, y, f"blobs-{n // 1000}k 50-D"


# ------------------------------------------------------------------ implementations


def implementations(max_iter=MAX_ITER, only=None):
    """name -> callable(X) returning the map, for every implementation available.

    ``only``: keep the implementations whose name contains one of these strings.
    """
    runs = _all_implementations(max_iter)
    if only:
        runs = {k: v for k, v in runs.items() if any(o in k for o in only)}
    return runs


def _all_implementations(max_iter):
    runs = {
        "dr_lib barnes_hut": lambda X: TSNE(
            perplexity=PERPLEXITY, max_iter=max_iter, method="barnes_hut"
        ).fit_transform(X),
        "dr_lib fft": lambda X: TSNE(
            perplexity=PERPLEXITY, max_iter=max_iter, method="fft"
        ).fit_transform(X),
        "scikit-learn barnes_hut": lambda X: SkTSNE(
            perplexity=PERPLEXITY,
            max_iter=max_iter,
            init="pca",
            learning_rate="auto",
            random_state=0,
            n_jobs=-1,
        ).fit_transform(X),
    }
    try:
        import openTSNE
    except ImportError:
        print("    openTSNE is not installed (pip install -e '.[bench]'): skipped")
        return runs
    for method in ("bh", "fft"):
        runs[f"openTSNE {method}"] = lambda X, method=method: np.asarray(
            openTSNE.TSNE(
                perplexity=PERPLEXITY,
                n_iter=max_iter - EXAGGERATED,
                early_exaggeration_iter=EXAGGERATED,
                negative_gradient_method=method,
                n_jobs=-1,
                random_state=0,
            ).fit(X)
        )
    return runs


#: (ours, reference) pairs whose time ratio is reported.
PAIRS = [
    ("dr_lib barnes_hut", "scikit-learn barnes_hut"),
    ("dr_lib barnes_hut", "openTSNE bh"),
    ("dr_lib fft", "openTSNE fft"),
    ("dr_lib fft", "scikit-learn barnes_hut"),
]


def quality(X, y, Z, P):
    """KL(P || Q) with the common P, T(10) (N <= 5,000) and 1-NN accuracy of a map."""
    kl, _ = tsne.gradient(P, Z, method="fft")
    return {
        "kl": kl,
        "trustworthiness": (
            metrics.trustworthiness(X, Z, 10) if len(X) <= 5000 else float("nan")
        ),
        "knn_accuracy": metrics.knn_accuracy(Z, y, n_neighbors=1),
    }


def ratios(sizes=RATIO_SIZES, repeats=2, max_iter=MAX_ITER, only=None):
    """Interleaved whole fits at every N; rows for the store, pairs in
    _harness.RESULTS."""
    rows = []
    for n in sizes:
        X, y, name = dataset(n)
        runs = implementations(max_iter, only)
        times = {label: _harness.Timing([], []) for label in runs}
        maps = {}
        for r in range(repeats):
            order = list(runs) if r % 2 == 0 else list(runs)[::-1]
            for label in order:
                wall, cpu = time.perf_counter(), time.process_time()
                maps[label] = runs[label](X)
                times[label].wall.append(time.perf_counter() - wall)
                times[label].cpu.append(time.process_time() - cpu)
                print(f"    {name} {label}: {times[label].wall[-1]:.1f} s", flush=True)
        P = sne.joint_probabilities(X, PERPLEXITY, method="knn")
        for label in runs:
            rows.append(
                {
                    "data": name,
                    "n": n,
                    "implementation": label,
                    "best_s": times[label].best,
                    "median_s": times[label].median,
                    "cpu_s": times[label].median_cpu,
                    "runs": len(times[label].wall),
                    **quality(X, y, maps[label], P),
                }
            )
        for ours, reference in PAIRS:
            if ours in times and reference in times:
                _harness.RESULTS.append(
                    (
                        f"t-SNE {name}: {ours} / {reference}",
                        times[ours],
                        times[reference],
                    )
                )
        print(_quality_lines(rows[-len(runs) :]), flush=True)
    return rows


def _quality_lines(rows):
    return "\n".join(
        f"    {row['implementation']:24s} best {row['best_s']:7.1f} s  KL "
        f"{row['kl']:.4f}  T(10) {row['trustworthiness']:.4f}  1-NN "
        f"{row['knn_accuracy']:.4f}"
        for row in rows
    )


# ------------------------------------------------------------------------ scaling


def one_fit(method, n, max_iter):
    """Fit once in this process; time every block of iterations; a dict for the
    store."""
    X, _, name = dataset(n)
    blocks = []
    plain = tsne.gradient_descent

    def timed_descent(Z0, evaluate, phases, **kwargs):
        state = {"count": 0, "start": time.perf_counter()}

        def timed(Z, exaggeration, compute_cost):
            out = evaluate(Z, exaggeration, compute_cost)
            state["count"] += 1
            if state["count"] % BLOCK == 0:
                now = time.perf_counter()
                span = float(np.max(Z.max(axis=0) - Z.min(axis=0)))
                blocks.append((state["count"], (now - state["start"]) / BLOCK, span))
                state["start"] = now
            return out

        return plain(Z0, timed, phases, **kwargs)

    rss_before = _peak_rss_mb()
    tsne.gradient_descent = timed_descent
    try:
        start = time.perf_counter()
        model = TSNE(perplexity=PERPLEXITY, max_iter=max_iter, method=method).fit(X)
        seconds = time.perf_counter() - start
    finally:
        tsne.gradient_descent = plain
    per_iteration = float(np.median([b[1] for b in blocks])) if blocks else float("nan")
    return {
        "data": name,
        "n": n,
        "method": method,
        "max_iter": max_iter,
        "fit_s": seconds,
        "s_per_iteration_median": per_iteration,
        "kl": float(model.kl_divergence_),
        "peak_rss_mb_before_fit": rss_before,
        "peak_rss_mb": _peak_rss_mb(),
        "blocks": [
            {"iteration": it, "s_per_iteration": s, "span": span}
            for it, s, span in blocks
        ],
    }


def _peak_rss_mb():
    """Peak resident memory of this process so far, MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _in_fresh_process(args, env=None):
    """Run this script with ``args`` in a new interpreter; its last stdout line as
    JSON."""
    out = subprocess.run(
        [sys.executable, __file__, *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def scaling(
    sizes=SCALING_SIZES, max_iter=MAX_ITER, methods=("exact", "barnes_hut", "fft")
):
    """One fresh process per (method, N); the rows for the store."""
    rows = []
    for n in sizes:
        for method in methods:
            if method == "exact" and n > 5000:
                continue
            iters = max_iter
            if method == "exact" and n > EXACT_FULL_UP_TO:
                iters = min(max_iter, EXACT_SHORT_ITER)
            row = _in_fresh_process(["--one", method, str(n), str(iters)])
            print(
                f"    {row['data']:18s} {method:10s} {row['fit_s']:8.1f} s "
                f"({iters} it, {row['s_per_iteration_median'] * 1e3:7.1f} ms/it)  "
                f"KL {row['kl']:.4f}  peak {row['peak_rss_mb']:7.0f} MiB",
                flush=True,
            )
            rows.append(row)
    return rows


SPAN_SIZES = [5000, 10_000, 20_000, 50_000]
SPANS = [20.0, 50.0, 100.0, 200.0]


def clustered_map(n, span, seed=0):
    """A t-SNE-like 2-D map: 10 round clusters on a ring, scaled to the given span."""
    rng = np.random.default_rng(seed)
    angles = 2 * np.pi * np.arange(10) / 10
    centres = np.column_stack([np.cos(angles), np.sin(angles)])
    Z = centres[rng.integers(0, 10, n)] + 0.15 * rng.normal(size=(n, 2))
    return np.ascontiguousarray(Z * span / np.ptp(Z, axis=0).max())


def per_iteration_vs_span(sizes=SPAN_SIZES, spans=SPANS, repeats=3):
    """Seconds per gradient at fixed maps of growing span: dr_lib fft, openTSNE fft.

    The same kNN P (50-D blobs, perplexity 30) and the same map for both; dr_lib times
    one evaluation of its gradient (no cost), openTSNE one iteration of
    ``TSNEEmbedding.optimize`` (gradient and update). Best of ``repeats``.
    """
    try:
        import openTSNE
    except ImportError:
        openTSNE = None
    rows = []
    for n in sizes:
        X, _, name = dataset(n)
        P = sne.joint_probabilities(X, PERPLEXITY, method="knn")
        for span in spans:
            Z = clustered_map(n, span)
            evaluate = tsne._cost_gradient_function(P, "fft", 1.0, 0.5)
            ours = _best_of(lambda: evaluate(Z, 1.0, False), repeats)
            theirs = (float("nan"), float("nan"))
            if openTSNE is not None:
                affinities = openTSNE.affinity.PrecomputedAffinities(P)
                theirs = _best_of(
                    lambda: openTSNE.TSNEEmbedding(
                        Z.copy(), affinities, negative_gradient_method="fft", n_jobs=-1
                    ).optimize(1, learning_rate=1.0, momentum=0.8, inplace=True),
                    repeats,
                )
            rows.append(
                {
                    "data": name,
                    "n": n,
                    "span": span,
                    "dr_lib_fft_s": ours[0],
                    "openTSNE_fft_s": theirs[0],
                    "dr_lib_fft_cpu_s": ours[1],
                    "openTSNE_fft_cpu_s": theirs[1],
                }
            )
            print(
                f"    N={n:6d} span {span:5.0f}: dr_lib {ours[0] * 1e3:8.1f} ms "
                f"(CPU {ours[1] * 1e3:7.1f})  openTSNE {theirs[0] * 1e3:8.1f} ms "
                f"(CPU {theirs[1] * 1e3:7.1f})",
                flush=True,
            )
    return rows


def _best_of(function, repeats):
    """Best wall and best CPU seconds (all threads) of ``repeats`` calls, after one."""
    function()  # warm-up
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(wall), min(cpu)


def jit_times():
    """A small fit per method in fresh processes: empty numba cache, then filled
    cache."""
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        for state in ("cold (empty cache: compiles)", "cached"):
            row = _in_fresh_process(["--jit-probe"], env={"NUMBA_CACHE_DIR": cache})
            rows.append({"cache": state, **row})
            print(f"    {state:30s} {row}", flush=True)
    return rows


def jit_probe():
    """Seconds of the first small fit of each method in this process (import
    included)."""
    out = {}
    X, _ = make_blobs(300, n_features=10, random_state=0)
    for method in ("barnes_hut", "fft"):
        start = time.perf_counter()
        TSNE(perplexity=10, max_iter=60, method=method).fit(X)
        out[f"{method}_s"] = time.perf_counter() - start
    start = time.perf_counter()
    TSNE(perplexity=10, max_iter=60, method="fft").fit(X)
    out["fft_again_s"] = time.perf_counter() - start
    return out


# ------------------------------------------------------------------------ the store


def machine():
    """Where and under what load the numbers were taken."""
    return {
        "date_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_average_1_5_15": os.getloadavg(),
        "python": platform.python_version(),
        "script": "benchmarks/bench_tsne.py " + " ".join(sys.argv[1:]),
    }


def store(name, rows, meta):
    """Write ``name``.json (meta + rows) and, for flat rows, ``name``.csv."""
    import pandas as pd

    DATA_DIR.mkdir(parents=True, exist_ok=True)
    payload = {"meta": meta, "rows": rows}
    (DATA_DIR / f"{name}.json").write_text(json.dumps(payload, indent=1) + "\n")
    flat = [{k: v for k, v in row.items() if not isinstance(v, list)} for row in rows]
    pd.DataFrame(flat).to_csv(DATA_DIR / f"{name}.csv", index=False)
    print(f"    stored {DATA_DIR / name}.json and .csv")


# ------------------------------------------------------------------------ entry points


def main(quick=False):
    """The ratios (``make bench``): whole fits at 2k ... 20k, or a smoke run."""
    if quick:
        return ratios([1000], repeats=1, max_iter=300)
    return ratios()


def _cli():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small N, few iterations")
    parser.add_argument("--store", action="store_true", help="write book data files")
    parser.add_argument(
        "--part", choices=["ratios", "scaling", "span", "jit", "all"], default="ratios"
    )
    parser.add_argument("--sizes", type=int, nargs="*", help="override the sizes")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--only", nargs="*", help="ratios: implementations whose name contains these"
    )
    parser.add_argument(
        "--methods", nargs="*", help="scaling: dr_lib methods (exact barnes_hut fft)"
    )
    parser.add_argument("--name", help="file stem of the stored results")
    parser.add_argument("--max-iter", type=int, help="scaling: iterations per fit")
    parser.add_argument("--one", nargs=3, metavar=("METHOD", "N", "MAX_ITER"))
    parser.add_argument("--jit-probe", action="store_true")
    args = parser.parse_args()
    if args.one:  # a child process of the scaling part
        method, n, iters = args.one
        print(json.dumps(one_fit(method, int(n), int(iters))))
        return
    if args.jit_probe:  # a child process of the jit part
        print(json.dumps(jit_probe()))
        return
    print(f"Before: {_harness.load_average()}", flush=True)
    before = os.getloadavg()
    results = {}
    parts = ["ratios", "jit", "span", "scaling"] if args.part == "all" else [args.part]
    for part in parts:
        print(f"== t-SNE {part}", flush=True)
        if part == "ratios":  # stored after every N, so a long run keeps what it has
            results[part] = []
            for n in args.sizes or ([1000] if args.quick else RATIO_SIZES):
                results[part] += ratios(
                    [n],
                    repeats=1 if args.quick else args.repeats,
                    max_iter=300 if args.quick else MAX_ITER,
                    only=args.only,
                )
                if args.store:
                    meta = {**machine(), "load_average_before": before}
                    store(args.name or f"tsne_{part}", results[part], meta)
            continue
        elif part == "scaling":
            sizes = args.sizes or ([500, 2000] if args.quick else SCALING_SIZES)
            results[part] = scaling(
                sizes,
                max_iter=args.max_iter or (300 if args.quick else MAX_ITER),
                methods=args.methods or ("exact", "barnes_hut", "fft"),
            )
        elif part == "span":
            results[part] = per_iteration_vs_span(
                args.sizes or ([2000] if args.quick else SPAN_SIZES)
            )
        else:
            results[part] = jit_times()
        if args.store:
            meta = {**machine(), "load_average_before": before}
            store(args.name or f"tsne_{part}", results[part], meta)
    print(f"\nAfter: {_harness.load_average()}")
    if _harness.RESULTS:
        print("\nRatios dr_lib / reference (< 1: dr_lib is faster), best of the runs:")
        print(_harness.table())


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        _cli()
