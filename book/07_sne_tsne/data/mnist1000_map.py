"""The 1,000-digit t-SNE map on which book/07_sne_tsne/04_fast.ipynb measures Barnes–Hut
and the FFT against the exact gradient.

t-SNE's descent is chaotic: the same call gives another map on a CPU whose BLAS rounds
differently (after the early-exaggeration phase, the maps made under two OpenBLAS
kernels of one machine differed by a Procrustes disparity of 0.006). How accurate the
fast gradients are depends on the map, so the page measures them on this stored map, the
same for every reader. Run from the repository root:

    .venv/bin/python book/07_sne_tsne/data/mnist1000_map.py

Writes ``mnist1000_map.npz`` next to this file: ``sample``, the indices into the 5,000
MNIST digits of ``datasets.mnist_subset()`` of the first 100 of each digit (the 5,000
are sorted by class, so their first 1,000 would be zeros and ones only); ``map``, the
float64 t-SNE map of those 1,000 digits (50 principal components of all 5,000,
perplexity 30, 400 iterations, Barnes–Hut); and ``made``, a JSON string saying when,
where and with what it was made.
"""

import json
import platform
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

import dr_lib
from dr_lib import PCA, TSNE, datasets

PER_CLASS = 100


def stratified_sample(y, per_class=PER_CLASS):
    """Indices of the first ``per_class`` samples of every class, in increasing
    order."""
    return np.sort(
        np.concatenate([np.flatnonzero(y == c)[:per_class] for c in np.unique(y)])
    )


def realistic_map(sample):
    """The call the page would make live: TSNE(max_iter=400) of PCA-50 digits."""
    X_mnist, _ = datasets.mnist_subset()
    X50 = PCA(50).fit_transform(X_mnist)
    return TSNE(max_iter=400).fit_transform(X50[sample])


if __name__ == "__main__":
    made = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "dr_lib": dr_lib.__version__,
        "call": "TSNE(max_iter=400).fit_transform("
        "PCA(50).fit_transform(mnist)[sample])",
    }
    sample = stratified_sample(datasets.mnist_subset()[1])
    target = Path(__file__).with_name("mnist1000_map.npz")
    np.savez_compressed(
        target, sample=sample, map=realistic_map(sample), made=json.dumps(made)
    )
    print(f"wrote {target}")
