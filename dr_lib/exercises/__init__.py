"""Self-checks for the book's exercises, one per exercise label (the workbook's checks).

In a workbook notebook (``make workbook``) each computational exercise is followed by
an answer cell, where the student writes what the exercise asks for, and a self-check
cell::

    from dr_lib import exercises
    exercises.check("ex-lle-two-neighbours", two_neighbour_weights)

which says whether the answer is right and, if not, what is wrong with it, without
showing the solution. The checks test properties of the answer (identities, invariances,
agreement with an independent computation done inside the check) on the check's own
data, so an answer that only reproduces the book's printed numbers does not pass.
``registry`` lists every exercise that has a self-check, with what it practises.
"""

from . import (  # noqa: F401  (each registers its chapter's self-checks)
    _autoencoders,
    _foundations,
    _isomap,
    _kernel_pca,
    _laplacian_eigenmaps,
    _lle,
    _mds,
    _metric_learning,
    _nerv,
    _pca,
    _tsne,
    _umap,
)
from ._registry import (
    Exercise,
    NotAnswered,
    Verdict,
    Wrong,
    WrongAnswer,
    check,
    exercise,
    registry,
)

__all__ = [
    "Exercise",
    "NotAnswered",
    "Verdict",
    "Wrong",
    "WrongAnswer",
    "check",
    "exercise",
    "registry",
]
