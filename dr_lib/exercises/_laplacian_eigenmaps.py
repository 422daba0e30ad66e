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


def _symmetrised_degrees(X, k):
    """Degrees of the 0/1 kNN graph; an edge when either point is in the other's k."""
    d2 = np.sum((X[:, None] - X[None]) ** 2, axis=-1)
    np.fill_diagonal(d2, np.inf)
    A = np.zeros(d2.shape, dtype=bool)
    A[np.arange(len(X))[:, None], np.argsort(d2, axis=1)[:, :k]] = True
    return (A | A.T).sum(axis=1)


def _ring_lattice(n, reach):
    """0/1 weights joining each vertex of a ring to `reach` vertices on each side."""
    W = np.zeros((n, n))
    ring = np.arange(n)
    for s in range(1, reach + 1):
        W[ring, (ring + s) % n] = W[(ring + s) % n, ring] = 1.0
    return W


@exercise(
    "ex-le-regular",
    answers=["degree_ratio", "largest_angle"],
    produce=(
        "a function `degree_ratio(X, k)` that returns the largest over the smallest "
        "degree of the symmetrised kNN graph of X with binary weights, and a function "
        "`largest_angle(W, d)` that returns the largest principal angle (radians) "
        "between the eigenvectors 2, ..., d + 1 of L and the solutions 2, ..., d + 1 "
        "of L f = λ D f, for the weights W (a dense array)"
    ),
    practises="degrees of a kNN graph; when [T]'s eigenvectors of L are those of LE",
    minutes=20,
)
def _regular(ratio_function, angle_function):
    """Degrees from a brute-force kNN graph; angles through D^(-1/2) L D^(-1/2)."""
    from scipy.linalg import subspace_angles

    rng = np.random.default_rng(_RNG_SEED)
    angle = np.linspace(0, 2 * np.pi, 30, endpoint=False)
    for name, X, k in (
        ("evenly spaced points of a circle", np.c_[np.cos(angle), np.sin(angle)], 2),
        ("blob of 60 points", rng.normal(size=(60, 2)) * [1.0, 3.0], 5),
        ("blob of 40 points", rng.standard_t(2, size=(40, 3)), 4),
    ):
        degrees = _symmetrised_degrees(X, k)
        got = number_answer(
            call(ratio_function, X.copy(), k, name="degree_ratio"),
            name="degree_ratio(X, k)",
        )
        want = degrees.max() / degrees.min()
        require(
            np.isclose(got, want, rtol=1e-9),
            f"on the check's {name} (k = {k}) your degree ratio is "
            + ("larger" if got > want else "smaller")
            + " than the symmetrised kNN graph's: does an edge count when only one of "
            "its two points has the other among its k nearest, and is a point its "
            "own neighbour?",
        )
    d = 2
    for name, W in (
        ("regular ring", _ring_lattice(30, 2)),
        ("irregular graph", _connected_weights(rng, 30)),
        ("irregular graph", _connected_weights(rng, 24, extra=0.3)),
    ):
        degree = W.sum(axis=1)
        L = np.diag(degree) - W
        V = np.linalg.eigh(L)[1][:, 1 : d + 1]
        scale = degree**-0.5
        U = np.linalg.eigh(scale[:, None] * L * scale[None])[1][:, 1 : d + 1]
        want = subspace_angles(V, scale[:, None] * U).max()
        got = number_answer(
            call(angle_function, W.copy(), d, name="largest_angle"),
            name="largest_angle(W, d)",
        )
        require(
            abs(got - want) < 1e-6,
            f"on the check's {name} of {len(W)} vertices (d = {d}) your largest angle "
            "differs from the check's: "
            + (
                "it should be zero when every degree is the same"
                if want < 1e-6
                else "which eigenvectors of each problem are compared, is each "
                "solution of L f = λ D f used as it is, and is the angle in radians?"
            ),
        )
