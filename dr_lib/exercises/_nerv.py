"""Self-checks for the exercises of the chapter on NeRV and ClassNeRV."""

import numpy as np

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


def _rows(rng, n):
    """A row-stochastic n x n matrix with a zero diagonal."""
    A = rng.uniform(size=(n, n))
    np.fill_diagonal(A, 0.0)
    return A / A.sum(axis=1, keepdims=True)


@exercise(
    "ex-classnerv-cancel",
    answers=["linear_part"],
    produce=(
        "a function `linear_part(P, Q, same, eps)` that returns, in closed form, the "
        "sum of the -p + q parts of the divergences of eq-classnerv-stress, for the "
        "conditional probabilities P, Q (rows sum to one, zero diagonal) and the "
        "boolean matrix `same` of same-class pairs"
    ),
    practises="the generalised KL divergences of ClassNeRV's stress",
    minutes=20,
)
def _linear_part(function):
    """Against the -p + q parts summed pair by pair, τ_in = τ* + ε, τ_out = τ* - ε."""
    rng = np.random.default_rng(_RNG_SEED)
    y = rng.integers(0, 3, size=15)
    same = y[:, None] == y[None]
    off = ~np.eye(15, dtype=bool)
    for tau_star, eps in ((0.5, 0.3), (0.4, 0.1), (0.7, -0.2)):
        P, Q = _rows(rng, 15), _rows(rng, 15)
        tau = np.where(same, tau_star + eps, tau_star - eps)
        # d(a, b) = a log(a/b) - a + b: its -a + b part, in both directions
        direct = np.sum((tau * (Q - P) + (1 - tau) * (P - Q))[off])
        got = number_answer(
            call(function, P.copy(), Q.copy(), same.copy(), eps, name="linear_part"),
            name="linear_part(P, Q, same, eps)",
        )
        require(
            np.isclose(got, direct, rtol=1e-9, atol=1e-12),
            f"with τ* = {tau_star:g}, ε = {eps:g} your linear part is "
            f"{got / direct:.4g} times the sum of the -p + q parts taken pair by pair: "
            "check the factor, the sign, and over which pairs you sum",
        )


@exercise(
    "ex-classnerv-random-gain",
    answers=["expected_random_gain"],
    produce=(
        "a function `expected_random_gain(X, y, k)` that returns the kNN gain that a "
        "map placing the points at random has on average, for the data X and labels y"
    ),
    practises="the kNN gain and its chance level",
    minutes=15,
)
def _random_gain(function):
    """Against the exact chance level and a data share computed here, uneven classes."""
    rng = np.random.default_rng(_RNG_SEED)
    y = np.repeat([0, 1, 2], [10, 20, 30])
    X = rng.normal(size=(60, 4)) + 1.2 * y[:, None]  # overlapping classes
    k = 5
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    data_share = np.mean(y[np.argsort(d2, axis=1, kind="stable")[:, :k]] == y[:, None])
    same = y[:, None] == y[None]
    # a random map: each map neighbour is any of the other N - 1 points alike
    chance = np.mean((same.sum(axis=1) - 1) / (len(y) - 1))
    got = number_answer(
        call(function, X.copy(), y.copy(), k, name="expected_random_gain"),
        name="expected_random_gain(X, y, k)",
    )
    want = chance - data_share
    require(
        np.sign(got) == np.sign(want) or abs(got) < 1e-12,
        f"your expected gain is {got:+.3g} for a map that ignores the data: is a map "
        "drawn at random better or worse at gathering classes than the data?",
    )
    require(
        abs(got - want) < 1e-9,
        f"your expected gain is {got:+.4g} on classes of 10, 20 and 30 overlapping "
        "points, not the chance level: which points can be a map neighbour of i, how "
        "many of them share its class, and what share do the data have?",
    )


def _divergence(a, b):
    """The generalised KL divergence a log(a / b) - a + b, element-wise."""
    return a * np.log(a / b) - a + b


@exercise(
    "ex-classnerv-apex",
    answers=["apex_stress"],
    produce=(
        "a function `apex_stress(P, Q, same)` that returns ClassNeRV's stress at the "
        "apex τ* = ε = 0.5 with only the terms that remain there, for the conditional "
        "probabilities P, Q (rows sum to one, zero diagonal) and the boolean matrix "
        "`same` of same-class pairs"
    ),
    practises="which distortions ClassNeRV charges at the apex",
    minutes=15,
)
def _apex(function):
    """Against the four-term stress of eq-classnerv-stress at τ_in = 1, τ_out = 0."""
    rng = np.random.default_rng(_RNG_SEED)
    y = rng.integers(0, 3, size=15)
    same = y[:, None] == y[None]
    off = ~np.eye(15, dtype=bool)
    for _ in range(3):
        P, Q = _rows(rng, 15), _rows(rng, 15)
        tau = np.where(same, 1.0, 0.0)[off]
        p, q = P[off], Q[off]
        full = np.sum(tau * _divergence(p, q) + (1 - tau) * _divergence(q, p))
        got = number_answer(
            call(function, P.copy(), Q.copy(), same.copy(), name="apex_stress"),
            name="apex_stress(P, Q, same)",
        )
        require(
            np.isclose(got, full, rtol=1e-9),
            f"your apex stress is {got / full:.4g} times the full stress evaluated at "
            "τ_in = 1, τ_out = 0: which divergence is kept for pairs of one class and "
            "which for pairs of two classes, and are they the generalised ones?",
        )


def _kl_groups(sizes, a, b, log_a, log_b):
    """KL(a || b) of two distributions constant on groups of the given sizes."""
    return sum(m * x * (la - lb) for m, x, la, lb in zip(sizes, a, log_a, log_b))


def _retrieval_row(others, relevant, retrieved, both, leak):
    """Row stress pieces at ξ = exp(-leak): KL(p || q), KL(q || p), in nats."""
    sizes = [both, relevant - both, retrieved - both, 0]
    sizes[3] = others - sum(sizes)
    keep = np.log1p(-np.exp(-leak))
    log_p_in, log_q_in = keep - np.log(relevant), keep - np.log(retrieved)
    log_p_out = -leak - np.log(others - relevant)
    log_q_out = -leak - np.log(others - retrieved)
    log_p = [log_p_in, log_p_in, log_p_out, log_p_out]
    log_q = [log_q_in, log_q_out, log_q_in, log_q_out]
    p, q = np.exp(log_p), np.exp(log_q)
    return _kl_groups(sizes, p, q, log_p, log_q), _kl_groups(sizes, q, p, log_q, log_p)


@exercise(
    "ex-nerv-recall-or-precision",
    answers=["stress_limit"],
    produce=(
        "a function `stress_limit(tau, others, relevant, retrieved, both)`, "
        "the limit as ξ → 0 of the row stress of eq-nerv-stress divided by log(1/ξ), "
        "for a point with `relevant` relevant and `retrieved` retrieved points among "
        "`others`, `both` of them relevant and retrieved"
    ),
    practises="NeRV's τ as a trade-off between recall and precision",
    minutes=15,
)
def _recall_or_precision(function):
    """Against the slope of the row stress in log(1/ξ), from the two KL divergences."""
    cases = (
        (0.3, 100, 10, 5, 5),
        (0.3, 100, 10, 20, 10),
        (0.8, 60, 12, 7, 4),
        (0.0, 60, 12, 7, 4),
        (1.0, 40, 5, 9, 2),
    )
    for tau, others, relevant, retrieved, both in cases:
        got = number_answer(
            call(function, tau, others, relevant, retrieved, both, name="stress_limit"),
            name="stress_limit(tau, others, relevant, retrieved, both)",
        )
        # stress(ξ) = A log(1/ξ) + B + O(ξ log ξ): the slope between two tiny ξ is A
        rows = [
            _retrieval_row(others, relevant, retrieved, both, L) for L in (200, 400)
        ]
        stress = [tau * forward + (1 - tau) * backward for forward, backward in rows]
        want = (stress[1] - stress[0]) / 200
        require(
            np.isclose(got, want, rtol=1e-9, atol=1e-12),
            f"with τ = {tau:g}, {relevant} relevant and {retrieved} retrieved among "
            f"{others}, {both} in both, your limit is {got:.4g}; the row stress grows "
            f"like {want:.4g} log(1/ξ): which divergence counts the missed relevant "
            "points, which the retrieved irrelevant ones, and which does τ weigh?",
        )


def _bregman_reciprocal(x, y):
    """d_φ(x, y) = φ(x) - φ(y) - φ'(y)(x - y) for φ(x) = 1/x, from the definition."""
    return 1 / x - 1 / y + (x - y) / y**2


def _golden_minimum(f, low, high, tol=1e-13):
    """The minimiser of a convex f on [low, high], by golden-section search."""
    ratio = (np.sqrt(5) - 1) / 2
    a, b = low, high
    while b - a > tol * (1 + abs(a)):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if f(c) < f(d):
            b = d
        else:
            a = c
    return (a + b) / 2


@exercise(
    "ex-nerv-bregman-reciprocal",
    answers=["reciprocal_divergence", "first_argument_minimiser"],
    produce=(
        "a function `reciprocal_divergence(x, y)`, the Bregman divergence of "
        "φ(x) = 1/x in closed form (element-wise on arrays), and a function "
        "`first_argument_minimiser(points, weights)` that returns the t minimising "
        "sum_i w_i d_φ(t, x_i)"
    ),
    practises="Bregman divergences, their asymmetry and their two centroids",
    minutes=20,
)
def _reciprocal(divergence, minimiser):
    """Against the definition of d_φ, and a golden-section search for the centroid."""
    rng = np.random.default_rng(_RNG_SEED)
    x, y = rng.uniform(0.2, 5.0, size=(2, 30))
    got = np.asarray(
        call(divergence, x.copy(), y.copy(), name="reciprocal_divergence"), dtype=float
    )
    require(
        got.shape == x.shape,
        f"`reciprocal_divergence` of two arrays of 30 numbers has shape {got.shape}: "
        "write it element-wise",
    )
    want = _bregman_reciprocal(x, y)
    require(
        np.allclose(got, want, rtol=1e-9, atol=1e-12),
        "your d_φ(x, y) differs from φ(x) - φ(y) - φ'(y)(x - y) at random points; "
        + (
            "it is the divergence with its arguments swapped"
            if np.allclose(got, _bregman_reciprocal(y, x), rtol=1e-9)
            else "check φ'(y), and which argument is the expansion point"
        ),
    )
    for n in (3, 7):
        points = rng.uniform(0.3, 8.0, size=n)
        weights = rng.dirichlet(np.ones(n))
        t = number_answer(
            call(
                minimiser,
                points.copy(),
                weights.copy(),
                name="first_argument_minimiser",
            ),
            name="first_argument_minimiser(points, weights)",
        )
        best = _golden_minimum(
            lambda s, p=points, w=weights: w @ _bregman_reciprocal(s, p),
            points.min(),
            points.max(),
        )
        require(
            np.isclose(t, best, rtol=1e-7),
            f"for {n} weighted points your t = {t:.5g}, but sum_i w_i d_φ(t, x_i) is "
            f"smallest elsewhere in [{points.min():.3g}, {points.max():.3g}]: in which "
            "argument is d_φ minimised, and did you set the derivative in t to zero?",
        )


def _same_share(X, y, k):
    """The data's mean share of same-class samples among the k nearest, by loops."""
    shares = []
    for i, x in enumerate(X):
        d2 = np.sum((X - x) ** 2, axis=1)
        d2[i] = np.inf
        nearest = np.argsort(d2, kind="stable")[:k]
        shares.append(np.mean(y[nearest] == y[i]))
    return np.mean(shares)


@exercise(
    "ex-nerv-knn-gain-bounds",
    answers=["gain_bounds"],
    produce=(
        "a function `gain_bounds(X, y, k)` that returns the pair (lowest, highest) of "
        "the values the kNN gain G(k) of eq-classnerv-knn-gain can take on the data X "
        "with labels y, over all maps"
    ),
    practises="the range of the kNN gain, and why gains of two data sets differ",
    minutes=15,
)
def _knn_gain_bounds(function):
    """-a and 1 - a, with a the data's same-class share computed here by loops."""
    rng = np.random.default_rng(_RNG_SEED)
    for sizes, k, shift in (((15, 25), 2, 1.5), ((10, 12, 18), 4, 3.0)):
        y = np.repeat(np.arange(len(sizes)), sizes)
        X = rng.normal(size=(len(y), 3)) + shift * y[:, None]
        got = array_answer(
            call(function, X.copy(), y.copy(), k, name="gain_bounds"),
            name="gain_bounds(X, y, k)",
            shape=(2,),
        )
        a = _same_share(X, y, k)
        require(
            got[0] < got[1],
            f"your bounds ({got[0]:.4g}, {got[1]:.4g}) are not (lowest, highest)",
        )
        require(
            np.allclose(got, [-a, 1 - a], atol=1e-12),
            f"on {len(sizes)} classes of sizes {sizes}, k = {k}, your bounds are "
            f"({got[0]:.4g}, {got[1]:.4g}); the gain of a map lies between what its "
            "first term can be, minus the data's term: what is the data's share of "
            "same-class neighbours (leave each point out of its own neighbours)?",
        )


def _log_rows(E):
    """log softmax of each row of E (the diagonal set to -inf beforehand)."""
    return E - np.logaddexp.reduce(E, axis=1, keepdims=True)


@exercise(
    "ex-nerv-inadmissible",
    answers=["growth_coefficient"],
    produce=(
        "a function `growth_coefficient(P, beta, classes, V, tau_out)` that returns A "
        "of J(s) = A s² + O(s), the stress of eq-classnerv-stress when each class c of "
        "a map is moved by s V[c], for the data's conditional probabilities P (rows), "
        "their precisions beta and the weight tau_out of between-class pairs"
    ),
    practises="the admissible weights of ClassNeRV, by an asymptotic expansion",
    minutes=25,
)
def _inadmissible(function):
    """Against the second difference of the stress written from its definition."""
    rng = np.random.default_rng(_RNG_SEED)
    n = 36
    classes = np.arange(n) % 3
    X = rng.normal(scale=4.0, size=(3, 4))[classes] + rng.normal(size=(n, 4))
    beta = rng.uniform(0.05, 0.3, size=n)
    off = ~np.eye(n, dtype=bool)
    same = classes[:, None] == classes[None]

    def log_rows(points):
        E = -beta[:, None] * np.sum((points[:, None] - points[None]) ** 2, axis=-1)
        E[~off] = -np.inf
        return _log_rows(E)

    log_P = log_rows(X)
    P = np.where(off, np.exp(log_P), 0.0)
    Z0 = rng.normal(size=(n, 2))
    angles = 2 * np.pi * np.arange(3) / 3 + 0.4
    V = np.column_stack([np.cos(angles), 1.5 * np.sin(angles)])

    def stress(Z, t_in, t_out):
        log_Q = log_rows(Z)
        lp, lq = log_P[off], log_Q[off]
        p, q = np.exp(lp), np.exp(lq)
        t = np.where(same[off], t_in, t_out)
        return np.sum(t * (p * (lp - lq) - p + q) + (1 - t) * (q * (lq - lp) - q + p))

    s, h = 30.0, 6.0
    for t_in, t_out in ((0.6, -0.2), (1.3, 0.3), (0.7, 0.5)):
        got = number_answer(
            call(
                function,
                P.copy(),
                beta.copy(),
                classes.copy(),
                V.copy(),
                t_out,
                name="growth_coefficient",
            ),
            name="growth_coefficient(P, beta, classes, V, tau_out)",
        )
        J = [stress(Z0 + r * V[classes], t_in, t_out) for r in (s - h, s, s + h)]
        want = (J[2] - 2 * J[1] + J[0]) / (2 * h**2)
        require(
            np.isclose(got, want, rtol=1e-7),
            f"with (τ_in, τ_out) = ({t_in:g}, {t_out:g}) your A is {got / want:.4g} "
            "times the one the stress's second difference in s gives: which pairs' "
            "divergences grow with s, how fast does log q fall for them, and with "
            "which weight?",
        )
