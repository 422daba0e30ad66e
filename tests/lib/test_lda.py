"""dr_lib.LDA against scikit-learn's eigen solver and against Fisher's closed forms
(book/09_metric_learning)."""

import numpy as np
import pytest
from scipy.linalg import eigh, subspace_angles
from sklearn.datasets import load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA
from sklearn.utils.estimator_checks import parametrize_with_checks

from dr_lib import LDA, lda


def classes(n=300, d=6, c=4, seed=0):
    """Gaussian classes with a shared skewed covariance and distinct means."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    mixing = rng.normal(size=(d, d))
    X = rng.normal(size=(n, d)) @ mixing + 3.0 * rng.normal(size=(c, d))[y]
    return X, y


DATA = {
    "wine": load_wine(return_X_y=True),
    "iris": load_iris(return_X_y=True),
    "gaussian": classes(),
}


@pytest.mark.parametrize("name", DATA)
def test_subspace_matches_scikit_learn(name):
    X, y = DATA[name]
    ours = LDA().fit(X, y)
    k = ours.scalings_.shape[1]
    assert k == len(np.unique(y)) - 1
    ref = SkLDA(solver="eigen").fit(X, y)
    assert np.max(subspace_angles(ours.scalings_, ref.scalings_[:, :k])) < 1e-8
    np.testing.assert_allclose(
        ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-8
    )
    # one direction at a time too (the eigenvalues are distinct)
    for j in range(k):
        angle = subspace_angles(ours.scalings_[:, [j]], ref.scalings_[:, [j]])
        assert angle.max() < 1e-7


def test_eigenpairs_solve_the_generalised_problem():
    X, y = classes(seed=1)
    model = LDA().fit(X, y)
    S_w, S_b = lda.scatter_matrices(X, y)
    W, lam = model.scalings_, model.eigenvalues_
    np.testing.assert_allclose(S_b @ W, S_w @ W * lam, atol=1e-10 * np.abs(S_b).max())
    np.testing.assert_allclose(W.T @ S_w @ W, np.eye(len(lam)), atol=1e-10)
    top = eigh(S_b, S_w, eigvals_only=True)[::-1]
    np.testing.assert_allclose(lam, top[: len(lam)], rtol=1e-9)
    # rank S_b <= c - 1: every further generalised eigenvalue vanishes
    assert np.all(np.abs(top[len(lam) :]) < 1e-10 * top[0])


def test_scatter_matrices_from_their_definitions():
    X, y = classes(n=40, seed=2)
    S_w, S_b = np.zeros((6, 6)), np.zeros((6, 6))
    mu = X.mean(axis=0)
    for k in np.unique(y):
        Xk = X[y == k]
        S_w += (Xk - Xk.mean(0)).T @ (Xk - Xk.mean(0))
        S_b += len(Xk) * np.outer(Xk.mean(0) - mu, Xk.mean(0) - mu)
    ours_w, ours_b = lda.scatter_matrices(X, y)
    np.testing.assert_allclose(ours_w, S_w / 40, atol=1e-12)
    np.testing.assert_allclose(ours_b, S_b / 40, atol=1e-12)


def test_two_classes_give_fishers_direction():
    X, y = classes(c=2, seed=3)
    w = LDA().fit(X, y).scalings_[:, 0]
    X0, X1 = X[y == 0], X[y == 1]
    S_w = (X0 - X0.mean(0)).T @ (X0 - X0.mean(0)) + (X1 - X1.mean(0)).T @ (
        X1 - X1.mean(0)
    )
    fisher = np.linalg.solve(S_w, X0.mean(0) - X1.mean(0))
    cosine = abs(w @ fisher) / np.linalg.norm(w) / np.linalg.norm(fisher)
    assert cosine == pytest.approx(1.0, abs=1e-12)


def test_regularisation_is_a_relative_ridge():
    X, y = classes(seed=4)
    reg = 0.3
    model = LDA(reg=reg).fit(X, y)
    S_w, S_b = lda.scatter_matrices(X, y)
    ridge = S_w + reg * np.trace(S_w) / 6 * np.eye(6)
    values, vectors = eigh(S_b, ridge)
    k = model.scalings_.shape[1]
    assert np.max(subspace_angles(model.scalings_, vectors[:, ::-1][:, :k])) < 1e-8
    np.testing.assert_allclose(model.eigenvalues_, values[::-1][:k], rtol=1e-9)
    # the scalings whiten the ridged scatter, so W^T S_w W falls short of I by the ridge
    W = model.scalings_
    np.testing.assert_allclose(W.T @ ridge @ W, np.eye(k), atol=1e-10)
    shortfall = np.eye(k) - W.T @ S_w @ W
    np.testing.assert_allclose(shortfall, reg * np.trace(S_w) / 6 * W.T @ W, atol=1e-10)
    assert np.linalg.eigvalsh(shortfall)[0] > 1e-2
    # scale invariance of a relative ridge
    scaled = LDA(reg=reg).fit(10 * X, y)
    np.testing.assert_allclose(scaled.eigenvalues_, model.eigenvalues_, rtol=1e-9)


def test_singular_within_class_scatter_asks_for_reg():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(12, 20)), np.repeat([0, 1, 2], 4)  # D = 20 > N - c = 9
    with pytest.raises(ValueError, match=r"n_samples - n_classes = 9.*reg > 0"):
        LDA().fit(X, y)
    assert LDA(reg=1e-2).fit(X, y).scalings_.shape == (20, 2)
    X, y = classes(seed=6)
    X[:, 3] = 2.0 * X[:, 1]  # a dependent feature: singular although D < N - c
    with pytest.raises(ValueError, match="constant within every class"):
        LDA().fit(X, y)


def test_transform_projects_centred_data():
    X, y = DATA["wine"]
    model = LDA().fit(X, y)
    Z = model.transform(X)
    np.testing.assert_allclose(Z, (X - X.mean(0)) @ model.scalings_, atol=1e-10)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-10)


@pytest.mark.parametrize(
    ("kwargs", "y_change", "match"),
    [
        ({}, lambda y: y[:-1], "length"),
        ({}, lambda y: np.ones_like(y), "single class"),
        ({"n_components": 3}, None, r"at most min\(n_classes - 1"),
        ({"reg": -1.0}, None, "reg"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs, y_change, match):
    X, y = DATA["wine"]
    y = y if y_change is None else y_change(y)
    with pytest.raises(ValueError, match=match):
        LDA(**kwargs).fit(X, y)


@parametrize_with_checks([LDA()])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
