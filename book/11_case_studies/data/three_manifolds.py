"""Every method of chapters 1-7 on the swiss roll, the S-curve and the severed sphere.

Makes the stored results that book/11_case_studies/03_three_manifolds.ipynb and
04_claims_tested.ipynb read. Run it from the repository root with one thread per
library, so that the CPU seconds measure the work and not threads waiting for a busy
machine (about two minutes of CPU, spread over four processes: the three data sets and
the scaling study):

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 \
        .venv/bin/python book/11_case_studies/data/three_manifolds.py

Writes, next to this file,

- ``three_manifolds.csv``: one row per data set, method and implementation (dr_lib or
  scikit-learn) with the wall and CPU seconds of the fit and four quality measures;
- ``three_manifolds_embeddings.npz``: every embedding (float32), for the figures;
- ``three_manifolds_scaling.csv``: fit times of the spectral methods
  for N = 500 ... 2000;
- ``three_manifolds.json``: when, where and how the numbers were made.
"""

import json
import multiprocessing
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial.distance import pdist
from scipy.stats import spearmanr
from sklearn import decomposition as skd
from sklearn import manifold as skm

import dr_lib
from dr_lib import datasets, metrics

HERE = Path(__file__).parent
N_SAMPLES = 1000  #: as in the scikit-learn example that [B] follows
N_NEIGHBORS = 10  #: neighbours of every graph method, and k of T and C
SCALING_SIZES = (500, 1000, 2000)
SCALING_METHODS = ("PCA", "Isomap", "LLE", "Laplacian eigenmaps")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")


def swiss_roll_arc_length(t):
    """Arc length of the spiral (t cos t, t sin t) from 0 to t:
    (t sqrt(1+t^2) + asinh t)/2."""
    return 0.5 * (t * np.sqrt(1 + t**2) + np.arcsinh(t))


def load(name, n_samples=N_SAMPLES, *, noise=0.0, random_state=0):
    """``(X, colour, geodesic)``: points, intrinsic colour and condensed geodesic
    distances.

    The swiss roll and the S-curve are flat: in the chart (arc length, height) their
    geodesic distance is the straight-line distance (the chart is a rectangle). The
    severed sphere gets the great-circle distance (a lower bound where the arc crosses a
    removed part).
    """
    if name == "severed sphere":
        X, colour = datasets.severed_sphere(n_samples, random_state=random_state)
        cosines = 1 - pdist(X, "sqeuclidean") / 2
        return X, colour, np.arccos(np.clip(cosines, -1, 1))
    loader = {"swiss roll": datasets.swiss_roll, "S-curve": datasets.s_curve}[name]
    X, colour, U = loader(
        n_samples, noise=noise, random_state=random_state, return_intrinsic=True
    )
    along = swiss_roll_arc_length(U[:, 0]) if name == "swiss roll" else U[:, 0]
    return X, colour, pdist(np.column_stack((along, U[:, 1])))


def methods(n_neighbors=N_NEIGHBORS, gamma=None, random_state=0):
    """``{method: {"dr_lib": estimator, "scikit-learn": estimator or None}}``."""
    k, seed = n_neighbors, random_state

    def lle(variant):
        return {
            "dr_lib": dr_lib.LocallyLinearEmbedding(k, 2, method=variant),
            "scikit-learn": skm.LocallyLinearEmbedding(
                n_neighbors=k, n_components=2, method=variant, random_state=seed
            ),
        }

    return {
        "PCA": {"dr_lib": dr_lib.PCA(2), "scikit-learn": skd.PCA(2)},
        "classical MDS": {
            "dr_lib": dr_lib.ClassicalMDS(2),
            "scikit-learn": skm.ClassicalMDS(2),
        },
        "kernel PCA": {
            "dr_lib": dr_lib.KernelPCA(2, kernel="rbf", gamma=gamma),
            "scikit-learn": skd.KernelPCA(2, kernel="rbf", gamma=gamma),
        },
        "Isomap": {
            "dr_lib": dr_lib.Isomap(k, 2),
            "scikit-learn": skm.Isomap(n_neighbors=k, n_components=2),
        },
        "LLE": lle("standard"),
        "modified LLE": lle("modified"),
        "Hessian LLE": lle("hessian"),
        "LTSA": lle("ltsa"),
        "Laplacian eigenmaps": {
            "dr_lib": dr_lib.LaplacianEigenmaps(k, 2),
            "scikit-learn": skm.SpectralEmbedding(
                2, affinity="nearest_neighbors", n_neighbors=k, random_state=seed
            ),
        },
        "t-SNE": {
            "dr_lib": dr_lib.TSNE(2, random_state=seed),
            "scikit-learn": skm.TSNE(2, init="pca", random_state=seed),
        },
    }


def timed_fit(estimator, X):
    """``(Y, wall seconds, CPU seconds)`` of ``estimator.fit_transform(X)``."""
    wall, cpu = time.perf_counter(), time.process_time()
    Y = estimator.fit_transform(X)
    return Y, time.perf_counter() - wall, time.process_time() - cpu


def quality(X, Y, geodesic, n_neighbors=N_NEIGHBORS):
    """Trustworthiness, continuity, R_NX AUC and the geodesic Spearman correlation."""
    return {
        "trustworthiness": metrics.trustworthiness(X, Y, n_neighbors),
        "continuity": metrics.continuity(X, Y, n_neighbors),
        "R_NX AUC": metrics.rnx_auc(X, Y),
        "geodesic rho": spearmanr(pdist(Y), geodesic).statistic,
    }


def kernel_width(X):
    """gamma = 1 / (2 s^2), s the median distance between points: the same for both."""
    return 1.0 / (2 * np.median(pdist(X)) ** 2)


def compare(name):
    """Rows of the comparison table for one data set, and its embeddings."""
    X, _, geodesic = load(name)
    rows, embeddings = [], {}
    for method, pair in methods(gamma=kernel_width(X)).items():
        for implementation, estimator in pair.items():
            Y, wall, cpu = timed_fit(estimator, X)
            embeddings[f"{name}|{method}|{implementation}"] = Y.astype(np.float32)
            rows.append(
                {
                    "data": name,
                    "method": method,
                    "implementation": implementation,
                    "wall s": wall,
                    "CPU s": cpu,
                    **quality(X, Y, geodesic),
                }
            )
            print(f"{name:15s} {method:20s} {implementation:13s} {wall:7.2f} s")
    return rows, embeddings


def scaling():
    """Fit times of ``SCALING_METHODS`` (dr_lib) on the swiss roll as N grows."""
    rows = []
    for n in SCALING_SIZES:
        X, _, _ = load("swiss roll", n)
        for method, pair in methods().items():
            if method not in SCALING_METHODS:
                continue
            _, wall, cpu = timed_fit(pair["dr_lib"], X)
            rows.append({"N": n, "method": method, "wall s": wall, "CPU s": cpu})
            print(f"N = {n:5d} {method:20s} {wall:7.2f} s")
    return rows


def main():
    """Run the three comparisons and the scaling study in parallel processes."""
    load_before = list(np.round(os.getloadavg(), 2))
    names = ("swiss roll", "S-curve", "severed sphere")
    with multiprocessing.Pool(len(names) + 1) as pool:
        scaled = pool.apply_async(scaling)
        compared = pool.map(compare, names)
        scaling_rows = scaled.get()
    rows = [row for more_rows, _ in compared for row in more_rows]
    embeddings = {key: Y for _, more in compared for key, Y in more.items()}
    pd.DataFrame(rows).to_csv(HERE / "three_manifolds.csv", index=False)
    np.savez_compressed(HERE / "three_manifolds_embeddings.npz", **embeddings)
    pd.DataFrame(scaling_rows).to_csv(HERE / "three_manifolds_scaling.csv", index=False)
    meta = {
        "date_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": list(np.round(os.getloadavg(), 2)),
        "script": "book/11_case_studies/data/three_manifolds.py",
        "n_samples": N_SAMPLES,
        "n_neighbors": N_NEIGHBORS,
        "threads": {name: os.environ.get(name) for name in THREAD_VARIABLES},
    }
    (HERE / "three_manifolds.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
