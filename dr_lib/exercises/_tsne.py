"""Self-checks for the exercises of the chapter on SNE and t-SNE."""

import numpy as np

from ._answers import (
    array_answer,
    call,
    central_differences,
    number_answer,
    require,
)
from ._registry import exercise


def _perplexity(p):
    p = p[p > 0]
    return 2.0 ** -(p @ np.log2(p))


@exercise(
    "ex-tsne-uniform-perplexity",
    answers=["uniform_perplexity", "far_mass"],
    produce=(
        "a function `uniform_perplexity(k)`, the perplexity of a row that puts 1/k on "
        "k samples, and a function `far_mass(beta, n_near, n_far)`, the probability "
        "mass at precision beta of the n_far samples at squared distance 2 when n_near "
        "samples are at squared distance 1"
    ),
    practises="perplexity, and the calibrated row of SNE",
    minutes=15,
)
def _uniform_perplexity(uniform, far):
    """Against rows built in the check: 2 to the entropy, and the row's softmax."""
    for k in (1, 2, 5, 30):
        got = number_answer(
            call(uniform, k, name="uniform_perplexity"), name="uniform_perplexity(k)"
        )
        want = _perplexity(np.full(k, 1.0 / k))
        require(
            np.isclose(got, want, rtol=1e-9),
            f"for k = {k} your perplexity is {got:.4g}: perplexity is 2 to the "
            "entropy in bits, not the entropy itself",
        )
    for beta, n_near, n_far in ((0.3, 5, 20), (1.7, 5, 20), (0.8, 3, 11), (4.0, 10, 2)):
        got = number_answer(
            call(far, beta, n_near, n_far, name="far_mass"),
            name="far_mass(beta, n_near, n_far)",
        )
        weights = np.exp(-beta * np.r_[np.ones(n_near), np.full(n_far, 2.0)])
        want = weights[n_near:].sum() / weights.sum()
        require(
            np.isclose(got, want, rtol=1e-9),
            f"with beta = {beta:g}, {n_near} near and {n_far} far samples your far "
            f"mass is {got:.4g}, {got / want:.4g} times the mass of the far samples "
            "in the normalised row exp(-beta d_j) / sum",
        )


@exercise(
    "ex-tsne-perplexity-bound",
    answers=["largest_perplexity"],
    produce=(
        "a function `largest_perplexity(n_samples)` that returns the bound that the "
        "perplexity of a row of SNE approaches but never reaches, for n_samples points"
    ),
    practises="the range of the perplexity and the bisection on beta",
    minutes=10,
)
def _perplexity_bound(function):
    """Above every calibrated perplexity of random rows, and approached as beta → 0."""
    rng = np.random.default_rng(20261127)
    for n in (5, 20, 64):
        bound = number_answer(
            call(function, n, name="largest_perplexity"),
            name="largest_perplexity(n_samples)",
        )
        row = rng.uniform(0.0, 3.0, size=n - 1)  # squared distances to the others
        perplexities = []
        for beta in np.geomspace(1e-12, 10.0, 40):
            w = np.exp(-beta * (row - row.min()))
            perplexities.append(_perplexity(w / w.sum()))
        top = max(perplexities)
        require(
            top <= bound * (1 + 1e-9),
            f"for {n} samples a row reaches perplexity {top:.4g}, above your bound "
            f"{bound:g}: how many candidates does row i have?",
        )
        require(
            bound - top < 1e-6 * bound,
            f"for {n} samples no row comes closer than {bound - top:.3g} to your bound "
            f"{bound:g}: which row has the largest entropy, and over how many samples?",
        )


@exercise(
    "ex-tsne-learning-rate",
    answers=["same_step_rate"],
    produce=(
        "a function `same_step_rate(sklearn_rate)` that returns the `learning_rate` "
        "of dr_lib.TSNE (and openTSNE) that takes the same steps as scikit-learn's "
        "`learning_rate=sklearn_rate`"
    ),
    practises="the conventions of the t-SNE gradient in three libraries",
    minutes=10,
)
def _learning_rate(function):
    """dr_lib's step, rate times its gradient without the 4, equals scikit-learn's."""
    from dr_lib import TSNE

    for sklearn_rate in (200.0, 50.0, 1000.0):
        rate = number_answer(
            call(function, sklearn_rate, name="same_step_rate"),
            name="same_step_rate(sklearn_rate)",
        )
        # dr_lib multiplies the full gradient (with its 4) by this factor
        ours = TSNE(learning_rate=rate)._learning_rate(100, 1.0)
        require(
            np.isclose(ours, sklearn_rate, rtol=1e-12),
            f"with learning_rate={rate:g} dr_lib's steps are {ours / sklearn_rate:.4g} "
            f"times scikit-learn's at learning_rate={sklearn_rate:g}: which gradient "
            "does each library multiply by its rate?",
        )


def _random_rows(rng, n_rows, n_columns):
    """Rows of a conditional P: random, each with one zero (its own sample), sum 1."""
    rows = rng.dirichlet(np.full(n_columns, 0.4), size=n_rows)
    rows[np.arange(n_rows), np.arange(n_rows) % n_columns] = 0.0
    return rows / rows.sum(axis=1, keepdims=True)


@exercise(
    "ex-tsne-neighbour-mass",
    answers=["mass_count", "mass_beyond"],
    produce=(
        "a function `mass_count(P, fraction)` that returns, for every row of the "
        "conditional P, the smallest number of its nearest neighbours that carry at "
        "least `fraction` of its mass, and a function `mass_beyond(P, m)` that returns "
        "for every row the mass beyond its m nearest neighbours"
    ),
    practises="perplexity as an effective number of neighbours; the ⌊3u⌋ truncation",
    minutes=15,
)
def _neighbour_mass(count, beyond):
    """Against a row-by-row loop over the neighbours in order of decreasing p."""
    rng = np.random.default_rng(20261127)
    P = _random_rows(rng, 12, 40)
    for fraction in (0.9, 0.5, 0.99):
        got = array_answer(
            call(count, P.copy(), fraction, name="mass_count"),
            name="mass_count(P, fraction)",
            shape=(12,),
        )
        for i, row in enumerate(P):
            taken, total = 0, 0.0
            for p in sorted(row, reverse=True):  # the nearest first: largest p
                if total >= fraction:
                    break
                taken, total = taken + 1, total + p
            require(
                got[i] == taken,
                f"for fraction {fraction:g}, row {i} of the check's P needs a "
                f"different number of nearest neighbours than your {got[i]:g}: "
                + ("too few" if got[i] < taken else "too many")
                + " to carry that mass. Are the neighbours taken nearest first, and "
                "is the one that crosses the fraction counted?",
            )
    for m in (1, 5, 17):
        got = array_answer(
            call(beyond, P.copy(), m, name="mass_beyond"),
            name="mass_beyond(P, m)",
            shape=(12,),
        )
        want = [sum(sorted(row, reverse=True)[m:]) for row in P]
        require(
            np.allclose(got, want, atol=1e-12),
            f"for m = {m} your mass beyond the m nearest neighbours differs from the "
            "check's in some rows: "
            + ("it is larger" if np.mean(got) > np.mean(want) else "it is smaller")
            + "; which m entries of a row are the nearest neighbours?",
        )


def _random_joint(rng, n):
    """A joint P: symmetric, zero diagonal, sum one, with a wide range of entries."""
    A = rng.uniform(size=(n, n)) ** 3
    P = A + A.T
    np.fill_diagonal(P, 0.0)
    return P / P.sum()


def _tsne_cost(P, Z, alpha):
    """KL(P || Q) of t-SNE with alpha degrees of freedom, from the definition."""
    d2 = np.sum((Z[:, None] - Z[None]) ** 2, axis=-1)
    w = (1 + d2 / alpha) ** -alpha
    np.fill_diagonal(w, 0.0)
    off = ~np.eye(len(P), dtype=bool)
    return np.sum(P[off] * np.log(P[off] * w.sum() / w[off]))


@exercise(
    "ex-tsne-collapsed-map",
    answers=["collapsed_quadratic"],
    produce=(
        "a function `collapsed_quadratic(P, Y)` that returns the coefficient of ε² "
        "in J(εY) - J(0), the t-SNE cost near the collapsed map, for a joint P and a "
        "map Y (one row per point)"
    ),
    practises="the expansion of the t-SNE cost around the collapsed map",
    minutes=25,
)
def _collapsed_map(function):
    """Against (J(εY) - J(0)) / ε² of a cost written here, for three α."""
    rng = np.random.default_rng(20261127)
    n = 14
    P = _random_joint(rng, n)
    for shape in ((n, 2), (n, 3)):
        Y = rng.normal(size=shape) + 2.0  # not centred: J sees only distances
        got = number_answer(
            call(function, P.copy(), Y.copy(), name="collapsed_quadratic"),
            name="collapsed_quadratic(P, Y)",
        )
        eps = 1e-3
        for alpha in (0.5, 1.0, 3.0):
            J0 = _tsne_cost(P, np.zeros(shape), alpha)
            want = (_tsne_cost(P, eps * Y, alpha) - J0) / eps**2
            require(
                np.isclose(got, want, rtol=1e-4),
                f"for a map of shape {shape} and α = {alpha:g} your coefficient is "
                f"{got / want:.4g} times (J(εY) - J(0)) / ε² at ε = {eps:g}: check "
                "the normalisation of Q, the count of pairs and the sign",
            )


@exercise(
    "ex-tsne-translation",
    answers=["dof_gradient"],
    produce=(
        "a function `dof_gradient(P, Z, alpha)` that returns the N x d gradient of the "
        "t-SNE cost with α degrees of freedom, eq-tsne-dof-gradient, for a joint P and "
        "a map Z (one row per point)"
    ),
    practises="the t-SNE gradient and why it does not move the centre of the map",
    minutes=20,
)
def _translation(function):
    """Rows sum to zero; against central differences of a cost written here."""
    rng = np.random.default_rng(20261127)
    n = 12
    P = _random_joint(rng, n)
    for alpha, dim in ((1.0, 2), (0.5, 2), (3.0, 3)):
        Z = rng.normal(size=(n, dim)) + 1.5
        G = array_answer(
            call(function, P.copy(), Z.copy(), alpha, name="dof_gradient"),
            name="dof_gradient(P, Z, alpha)",
            shape=(n, dim),
        )
        require(
            np.allclose(G.sum(axis=0), 0, atol=1e-10 * max(np.abs(G).max(), 1.0)),
            f"for α = {alpha:g} the gradients of your map points do not sum to zero: "
            "which q do you subtract from p, and is it the same for the pair (i, j) "
            "and the pair (j, i)?",
        )
        want = central_differences(lambda M, a=alpha: _tsne_cost(P, M, a), Z)
        scale = np.sum(G * want) / np.sum(want * want)
        require(
            np.allclose(G, want, rtol=1e-5, atol=1e-7),
            f"for α = {alpha:g} and a map of {dim} dimensions your gradient "
            + (
                f"is {scale:.4g} times central differences of the cost"
                if np.allclose(G, scale * want, rtol=1e-5, atol=1e-7)
                else "differs from central differences of the cost: check the power "
                "of the kernel w_ij in the gradient"
            ),
        )
