"""Self-checks for the exercises of the chapter on locally linear embedding."""

import numpy as np
from scipy.sparse import csgraph

from dr_lib import graphs, lle

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


@exercise(
    "ex-lle-two-neighbours",
    answers=["two_neighbour_weights"],
    produce=(
        "a function `two_neighbour_weights(C)` that returns the two reconstruction "
        "weights (w1, w2) in closed form from the 2 x 2 local Gram matrix C"
    ),
    practises="solving the constrained least squares of the LLE weights by hand",
    minutes=15,
)
def _two_neighbour_weights(function):
    """eq-lle-weights against C w ∝ 1 solved independently, on ten patches."""
    rng = np.random.default_rng(_RNG_SEED)
    for _ in range(10):
        x, a, b = rng.normal(size=(3, 4))
        differences = np.vstack([x - a, x - b])
        C = differences @ differences.T
        expected = np.linalg.solve(C, np.ones(2))
        expected /= expected.sum()
        w = array_answer(
            call(function, C.copy(), name="two_neighbour_weights"),
            name="two_neighbour_weights(C)",
            shape=(2,),
        )
        require(
            abs(w.sum() - 1) < 1e-8,
            f"your weights sum to {w.sum():.4g}: the constraint asks for a sum of one",
        )
        require(
            not np.allclose(w, expected[::-1], atol=1e-8)
            or np.allclose(expected, expected[::-1]),
            "your two weights are swapped: w1 belongs to the first neighbour, whose "
            "Gram entry is c11",
        )
        require(
            np.allclose(w, expected, atol=1e-8),
            "your weights sum to one but do not minimise the reconstruction error: "
            "w1 x1 + w2 x2 should be the point of the line through the neighbours "
            "closest to x",
        )


@exercise(
    "ex-lle-disconnected",
    answers=["count_zero_eigenvalues"],
    produce=(
        "a function `count_zero_eigenvalues(X, k)` that builds the LLE matrix M of the "
        "points X with k neighbours and returns how many of its eigenvalues are zero "
        "up to round-off"
    ),
    practises="the null space of M and the connected pieces of the neighbour graph",
    minutes=20,
)
def _count_zero_eigenvalues(function):
    """The count equals the number of pieces of the neighbour graph (1-3 blobs)."""
    rng = np.random.default_rng(_RNG_SEED)
    for blobs in (1, 2, 3):
        X = np.vstack([rng.normal(size=(60, 3)) + 60.0 * b for b in range(blobs)])
        pieces = csgraph.connected_components(graphs.knn_graph(X, 5), directed=False)[0]
        count = number_answer(
            call(function, X.copy(), 5, name="count_zero_eigenvalues"),
            name="count_zero_eigenvalues(X, k)",
        )
        require(
            count == pieces,
            f"for {blobs} far-apart blob(s) of 60 points (k = 5) your count is "
            f"{count:g}; look at which vectors M maps to zero when no weight links "
            "one group of points to another, and at your threshold for 'zero'",
        )


@exercise(
    "ex-lle-scale",
    answers=["scale_embedding", "objective_from_error"],
    produce=(
        "a function `scale_embedding(P)` that turns the unit eigenvectors P (N x d) "
        "into the embedding Y that satisfies eq-lle-constraints, and a function "
        "`objective_from_error(error, n_samples)` that gives the objective "
        "eq-lle-embed-objective of that Y from `reconstruction_error_`"
    ),
    practises="the constraints of the LLE embedding and what its eigenvalues measure",
    minutes=15,
)
def _scale(scale_function, objective_function):
    """Constraints on a random orthonormal P orthogonal to 1; the objective on a fit."""
    rng = np.random.default_rng(_RNG_SEED)
    n = 150
    centred = rng.normal(size=(n, 2))
    centred -= centred.mean(0)
    P = np.linalg.qr(centred)[0]
    Y = array_answer(
        call(scale_function, P.copy(), name="scale_embedding"),
        name="scale_embedding(P)",
        shape=(n, 2),
    )
    require(
        np.allclose(Y.T @ Y / n, np.eye(2), atol=1e-8),
        "(1/N) YᵀY is not the identity for your Y: check the factor that multiplies P",
    )
    require(
        np.allclose(Y.sum(0), 0, atol=1e-8), "the columns of your Y do not sum to 0"
    )
    X = rng.normal(size=(n, 3))
    fit = lle.LocallyLinearEmbedding(n_neighbors=8, n_components=2).fit(X)
    Y_fit = np.sqrt(n) * fit.embedding_
    neighbours = graphs.kneighbors(X, 8)[1]
    weights = lle.barycenter_weights(X, neighbours)
    residual = Y_fit - np.einsum("nk,nkc->nc", weights, Y_fit[neighbours])
    value = number_answer(
        call(
            objective_function,
            fit.reconstruction_error_,
            n,
            name="objective_from_error",
        ),
        name="objective_from_error(error, n_samples)",
    )
    direct = (residual**2).sum()
    require(
        np.isclose(value, direct, rtol=1e-6),
        f"your objective is {value / direct:.4g} times the one computed point by "
        "point from the weights: which eigenvalues does reconstruction_error_ add up, "
        "and how does scaling Y by a factor scale the objective?",
    )


@exercise(
    "ex-lle-true-hessian",
    answers=["hessian_block"],
    produce=(
        "a function `hessian_block(points, d)` that returns the k x k Donoho–Grimes "
        "Hessian block of a patch of k points with tangent dimension d"
    ),
    practises="the Hessian estimator of Hessian LLE, and how it differs from LTSA",
    minutes=25,
)
def _hessian_block(function):
    """Symmetric PSD, rank d(d+1)/2, zero on affine functions of the tangent plane."""
    rng = np.random.default_rng(_RNG_SEED)
    d, k = 2, 12
    basis = np.linalg.qr(rng.normal(size=(3, 2)))[0]
    flat = rng.normal(size=(k, d)) @ basis.T + rng.normal(size=3)
    curved = np.column_stack([rng.normal(size=(k, d)), np.zeros(k)])
    curved[:, 2] = 0.3 * curved[:, 0] ** 2 - 0.2 * curved[:, 0] * curved[:, 1]
    blocks = {}
    for name, points in (("flat", flat), ("curved", curved)):
        H = array_answer(
            call(function, points.copy(), d, name="hessian_block"),
            name="hessian_block(points, d)",
            shape=(k, k),
        )
        require(np.allclose(H, H.T, atol=1e-10), "your block is not symmetric")
        eigenvalues = np.linalg.eigvalsh(H)
        require(eigenvalues.min() > -1e-10, "your block is not positive semidefinite")
        rank = int(np.sum(eigenvalues > 1e-8 * max(eigenvalues.max(), 1e-300)))
        want = d * (d + 1) // 2
        require(
            rank == want,
            f"your block has rank {rank} on a {name} patch; the Hessian estimator "
            f"keeps one direction per second derivative, {want} for d = {d}",
        )
        blocks[name] = H
    tangent = np.linalg.svd(flat - flat.mean(0), full_matrices=False)[0][:, :d]
    affine = np.column_stack([np.ones(k), tangent])
    require(
        np.allclose(blocks["flat"] @ affine, 0, atol=1e-8),
        "your block does not vanish on functions that are affine in the tangent "
        "coordinates (the constant and the tangent coordinates themselves)",
    )


def _regularised_weights(x, neighbours, reg):
    """Minimiser of ||x - Σ w_j n_j||² + reg·tr(C)·||w||², Σ w_j = 1 (KKT system)."""
    differences = x - neighbours
    C = differences @ differences.T
    k = len(neighbours)
    kkt = np.block(
        [
            [2 * (C + reg * np.trace(C) * np.eye(k)), np.ones((k, 1))],
            [np.ones((1, k)), np.zeros((1, 1))],
        ]
    )
    return np.linalg.solve(kkt, np.r_[np.zeros(k), 1.0])[:k]


@exercise(
    "ex-lle-invariance",
    answers=["local_weights"],
    produce=(
        "a function `local_weights(x, neighbours, reg)` that returns the k "
        "reconstruction weights of the point x (length D) from its k neighbours "
        "(k x D), "
        "regularised as in eq-lle-reg"
    ),
    practises="why the LLE weights do not see rotations, translations and scalings",
    minutes=15,
)
def _invariance(function):
    """Rotated, shifted, scaled copies of the check's patches; then the minimiser."""
    rng = np.random.default_rng(_RNG_SEED)
    reg = 0.05  # large enough that the regularisation shapes the weights

    def weights(x, neighbours, what):
        return array_answer(
            call(function, x.copy(), neighbours.copy(), reg, name="local_weights"),
            name=f"local_weights(x, neighbours, reg) {what}",
            shape=(len(neighbours),),
        )

    for k, D in ((6, 3), (4, 5)):  # more neighbours than dimensions, then fewer
        x, *rest = rng.normal(size=(k + 1, D))
        neighbours = np.array(rest) + 0.2 * x
        w = weights(x, neighbours, "")
        require(
            abs(w.sum() - 1) < 1e-8,
            f"with k = {k} neighbours in {D} dimensions your weights sum to "
            f"{w.sum():.4g}, not one",
        )
        R = np.linalg.qr(rng.normal(size=(D, D)))[0]
        shift = rng.normal(size=D) * 5
        for what, (x_moved, moved_neighbours) in (
            ("translated", (x + shift, neighbours + shift)),
            ("rotated", (x @ R, neighbours @ R)),
            ("scaled by 1000", (1000.0 * x, 1000.0 * neighbours)),
            ("scaled by 0.01", (0.01 * x, 0.01 * neighbours)),
        ):
            moved = weights(x_moved, moved_neighbours, what)
            require(
                np.allclose(moved, w, rtol=1e-6, atol=1e-8),
                f"with k = {k} neighbours in {D} dimensions your weights change when "
                f"the point and its neighbours are {what}"
                + (
                    ": is your regularisation relative to the size of C?"
                    if what.startswith("scaled")
                    else ""
                ),
            )
        want = _regularised_weights(x, neighbours, reg)
        require(
            np.allclose(w, want, rtol=1e-6, atol=1e-8),
            f"with k = {k} neighbours in {D} dimensions and reg = {reg:g} your weights "
            "do not minimise the regularised reconstruction error under the sum-to-one "
            "constraint",
        )
