"""Self-checks for the exercises of the chapter on Laplacian eigenmaps."""

import numpy as np
from scipy.linalg import eigh

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


def _connected_weights(rng, n, *, extra=0.15):
    """Symmetric positive weights on a ring (connected) plus random chords."""
    W = np.zeros((n, n))
    ring = np.arange(n)
    W[ring, (ring + 1) % n] = rng.uniform(0.5, 2.0, n)
    chords = np.triu(rng.uniform(size=(n, n)) < extra, 2)
    W[chords] = rng.uniform(0.1, 2.0, chords.sum())
    return W + W.T


def _block_diagonal(blocks):
    n = sum(len(b) for b in blocks)
    W, start = np.zeros((n, n)), 0
    for block in blocks:
        W[start : start + len(block), start : start + len(block)] = block
        start += len(block)
    return W


@exercise(
    "ex-le-random-walk",
    answers=["random_walk_laplacian"],
    produce=(
        "a function `random_walk_laplacian(W)` that returns L_rw (a dense N x N array) "
        "from the symmetric weight matrix W"
    ),
    practises="the generalised eigenproblem L f = λ D f as an ordinary one",
    minutes=10,
)
def _random_walk(function):
    """Rows sum to zero; each eigenpair of L f = λ D f is an eigenpair of L_rw."""
    rng = np.random.default_rng(_RNG_SEED)
    W = _connected_weights(rng, 25)
    L_rw = array_answer(
        call(function, W.copy(), name="random_walk_laplacian"),
        name="random_walk_laplacian(W)",
        shape=(25, 25),
    )
    require(
        np.allclose(L_rw.sum(axis=1), 0, atol=1e-10),
        "the rows of your L_rw do not sum to zero: a constant vector f should give "
        "L_rw f = 0 (which side does D⁻¹ multiply?)",
    )
    D = np.diag(W.sum(1))
    values, vectors = eigh(D - W, D)
    residual = np.abs(L_rw @ vectors - vectors * values).max()
    require(
        residual < 1e-8,
        "for the solutions of L f = λ D f on the check's graph, your L_rw f is not "
        f"λ f (largest miss {residual:.2g}): L_rw should be D⁻¹ times L",
    )


@exercise(
    "ex-le-components",
    answers=["zero_eigenvalue_multiplicity"],
    produce=(
        "a function `zero_eigenvalue_multiplicity(W)` that returns how many "
        "eigenvalues of L f = λ D f are zero (up to round-off) for the weights W"
    ),
    practises="the null space of the graph Laplacian and the connected components",
    minutes=15,
)
def _components(function):
    """The count equals the number of components; a weakly bridged graph has one."""
    rng = np.random.default_rng(_RNG_SEED)
    graphs = []
    for pieces in (1, 2, 3, 4):
        graphs.append((_block_diagonal([_connected_weights(rng, 15)] * pieces), pieces))
    bridged = _block_diagonal(
        [_connected_weights(rng, 15), _connected_weights(rng, 15)]
    )
    bridged[0, 15] = bridged[15, 0] = 1e-2  # a weak edge joins the two halves
    graphs.append((bridged, 1))
    for W, pieces in graphs:
        count = number_answer(
            call(function, W.copy(), name="zero_eigenvalue_multiplicity"),
            name="zero_eigenvalue_multiplicity(W)",
        )
        what = (
            "two groups of 15 vertices joined by one weak edge"
            if W is bridged
            else f"{pieces} separate group(s) of 15 vertices"
        )
        require(
            count == pieces,
            f"for a graph of {what} your count is {count:g}: which vectors does L "
            "map to zero, and is your threshold for 'zero' a round-off threshold?",
        )


@exercise(
    "ex-le-height",
    answers=["height_coordinate"],
    produce=(
        "a function `height_coordinate(a, b)` that returns which coordinate (1 for the "
        "first after the constant) is the first to follow the height, on a rectangle "
        "of length a and height b < a, from the estimate of the exercise"
    ),
    practises="the Laplacian's eigenfunctions on a rectangle and their order",
    minutes=15,
)
def _height(function):
    """Against the sorted harmonics (m/a)² + (n/b)² enumerated in the check."""
    for a, b in ((4.3, 1.0), (2.5, 1.0), (1.5, 1.0), (7.2, 1.0), (3.0, 1.9)):
        m, n = np.meshgrid(np.arange(12), np.arange(3))
        costs = ((m / a) ** 2 + (n / b) ** 2).ravel()
        order = np.argsort(costs[1:], kind="stable") + 1  # without the constant
        first_height = np.flatnonzero((m == 0).ravel() & (n == 1).ravel())[0]
        position = int(np.flatnonzero(order == first_height)[0]) + 1
        got = number_answer(
            call(function, a, b, name="height_coordinate"),
            name="height_coordinate(a, b)",
        )
        require(
            got == position,
            f"for a rectangle of length {a:g} and height {b:g} your coordinate is "
            f"{got:g}, off by {got - position:+g}: count the length harmonics cheaper "
            "than the first height one, and whether the constant is counted",
        )


@exercise(
    "ex-le-sklearn-precomputed",
    answers=["embed_precomputed"],
    produce=(
        "a function `embed_precomputed(W, n_components)` that returns scikit-learn's "
        "spectral embedding (N x n_components) of the weight matrix W"
    ),
    practises="driving scikit-learn's SpectralEmbedding with a graph of one's own",
    minutes=10,
)
def _precomputed(function):
    """Columns: D-normalised generalised eigenvectors of (L, D), smallest non-zero λ."""
    rng = np.random.default_rng(_RNG_SEED)
    W = _connected_weights(rng, 40, extra=0.08)
    D = np.diag(W.sum(1))
    values, vectors = eigh(D - W, D, subset_by_index=(0, 2))
    F = array_answer(
        call(function, W.copy(), 2, name="embed_precomputed"),
        name="embed_precomputed(W, n_components)",
        shape=(40, 2),
    )
    require(
        np.ptp(F, axis=0).min() > 1e-8 * np.abs(F).max(),
        "a column of your embedding is constant: the trivial solution is dropped",
    )
    residual = np.abs((D - W) @ F - D @ F * values[1:]).max() / np.abs(F).max()
    require(
        residual < 1e-6,
        "the columns of your embedding are not the solutions of L f = λ D f with the "
        "smallest non-zero λ for W: did scikit-learn use W as the graph?",
    )
    scale = np.sqrt(np.sum(F * (D @ F), axis=0))
    require(
        np.allclose(scale, 1, rtol=1e-6),
        f"your columns solve L f = λ D f but have fᵀDf = {(scale**2).round(4)}: "
        "is that scikit-learn's own normalisation?",
    )
