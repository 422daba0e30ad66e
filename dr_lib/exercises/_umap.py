"""Self-checks for the exercises of the chapter on UMAP."""

import numpy as np
from scipy.linalg import eigh
from scipy.optimize import minimize_scalar

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20260826


def _whole(value, name):
    """A count or an epoch: a whole number."""
    require(
        float(value).is_integer(), f"`{name}` should be a whole number, not {value}"
    )
    return int(value)


# ------------------------------------------------------------ 01: graph and loss


def _directed_memberships(rng, n=40, reach=4, keep=0.7):
    """A dense n x n matrix of directed memberships: each point chooses some of its
    ring neighbours within ``reach``, so that many pairs chose each other."""
    V = np.zeros((n, n))
    for i in range(n):
        for step in range(-reach, reach + 1):
            if step and rng.random() < keep:
                V[i, (i + step) % n] = rng.uniform(0.02, 1.0)
    return V


@exercise(
    "ex-umap-tconorms",
    answers=["fuzzy_or", "pairs_changed"],
    produce=(
        "a function `fuzzy_or(a, b)`, UMAP's union of two memberships (element-wise on "
        "arrays), and a function `pairs_changed(V, threshold)` that counts the pairs "
        "{i, j} of a dense matrix V of directed memberships whose weight v_ij drops by "
        "more than threshold when the maximum replaces UMAP's union"
    ),
    practises="the fuzzy union of UMAP's graph and the t-conorms that bound it",
    minutes=15,
)
def _tconorms(union, changed):
    """Bounds, symmetry and independence on random memberships; counts on a ring."""
    rng = np.random.default_rng(_RNG_SEED)
    a = np.r_[rng.uniform(size=200), 0.0, 0.0, 0.3, 1.0, 0.8]
    b = np.r_[rng.uniform(size=200), 0.0, 0.6, 0.0, 0.45, 1.0]
    shape = (len(a),)
    got = array_answer(call(union, a, b, name="fuzzy_or"), name="fuzzy_or(a, b)")
    require(
        got.shape == shape, f"`fuzzy_or(a, b)` on arrays of {len(a)} gave {got.shape}"
    )
    swapped = array_answer(call(union, b, a, name="fuzzy_or"), name="fuzzy_or(b, a)")
    worst = np.argmax(np.abs(got - swapped))
    require(
        np.allclose(got, swapped, rtol=0, atol=1e-12),
        f"your union is not symmetric: for a = {a[worst]:.3g}, b = {b[worst]:.3g} "
        f"fuzzy_or(a, b) = {got[worst]:.4g} but fuzzy_or(b, a) = {swapped[worst]:.4g}",
    )
    for i in range(len(a)):
        require(
            got[i] >= max(a[i], b[i]) - 1e-12,
            f"for a = {a[i]:.3g}, b = {b[i]:.3g} your union {got[i]:.4g} is below the "
            "larger of the two memberships",
        )
        require(
            got[i] <= min(a[i] + b[i], 1.0) + 1e-12,
            f"for a = {a[i]:.3g}, b = {b[i]:.3g} your union {got[i]:.4g} is above the "
            "bounded sum min(a + b, 1)",
        )
    either = 1 - (1 - a) * (1 - b)  # P(at least one of two independent edges)
    worst = np.argmax(np.abs(got - either))
    require(
        np.allclose(got, either, rtol=0, atol=1e-12),
        f"for a = {a[worst]:.3g}, b = {b[worst]:.3g} your union is {got[worst]:.4g}, "
        "not the probability that at least one of two independent edges, present "
        "with probabilities a and b, exists",
    )
    V = _directed_memberships(rng)
    gap = 1 - (1 - V) * (1 - V.T) - np.maximum(V, V.T)
    upper = np.triu(np.ones(V.shape, dtype=bool), 1)
    for threshold in (0.1, 0.03, 0.2):
        want = int(np.sum(gap[upper] > threshold))
        count = _whole(
            number_answer(
                call(changed, V.copy(), threshold, name="pairs_changed"),
                name="pairs_changed(V, threshold)",
            ),
            "pairs_changed(V, threshold)",
        )
        require(
            count == want,
            f"on the check's graph of {len(V)} points, with threshold {threshold:g}, "
            f"your count is {count}, {count / want:.3g} times the number of pairs "
            f"{{i, j}} (each counted once) whose weight drops by more than "
            f"{threshold:g} under the maximum",
        )


@exercise(
    "ex-umap-min-dist",
    answers=["cauchy_min_dist", "crossing_distance"],
    produce=(
        "a function `cauchy_min_dist(spread)` that returns the `min_dist` at which the "
        "fitted b is 1 (`umap.fit_ab`), and a function `crossing_distance(a, b)` that "
        "returns, for b < 1, the map distance beyond which UMAP's kernel "
        "1/(1 + a d^(2b)) is larger than t-SNE's 1/(1 + d^2)"
    ),
    practises="the (a, b) fit of UMAP's map kernel and its tail against t-SNE's",
    minutes=20,
)
def _min_dist(cauchy, crossing):
    """b = 1 by the library's fit at three spreads; the kernels cross at the answer."""
    from dr_lib import umap

    for spread in (1.0, 0.5, 2.0):
        md = number_answer(
            call(cauchy, spread, name="cauchy_min_dist"),
            name="cauchy_min_dist(spread)",
        )
        require(
            0 <= md <= spread,
            f"for spread = {spread:g} your min_dist {md:.4g} is outside [0, spread]",
        )
        _, b = umap.fit_ab(md, spread)
        require(
            abs(b - 1) < 1e-6,
            f"for spread = {spread:g} the fit at your min_dist {md:.4g} gives b = "
            f"{b:.6g}, not 1 (b grows with min_dist)",
        )
    for a, b in ((1.93, 0.79), (1.2, 0.6), (0.7, 0.9), (3.0, 0.95)):
        d = number_answer(
            call(crossing, a, b, name="crossing_distance"),
            name="crossing_distance(a, b)",
        )
        require(
            d > 0, f"for a = {a:g}, b = {b:g} your distance {d:.4g} is not positive"
        )
        ours, cauchy_w = 1 / (1 + a * d ** (2 * b)), 1 / (1 + d**2)
        require(
            np.isclose(ours, cauchy_w, rtol=1e-8, atol=0),
            f"for a = {a:g}, b = {b:g} at your distance {d:.4g} UMAP's kernel is "
            f"{ours:.4g} and t-SNE's {cauchy_w:.4g}: "
            + (
                "UMAP's is still the smaller there, the crossing is farther"
                if ours < cauchy_w
                else "UMAP's is already the larger there, the crossing is nearer"
            ),
        )


# ------------------------------------------------------------------ 02: optimiser


def _epochs_sampled(p, n_epochs):
    """The epochs (1-based) in which the rule eq-umap-sampling samples the edge."""
    n = np.arange(1, n_epochs + 1)
    return n[np.floor(n * p) > np.floor((n - 1) * p)]


@exercise(
    "ex-umap-edge-count",
    answers=["times_sampled", "first_epoch", "never_sampled"],
    produce=(
        "functions `times_sampled(p, n_epochs)`, how many of n_epochs epochs sample an "
        "edge with p = v_e / max v, `first_epoch(p)`, the first epoch (counted from 1) "
        "that samples it, and `never_sampled(weights, n_epochs)`, how many edges of "
        "weights v_e (an array) no epoch samples"
    ),
    practises="the edge sampling of UMAP's optimiser",
    minutes=15,
)
def _edge_count(times, first, never):
    """Against the sampling rule run epoch by epoch in the check (at p and n_epochs
    whose product is an integer exactly or far from one, so that rounding cannot
    decide)."""
    for p, n_epochs in (
        (0.5, 500),
        (0.29, 210),
        (1.0, 300),
        (0.0137, 1000),
        (0.0015, 500),
        (0.7, 333),
        (0.25, 40),
    ):
        count = _whole(
            number_answer(
                call(times, p, n_epochs, name="times_sampled"),
                name="times_sampled(p, n_epochs)",
            ),
            "times_sampled(p, n_epochs)",
        )
        epochs = _epochs_sampled(p, n_epochs)
        shown = ", ".join(str(n) for n in epochs[:4]) + (
            ", ..." if len(epochs) > 4 else ""
        )
        require(
            count == len(epochs),
            f"for p = {p:g} and {n_epochs} epochs your count is {count}, but the rule "
            f"samples the edge in {len(epochs)} epochs ({shown or 'none'})",
        )
    for p in (0.5, 0.29, 1.0, 0.25, 0.013, 0.7, 0.2):
        epoch = _whole(
            number_answer(call(first, p, name="first_epoch"), name="first_epoch(p)"),
            "first_epoch(p)",
        )
        want = _epochs_sampled(p, int(np.ceil(2 / p)))[0]
        require(
            epoch == want,
            f"for p = {p:g} your first epoch is {epoch}, but the rule "
            + (
                f"samples the edge in epoch {epoch} already"
                if epoch > want
                else f"does not sample the edge before epoch {want}"
            ),
        )
    rng = np.random.default_rng(_RNG_SEED)
    for n_epochs, top in ((500, 2.5), (200, 0.8)):
        weights = (
            top
            * np.r_[
                rng.uniform(0, 0.01, 60),
                rng.uniform(0.01, 1, 40),
                0.5,
                0.999,
                1.001,
                1.0,
            ]
        )
        weights[-4:-1] /= n_epochs  # just below and just above one sample in all
        count = _whole(
            number_answer(
                call(never, weights.copy(), n_epochs, name="never_sampled"),
                name="never_sampled(weights, n_epochs)",
            ),
            "never_sampled(weights, n_epochs)",
        )
        want = sum(
            len(_epochs_sampled(w / weights.max(), n_epochs)) == 0 for w in weights
        )
        require(
            count == want,
            f"for the check's {len(weights)} edges (largest weight {top:g}, "
            f"{n_epochs} epochs) your count is {count}, but the rule never samples "
            f"{want} of them",
        )


def _push(d, a, b, eps):
    """|c⁻(d)| d from a central difference of -log(1 - w), times d² / (eps + d²)."""
    minus_log = lambda x: np.log1p(a * x ** (2 * b)) - np.log(a) - 2 * b * np.log(x)  # noqa: E731
    h = 1e-6 * d
    exact = -(minus_log(d + h) - minus_log(d - h)) / (2 * h)
    return exact * d**2 / (eps + d**2)


@exercise(
    "ex-umap-repulsion-epsilon",
    answers=["push_size", "peak_push"],
    produce=(
        "a function `push_size(d, a, b, eps)`, the size |c⁻_ε(d)| d of the "
        "repulsive gradient at map distance d with ε = eps, and a function "
        "`peak_push(a, b, eps)` that returns (d, size): where that size is largest, "
        "and how large it is there, to about one per cent"
    ),
    practises="the repulsion of UMAP's optimiser near d = 0, and its epsilon",
    minutes=15,
)
def _repulsion_epsilon(push, peak):
    """ε = 0 against a finite difference of -log(1 - w); the peak by an optimiser."""
    distances = np.geomspace(1e-3, 3.0, 25)
    for a, b in ((1.93, 0.79), (0.58, 1.33)):
        for eps in (0.0, 1e-4, 1e-2):
            for d in distances:
                got = number_answer(
                    call(push, d, a, b, eps, name="push_size"),
                    name="push_size(d, a, b, eps)",
                )
                want = _push(d, a, b, eps)
                require(
                    np.isclose(got, want, rtol=1e-5),
                    f"for a = {a:g}, b = {b:g}, eps = {eps:g} at d = {d:.3g} your size "
                    f"is {got:.4g}, {got / want:.4g} times the size of the step on "
                    "-log(1 - w) "
                    + (
                        "(eps = 0: the exact gradient)"
                        if eps == 0
                        else "with eps added where d² stands alone"
                    ),
                )
    for a, b, eps in ((1.93, 0.79, 1e-4), (1.0, 1.0, 1e-3), (0.58, 1.33, 1e-2)):
        where, height = array_answer(
            call(peak, a, b, eps, name="peak_push"),
            name="peak_push(a, b, eps)",
            shape=(2,),
        )

        def minus_size(t, a=a, b=b, eps=eps):
            d = np.exp(t)
            return -2 * b * d / ((eps + d**2) * (1 + a * d ** (2 * b)))

        best = minimize_scalar(
            minus_size,
            bounds=(np.log(eps) - 3, 3.0),
            method="bounded",
            options={"xatol": 1e-10},
        )
        d_top, top = np.exp(best.x), -best.fun
        require(
            abs(where / d_top - 1) < 0.02,
            f"for a = {a:g}, b = {b:g}, eps = {eps:g} your peak is at d = {where:.4g}, "
            f"{where / d_top:.3g} times the distance where the size is largest",
        )
        require(
            abs(height / top - 1) < 0.02,
            f"for a = {a:g}, b = {b:g}, eps = {eps:g} your peak size {height:.4g} is "
            f"{height / top:.3g} times the largest size",
        )


@exercise(
    "ex-umap-more-negatives",
    answers=["negatives_for_equal_weight", "effective_target"],
    produce=(
        "a function `negatives_for_equal_weight(n_samples, degree)`, the ν that "
        "gives a pair of two points of this degree a repulsion weight of one in the "
        "effective loss, and a function `effective_target(v, nu, n_samples, "
        "degree)`, the target w* of an edge of weight v between two points of this "
        "degree"
    ),
    practises="the effective loss of negative sampling and its target",
    minutes=15,
)
def _more_negatives(equal, target):
    """Repulsion weight at the answer's ν; the target by an optimiser."""
    for n, degree in ((1000, 6.0), (250, 4.5), (5000, 8.0)):
        nu = number_answer(
            call(equal, n, degree, name="negatives_for_equal_weight"),
            name="negatives_for_equal_weight(n_samples, degree)",
        )
        weight = nu * (degree + degree) / (4 * n)  # eq-umap-effective-loss
        require(
            np.isclose(weight, 1.0, rtol=1e-9),
            f"for N = {n} and degree {degree:g} your ν = {nu:.4g} gives a pair the "
            f"repulsion weight {weight:.4g} in the effective loss, not the written "
            "cost's weight of a pair that is no edge",
        )
    for v, nu, n, degree in (
        (0.5, 5, 1797, 6.0),
        (0.05, 5, 1000, 5.0),
        (0.5, 150, 1000, 20 / 3),
        (0.9, 400, 500, 3.0),
        (0.2, 1, 100, 10.0),
    ):
        got = number_answer(
            call(target, v, nu, n, degree, name="effective_target"),
            name="effective_target(v, nu, n_samples, degree)",
        )
        weight = nu * 2 * degree / (4 * n)

        def pair(t, v=v, weight=weight):
            w = 1 / (1 + np.exp(-t))  # w in (0, 1)
            return -v * np.log(w) - weight * np.log1p(-w)

        best = minimize_scalar(pair, bounds=(-40, 40), method="bounded")
        w_best = 1 / (1 + np.exp(-best.x))
        require(
            abs(got - w_best) < 1e-4,
            f"for v = {v:g}, ν = {nu:g}, N = {n}, degree {degree:.3g} your target is "
            f"{got:.4g}, but that pair's term of the effective loss is lower at "
            f"w = {w_best:.4g}",
        )


# ------------------------------------------------------------------- 03: spectrum


def _check_affinities(n, seed):
    """Joint probabilities (dense, symmetric, summing to one) of points on a curve."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 6, n))
    X = np.column_stack([t, np.sin(t)]) + 0.05 * rng.normal(size=(n, 2))
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    np.fill_diagonal(W, 0.0)
    return W / W.sum()


def _linearised_gradient(P):
    """The library's exact t-SNE gradient at a tiny map, as two matrices (repulsion,
    attraction) of the linear map z -> g(z) = (R + rho A) z, projected off the
    constant vector."""
    from dr_lib import tsne

    n, scale = len(P), 1e-7
    columns = {rho: [] for rho in (1.0, 2.0)}
    for k in range(n):
        Z = np.zeros((n, 2))
        Z[k, 0] = scale
        for rho, found in columns.items():
            found.append(tsne.gradient(P, Z, method="exact", exaggeration=rho)[1][:, 0])
    J1, J2 = (np.array(columns[rho]).T / scale for rho in (1.0, 2.0))
    basis = np.linalg.svd(np.eye(n) - 1 / n)[0][:, : n - 1]  # centred maps
    project = lambda J: basis.T @ (J + J.T) / 2 @ basis  # noqa: E731
    return project(2 * J1 - J2), project(J2 - J1)


def _growing(R, A, rho):
    """How many directions of a tiny centred map grow under gradient descent."""
    values = np.linalg.eigvalsh(R + rho * A)
    return int(np.sum(values < -1e-9 * np.abs(values).max()))


@exercise(
    "ex-umap-spectrum-1d",
    answers=["thresholds"],
    produce=(
        "a function `thresholds(P)` that returns (ρ2, ρ3) of "
        "eq-umap-spectrum-threshold for the dense joint probabilities P"
    ),
    practises="the end of the spectrum: the thresholds of a sustained exaggeration",
    minutes=15,
)
def _spectrum_1d(function):
    """Against the number of growing directions of the library's gradient near 0."""
    for n, seed in ((30, 1), (20, 2)):
        P = _check_affinities(n, seed)
        rho_2, rho_3 = array_answer(
            call(function, P.copy(), name="thresholds"),
            name="thresholds(P)",
            shape=(2,),
        )
        require(
            rho_2 > 0 and rho_3 > 0,
            f"for the check's {n} points your thresholds ({rho_2:.4g}, {rho_3:.4g}) "
            "are not both positive",
        )
        R, A = _linearised_gradient(P)
        for name, rho, want in (("ρ2", rho_2, 1), ("ρ3", rho_3, 2)):
            for factor, expected in ((0.99, want), (1.01, want - 1)):
                found = _growing(R, A, factor * rho)
                require(
                    found == expected,
                    f"for the check's {n} points, at ρ = {factor:g} × your {name} a "
                    f"tiny map grows along {found} direction(s) under the library's "
                    f"gradient; {name} is where the "
                    f"{'first' if want == 1 else 'second'} direction stops growing",
                )


@exercise(
    "ex-umap-spectrum-rate",
    answers=["growth_multiplier"],
    produce=(
        "a function `growth_multiplier(rho, rate, n, lam)`: the factor by which one "
        "step Z ← Z − (rate / 4) g, g the exact t-SNE gradient at exaggeration rho, "
        "multiplies the component of a tiny centred map of n points along the "
        "eigenvector of L with eigenvalue lam"
    ),
    practises="gradient descent near the origin as power iteration, and its rate",
    minutes=15,
)
def _spectrum_rate(function):
    """Against one step of plain gradient descent with the library's gradient."""
    from dr_lib import tsne

    P = _check_affinities(30, 3)
    n = len(P)
    lam, F = eigh(np.diag(P.sum(1)) - P)
    for rho, rate in ((4.0, n), (4.0, n / 4), (2.5, 7.0), (1.0, n)):
        for k in (1, 2, n - 1):
            m = number_answer(
                call(function, rho, rate, n, lam[k], name="growth_multiplier"),
                name="growth_multiplier(rho, rate, n, lam)",
            )
            Z = 1e-9 * np.outer(F[:, k], [1.0, -0.5])
            step = Z - rate / 4 * tsne.gradient(P, Z, exaggeration=rho)[1]
            measured = (F[:, k] @ step[:, 0]) / (F[:, k] @ Z[:, 0])
            require(
                np.isclose(m, measured, rtol=1e-6, atol=1e-6),
                f"with rho = {rho:g}, rate = {rate:g} on {n} points your multiplier "
                f"for the eigenvalue {lam[k]:.3g} is {m:.5g}, but one step of plain "
                f"gradient descent with the library's gradient multiplies that "
                f"component by {measured:.5g}",
            )


# ---------------------------------------------------- 04: initialisation, pitfalls


def _radius(part):
    return np.sqrt(((part - part.mean(0)) ** 2).sum(1).mean())


@exercise(
    "ex-umap-pitfall-own",
    answers=["density_test", "size_ratio"],
    produce=(
        "a function `density_test(seed)` that returns (X, y): three clusters of 100 "
        "points in 10 dimensions, each coordinate spread with standard deviation 1, 2 "
        "and 4, every centre 50 units from its nearest other centre, and their labels; "
        "and a function `size_ratio(Y, y)`, the ratio of the widest to the narrowest "
        "cluster of Y, a cluster's size being its root-mean-square distance to its "
        "centroid (as `spread` above)"
    ),
    practises="what a map of t-SNE or UMAP keeps of the density of clusters",
    minutes=20,
)
def _pitfall_own(density_test, size_ratio):
    """The data's statistics at the check's seeds; the ratio on the check's maps."""
    for seed in (3, 17):
        result = call(density_test, seed, name="density_test")
        require(
            isinstance(result, tuple) and len(result) == 2,
            "`density_test(seed)` should return a pair (X, y)",
        )
        X = array_answer(result[0], name="X of density_test(seed)", shape=(300, 10))
        y = np.asarray(result[1])
        require(y.shape == (300,), f"y of density_test(seed) has shape {y.shape}")
        labels, counts = np.unique(y, return_counts=True)
        require(
            len(labels) == 3 and np.all(counts == 100),
            f"your labels have {len(labels)} values with counts {counts.tolist()}",
        )
        parts = [X[y == c] for c in labels]
        # the standard deviation of one coordinate, pooled over the 10 of a cluster
        spreads = np.sort([_radius(part) / np.sqrt(10) for part in parts])
        require(
            np.allclose(spreads, [1, 2, 4], rtol=0.12),
            f"at seed {seed} your clusters' standard deviations per coordinate are "
            f"{', '.join(f'{s:.3g}' for s in spreads)}",
        )
        centres = np.array([part.mean(0) for part in parts])
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
        nearest = np.sort(gaps + np.diag(np.full(3, np.inf)), axis=1)[:, 0]
        require(
            np.allclose(nearest, 50, rtol=0.15),
            f"at seed {seed} the distances of your centres to their nearest other "
            f"centre are {', '.join(f'{g:.3g}' for g in nearest)}",
        )
    rng = np.random.default_rng(_RNG_SEED)
    for labels, radii in (((4, 7, 9), (1.0, 3.0, 1.5)), ((0, 1, 2, 3), (2, 2, 5, 1))):
        y = np.repeat(labels, [30 + 10 * i for i in range(len(labels))])
        offsets = {c: rng.uniform(-20, 20, 2) for c in labels}
        Y = np.array(
            [offsets[c] + radii[labels.index(c)] * rng.normal(size=2) for c in y]
        )
        order = rng.permutation(len(y))
        Y, y = Y[order], y[order]
        want = max(_radius(Y[y == c]) for c in labels) / min(
            _radius(Y[y == c]) for c in labels
        )
        turn = np.array([[0.6, -0.8], [0.8, 0.6]])
        for shown, Y_shown in (("", Y), (" turned and moved", Y @ turn + 100.0)):
            got = number_answer(
                call(size_ratio, Y_shown.copy(), y.copy(), name="size_ratio"),
                name="size_ratio(Y, y)",
            )
            require(
                np.isclose(got, want, rtol=1e-9),
                f"on the check's map of {len(labels)} clusters{shown}, labelled "
                f"{', '.join(map(str, labels))}, your ratio is {got:.4g}, "
                f"{got / want:.4g} times the ratio of the widest to the narrowest "
                "cluster",
            )
