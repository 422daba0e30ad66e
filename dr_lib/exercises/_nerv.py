"""Self-checks for the exercises of the chapter on NeRV and ClassNeRV."""

import numpy as np

from ._answers import call, number_answer, require
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
