"""Self-checks for the exercises of the chapter on metric learning."""

import numpy as np

from ._answers import (
    array_answer,
    call,
    central_differences,
    number_answer,
    require,
)
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


def _two_classes(rng, sizes, dim):
    y = np.repeat([0, 1], sizes)
    mixing = rng.normal(size=(dim, dim))
    X = rng.normal(size=(len(y), dim)) @ mixing + np.outer(y, rng.normal(size=dim))
    return X, y


def _scatters(X, y):
    """S_w and S_b, divided by N, from their definitions (eq-metric-lda-scatters)."""
    mu = X.mean(axis=0)
    S_w = np.zeros((X.shape[1],) * 2)
    S_b = np.zeros_like(S_w)
    for c in np.unique(y):
        members = X[y == c]
        centred = members - members.mean(axis=0)
        S_w += centred.T @ centred
        S_b += len(members) * np.outer(members.mean(axis=0) - mu, members.mean(0) - mu)
    return S_w / len(X), S_b / len(X)


@exercise(
    "ex-metric-lda-two-class-scatter",
    answers=["two_class_between", "two_class_eigenvalue"],
    produce=(
        "a function `two_class_between(X, y)` that returns S_b of two classes from the "
        "difference d of the class means, and a function `two_class_eigenvalue(X, y)` "
        "that returns the one non-zero generalised eigenvalue of S_b w = λ S_w w, both "
        "in closed form (labels 0 and 1)"
    ),
    practises="the between-class scatter of two classes; Fisher's direction in LDA",
    minutes=20,
)
def _two_class_scatter(between, eigenvalue):
    """Against S_b from its definition and the largest generalised eigenvalue."""
    from scipy.linalg import eigh

    rng = np.random.default_rng(_RNG_SEED)
    for sizes, dim in (((12, 30), 3), ((25, 9), 5)):
        X, y = _two_classes(rng, sizes, dim)
        S_w, S_b = _scatters(X, y)
        got = array_answer(
            call(between, X.copy(), y.copy(), name="two_class_between"),
            name="two_class_between(X, y)",
            shape=(dim, dim),
        )
        scale = np.trace(got) / np.trace(S_b)
        require(
            np.allclose(got, S_b, rtol=1e-9, atol=1e-12 * np.abs(S_b).max()),
            f"for classes of {sizes[0]} and {sizes[1]} samples your S_b is "
            + (
                f"{scale:.4g} times the between-class scatter of its definition: "
                "which factor of the class sizes, and over which N?"
                if np.allclose(got, scale * S_b, rtol=1e-9)
                else "not a multiple of the between-class scatter of its definition"
            ),
        )
        lam = number_answer(
            call(eigenvalue, X.copy(), y.copy(), name="two_class_eigenvalue"),
            name="two_class_eigenvalue(X, y)",
        )
        want = eigh(S_b, S_w, eigvals_only=True)[-1]
        require(
            np.isclose(lam, want, rtol=1e-8),
            f"for classes of {sizes[0]} and {sizes[1]} samples your λ is "
            f"{lam / want:.4g} times the largest generalised eigenvalue of (S_b, S_w)",
        )


def _nca_value(X, y, s):
    """NCA's f = sum_i p_i for the diagonal map diag(s), from the definition."""
    Z = X * s
    d2 = np.sum((Z[:, None] - Z[None]) ** 2, axis=-1)
    np.fill_diagonal(d2, np.inf)
    E = np.exp(-(d2 - d2.min(axis=1, keepdims=True)))
    p = E / E.sum(axis=1, keepdims=True)
    return np.sum(p * (y[:, None] == y[None]))


@exercise(
    "ex-metric-nca-diagonal",
    answers=["diagonal_gradient"],
    produce=(
        "a function `diagonal_gradient(X, y, s)` that returns ∂f/∂s_p for every p, the "
        "gradient of NCA's objective for the diagonal map W = diag(s), written with "
        "the weights c_ij"
    ),
    practises="the NCA gradient through the chain rule; a switched-off feature",
    minutes=20,
)
def _nca_diagonal(function):
    """Against central differences of f written here, with a zero and negative s_p."""
    rng = np.random.default_rng(_RNG_SEED)
    y = np.repeat([0, 1, 2], [8, 10, 12])
    X = rng.normal(size=(30, 5)) + 0.8 * y[:, None] * rng.normal(size=5)
    for s in (
        np.array([0.7, -0.4, 0.0, 1.1, 0.3]),
        rng.uniform(-1.0, 1.0, size=5),
    ):
        got = array_answer(
            call(function, X.copy(), y.copy(), s.copy(), name="diagonal_gradient"),
            name="diagonal_gradient(X, y, s)",
            shape=(5,),
        )
        h = 1e-6
        want = np.array(
            [
                (_nca_value(X, y, s + h * e) - _nca_value(X, y, s - h * e)) / (2 * h)
                for e in np.eye(5)
            ]
        )
        wrong = np.flatnonzero(~np.isclose(got, want, rtol=1e-5, atol=1e-6))
        require(
            wrong.size == 0,
            f"at s = {np.round(s, 3).tolist()} your ∂f/∂s_p differs from central "
            f"differences of f for p = {wrong.tolist()}: "
            + (
                "the sign is reversed: f is maximised"
                if np.allclose(got, -want, rtol=1e-5, atol=1e-6)
                else "check the factors, and how s_p enters the distances"
            ),
        )


def _nca_objective(X, y, W):
    """NCA's f = sum_i p_i for the map z = Wᵀx (W is D x D'), from the definition."""
    return _nca_value(X @ W, y, 1.0)


@exercise(
    "ex-metric-nca-invariance",
    answers=["nca_gradient"],
    produce=(
        "a function `nca_gradient(X, y, W)` that returns ∂f/∂W (D x D'), the gradient "
        "of NCA's objective for the map W (D x D'; the samples X are rows)"
    ),
    practises="the rotation invariance of NCA and what it says about the gradient",
    minutes=20,
)
def _nca_invariance(function):
    """WᵀG symmetric; against central differences of f written here."""
    rng = np.random.default_rng(_RNG_SEED)
    y = np.repeat([0, 1, 2], [7, 9, 8])
    X = rng.normal(size=(24, 4)) + 0.7 * y[:, None] * rng.normal(size=4)
    for W in (rng.normal(size=(4, 2)) * 0.6, rng.normal(size=(4, 3)) * 0.4):
        G = array_answer(
            call(function, X.copy(), y.copy(), W.copy(), name="nca_gradient"),
            name="nca_gradient(X, y, W)",
            shape=W.shape,
        )
        WG = W.T @ G
        require(
            np.allclose(WG, WG.T, atol=1e-8 * max(np.abs(WG).max(), 1.0)),
            f"for a map W of shape {W.shape}, Wᵀ times your gradient is not "
            "symmetric, but f(WQ) = f(W) for every orthogonal Q says it must be",
        )
        want = central_differences(lambda M: _nca_objective(X, y, M), W)
        scale = np.sum(G * want) / np.sum(want * want)
        require(
            np.allclose(G, want, rtol=1e-5, atol=1e-6),
            f"for a map W of shape {W.shape} your gradient "
            + (
                f"is {scale:.4g} times central differences of f"
                if np.allclose(G, scale * want, rtol=1e-5, atol=1e-6)
                else "differs from central differences of f"
            )
            + ": is f maximised, and how many times does each pair enter?",
        )


@exercise(
    "ex-metric-lda-noise",
    answers=["fisher_ratios"],
    produce=(
        "a function `fisher_ratios(Z, y)` that returns the eigenvalues of S_w⁻¹ S_b "
        "of the embedding Z (one row per sample) with labels y, largest first"
    ),
    practises="the Fisher ratio of an embedding, and why a training set's means little",
    minutes=15,
)
def _lda_noise(function):
    """Invariant to Z -> ZA; against the symmetric problem S_w^(-1/2) S_b S_w^(-1/2)."""
    rng = np.random.default_rng(_RNG_SEED)
    for sizes, dim in (((10, 14, 12), 2), ((9, 20, 11, 15), 3)):
        y = np.repeat(np.arange(len(sizes)), sizes)
        Z = rng.normal(size=(len(y), dim)) @ rng.normal(size=(dim, dim))
        Z += rng.normal(size=(len(sizes), dim))[y]
        S_w, S_b = _scatters(Z, y)
        values, vectors = np.linalg.eigh(S_w)
        root = vectors @ np.diag(values**-0.5) @ vectors.T
        want = np.sort(np.linalg.eigvalsh(root @ S_b @ root))[::-1]
        got = array_answer(
            call(function, Z.copy(), y.copy(), name="fisher_ratios"),
            name="fisher_ratios(Z, y)",
            shape=(dim,),
        )
        A = rng.normal(size=(dim, dim))
        mixed = array_answer(
            call(function, Z @ A, y.copy(), name="fisher_ratios"),
            name="fisher_ratios(Z A, y)",
            shape=(dim,),
        )
        require(
            np.allclose(mixed, got, rtol=1e-6, atol=1e-12),
            f"for {len(sizes)} classes in {dim} dimensions your ratios change when "
            "the embedding is mixed by an invertible matrix",
        )
        require(
            np.allclose(np.sort(got), np.sort(want), rtol=1e-8, atol=1e-12),
            f"for {len(sizes)} classes in {dim} dimensions your ratios are not the "
            "eigenvalues of S_w⁻¹ S_b: which scatter is inverted, and are both "
            "scatters normalised alike?",
        )
        require(np.all(np.diff(got) <= 0), "your ratios are not sorted, largest first")
