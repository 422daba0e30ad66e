"""Every method of the book in 2-D on the 5,000 MNIST digits: the stored table.

Run from the repository root, the ten parts one after another, then merge, e.g. on the
first 100 digits of each class (drop the ``100`` for all 5,000 digits)::

    S=book/11_case_studies/scripts/mnist_table.py
    for part in nerv classnerv spectral mds kpca isomap lle tsne tsne_pcs rest; do
        .venv/bin/python $S $part 100
    done
    .venv/bin/python $S merge 100

Writes, next to the notebook ``02_mnist_all_methods.ipynb`` that reads them (N is the
number of digits):

- ``data/mnist_methods_<N>.csv``: one row per method (time, trustworthiness,
  continuity, R_NX AUC, held-out 1-NN accuracy);
- ``data/mnist_embeddings_<N>.npz``: the 2-D maps (float32), the split and the labels;
- ``data/mnist_methods_<N>.json``: the machine, the versions and the total run time.

Protocol. A stratified half of the digits is the training split, the other half the
test split (seed 0). Unsupervised methods embed all 5,000 digits without labels.
Supervised methods see the labels of the training split only: LDA and NCA are fitted on
it and map all digits; ClassNeRV embeds all digits, each test digit in a class of its
own (so its labels are never used). The 1-NN accuracy classifies every test digit by its
nearest training digit in the 2-D map.
"""

import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import dr_lib
from dr_lib import datasets, metrics

HERE = Path(__file__).resolve().parent.parent / "data"
N_NEIGHBORS = 10  # k of trustworthiness and continuity, and of the neighbour graphs
SEED = 0


def split(y):
    """Indices of a stratified half/half split, seeded."""
    return train_test_split(
        np.arange(len(y)), test_size=0.5, stratify=y, random_state=SEED
    )


def one_nn_heldout(Z, y, train, test):
    """Fraction of test digits whose nearest training digit in Z has their label."""
    from scipy.spatial import cKDTree

    _, nearest = cKDTree(Z[train]).query(Z[test], k=1)
    return float(np.mean(y[train][nearest] == y[test]))


class DataRanks:
    """The ranks and k nearest neighbours of the digits in pixel space, computed once.

    The quality measures of every map need them; dr_lib.metrics recomputes them at each
    call (three 5,000 x 5,000 distance matrices in 784 dimensions per map). The notebook
    checks that the measures below equal dr_lib.metrics' on the stored PCA map.
    """

    def __init__(self, X):
        self.ranks = metrics._ranks(X)  # private: the same ranks, computed once
        self.nearest = metrics._nearest_by_rank(X, N_NEIGHBORS)


def quality(data, Z):
    """Trustworthiness, continuity (k = N_NEIGHBORS) and R_NX AUC of the map Z."""
    n, k = len(Z), N_NEIGHBORS
    map_ranks = metrics._ranks(Z)
    map_nearest = metrics._nearest_by_rank(Z, k)
    scale = 2.0 / (n * k * (2 * n - 3 * k - 1))
    false_in_map = np.take_along_axis(data.ranks, map_nearest, axis=1) - k
    torn_apart = np.take_along_axis(map_ranks, data.nearest, axis=1) - k
    off = ~np.eye(n, dtype=bool)
    pairs = (data.ranks[off] - 1) * (n - 1) + (map_ranks[off] - 1)
    Q = np.bincount(pairs, minlength=(n - 1) ** 2).reshape(n - 1, n - 1)
    K = np.arange(1, n - 1)
    kept = Q.cumsum(axis=0).cumsum(axis=1)[K - 1, K - 1] / (K * n)  # Q_NX(K)
    rnx = ((n - 1) * kept - K) / (n - 1 - K)
    return {
        "trustworthiness": 1.0 - scale * false_in_map[false_in_map > 0].sum(),
        "continuity": 1.0 - scale * torn_apart[torn_apart > 0].sum(),
        "R_NX AUC": float(np.sum(rnx / K) / np.sum(1.0 / K)),
    }


def rbf_gamma(X):
    """1 / median squared distance between digits (on a seeded sample of pairs)."""
    rng = np.random.default_rng(SEED)
    i, j = rng.integers(0, len(X), size=(2, 20000))
    keep = i != j
    return 1.0 / float(np.median(np.sum((X[i[keep]] - X[j[keep]]) ** 2, axis=1)))


def classical_mds(X):
    """ClassicalMDS's map of X from its pixel distances (through the public
    estimator)."""
    return dr_lib.ClassicalMDS(2).fit_transform(X)


def autoencoder_map(X):
    """A small dense autoencoder 784-128-64-2 trained 30 epochs; its 2-D codes."""
    from dr_lib.autoencoders import (  # only here: the other parts need no PyTorch
        DenseAutoencoder,
        encode,
        seeded,
        train_autoencoder,
    )

    with seeded(SEED):
        model = DenseAutoencoder(X.shape[1], code_size=2, hidden=(128, 64))
    train_autoencoder(model, X, max_epochs=30, batch_size=64, random_state=SEED)
    return encode(model, X)


def methods(X, y, train):
    """name -> (uses labels, function returning the 2-D map of all digits)."""
    gamma = rbf_gamma(X)
    y_classnerv = np.arange(len(y)) + 10  # a class of its own for every digit...
    y_classnerv[train] = y[train]  # ...except the training digits, which keep theirs

    def lda():
        return dr_lib.LDA(n_components=2, reg=1e-3).fit(X[train], y[train]).transform(X)

    def nca():
        pca = dr_lib.PCA(n_components=50).fit(X[train])
        X50 = pca.transform(X)
        model = dr_lib.NCA(n_components=2, max_iter=100, random_state=SEED)
        return model.fit(X50[train], y[train]).transform(X50)

    k = N_NEIGHBORS
    return {
        "PCA": (False, lambda: dr_lib.PCA(n_components=2).fit_transform(X)),
        "classical MDS": (False, lambda: classical_mds(X)),
        "kernel PCA (rbf)": (
            False,
            lambda: dr_lib.KernelPCA(2, kernel="rbf", gamma=gamma).fit_transform(X),
        ),
        "Isomap": (False, lambda: dr_lib.Isomap(k, 2).fit_transform(X)),
        "LLE": (False, lambda: dr_lib.LocallyLinearEmbedding(k, 2).fit_transform(X)),
        "modified LLE": (
            False,
            lambda: dr_lib.LocallyLinearEmbedding(
                k, 2, method="modified"
            ).fit_transform(X),
        ),
        "Laplacian eigenmaps": (
            False,
            lambda: dr_lib.LaplacianEigenmaps(k, 2).fit_transform(X),
        ),
        "t-SNE": (False, lambda: dr_lib.TSNE(2, random_state=SEED).fit_transform(X)),
        "NeRV": (False, lambda: dr_lib.NeRV(2, random_state=SEED).fit_transform(X)),
        "autoencoder": (False, lambda: autoencoder_map(X)),
        "LDA": (True, lda),
        "NCA": (True, nca),
        "ClassNeRV": (
            True,
            lambda: dr_lib.ClassNeRV(2, random_state=SEED).fit_transform(
                X, y_classnerv
            ),
        ),
    }


def tsne_variants(X):
    """t-SNE with and without PCA preprocessing (50 PCs), PCA or random init.

    The fourth combination, 784 pixels with PCA init, is the row "t-SNE".
    """
    X50 = dr_lib.PCA(n_components=50).fit_transform(X)
    return {
        f"t-SNE {inputs}, init={init}": (
            False,
            lambda data=data, init=init: dr_lib.TSNE(
                2, init=init, random_state=SEED
            ).fit_transform(data),
        )
        for inputs, data in (("784 pixels", X), ("50 PCs", X50))
        for init in ("pca", "random")
        if (inputs, init) != ("784 pixels", "pca")
    }


def run_part(part, n_per_class=None, out=HERE):
    """Run the methods of one part; store their rows and maps in
    ``out/part_<part>_<N>``."""
    X, y = datasets.mnist_subset(n_per_class)
    tag = f"{part}_{len(y)}"
    train, test = split(y)
    todo = {**methods(X, y, train), **tsne_variants(X)}
    if part == "rest":
        names = [n for n in todo if all(n not in p for p in PARTS.values())]
    else:
        names = list(PARTS[part])
    data_ranks = DataRanks(X)
    rows, maps = [], {}
    for name in tqdm(names, desc=part, file=sys.stdout):
        uses_labels, run = todo[name]
        tqdm.write(f"{name} ...")
        t0 = time.perf_counter()
        try:
            Z = np.asarray(run(), dtype=np.float64)
        except Exception as error:  # a failure is a result: record it
            rows.append(
                {"method": name, "uses labels": uses_labels, "error": repr(error)}
            )
            tqdm.write(f"  failed: {error!r}")
            continue
        seconds = time.perf_counter() - t0
        rows.append(
            {
                "method": name,
                "uses labels": uses_labels,
                "seconds": seconds,
                **quality(data_ranks, Z),
                "1-NN test accuracy": one_nn_heldout(Z, y, train, test),
                "error": "",
            }
        )
        tqdm.write(f"  {rows[-1]}")
        maps[name] = Z.astype(np.float32)
        (out / f"part_{tag}.json").write_text(json.dumps(rows, indent=1))
        np.savez(out / f"part_{tag}.npz", **maps)


def merge(n_per_class=None, out=HERE):
    """Gather the parts into the CSV, the compressed maps and the run's description."""
    X, y = datasets.mnist_subset(n_per_class)
    train, test = split(y)
    n = len(y)
    rows, maps = [], {}
    for part in (*PARTS, "rest"):
        rows += json.loads((out / f"part_{part}_{n}.json").read_text())
        with np.load(out / f"part_{part}_{n}.npz") as stored:
            maps.update({name: stored[name] for name in stored.files})
    order = list({**methods(X, y, train), **tsne_variants(X)})
    rows.sort(key=lambda row: order.index(row["method"]))
    pd.DataFrame(rows).to_csv(out / f"mnist_methods_{n}.csv", index=False)
    names = [n for n in order if n in maps]
    np.savez_compressed(
        out / f"mnist_embeddings_{n}.npz",
        names=np.array(names),
        maps=np.stack([maps[n] for n in names]),
        y=y,
        train=train,
        test=test,
    )
    per_class = n // 10
    info = {
        "commands": [
            f".venv/bin/python {RELATIVE} {part} {per_class}"
            for part in (*PARTS, "rest", "merge")
        ],
        "note": "the parts ran one after another on an otherwise idle 2-core machine",
        "machine": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "n_neighbors": N_NEIGHBORS,
        "seed": SEED,
    }
    (out / f"mnist_methods_{n}.json").write_text(json.dumps(info, indent=2) + "\n")
    for part in (*PARTS, "rest"):
        (out / f"part_{part}_{n}.json").unlink()
        (out / f"part_{part}_{n}.npz").unlink()


RELATIVE = "book/11_case_studies/scripts/mnist_table.py"
#: the slow exact methods run as parts of their own; "rest" is the others
PARTS = {
    "nerv": ("NeRV",),
    "classnerv": ("ClassNeRV",),
    "spectral": ("PCA",),
    "mds": ("classical MDS",),
    "kpca": ("kernel PCA (rbf)",),
    "isomap": ("Isomap",),
    "lle": ("LLE", "modified LLE", "Laplacian eigenmaps"),
    "tsne": ("t-SNE", "t-SNE 784 pixels, init=random"),
    "tsne_pcs": ("t-SNE 50 PCs, init=pca", "t-SNE 50 PCs, init=random"),
}

if __name__ == "__main__":
    # ``mnist_table.py PART [N_PER_CLASS]`` runs one part (a key of PARTS, or rest) on
    # the first N_PER_CLASS digits of each class (all 500 by default);
    # ``mnist_table.py merge [N_PER_CLASS]`` gathers the parts.
    per_class_arg = int(sys.argv[2]) if len(sys.argv) > 2 else None
    if sys.argv[1] == "merge":
        merge(per_class_arg)
    else:
        run_part(sys.argv[1], per_class_arg)
