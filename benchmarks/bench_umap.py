"""dr_lib.UMAP against umap-learn 0.5.12: the same quality, faster, warm and fresh.

Three data sets: MNIST-5k (``datasets.mnist_subset()``, 5,000 x 784 pixels: umap-learn
searches its neighbours approximately, by nearest-neighbour descent, dr_lib exactly),
the 8 x 8 digits (1,797 x 64) and a swiss roll (3,000 x 3; both below 4,096 points,
where umap-learn searches exactly too). Defaults everywhere (k = 15, min_dist = 0.1,
500 epochs, spectral start).

- ``warm``: whole fits in one process, after one untimed fit of each (which compiles),
  interleaved (the order reverses on each repeat; repeat r uses seed r for both):
  dr_lib, umap-learn with the same seed (which makes it run single-threaded: its
  reproducible mode), and umap-learn without a seed and with ``n_jobs=-1`` (its
  fastest, parallel and irreproducible mode). Quality of every map: kNN recall@15 and
  trustworthiness T(15) against the data (``dr_lib.metrics``), averaged over the
  repeats. Targets (issue 24): recall within 0.02 and T within 0.005 of umap-learn's,
  time at most 1.0 times.
- ``fresh``: a new Python process that imports the library, reads MNIST-5k from a
  ``.npy`` file and fits once, timed from outside (interpreter start included), after
  one run of each has filled the caches it keeps (numba's, for dr_lib; umap-learn
  caches few of its compiled functions, so it compiles on every start). Interleaved.
  Target: dr_lib at most 0.2 times umap-learn.

``make bench`` runs both (and puts the ratios in the common table); ``--quick`` is a
smoke run (the digits only, 100 epochs, one repeat, no fresh processes);
``--part warm|fresh`` runs one part; ``--repeats`` sets the repeats.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings

import _harness
import numpy as np

from dr_lib import UMAP, datasets, metrics

K = 15


def data_sets(quick=False):
    """name -> (X, labels)."""
    sets = {"digits": datasets.digits()}
    if not quick:
        sets = {
            "MNIST-5k": datasets.mnist_subset(),
            **sets,
            "swiss roll 3k": datasets.swiss_roll(3000, random_state=0),
        }
    return sets


def _umap_learn():
    try:
        import umap
    except ImportError:
        print("    umap-learn is not installed (pip install -e '.[bench]'): skipped")
        return None
    return umap


def implementations(umap, n_epochs=None):
    """name -> callable(X, seed) returning the map."""
    runs = {
        "dr_lib": lambda X, seed: UMAP(
            n_epochs=n_epochs, random_state=seed
        ).fit_transform(X),
    }
    if umap is not None:
        runs["umap-learn seeded"] = lambda X, seed: umap.UMAP(
            n_epochs=n_epochs, random_state=seed
        ).fit_transform(X)
        runs["umap-learn parallel"] = lambda X, seed: umap.UMAP(
            n_epochs=n_epochs, n_jobs=-1
        ).fit_transform(X)
    return runs


def warm(repeats=2, quick=False):
    """Interleaved fits on every data set; rows of quality and time, ratios in
    _harness.RESULTS."""
    umap = _umap_learn()
    runs = implementations(umap, n_epochs=100 if quick else None)
    rows = []
    for name, (X, _) in data_sets(quick).items():
        for label in runs:  # compile, and warm every cache: a whole fit, since
            runs[label](X, 0)  # umap-learn compiles its neighbour descent at 4,096
        times = {label: _harness.Timing([], []) for label in runs}
        quality = {label: [] for label in runs}
        for r in range(repeats):
            order = list(runs) if r % 2 == 0 else list(runs)[::-1]
            for label in order:
                wall, cpu = time.perf_counter(), time.process_time()
                Z = runs[label](X, r)
                times[label].wall.append(time.perf_counter() - wall)
                times[label].cpu.append(time.process_time() - cpu)
                quality[label].append(
                    (metrics.knn_recall(X, Z, K), metrics.trustworthiness(X, Z, K))
                )
                print(f"    {name} {label}: {times[label].wall[-1]:.1f} s", flush=True)
        for label in runs:
            recall, trust = np.mean(quality[label], axis=0)
            rows.append(
                {
                    "data": name,
                    "implementation": label,
                    "best_s": times[label].best,
                    "median_s": times[label].median,
                    "cpu_s": times[label].median_cpu,
                    "recall": recall,
                    "trustworthiness": trust,
                }
            )
            print(
                f"    {name:14s} {label:20s} best {times[label].best:6.1f} s  "
                f"CPU {times[label].median_cpu:6.1f} s  recall@{K} {recall:.4f}  "
                f"T({K}) {trust:.4f}",
                flush=True,
            )
        for reference in list(runs)[1:]:
            _harness.RESULTS.append(
                (
                    f"UMAP {name}: dr_lib / {reference}",
                    times["dr_lib"],
                    times[reference],
                )
            )
        _targets(name, rows[-len(runs) :])
    return rows


def _targets(name, rows):
    """Print whether dr_lib meets the quality targets against each umap-learn mode."""
    ours = rows[0]
    for row in rows[1:]:
        recall = abs(ours["recall"] - row["recall"])
        trust = abs(ours["trustworthiness"] - row["trustworthiness"])
        print(
            f"    {name}: |recall - {row['implementation']}| = {recall:.4f} "
            f"({'within' if recall <= 0.02 else 'NOT within'} 0.02), |T - ...| = "
            f"{trust:.4f} ({'within' if trust <= 0.005 else 'NOT within'} 0.005)"
        )


_FRESH = {
    "dr_lib": "from dr_lib import UMAP\nmake = lambda: UMAP(random_state=0)",
    "umap-learn": "from umap import UMAP\nmake = lambda: UMAP(random_state=0)",
}


def _children_cpu():
    """CPU seconds of this process's finished children, all threads."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _fresh_process(label, path):
    """Wall and CPU seconds of a new interpreter that imports ``label``'s UMAP and
    fits once."""
    code = (
        "import warnings\nwarnings.filterwarnings('ignore')\nimport numpy as np\n"
        f"{_FRESH[label]}\nmake().fit(np.load({path!r}))\n"
    )
    start, cpu = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - start, _children_cpu() - cpu


def fresh(repeats=2):
    """Import + fit in new processes, interleaved, after a first run of each."""
    if _umap_learn() is None:
        return []
    X, _ = datasets.mnist_subset()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "mnist.npy")
        np.save(path, X)
        first = {label: _fresh_process(label, path)[0] for label in _FRESH}
        print(
            "    first runs (dr_lib compiles and caches): "
            + ", ".join(f"{k} {v:.1f} s" for k, v in first.items()),
            flush=True,
        )
        times = {label: _harness.Timing([], []) for label in _FRESH}
        for r in range(repeats):
            for label in list(_FRESH) if r % 2 == 0 else list(_FRESH)[::-1]:
                wall, cpu = _fresh_process(label, path)
                times[label].wall.append(wall)
                times[label].cpu.append(cpu)
                print(f"    fresh {label}: {times[label].wall[-1]:.1f} s", flush=True)
    _harness.RESULTS.append(
        ("UMAP MNIST-5k fresh process: dr_lib / umap-learn", *times.values())
    )
    ratio = times["dr_lib"].best / times["umap-learn"].best
    print(f"    fresh-process ratio {ratio:.3f} (target at most 0.2)")
    return [
        {"label": k, "first_s": first[k], "best_s": v.best} for k, v in times.items()
    ]


def main(quick=False, parts=("warm", "fresh"), repeats=2):
    """The warm fits and the fresh processes (``make bench``)."""
    warnings.filterwarnings("ignore", module="umap")  # its notes on n_jobs and seeds
    warnings.filterwarnings("ignore", category=UserWarning)
    print(f"    {_harness.load_average()}", flush=True)
    results = {}
    if "warm" in parts:
        results["warm"] = warm(1 if quick else repeats, quick=quick)
    if "fresh" in parts and not quick:
        results["fresh"] = fresh(repeats)
    print(f"    {_harness.load_average()}", flush=True)
    return results


def _cli():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", choices=["warm", "fresh", "all"], default="all")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args()
    parts = ("warm", "fresh") if args.part == "all" else (args.part,)
    results = main(args.quick, parts, args.repeats)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(results, out, indent=1)
    print("\nRatios dr_lib / umap-learn (< 1: dr_lib is faster):")
    print(_harness.table())


if __name__ == "__main__":
    _cli()
