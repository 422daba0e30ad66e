"""Self-checks for the exercises of the chapter on classical MDS."""

import numpy as np
from scipy.spatial.distance import cdist

from dr_lib import mds

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


@exercise(
    "ex-mds-rank",
    answers=["count_nonzero_eigenvalues"],
    produce=(
        "a function `count_nonzero_eigenvalues(X)` that returns how many eigenvalues "
        "of B, built from the distances between the rows of X, are non-zero up to "
        "round-off"
    ),
    practises="the rank of B and the dimension of the affine span of the points",
    minutes=10,
)
def _rank(function):
    """Against the affine dimension of the check's point sets, at several scales."""
    rng = np.random.default_rng(_RNG_SEED)
    dependent = rng.normal(size=(20, 5))
    dependent[:, 4] = dependent[:, 0] + dependent[:, 1]
    shifted = dependent.copy()
    shifted[:, 4] += 1.0
    cases = {
        "20 points in R^5, fifth coordinate = first + second": (dependent, 4),
        "the same plus one": (shifted, 4),
        "the same, scaled by 10^4": (1e4 * shifted, 4),
        "4 points in R^8": (rng.normal(size=(4, 8)) + 3.0, 3),
        "12 points on a plane in R^3": (
            rng.normal(size=(12, 2)) @ rng.normal(size=(2, 3)) + [1.0, 2.0, 3.0],
            2,
        ),
    }
    for name, (X, want) in cases.items():
        count = number_answer(
            call(function, X.copy(), name="count_nonzero_eigenvalues"),
            name="count_nonzero_eigenvalues(X)",
        )
        require(
            count == want,
            f"for {name} your count is {count:g}: check that B comes from the "
            "distances (centring included), and that your threshold for 'zero' is "
            "relative to the size of the eigenvalues",
        )


def _l1_table(rng, n=15):
    X = rng.normal(size=(n, 3))
    return cdist(X, X, "cityblock") ** 2


@exercise(
    "ex-mds-additive",
    answers=["additive_constant"],
    produce=(
        "a function `additive_constant(D2)` that returns the smallest c which, added "
        "to every off-diagonal squared dissimilarity of D2, makes the table Euclidean"
    ),
    practises="the additive constant: B + (c/2) J, and Schoenberg's criterion",
    minutes=15,
)
def _additive(function):
    """The shifted table is Euclidean; a slightly smaller c is not."""
    rng = np.random.default_rng(_RNG_SEED)
    for _ in range(3):
        D2 = _l1_table(rng)
        off = 1 - np.eye(len(D2))
        c = number_answer(
            call(function, D2.copy(), name="additive_constant"),
            name="additive_constant(D2)",
        )
        scale = np.abs(mds.double_centering(D2)).max()
        lowest = np.linalg.eigvalsh(mds.double_centering(D2 + c * off))[0]
        require(
            lowest > -1e-9 * scale,
            f"with your c = {c:.4g} the table still has a negative eigenvalue "
            f"({lowest:.3g}): it is not Euclidean yet; by how much does each "
            "eigenvalue move per unit of c?",
        )
        smaller = c - 1e-6 * scale
        lower = np.linalg.eigvalsh(mds.double_centering(D2 + smaller * off))[0]
        require(
            lower < -1e-9 * scale,
            f"your c = {c:.4g} makes the table Euclidean, but a smaller c does too: "
            "it is not the smallest",
        )


@exercise(
    "ex-mds-chord",
    answers=["chord_distances"],
    produce=(
        "a function `chord_distances(great_circle, R)` that turns great-circle "
        "distances on a sphere of radius R into chord distances"
    ),
    practises="chord and arc on a sphere; chord tables are Euclidean",
    minutes=10,
)
def _chord(function):
    """Against straight-line distances of the check's points, and Euclidean in R^3."""
    rng = np.random.default_rng(_RNG_SEED)
    for R in (1.0, 6371.0):
        u = rng.normal(size=(25, 3))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        arc = R * np.arccos(np.clip(u @ u.T, -1, 1))
        np.fill_diagonal(arc, 0)
        chord = array_answer(
            call(function, arc.copy(), R, name="chord_distances"),
            name="chord_distances(great_circle, R)",
            shape=arc.shape,
        )
        straight = cdist(R * u, R * u)
        ratio = np.median(chord[arc > 0] / straight[arc > 0])
        require(
            np.allclose(chord, straight, rtol=1e-9, atol=1e-9 * R),
            f"on a sphere of radius {R:g} your chords are not the straight-line "
            f"distances between the points (median ratio {ratio:.4g}): look at the "
            "angle each arc subtends at the centre",
        )
    values = np.linalg.eigvalsh(mds.double_centering(chord**2))
    require(
        values[:-3].min() > -1e-6 * values.max(), "your chord table is not Euclidean"
    )


@exercise(
    "ex-mds-globe",
    answers=["negative_share"],
    produce=(
        "a function `negative_share(D)` that returns the share of the negative "
        "eigenvalues of B in the sum of the absolute eigenvalues, for a table D of "
        "(unsquared) distances"
    ),
    practises="measuring how far a distance table is from Euclidean",
    minutes=10,
)
def _negative_share(function):
    """Zero for a Euclidean table; against the check's own spectrum for an L1 table."""
    rng = np.random.default_rng(_RNG_SEED)
    X = rng.normal(size=(20, 3))
    euclidean = cdist(X, X)
    share = number_answer(
        call(function, euclidean.copy(), name="negative_share"),
        name="negative_share(D)",
    )
    require(
        abs(share) < 1e-9,
        f"for Euclidean distances your share is {share:.3g}, not zero: is B built "
        "from the squared distances?",
    )
    D = np.sqrt(_l1_table(rng, 20))
    values = np.linalg.eigvalsh(mds.double_centering(D**2))
    want = -values[values < 0].sum() / np.abs(values).sum()
    share = number_answer(
        call(function, D.copy(), name="negative_share"), name="negative_share(D)"
    )
    require(
        abs(share) > 1e-9,
        "for an L1 table, whose B has negative eigenvalues, your share is zero: is B "
        "built from the squared distances?",
    )
    require(
        0 <= share <= 1,
        f"your share {share:.4g} for an L1 table is not between 0 and 1",
    )
    require(
        np.isclose(share, want, rtol=1e-8),
        f"for an L1 table your share is {share / want:.4g} times the one the check "
        "computes from the spectrum of B: what do you divide by?",
    )
