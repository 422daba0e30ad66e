"""The 1,000-digit t-SNE map on which book/07_sne_tsne/04_fast.ipynb measures Barnes–Hut and
the FFT against the exact gradient.

t-SNE's descent is chaotic: the same call gives another map on a CPU whose BLAS rounds
differently (after the early-exaggeration phase, the maps made under two OpenBLAS kernels
of one machine differed by a Procrustes disparity of 0.006). How accurate the fast
gradients are depends on the map, so the page measures them on this stored map, the same
for every reader. Run from the repository root:

    .venv/bin/python book/07_sne_tsne/data/mnist1000_map.py

Writes ``mnist1000_map.npz`` next to this file: ``map``, the float64 map of the first 1,000
of the 5,000 MNIST digits (50 principal components, perplexity 30, 400 iterations,
Barnes–Hut), and ``made``, a JSON string saying when, where and with what it was made.
"""

import json
import platform
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

import dr_lib
from dr_lib import PCA, TSNE, datasets

N_DIGITS = 1000


def realistic_map():
    """The call the page used to make live: TSNE(max_iter=400) of PCA-50 digits."""
    X_mnist, _ = datasets.mnist_subset()
    X50 = PCA(50).fit_transform(X_mnist)
    return TSNE(max_iter=400).fit_transform(X50[:N_DIGITS])


if __name__ == "__main__":
    made = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "dr_lib": dr_lib.__version__,
        "call": "TSNE(max_iter=400).fit_transform(PCA(50).fit_transform(mnist)[:1000])",
    }
    target = Path(__file__).with_name("mnist1000_map.npz")
    np.savez_compressed(target, map=realistic_map(), made=json.dumps(made))
    print(f"wrote {target}")
