"""dr_lib.MMC: the optimum of [W] 式(10.39) against cvxpy, feasibility, PSD, pairs and
errors (book/09_metric_learning)."""

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from dr_lib import MMC, mmc


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    must, cannot = mmc.pairs_from_labels(y, 60, random_state=0)
    return X, must, cannot


def sums(X, M, must, cannot):
    """(must-link sum of squared distances, cannot-link sum of distances) under M."""
    U, V = X[must[:, 0]] - X[must[:, 1]], X[cannot[:, 0]] - X[cannot[:, 1]]
    f = np.einsum("kp,pq,kq->", U, M, U)
    g = np.sqrt(np.maximum(np.einsum("kp,pq,kq->k", V, M, V), 0)).sum()
    return f, g


def cvxpy_optimum(X, must, cannot, diagonal):
    """式(10.39) written directly for cvxpy; returns the PSD part of its solution."""
    U, V = X[must[:, 0]] - X[must[:, 1]], X[cannot[:, 0]] - X[cannot[:, 1]]
    D = X.shape[1]
    if diagonal:
        m = cp.Variable(D, nonneg=True)
        objective = cp.sum((U**2) @ m)
        distances = cp.sqrt((V**2) @ m)
    else:
        M = cp.Variable((D, D), PSD=True)
        objective = cp.trace((U.T @ U) @ M)
        distances = cp.sqrt(cp.sum(cp.multiply(V @ M, V), axis=1))
    cp.Problem(cp.Minimize(objective), [cp.sum(distances) >= 1]).solve(
        solver="CLARABEL"
    )
    if diagonal:
        return np.diag(np.maximum(m.value, 0))
    values, vectors = np.linalg.eigh((M.value + M.value.T) / 2)
    return (vectors * np.maximum(values, 0)) @ vectors.T


@pytest.mark.parametrize("diagonal", [False, True])
def test_optimum_matches_cvxpy(wine, diagonal):
    X, must, cannot = wine
    M, info = mmc.solve(X, must, cannot, diagonal=diagonal, tol=1e-8)
    f, g = sums(X, M, must, cannot)
    assert g == pytest.approx(1.0, rel=1e-12)  # feasible, on the constraint
    assert f == pytest.approx(info["objective"], rel=1e-12)
    assert np.linalg.eigvalsh(M)[0] > -1e-12 * np.abs(M).max()  # PSD
    if diagonal:
        np.testing.assert_array_equal(M, np.diag(np.diag(M)))
    f_cvx, g_cvx = sums(X, cvxpy_optimum(X, must, cannot, diagonal), must, cannot)
    # compare the scale-free value f / g^2 (= the objective once g is rescaled to 1)
    assert f == pytest.approx(f_cvx / g_cvx**2, rel=1e-5)
    assert info["gap"] <= 1e-8


def test_gap_bounds_the_distance_to_the_optimum(wine):
    X, must, cannot = wine
    _, loose = mmc.solve(X, must, cannot, tol=1e-2)
    _, tight = mmc.solve(X, must, cannot, tol=1e-10)
    # objective = 1 / g^2 and g_loose >= g* (1 - gap): the certified bound must hold
    bound = 1.0 / (1.0 - loose["gap"]) ** 2
    assert tight["objective"] <= loose["objective"] <= tight["objective"] * bound


def test_the_constant_one_only_sets_the_scale(wine):
    # min f s.t. g >= c has the solution c^2 M_1: f is linear in M, g grows like
    # sqrt(M).
    X, must, cannot = wine
    M, _ = mmc.solve(X, must, cannot, tol=1e-10)
    f, g = sums(X, 9.0 * M, must, cannot)
    assert g == pytest.approx(3.0, rel=1e-12)
    # no feasible point for g >= 3 does better: compare with 9 times the optimum of g >=
    # 1
    rng = np.random.default_rng(0)
    for _ in range(20):
        B = rng.normal(size=M.shape) * 0.05
        other = 9.0 * M + B @ B.T
        f_other, g_other = sums(X, other, must, cannot)
        assert f_other / g_other**2 * 9 >= f * (1 - 1e-9)


def test_projection_onto_the_capped_simplex():
    # p is the projection of v onto the convex set C iff p is in C and <v - p, q - p> <=
    # 0 for every q in C; the left side is linear in q, so checking the vertices of C (0
    # and the unit vectors) suffices.
    rng = np.random.default_rng(1)
    vertices = np.vstack([np.zeros(7), np.eye(7)])
    for scale in [0.05, 0.6, 3.0]:
        for _ in range(20):
            v = rng.normal(size=7) * scale
            p = mmc.project_capped_simplex(v)
            assert p.min() >= 0 and p.sum() <= 1 + 1e-12
            assert np.max((vertices - p) @ (v - p)) <= 1e-12


def test_projection_of_a_matrix_is_spectral():
    # {N PSD, tr N <= 1} is invariant under N -> Q N Q^T, so its projection acts on the
    # eigenvalues; compare with cvxpy's projection of the same matrix.
    rng = np.random.default_rng(2)
    S = rng.normal(size=(5, 5))
    S = (S + S.T) / 2
    ours = mmc._FullMetric.project(S)
    N = cp.Variable((5, 5), PSD=True)
    cp.Problem(cp.Minimize(cp.sum_squares(N - S)), [cp.trace(N) <= 1]).solve(
        solver="CLARABEL"
    )
    np.testing.assert_allclose(ours, N.value, atol=1e-6)


def test_pairs_from_labels_are_all_pairs_or_a_uniform_sample():
    y = np.array([2, 0, 2, 1, 0, 2, 2])
    must, cannot = mmc.pairs_from_labels(y)
    sizes = np.bincount(y)
    assert len(must) == np.sum(sizes * (sizes - 1) // 2)
    assert len(cannot) == (len(y) ** 2 - np.sum(sizes**2)) // 2
    assert np.all(y[must[:, 0]] == y[must[:, 1]])
    assert np.all(y[cannot[:, 0]] != y[cannot[:, 1]])
    pairs = {frozenset(p) for p in map(tuple, np.vstack([must, cannot]))}
    assert len(pairs) == len(y) * (len(y) - 1) // 2  # every pair exactly once
    some, _ = mmc.pairs_from_labels(y, 4, random_state=0)
    assert len({frozenset(p) for p in map(tuple, some)}) == 4
    assert {frozenset(p) for p in map(tuple, some)} <= {
        frozenset(p) for p in map(tuple, must)
    }


def test_fit_from_labels_is_fit_from_the_drawn_pairs(wine):
    X, _, _ = wine
    y = load_wine().target
    model = MMC(n_pairs=50, random_state=3).fit(X, y)
    must, cannot = mmc.pairs_from_labels(y, 50, random_state=3)
    same = MMC().fit(X, must_link=must, cannot_link=cannot)
    np.testing.assert_allclose(model.metric_, same.metric_, rtol=1e-10, atol=1e-14)


def test_components_factor_the_metric(wine):
    X, must, cannot = wine
    model = MMC().fit(X, must_link=must, cannot_link=cannot)
    W = model.components_.T
    np.testing.assert_allclose(W @ W.T, model.metric_, atol=1e-12 * model.metric_.max())
    Z = model.transform(X)
    d2 = np.sum((Z[must[:, 0]] - Z[must[:, 1]]) ** 2)
    assert d2 == pytest.approx(model.objective_, rel=1e-9)
    two = MMC(n_components=2).fit(X, must_link=must, cannot_link=cannot)
    assert two.transform(X).shape == (len(X), 2)


@pytest.mark.parametrize("diagonal", [False, True])
def test_unseen_directions_give_minimum_zero_and_a_clear_error(diagonal):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 3))
    X[0] = X[1] + [1.0, 0.0, 0.0]  # the must-link pair (0, 1) varies in feature 0 only
    must, cannot = np.array([[0, 1]]), np.array([[2, 3], [4, 5]])
    # A metric on feature 1 alone gives the must-link sum 0 and, scaled, g = 1: the
    # minimum of (10.39) is 0 and it is attained, by a metric the must-link pair
    # ignores.
    V = X[cannot[:, 0]] - X[cannot[:, 1]]
    M = np.diag([0.0, 1.0, 0.0]) / np.abs(V[:, 1]).sum() ** 2
    f, g = sums(X, M, must, cannot)
    assert f == 0.0
    assert g == pytest.approx(1.0, rel=1e-12)
    with pytest.raises(ValueError, match="the minimum is 0") as error:
        mmc.solve(X, must, cannot, diagonal=diagonal)
    assert "must_link" in str(error.value)


@pytest.mark.parametrize(
    ("fit_kwargs", "match"),
    [
        ({"must_link": [[0, 200]], "cannot_link": [[0, 1]]}, "outside"),
        ({"must_link": [[3, 3]], "cannot_link": [[0, 1]]}, "itself"),
        ({"must_link": np.empty((0, 2)), "cannot_link": [[0, 1]]}, "empty"),
        ({"must_link": [[0, 1, 2]], "cannot_link": [[0, 1]]}, r"shape \(n_pairs, 2\)"),
        ({"must_link": [[0, 1]]}, "must_link and cannot_link"),
        ({"y": np.arange(178) % 3, "must_link": [[0, 1]]}, "not both"),
        ({"y": np.zeros(178)}, "single class"),
        ({"y": np.zeros(17)}, "length"),
    ],
)
def test_bad_input_is_a_clear_error(wine, fit_kwargs, match):
    X, _, _ = wine
    fit_kwargs = dict(fit_kwargs)
    y = fit_kwargs.pop("y", None)
    with pytest.raises(ValueError, match=match):
        MMC().fit(X, y, **fit_kwargs)


def test_nan_is_a_clear_error(wine):
    X, must, cannot = wine
    X = X.copy()
    X[5, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MMC().fit(X, must_link=must, cannot_link=cannot)


@parametrize_with_checks([MMC(n_pairs=200)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
