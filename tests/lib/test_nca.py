"""dr_lib.NCA: objective and gradient against autograd and finite differences, against
scikit-learn, and its errors (book/09_metric_learning)."""

import numpy as np
import pytest
import torch
from sklearn.decomposition import PCA as SkPCA
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neighbors import NeighborhoodComponentsAnalysis as SkNCA
from sklearn.utils.estimator_checks import parametrize_with_checks

from dr_lib import NCA, datasets, nca


def blobs(n=90, d=5, c=3, seed=0):
    """Gaussian classes whose means differ in the first two features only."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    X = rng.normal(size=(n, d))
    X[:, :2] += 2.0 * rng.normal(size=(c, 2))[y]
    return X, y


def objective_by_definition(X, y, A):
    """sum_i p_i from [W] 式(10.35)-(10.37), a double loop over samples."""
    Z = X @ A.T
    total = 0.0
    for i in range(len(X)):
        w = np.array(
            [
                0.0 if j == i else np.exp(-np.sum((Z[i] - Z[j]) ** 2))
                for j in range(len(X))
            ]
        )
        total += w[y == y[i]].sum() / w.sum()
    return total


def objective_torch(X, y, A):
    """The same objective in torch, written from the definition, for autograd."""
    X = torch.tensor(X)
    A = torch.tensor(A, requires_grad=True)
    Z = X @ A.T
    d2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    d2 = d2 + torch.diag(torch.full((len(X),), float("inf"), dtype=d2.dtype))
    p = torch.softmax(-d2, dim=1)
    same = torch.tensor(y[:, None] == y[None, :])
    value = (p * same).sum()
    value.backward()
    return value.item(), A.grad.numpy()


@pytest.mark.parametrize("n_components", [1, 2, 5])
def test_objective_and_gradient_match_autograd(n_components):
    X, y = blobs()
    A = np.random.default_rng(1).normal(size=(n_components, X.shape[1])) * 0.4
    value, gradient = nca.objective(X, y, A)
    value_torch, gradient_torch = objective_torch(X, y, A)
    assert value == pytest.approx(objective_by_definition(X, y, A), rel=1e-12)
    assert value == pytest.approx(value_torch, rel=1e-12)
    np.testing.assert_allclose(gradient, gradient_torch, rtol=1e-9, atol=1e-12)


def test_gradient_matches_finite_differences():
    X, y = blobs(seed=2)
    A = np.random.default_rng(3).normal(size=(2, X.shape[1])) * 0.4
    _, gradient = nca.objective(X, y, A)
    h = 1e-6
    numeric = np.zeros_like(A)
    for index in np.ndindex(A.shape):
        step = np.zeros_like(A)
        step[index] = h
        numeric[index] = (
            nca.objective(X, y, A + step)[0] - nca.objective(X, y, A - step)[0]
        ) / (2 * h)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-8)


def test_far_apart_points_do_not_underflow():
    # Every pairwise squared distance exceeds 10^4: exp(-d) is 0 in double precision, so
    # the weights must be normalised before exponentiating (as the library does).
    X, y = blobs(n=30, seed=4)
    A = 200.0 * np.eye(2, X.shape[1])
    value, gradient = nca.objective(X, y, A)
    assert np.isfinite(value) and np.all(np.isfinite(gradient))
    value_torch, gradient_torch = objective_torch(X, y, A)
    assert value == pytest.approx(value_torch, rel=1e-12)
    np.testing.assert_allclose(gradient, gradient_torch, rtol=1e-9, atol=1e-9)


def test_gradient_is_exact_across_row_blocks(monkeypatch):
    # More samples than one block of rows, and classes split across blocks.
    monkeypatch.setattr(nca, "ROW_BLOCK", 7)
    X, y = blobs(n=61, seed=5)
    A = np.random.default_rng(6).normal(size=(2, X.shape[1])) * 0.4
    value, gradient = nca.objective(X, y, A)
    value_torch, gradient_torch = objective_torch(X, y, A)
    assert value == pytest.approx(value_torch, rel=1e-12)
    np.testing.assert_allclose(gradient, gradient_torch, rtol=1e-9, atol=1e-12)


def test_fit_increases_the_objective_and_turns_towards_the_informative_features():
    X, y = blobs(n=400, d=6, seed=7)
    X[:, 2:] *= 3.0  # loud noise: PCA's directions are the noise features
    model = NCA(2, init="pca", max_iter=300).fit(X, y)
    start = NCA(2, init="pca")._initial_map(X)
    assert model.objective_ > nca.objective(X, y, start)[0]

    def informative_over_noise(A):
        # how much each feature moves the map, per unit of the feature's spread
        effect = np.linalg.norm(A, axis=0) * X.std(axis=0)
        return effect[:2].min() / effect[2:].max()

    assert informative_over_noise(model.components_) > 10 * informative_over_noise(
        start
    )


def test_quality_matches_scikit_learn():
    X, y = datasets.digits()
    X, y = X[:600], y[:600]
    train, test = np.arange(0, 600, 2), np.arange(1, 600, 2)
    init = SkPCA(2).fit(X[train]).components_
    accuracies = []
    for model in [NCA(2, init=init, max_iter=40), SkNCA(2, init=init, max_iter=40)]:
        model.fit(X[train], y[train])
        knn = KNeighborsClassifier(5).fit(model.transform(X[train]), y[train])
        accuracies.append(knn.score(model.transform(X[test]), y[test]))
    assert abs(accuracies[0] - accuracies[1]) <= 0.01 + 1e-12
    assert accuracies[0] > 0.5  # far above chance (0.1): the map was learned


def test_initialisations():
    X, y = blobs()
    np.testing.assert_array_equal(
        NCA(2, init="identity", max_iter=1)._initial_map(X), np.eye(2, 5)
    )
    pca = NCA(2, init="pca")._initial_map(X)
    np.testing.assert_allclose(np.abs(pca), np.abs(SkPCA(2).fit(X).components_))
    assert NCA(2)._initial_map(X).shape == (2, 5)  # auto -> pca
    np.testing.assert_array_equal(NCA()._initial_map(X), np.eye(5))  # auto -> identity
    a = NCA(2, init="random", random_state=3)._initial_map(X)
    np.testing.assert_array_equal(
        a, NCA(2, init="random", random_state=3)._initial_map(X)
    )
    init = np.eye(2, 5)
    model = NCA(init=init, max_iter=5).fit(X, y)
    assert model.components_.shape == (2, 5)
    np.testing.assert_array_equal(init, np.eye(2, 5))  # the caller's array is untouched


def test_transform_applies_the_learned_map():
    X, y = blobs()
    model = NCA(2, max_iter=10).fit(X, y)
    np.testing.assert_allclose(model.transform(X), X @ model.components_.T)
    np.testing.assert_allclose(model.fit_transform(X, y), model.transform(X))


@pytest.mark.parametrize(
    ("kwargs", "y_change", "match"),
    [
        ({}, lambda y: y[:-1], "length"),
        ({}, lambda y: np.zeros_like(y), "single class"),
        ({"n_components": 9}, None, "n_components"),
        ({"init": "lda"}, None, "init"),
        ({"init": np.eye(2, 4)}, None, "init has 4 columns"),
        ({"init": np.eye(2, 5), "n_components": 3}, None, "n_components"),
        ({"max_iter": 0}, None, "max_iter"),
        ({"tol": -1.0}, None, "tol"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs, y_change, match):
    X, y = blobs()
    y = y if y_change is None else y_change(y)
    with pytest.raises(ValueError, match=match):
        NCA(**kwargs).fit(X, y)


def test_nan_is_a_clear_error():
    X, y = blobs()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        NCA(2).fit(X, y)


@parametrize_with_checks([NCA(2, max_iter=20)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
