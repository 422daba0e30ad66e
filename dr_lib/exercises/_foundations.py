"""Self-checks for the exercises of the chapter on foundations."""

import math
from itertools import combinations

import numpy as np
from scipy.special import expit
from scipy.stats import norm

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


@exercise(
    "ex-found-standardise",
    answers=["standardise_code", "standardise_formula"],
    produce=(
        "a function `standardise_code(X)` that standardises X of shape (N, D) (samples "
        "as rows) with a matrix product, and a function `standardise_formula(X)` that "
        "does the same for X of shape (D, N) (samples as columns)"
    ),
    practises="diagonal scaling from the left and the right; code vs formula layout",
    minutes=10,
)
def _standardise(code_function, formula_function):
    """Zero mean, unit (population) std per feature, and the same numbers both ways."""
    rng = np.random.default_rng(_RNG_SEED)
    X = rng.normal(loc=[3.0, -1.0, 0.5], scale=[1.0, 5.0, 0.2], size=(40, 3))
    for name, function, data, axis in (
        ("standardise_code", code_function, X, 0),
        ("standardise_formula", formula_function, X.T, 1),
    ):
        Z = array_answer(
            call(function, data.copy(), name=name),
            name=f"{name}(X)",
            shape=data.shape,
        )
        require(
            np.allclose(Z.mean(axis=axis), 0, atol=1e-10),
            f"the features of {name}(X) do not have mean zero: standardising "
            "centres first",
        )
        spread = Z.std(axis=axis)
        require(
            np.allclose(spread, 1, atol=1e-10),
            f"the features of {name}(X) have standard deviations "
            f"{np.round(spread, 4).tolist()}, not all one: which standard deviation "
            "(and which axis) do you divide by?",
        )
        ratio = (Z * data.std(axis=axis, keepdims=True)) / (
            data - data.mean(axis=axis, keepdims=True)
        )
        require(
            np.allclose(ratio, 1, atol=1e-8),
            f"{name}(X) is not a per-feature scaling of the centred data",
        )


@exercise(
    "ex-found-sharper",
    answers=["pointwise_bound"],
    produce=(
        "a function `pointwise_bound(r, K)` that returns the sharpest bound on "
        "1 − Σ_c P²(c|x) in terms of the Bayes risk r = r*(x) with K classes "
        "(vectorised over r)"
    ),
    practises="Cauchy–Schwarz on the posteriors; the Cover–Hart bound",
    minutes=25,
)
def _pointwise_bound(function):
    """Holds on random posteriors; attained when the other posteriors are equal."""
    rng = np.random.default_rng(_RNG_SEED)
    for K in (2, 3, 5):
        P = rng.dirichlet(np.full(K, 0.7), size=2000)
        r = 1 - P.max(axis=1)
        bound = array_answer(
            call(function, r.copy(), K, name="pointwise_bound"),
            name="pointwise_bound(r, K)",
            shape=r.shape,
        )
        gap = bound - (1 - (P**2).sum(axis=1))
        require(
            gap.min() > -1e-12,
            f"with K = {K} classes your bound is below 1 − Σ P² for some posteriors: "
            "it is not a bound",
        )
        equal = np.linspace(0, (K - 1) / K, 7)
        attained = np.column_stack(
            [1 - equal] + [equal / (K - 1)] * (K - 1)
        )  # non-maximal posteriors equal
        bound_equal = array_answer(
            call(function, equal.copy(), K, name="pointwise_bound"),
            name="pointwise_bound(r, K)",
            shape=equal.shape,
        )
        require(
            np.allclose(bound_equal, 1 - (attained**2).sum(axis=1), atol=1e-12),
            f"with K = {K} classes your bound is not attained when the K − 1 "
            "non-maximal posteriors are equal: it is not the sharpest one",
        )


@exercise(
    "ex-found-tight",
    answers=["asymptotic_nn_risk"],
    produce=(
        "a function `asymptotic_nn_risk(m)` that returns R∞ of the two-Gaussian "
        "problem with means ±μ, ‖μ‖ = m, unit covariance and equal priors"
    ),
    practises="the asymptotic nearest-neighbour risk E[2 r*(1 − r*)] by integration",
    minutes=25,
)
def _asymptotic_nn_risk(function):
    """Between R* and the Cover–Hart bound, and equal to an independent Monte Carlo."""
    rng = np.random.default_rng(_RNG_SEED)
    for m in (0.3, 1.0, 2.5):
        value = number_answer(
            call(function, m, name="asymptotic_nn_risk"),
            name="asymptotic_nn_risk(m)",
        )
        bayes = norm.cdf(-m)
        require(
            value >= bayes * (1 - 1e-6),
            f"for m = {m} your R∞ is below the Bayes risk Φ(−m): no rule beats that",
        )
        require(
            value <= 2 * bayes * (1 - bayes) * (1 + 1e-6),
            f"for m = {m} your R∞ is above the Cover–Hart bound 2R*(1 − R*)",
        )
        t = rng.normal(size=400_000) + np.where(rng.random(400_000) < 0.5, m, -m)
        p = expit(2 * m * t)
        sample = 2 * p * (1 - p)
        spread = sample.std() / np.sqrt(len(sample))
        require(
            abs(value - sample.mean()) < 8 * spread + 1e-9,
            f"for m = {m} your R∞ disagrees with a Monte Carlo estimate of "
            "E[2 p(x)(1 − p(x))] made by the check: look at the posterior p(x) "
            "you integrate and at the density you integrate against",
        )


@exercise(
    "ex-found-grid-budget",
    answers=["grid_points_per_axis", "volume_bound_delta", "grid_samples_for"],
    produce=(
        "functions `grid_points_per_axis(N, D)` (points per axis of the largest "
        "regular grid with at most N points), `volume_bound_delta(N, D)` (the "
        "smallest sup-norm δ any N samples can guarantee, by the volume bound) and "
        "`grid_samples_for(delta, D)` (the samples a grid needs for sup-norm δ)"
    ),
    practises="grid counts and the volume bound of the curse of dimensionality",
    minutes=15,
)
def _grid_budget(points_function, delta_function, samples_function):
    """Integer bracketing of the grid, and the volume bound as an equality."""
    for N, D in ((10**6, 20), (10**6, 3), (1000, 3), (5000, 2), (2**20, 20), (7, 1)):
        g = number_answer(
            call(points_function, N, D, name="grid_points_per_axis"),
            name="grid_points_per_axis(N, D)",
        )
        require(g == int(g), f"grid_points_per_axis({N}, {D}) is not a whole number")
        g = int(g)
        require(
            g**D <= N,
            f"for N = {N}, D = {D} your grid has {g}^{D} points, more than N",
        )
        require(
            (g + 1) ** D > N,
            f"for N = {N}, D = {D} a grid with {g + 1} points per axis still fits in "
            "N: your count is too small (mind floating-point roots of exact powers)",
        )
        delta = number_answer(
            call(delta_function, N, D, name="volume_bound_delta"),
            name="volume_bound_delta(N, D)",
        )
        volume = N * (2 * delta) ** D
        require(
            np.isclose(volume, 1, rtol=1e-9),
            f"for N = {N}, D = {D}, N cubes of half-side δ = your value cover volume "
            f"{volume:.4g} of the unit cube; the volume bound asks for exactly 1",
        )
    for delta, D in ((0.1, 20), (0.25, 3), (0.3, 2), (0.05, 1)):
        count = number_answer(
            call(samples_function, delta, D, name="grid_samples_for"),
            name="grid_samples_for(delta, D)",
        )
        per_axis = round(count ** (1 / D))
        require(
            per_axis**D == count,
            f"grid_samples_for({delta}, {D}) = {count:g} is not the D-th power of "
            "a whole number of points per axis",
        )
        require(
            1 / (2 * per_axis) <= delta + 1e-12,
            f"for δ = {delta}, D = {D} your grid has {per_axis} points per axis, "
            "which leaves points of the cube further than δ from the grid",
        )
        require(
            1 / (2 * (per_axis - 1)) > delta + 1e-12 if per_axis > 1 else True,
            f"for δ = {delta}, D = {D} a grid with {per_axis - 1} points per axis "
            "already guarantees δ: yours is larger than needed",
        )


@exercise(
    "ex-found-ball-volume",
    answers=["ball_fraction"],
    produce=(
        "a function `ball_fraction(D)` that returns the fraction of the cube "
        "[−1, 1]^D inside the unit ball"
    ),
    practises="the volume of the unit ball and where the volume of a cube sits",
    minutes=10,
)
def _ball_fraction(function):
    """D = 1, 2 by hand; the recurrence V_D = (2π/D) V_(D−2); a Monte Carlo at D = 4."""
    values = {}
    for D in range(1, 21):
        values[D] = number_answer(
            call(function, D, name="ball_fraction"), name="ball_fraction(D)"
        )
        require(
            0 < values[D] <= 1 + 1e-12,
            f"ball_fraction({D}) = {values[D]:.4g} is not a fraction between 0 and 1",
        )
    require(
        np.isclose(values[1], 1, rtol=1e-9),
        "in one dimension the unit ball is the whole cube [−1, 1], but your fraction "
        f"is {values[1]:.4g}",
    )
    require(
        np.isclose(values[2], math.pi / 4, rtol=1e-9),
        f"in two dimensions your fraction is {values[2]:.4g}; compare the area of "
        "the unit disc with that of the square [−1, 1]²",
    )
    for D in range(3, 21):
        # V_D = 2π/D V_(D−2), and the cube's volume grows by 4 over two dimensions
        ratio = values[D] / values[D - 2]
        require(
            np.isclose(ratio, 2 * math.pi / D / 4, rtol=1e-9),
            f"ball_fraction({D}) / ball_fraction({D - 2}) is {ratio:.4g}: your "
            "volumes do not follow V_D = (2π/D) V_(D−2)",
        )
    rng = np.random.default_rng(_RNG_SEED)
    inside = np.mean((rng.uniform(-1, 1, size=(200_000, 4)) ** 2).sum(axis=1) <= 1)
    require(
        abs(inside - values[4]) < 0.01,
        f"for D = 4 the check's Monte Carlo finds {inside:.3f}, your fraction is "
        f"{values[4]:.3f}",
    )


@exercise(
    "ex-found-noise",
    answers=["noise_length"],
    produce=(
        "a function `noise_length(sigma, D)` that returns the typical length of the "
        "difference between two points that each carry isotropic Gaussian noise of "
        "standard deviation sigma in D coordinates"
    ),
    practises="the length of a high-dimensional noise vector, and when it dominates",
    minutes=10,
)
def _noise_length(function):
    """Against the root mean square of simulated noise differences, and its scaling."""
    rng = np.random.default_rng(_RNG_SEED)
    for sigma, D in ((0.1, 50), (0.02, 200), (1.0, 10)):
        value = number_answer(
            call(function, sigma, D, name="noise_length"),
            name="noise_length(sigma, D)",
        )
        difference = sigma * (rng.normal(size=(4000, D)) - rng.normal(size=(4000, D)))
        rms = np.sqrt((difference**2).sum(axis=1).mean())
        require(
            abs(value / rms - 1) < 0.02,
            f"for σ = {sigma}, D = {D} your length is {value / rms:.3g} times the "
            "root mean square length of simulated differences: both points are noisy, "
            "and each of the D coordinates adds its variance",
        )


def _topology_failures(family, space):
    """The check's own reading of the axioms (finite case: pairwise closure)."""
    if frozenset() not in family or space not in family:
        return "empty"
    for a, b in combinations(family, 2):
        if a | b not in family:
            return "union"
        if a & b not in family:
            return "intersection"
    return None


def _families(space):
    subsets = [
        frozenset(c) for k in range(len(space) + 1) for c in combinations(space, k)
    ]
    for k in range(len(subsets) + 1):
        for chosen in combinations(subsets, k):
            yield frozenset(chosen)


@exercise(
    "ex-found-is-topology",
    answers=["is_topology"],
    produce=(
        "a function `is_topology(family, space)` that says (True/False) whether a "
        "family of frozensets is a topology on the finite set `space`"
    ),
    practises="the axioms of a topology on a finite set",
    minutes=10,
)
def _is_topology(function):
    """Against the check's own reading of the axioms on every family over {1, 2, 3}."""
    space = frozenset({1, 2, 3})
    words = {
        "empty": "does not contain both ∅ and the whole set",
        "union": "is not closed under unions",
        "intersection": "is not closed under intersections",
    }
    for family in _families(space):
        answer = call(function, family, space, name="is_topology")
        require(
            isinstance(answer, (bool, np.bool_)),
            "is_topology should return True or False",
        )
        fault = _topology_failures(family, space)
        shown = sorted(sorted(s) for s in family)
        if fault is None:
            require(
                answer,
                f"your function rejects {shown}, which satisfies every axiom",
            )
        else:
            require(
                not answer,
                f"your function accepts {shown}, which {words[fault]}",
            )


@exercise(
    "ex-found-torus",
    answers=["torus_metric", "torus_area"],
    produce=(
        "a function `torus_metric(R, r, u, v)` that returns the 2 x 2 metric tensor "
        "g = J_Fᵀ J_F of the torus at (u, v), and a function `torus_area(R, r)`"
    ),
    practises="the metric tensor of a parametrised surface and its area element",
    minutes=20,
)
def _torus(metric_function, area_function):
    """g against finite differences of the parametrisation; area by quadrature."""

    def point(R, r, u, v):
        return np.array(
            [
                (R + r * np.cos(v)) * np.cos(u),
                (R + r * np.cos(v)) * np.sin(u),
                r * np.sin(v),
            ]
        )

    rng = np.random.default_rng(_RNG_SEED)
    h = 1e-6
    for R, r in ((3.0, 1.0), (2.0, 1.5)):
        for u, v in rng.uniform(0, 2 * np.pi, size=(4, 2)):
            J = np.column_stack(
                [
                    (point(R, r, u + h, v) - point(R, r, u - h, v)) / (2 * h),
                    (point(R, r, u, v + h) - point(R, r, u, v - h)) / (2 * h),
                ]
            )
            g = array_answer(
                call(metric_function, R, r, u, v, name="torus_metric"),
                name="torus_metric(R, r, u, v)",
                shape=(2, 2),
            )
            require(np.allclose(g, g.T), "your metric tensor is not symmetric")
            require(
                np.allclose(g, J.T @ J, rtol=1e-6, atol=1e-6),
                f"at R = {R}, r = {r}, (u, v) = ({u:.2f}, {v:.2f}) your g differs "
                "from Jᵀ J computed from the parametrisation by finite differences",
            )
        grid = (np.arange(400) + 0.5) * 2 * np.pi / 400
        element = r * (R + r * np.cos(grid))  # sqrt(det g), the same for every u
        area = element.mean() * 4 * np.pi**2
        value = number_answer(
            call(area_function, R, r, name="torus_area"), name="torus_area(R, r)"
        )
        require(
            np.isclose(value, area, rtol=1e-8),
            f"for R = {R}, r = {r} your area is {value / area:.4g} times the integral "
            "of √det g over the parameter square computed by the check",
        )


@exercise(
    "ex-found-two-points",
    answers=["count_topologies"],
    produce=(
        "a function `count_topologies(n)` that returns the number of topologies on a "
        "set of n points (brute force is fine for n ≤ 3)"
    ),
    practises="enumerating the families of subsets that satisfy the axioms",
    minutes=15,
)
def _count_topologies(function):
    """Against the check's own enumeration for n = 1, 2, 3."""
    for n in (1, 2, 3):
        space = frozenset(range(1, n + 1))
        count = sum(_topology_failures(f, space) is None for f in _families(space))
        value = number_answer(
            call(function, n, name="count_topologies"), name="count_topologies(n)"
        )
        require(
            value == count,
            f"for n = {n} your count is {value:g}, which is not the number of "
            "families that satisfy the axioms (count labelled topologies: two that "
            "differ by a relabelling of the points count twice)",
        )
