"""Self-checks for the exercises of the chapter on metric learning."""

import numpy as np

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


def _random_covariance(rng, dim):
    A = rng.normal(size=(dim, dim))
    return A @ A.T + 0.5 * np.eye(dim)


@exercise(
    "ex-metric-whitening",
    answers=["whitening_matrix"],
    produce=(
        "a function `whitening_matrix(Sigma)` that returns the D x D matrix W of the "
        "map z = Wᵀ(x - x̄) that whitens data of covariance Sigma"
    ),
    practises="the Mahalanobis distance of statistics as a Euclidean distance",
    minutes=15,
)
def _whitening(function):
    """W Wᵀ = Σ⁻¹ (the distances agree) and Wᵀ Σ W = I, on random covariances."""
    rng = np.random.default_rng(_RNG_SEED)
    for dim in (2, 3, 5):
        Sigma = _random_covariance(rng, dim)
        W = array_answer(
            call(function, Sigma.copy(), name="whitening_matrix"),
            name="whitening_matrix(Sigma)",
            shape=(dim, dim),
        )
        require(
            np.allclose(W.T @ Sigma @ W, np.eye(dim), atol=1e-8),
            f"data of covariance Sigma ({dim} x {dim}) mapped by your W do not have "
            "identity covariance: check which power of Sigma, and the transpose",
        )
        # Wᵀ Σ W = I with W square is W Wᵀ = Σ⁻¹: the distances agree as well


@exercise(
    "ex-metric-pseudo",
    answers=["metric_factor"],
    produce=(
        "a function `metric_factor(M)` that returns a D x D' matrix W with W Wᵀ = M "
        "and as few columns D' as possible"
    ),
    practises="factoring a positive semidefinite metric; its null space",
    minutes=15,
)
def _metric_factor(function):
    """W Wᵀ = M, with D' = rank M columns, on metrics of rank 1, 2 and full."""
    rng = np.random.default_rng(_RNG_SEED)
    for rank in (1, 2, 4):
        B = rng.normal(size=(4, rank))
        M = B @ B.T
        W = array_answer(
            call(function, M.copy(), name="metric_factor"),
            name="metric_factor(M)",
            shape=(4, -1),
        )
        require(
            W.shape[1] >= rank and np.allclose(W @ W.T, M, atol=1e-8 * np.abs(M).max()),
            f"for a 4 x 4 metric M of rank {rank}, W Wᵀ of your W is not M",
        )
        require(
            W.shape[1] == rank,
            f"your W has {W.shape[1]} columns for a metric of rank {rank}: some of "
            "them are not needed (what does a zero eigenvalue contribute?)",
        )


@exercise(
    "ex-metric-nca-scale",
    answers=["one_nn_accuracy", "random_neighbour_accuracy"],
    produce=(
        "two functions of the embedded points Z (N x D') and the labels y: "
        "`one_nn_accuracy(Z, y)`, the limit of f(cW)/N as c → ∞, and "
        "`random_neighbour_accuracy(y)`, its limit as c → 0"
    ),
    practises="NCA's soft neighbour rule and its two limits",
    minutes=15,
)
def _nca_limits(one_nn, random_neighbour):
    """Against f(cW)/N of the soft neighbour rule, computed here, for large, small c."""
    rng = np.random.default_rng(_RNG_SEED)
    y = np.repeat([0, 1, 2], [7, 12, 21])
    Z = rng.normal(size=(len(y), 2)) + 0.8 * y[:, None]
    d2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    same = y[:, None] == y[None]

    def soft(c):
        logits = -(c**2) * d2
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(1, keepdims=True)
        return np.mean((p * same).sum(1))

    high = number_answer(
        call(one_nn, Z.copy(), y.copy(), name="one_nn_accuracy"),
        name="one_nn_accuracy(Z, y)",
    )
    require(
        high < 1 - 1e-9 or soft(1e4) > 1 - 1e-9,
        "your 1-NN accuracy is 1 on overlapping classes: is each point its own "
        "nearest neighbour? The rule is leave-one-out",
    )
    require(
        np.isclose(high, soft(1e4), atol=1e-9),
        "your 1-NN accuracy differs from f(cW)/N for large c on the check's data",
    )
    low = number_answer(
        call(random_neighbour, y.copy(), name="random_neighbour_accuracy"),
        name="random_neighbour_accuracy(y)",
    )
    require(
        np.isclose(low, soft(1e-6), atol=1e-9),
        "your random-neighbour accuracy differs from f(cW)/N for small c on classes "
        "of 7, 12 and 21 points: who can be picked as the neighbour of i, and how "
        "many of them share its label?",
    )


@exercise(
    "ex-metric-mmc-scale",
    answers=["scaled_metric"],
    produce=(
        "a function `scaled_metric(M1, c)` that returns the solution of eq-metric-mmc "
        "with right side c, from its solution M1 for right side 1"
    ),
    practises="homogeneity of the MMC objective and constraint",
    minutes=10,
)
def _mmc_scale(function):
    """The scaled metric is a multiple of M1 that meets the constraint g = c."""
    rng = np.random.default_rng(_RNG_SEED)
    V = rng.normal(size=(30, 3))  # cannot-link differences
    B = rng.normal(size=(3, 3))
    M1 = B @ B.T
    g1 = np.sum(np.sqrt(np.einsum("nd,de,ne->n", V, M1, V)))
    M1 /= g1**2  # now g(M1) = 1
    for c in (3.0, 0.5):
        Mc = array_answer(
            call(function, M1.copy(), c, name="scaled_metric"),
            name="scaled_metric(M1, c)",
            shape=(3, 3),
        )
        g = np.sum(np.sqrt(np.abs(np.einsum("nd,de,ne->n", V, Mc, V))))
        require(
            np.isclose(g, c, rtol=1e-8),
            f"with c = {c:g} your metric gives a cannot-link sum of distances "
            f"{g:.4g} (c times {g / c:.4g}): the constraint is met with equality at "
            "the optimum; how does a distance scale when M is scaled?",
        )
        require(
            np.allclose(Mc, Mc.T)
            and np.allclose(Mc / np.abs(Mc).max(), M1 / np.abs(M1).max(), atol=1e-8),
            "your metric is not a multiple of M1",
        )


@exercise(
    "ex-metric-mmc-diagonal-squares",
    answers=["diagonal_weights"],
    produce=(
        "a function `diagonal_weights(a, b)` that returns the optimal diagonal w from "
        "the "
        "per-feature must-link sums a and cannot-link sums b of squared differences"
    ),
    practises="a linear program's optimum at a vertex",
    minutes=15,
)
def _diagonal_weights(function):
    """Feasible, non-negative, and as low as the LP optimum (solved in the check)."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(_RNG_SEED)
    for _ in range(5):
        a, b = rng.uniform(0.5, 5.0, size=(2, 6))
        w = array_answer(
            call(function, a.copy(), b.copy(), name="diagonal_weights"),
            name="diagonal_weights(a, b)",
            shape=(6,),
        )
        require(w.min() >= -1e-12, "some of your weights are negative: M must be PSD")
        require(
            b @ w >= 1 - 1e-9,
            f"your w gives bᵀw = {b @ w:.4g}: it violates the constraint bᵀw ≥ 1",
        )
        best = linprog(a, A_ub=-b[None], b_ub=[-1.0], bounds=(0, None)).fun
        require(
            a @ w <= best * (1 + 1e-7),
            f"your w is feasible but aᵀw is {a @ w / best:.4g} times the smallest "
            "value possible: which feature buys the most cannot-link spread per unit "
            "of must-link cost?",
        )


@exercise(
    "ex-metric-lda-two-methods",
    answers=["lda_direction"],
    produce=(
        "a function `lda_direction(X, y)` that returns the two-class Fisher direction "
        "w ∝ S_w⁻¹(μ0 - μ1) with the pooled within-class scatter (any length)"
    ),
    practises="the two-class LDA direction and which scatter it may use",
    minutes=15,
)
def _lda_direction(function):
    """Parallel to an independent Fisher direction (least squares on ±1 targets)."""
    rng = np.random.default_rng(_RNG_SEED)
    A = rng.normal(size=(3, 3))
    X = np.vstack(
        [rng.normal(size=(30, 3)) @ A, rng.normal(size=(90, 3)) @ A * 0.4 + 2.0]
    )
    y = np.repeat([0, 1], [30, 90])
    w = array_answer(
        call(function, X.copy(), y.copy(), name="lda_direction"),
        name="lda_direction(X, y)",
        shape=(3,),
    )
    require(np.linalg.norm(w) > 0, "your direction is zero")
    # independent: least squares regression of ±1 targets gives the pooled-S_w direction
    design = np.column_stack([np.ones(len(y)), X])
    beta = np.linalg.lstsq(design, np.where(y == 0, 1.0, -1.0), rcond=None)[0][1:]
    cos = abs(w @ beta) / np.linalg.norm(w) / np.linalg.norm(beta)
    require(
        cos > 1 - 1e-9,
        f"your direction is at {np.degrees(np.arccos(min(cos, 1))):.3g}° from Fisher's "
        "on two classes of 30 and 90 points with different spreads: which scatter "
        "matrix did you invert, and is it pooled over both classes?",
    )
