"""NeRV and ClassNeRV (book/08_nerv_classnerv): stress and gradient against autograd,
epsilon = 0 is NeRV, the estimators' contract, and clear errors on bad input."""

import numpy as np
import pytest
import torch
from sklearn.utils.estimator_checks import parametrize_with_checks

from dr_lib import ClassNeRV, NeRV, metrics, nerv, sne


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(3, 5))
    y = np.arange(n) % 3
    X = centres[y] + rng.normal(size=(n, 5))
    Z = rng.normal(scale=2.0, size=(n, 2))
    return X, y, Z


def _torch_stress(X, Z, y, tau_in, tau_out, perplexity):
    """The stress from its definition: softmax neighbourhoods, generalised KL per
    pair."""
    _, beta, _ = sne.calibrate_precisions(
        sne.squared_distances(X), perplexity, diagonal_is_self=True
    )
    beta = torch.tensor(beta)[:, None]
    Xt = torch.tensor(X)
    Zt = torch.tensor(Z, requires_grad=True)
    eye = torch.eye(len(X), dtype=torch.bool)
    log_p = torch.log_softmax(
        (-beta * ((Xt[:, None, :] - Xt[None, :, :]) ** 2).sum(-1)).masked_fill(
            eye, -np.inf
        ),
        1,
    )
    dz = ((Zt[:, None, :] - Zt[None, :, :]) ** 2).sum(-1)
    log_q = torch.log_softmax((-beta * dz).masked_fill(eye, -np.inf), 1)
    same = torch.tensor(y[:, None] == y[None, :])
    as64 = lambda t: torch.tensor(t, dtype=torch.float64)  # noqa: E731
    tau = torch.where(same, as64(tau_in), as64(tau_out))
    p, q = log_p.exp(), log_q.exp()
    lp, lq = log_p.masked_fill(eye, 0.0), log_q.masked_fill(eye, 0.0)
    missed = p * (lp - lq) - p + q
    false = q * (lq - lp) - q + p
    J = (tau * missed + (1 - tau) * false).masked_fill(eye, 0.0).sum()
    J.backward()
    return J.item(), Zt.grad.numpy()


@pytest.mark.parametrize(
    "tau_in, tau_out", [(1.0, 1.0), (0.0, 0.0), (0.3, 0.3), (1.0, 0.0), (0.7, 0.3)]
)
def test_stress_and_gradient_match_autograd(tau_in, tau_out):
    X, y, Z = _data()
    cost, grad = nerv.stress_gradient(
        X, Z, y, tau_in=tau_in, tau_out=tau_out, perplexity=8.0
    )
    ref_cost, ref_grad = _torch_stress(X, Z, y, tau_in, tau_out, 8.0)
    assert cost == pytest.approx(ref_cost, rel=1e-9)
    np.testing.assert_allclose(
        grad, ref_grad, rtol=1e-7, atol=1e-10 * np.abs(ref_grad).max()
    )


def _dense_stress(P, log_P, beta, same, tau_in, tau_out, Z):
    """Stress and gradient with N x N numpy arrays, eq-classnerv-c and
    eq-nerv-gradient."""
    n = len(P)
    off = ~np.eye(n, dtype=bool)
    tau = np.where(same, tau_in, tau_out)
    S = beta[:, None] * sne.squared_distances(Z)
    S[~off] = np.inf
    log_q = -S - np.log(np.exp(-S).sum(axis=1, keepdims=True))
    Q = np.exp(log_q)
    ratio = np.zeros_like(P)
    ratio[off] = log_q[off] - log_P[off]
    cost = np.sum(tau * (Q - P - P * ratio) + (1 - tau) * (Q * ratio - Q + P))
    C = tau * (Q - P) + (1 - tau) * Q * ratio
    C[~off] = 0.0
    M = -beta[:, None] * (C - Q * C.sum(axis=1, keepdims=True))
    W = M + M.T
    return cost, 2 * (W.sum(axis=1)[:, None] * Z - W @ Z)


# 203 rows: 16 blocks of 13 with a short last one; 3-D maps take the general path
@pytest.mark.parametrize("n_components", [2, 3])
@pytest.mark.parametrize("tau_in, tau_out", [(1.0, 0.0), (0.4, 0.4), (0.0, 0.0)])
def test_block_kernel_matches_dense_numpy(n_components, tau_in, tau_out):
    X, y, _ = _data(203, seed=3)
    Z = np.random.default_rng(4).normal(scale=3.0, size=(len(X), n_components))
    P, log_P, beta = nerv.neighbourhoods(X, 12.0)
    ref_cost, ref_grad = _dense_stress(
        P, log_P, beta, y[:, None] == y[None, :], tau_in, tau_out, Z
    )
    cost, grad = nerv.stress_gradient(
        X, Z, y, tau_in=tau_in, tau_out=tau_out, perplexity=12.0
    )
    assert cost == pytest.approx(ref_cost, rel=1e-12)
    np.testing.assert_allclose(
        grad, ref_grad, rtol=0, atol=1e-12 * np.abs(ref_grad).max()
    )


def test_gradient_does_not_depend_on_the_number_of_threads():
    numba = pytest.importorskip("numba")
    X, y, Z = _data(150, seed=5)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = nerv.stress_gradient(X, Z, y, tau_in=1.0, tau_out=0.0, perplexity=9.0)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = nerv.stress_gradient(X, Z, y, tau_in=1.0, tau_out=0.0, perplexity=9.0)
    finally:
        numba.set_num_threads(before)
    assert one[0] == many[0]
    np.testing.assert_array_equal(one[1], many[1])


def test_nerv_stress_is_the_weighted_pair_of_kl_divergences():
    X, _, Z = _data()
    P, log_P, beta = nerv.neighbourhoods(X, 8.0)
    D2 = sne.squared_distances(Z)
    np.fill_diagonal(D2, np.inf)
    Q = np.exp(-beta[:, None] * D2)
    Q /= Q.sum(axis=1, keepdims=True)
    off = ~np.eye(len(X), dtype=bool)
    kl_pq = np.sum(P[off] * np.log(P[off] / Q[off]))
    kl_qp = np.sum(Q[off] * np.log(Q[off] / P[off]))
    for tau in (0.0, 0.25, 1.0):
        cost, _ = nerv.stress_gradient(X, Z, tau_in=tau, perplexity=8.0)
        assert cost == pytest.approx(tau * kl_pq + (1 - tau) * kl_qp, rel=1e-10)


def test_log_p_stays_finite_where_p_underflows():
    X, _, _ = _data()
    X[0] += 1e3  # an outlier: its p_{j|i} to the others underflow
    P, log_P, _ = nerv.neighbourhoods(X, 8.0)
    assert np.all(np.isfinite(log_P[~np.eye(len(X), dtype=bool)]))
    np.testing.assert_allclose(np.exp(log_P), P, atol=1e-12)
    assert (P[1:, 0] == 0).any()


def test_epsilon_zero_is_nerv_exactly():
    X, y, _ = _data(60)
    a = ClassNeRV(tau_star=0.3, epsilon=0.0, perplexity=10, max_iter=60).fit(X, y)
    b = NeRV(tau=0.3, perplexity=10, max_iter=60).fit(X)
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    assert a.stress_ == b.stress_


def test_class_weights_and_admissible_set():
    assert nerv.class_weights(0.5, 0.5) == (1.0, 0.0)
    assert nerv.class_weights(0.3, 0.1) == pytest.approx((0.4, 0.2))
    with pytest.raises(ValueError, match="epsilon.*min\\(tau_star, 1 - tau_star\\)"):
        nerv.class_weights(0.8, 0.3)
    with pytest.raises(ValueError, match="epsilon"):
        nerv.class_weights(0.5, -0.1)
    with pytest.raises(ValueError, match="tau_star.*\\[0, 1\\]"):
        nerv.class_weights(1.5, 0.0)


def test_fit_lowers_the_stress_and_classnerv_gathers_classes():
    X, y, _ = _data(90, seed=1)
    X += np.random.default_rng(2).normal(scale=3.0, size=X.shape)  # overlapping classes
    start, _ = nerv.stress_gradient(
        X,
        nerv._initial_map(X, 2, "pca", None, None),
        y,
        tau_in=1.0,
        tau_out=0.0,
        perplexity=10,
    )
    model = ClassNeRV(perplexity=10, max_iter=300).fit(X, y)
    assert model.stress_ < start
    assert 0 < model.n_iter_ <= 300
    nerv_map = NeRV(perplexity=10, max_iter=300).fit_transform(X)
    gain_class = metrics.knn_gain(X, model.embedding_, y, 10)
    gain_nerv = metrics.knn_gain(X, nerv_map, y, 10)
    assert gain_class > gain_nerv


def test_estimator_owns_its_init():
    X, y, Z = _data()
    model = ClassNeRV(perplexity=8, max_iter=5, init=Z)
    model.fit(X, y)
    Z[:] = 0.0
    assert np.abs(model.embedding_).sum() > 0


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda X, y: ClassNeRV(perplexity=8).fit(X, y[:-1]), "y has length"),
        (lambda X, y: ClassNeRV(perplexity=8).fit(X, np.zeros(len(X))), "single class"),
        (lambda X, y: ClassNeRV(perplexity=8).fit(X, None), "requires y"),
        (lambda X, y: ClassNeRV(perplexity=8, epsilon=0.6).fit(X, y), "epsilon"),
        (lambda X, y: ClassNeRV(perplexity=8, tau_star=-0.1).fit(X, y), "tau_star"),
        (lambda X, y: NeRV(perplexity=8, tau=1.2).fit(X), "tau"),
        (lambda X, y: NeRV(perplexity=80).fit(X), "perplexity"),
        (lambda X, y: NeRV(perplexity=8, learning_rate=0).fit(X), "learning_rate"),
    ],
)
def test_bad_input_names_the_parameter(make, match):
    X, y, _ = _data()
    with pytest.raises(ValueError, match=match):
        make(X, y)


def test_nan_is_refused():
    X, y, _ = _data()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        NeRV(perplexity=8).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        ClassNeRV(perplexity=8).fit(np.nan_to_num(X), np.where(y == 0, np.nan, y))


# The checks' data sets have 20 to 30 samples: perplexity 5, a short fit.
@parametrize_with_checks(
    [
        NeRV(perplexity=5, max_iter=20),
        ClassNeRV(perplexity=5, max_iter=20),
    ],
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
