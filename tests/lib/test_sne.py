"""dr_lib.sne: perplexity calibration, P against scikit-learn, costs and gradients."""

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import squareform
from sklearn.datasets import make_blobs
from sklearn.manifold._t_sne import (
    _joint_probabilities,
    _joint_probabilities_nn,
    _kl_divergence,
)

from dr_lib import sne

# Not the book's data: scikit-learn's blob generator with its own seed.
X, LABELS = make_blobs(n_samples=150, n_features=6, centers=3, random_state=11)


# --------------------------------------------------------------- entropy and perplexity


def test_entropy_reproduces_the_sources_examples():
    # [S]: 26 equally likely letters -> H = log2 26 = 4.70 bits, perplexity 26;
    # (1/2, 1/4, 1/4) -> H = 1.5 bits, perplexity 2^1.5 = 2.83.
    letters = np.full((1, 26), 1 / 26)
    three = np.array([[0.5, 0.25, 0.25]])
    np.testing.assert_allclose(sne.entropy_bits(letters), [np.log2(26)])
    np.testing.assert_allclose(sne.perplexity_of_rows(letters), [26.0])
    np.testing.assert_allclose(sne.entropy_bits(three), [1.5])
    np.testing.assert_allclose(sne.perplexity_of_rows(three), [2**1.5])


def test_entropy_of_sparse_and_dense_rows_agree():
    P = sne.conditional_probabilities(X, 10.0, method="knn")
    np.testing.assert_allclose(sne.entropy_bits(P), sne.entropy_bits(P.toarray()))


@pytest.mark.parametrize("method", ["exact", "knn"])
@pytest.mark.parametrize("perplexity", [2.0, 10.0, 30.0])
def test_every_row_has_the_target_perplexity(method, perplexity):
    P = sne.conditional_probabilities(X, perplexity, method=method)
    # tolerance: ENTROPY_TOL nats on H, so perplexity within a factor e^1e-5
    np.testing.assert_allclose(sne.perplexity_of_rows(P), perplexity, rtol=2e-5)
    row_sums = np.asarray(P.sum(axis=1)).ravel()
    np.testing.assert_allclose(row_sums, 1.0, atol=1e-12)


def test_entropy_decreases_as_beta_grows():
    rng = np.random.default_rng(0)
    d2 = rng.exponential(size=(1, 40))
    betas = np.logspace(-3, 2, 60)
    H = []
    for beta in betas:
        p = np.exp(-beta * d2)
        p /= p.sum()
        H.append(sne.entropy_bits(p)[0])
    assert np.all(np.diff(H) < 0)


def test_bisection_reports_its_steps_and_precisions():
    D2 = sne.squared_distances(X)
    P, beta, steps = sne.calibrate_precisions(D2, 10.0, diagonal_is_self=True)
    assert np.all(np.diag(P) == 0)
    assert np.all(beta > 0)
    assert steps.max() < sne.MAX_BISECTION_STEPS
    # beta_i reproduces row i from the definition
    i = 17
    row = np.exp(-beta[i] * np.delete(D2[i], i))
    np.testing.assert_allclose(np.delete(P[i], i), row / row.sum(), rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(8, 40),
    scale=st.floats(1e-3, 1e3),
    perplexity=st.floats(1.5, 6.0),
)
def test_calibration_reaches_the_target_at_any_scale(seed, n, scale, perplexity):
    data = np.random.default_rng(seed).normal(size=(n, 3)) * scale
    P = sne.conditional_probabilities(data, perplexity)
    np.testing.assert_allclose(sne.perplexity_of_rows(P), perplexity, rtol=2e-5)


# --------------------------------------------------------------- P against scikit-learn


def test_exact_joint_p_equals_sklearn():
    ours = sne.joint_probabilities(X, 20.0)
    theirs = squareform(_joint_probabilities(sne.squared_distances(X), 20.0, 0))
    np.fill_diagonal(theirs, 0.0)
    # scikit-learn bisects in float32 to the same entropy tolerance: 1e-4 relative
    np.testing.assert_allclose(ours, theirs, rtol=2e-4, atol=1e-12)


def test_knn_joint_p_equals_sklearn_on_the_same_neighbours():
    from dr_lib.graphs import kneighbors

    k = sne.neighbour_count(10.0, len(X))
    distances, indices = kneighbors(X, k)
    graph = sp.csr_matrix(  # scikit-learn's TSNE squares the distances before the call
        ((distances**2).ravel(), indices.ravel(), np.arange(0, len(X) * k + 1, k)),
        shape=(len(X), len(X)),
    )
    theirs = _joint_probabilities_nn(graph, 10.0, 0).toarray()
    ours = sne.joint_probabilities(X, 10.0, method="knn").toarray()
    np.testing.assert_allclose(ours, theirs, rtol=2e-4, atol=1e-12)


@pytest.mark.parametrize("method", ["exact", "knn"])
def test_joint_p_is_symmetric_normalised_and_keeps_every_point(method):
    P = sne.joint_probabilities(X, 10.0, method=method)
    dense = P.toarray() if sp.issparse(P) else P
    np.testing.assert_allclose(dense, dense.T, atol=1e-15)
    assert abs(dense.sum() - 1) < 1e-12
    assert dense.sum(axis=1).min() > 1 / (2 * len(X))  # [S]'s bound


def test_knn_keeps_floor_three_perplexity_neighbours():
    P = sne.conditional_probabilities(X, 10.0, method="knn")
    assert np.all(np.diff(P.indptr) == 30)
    assert sne.neighbour_count(10.7, 1000) == 32
    assert sne.neighbour_count(50.0, 100) == 99


def test_duplicate_points_get_finite_probabilities():
    dup = np.vstack([X, X[:5], X[:5]])
    for method in ("exact", "knn"):
        P = sne.joint_probabilities(dup, 10.0, method=method)
        values = P.data if sp.issparse(P) else P
        assert np.all(np.isfinite(values))


# ------------------------------------------------------------------ costs and gradients


def _torch_tsne_cost(P, Z, dof, exaggeration=1.0):
    """KL(P || Q) from the definition and the exaggerated objective, in torch."""
    n = len(Z)
    Pt = torch.tensor(P)
    D2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    W = torch.exp(-D2) if np.isinf(dof) else (1 + D2 / dof) ** (-dof)
    W = W * (1 - torch.eye(n, dtype=torch.float64))
    Q = W / W.sum()
    mask = Pt > 0
    kl = (Pt[mask] * torch.log(Pt[mask] / Q[mask])).sum()
    # with P scaled by rho: -rho sum p log w + log sum w (+ constants)
    log_w = torch.log(W + torch.eye(n, dtype=torch.float64))
    objective = -exaggeration * (Pt * log_w).sum() + torch.log(W.sum())
    return kl, objective


@pytest.mark.parametrize("dof", [1.0, 0.5, 3.0, np.inf])
@pytest.mark.parametrize("exaggeration", [1.0, 12.0])
def test_tsne_gradient_equals_autograd(dof, exaggeration):
    P = sne.joint_probabilities(X[:60], 8.0)
    Z0 = np.random.default_rng(2).normal(size=(60, 2))
    cost, grad = sne.tsne_cost_gradient(P, Z0, dof, exaggeration=exaggeration)
    Z = torch.tensor(Z0, requires_grad=True)
    kl, objective = _torch_tsne_cost(P, Z, dof, exaggeration)
    objective.backward()
    assert abs(cost - kl.item()) < 1e-12
    np.testing.assert_allclose(grad, Z.grad.numpy(), rtol=1e-9, atol=1e-13)


def test_sne_gradient_equals_autograd():
    P = sne.conditional_probabilities(X[:60], 8.0)
    Z0 = np.random.default_rng(3).normal(size=(60, 2))
    cost, grad = sne.sne_cost_gradient(P, Z0)
    Z = torch.tensor(Z0, requires_grad=True)
    Pt = torch.tensor(P)
    inf_diagonal = torch.diag(torch.full((60,), float("inf"), dtype=torch.float64))
    Q = torch.softmax(-((Z[:, None] - Z[None]) ** 2).sum(-1) - inf_diagonal, dim=1)
    mask = Pt > 0
    kl = (Pt[mask] * torch.log(Pt[mask] / Q[mask])).sum()
    kl.backward()
    assert abs(cost - kl.item()) < 1e-10
    np.testing.assert_allclose(grad, Z.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_symmetric_sne_gradient_is_the_four_sum_formula():
    # dof = inf: dJ/dz_i = 4 sum_j (p_ij - q_ij)(z_i - z_j), written as a loop here
    P = sne.joint_probabilities(X[:30], 5.0)
    Z = np.random.default_rng(4).normal(size=(30, 3))
    Q = sne.joint_q(Z, np.inf)
    loop = np.array(
        [
            4 * sum((P[i, j] - Q[i, j]) * (Z[i] - Z[j]) for j in range(30))
            for i in range(30)
        ]
    )
    _, grad = sne.tsne_cost_gradient(P, Z, np.inf)
    np.testing.assert_allclose(grad, loop, rtol=1e-10, atol=1e-14)


def test_tsne_cost_and_gradient_equal_sklearn_exact():
    P = sne.joint_probabilities(X, 15.0)
    Z = np.random.default_rng(5).normal(size=(len(X), 2))
    cost, grad = sne.tsne_cost_gradient(P, Z)
    sk_cost, sk_grad = _kl_divergence(
        Z.ravel(), squareform(P, checks=False), 1, len(X), 2
    )
    assert abs(cost - sk_cost) < 1e-10 * max(1, cost)
    np.testing.assert_allclose(grad, sk_grad.reshape(Z.shape), rtol=1e-8, atol=1e-14)


def test_joint_q_normalises_over_all_pairs_not_per_row():
    Z = np.random.default_rng(6).normal(size=(20, 2))
    Q = sne.joint_q(Z)
    assert abs(Q.sum() - 1) < 1e-14
    assert not np.allclose(Q.sum(axis=1), 1)  # (10-32) as printed would make this hold


def test_student_t_kernel_limits():
    d2 = np.linspace(0, 9, 10)
    np.testing.assert_allclose(sne.student_t_kernel(d2, 1.0), 1 / (1 + d2))
    np.testing.assert_allclose(sne.student_t_kernel(d2, 1e8), np.exp(-d2), rtol=1e-6)
    np.testing.assert_allclose(sne.student_t_kernel(d2, np.inf), np.exp(-d2))
    assert np.all(sne.student_t_kernel(d2[1:], 0.5) > sne.student_t_kernel(d2[1:], 1.0))


# ------------------------------------------------------------------- bad input


@pytest.mark.parametrize("perplexity", [149.0, 200.0])
def test_perplexity_too_large(perplexity):
    with pytest.raises(
        ValueError, match=r"perplexity=.*smaller than n_samples - 1 = 149"
    ):
        sne.conditional_probabilities(X, perplexity)


@pytest.mark.parametrize("perplexity", [0.0, -3.0, np.nan])
def test_perplexity_not_positive(perplexity):
    with pytest.raises(ValueError, match=r"perplexity=.*> 0"):
        sne.joint_probabilities(X, perplexity)


def test_nan_in_X():
    bad = X.copy()
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match=r"X\[3, 1\]"):
        sne.joint_probabilities(bad, 5.0)


def test_unknown_affinity_method():
    with pytest.raises(ValueError, match="method='dense' is not one of 'exact', 'knn'"):
        sne.joint_probabilities(X, 5.0, method="dense")


def test_probability_matrix_checks():
    Z = np.zeros((5, 2))
    with pytest.raises(ValueError, match=r"P must have shape \(5, 5\)"):
        sne.tsne_cost_gradient(np.eye(4), Z)
    with pytest.raises(ValueError, match="all entries of P must sum to one"):
        sne.tsne_cost_gradient(np.ones((5, 5)) - np.eye(5), Z)
    with pytest.raises(ValueError, match="every row of P must sum to one"):
        sne.sne_cost_gradient((np.ones((5, 5)) - np.eye(5)) / 20, Z)


def test_equal_distances_reach_no_perplexity_below_their_count():
    # Eleven points at equal pairwise distances (the regular simplex of
    # book/07_sne_tsne/01_sne): every row has perplexity 10 whatever beta is.
    D2 = sne.squared_distances(np.eye(11))
    with pytest.raises(
        ValueError,
        match=r"perplexity=5 cannot be reached in row 0 \(and 10 other rows\).*"
        r"perplexity is 10 whatever its precision",
    ):
        sne.calibrate_precisions(D2, 5.0, diagonal_is_self=True)


def test_tied_nearest_candidates_bound_the_perplexity_from_below():
    # Five candidates tied at the smallest distance: perplexity > 5 is reached
    # (book/07_sne_tsne/03_tsne's exercise), perplexity 4 is not, and the message
    # names the row and the reachable range.
    row = np.r_[np.ones(5), np.full(20, 2.0)]
    rows = np.vstack([np.r_[1.0, np.full(24, 2.0)], row])
    P, _, _ = sne.calibrate_precisions(rows, 5.5)
    np.testing.assert_allclose(sne.perplexity_of_rows(P), 5.5, rtol=2e-5)
    with pytest.raises(ValueError, match=r"row 1 .*between 5 and 25"):
        sne.calibrate_precisions(rows, 4.0)


def test_duplicate_points_name_the_fix():
    data = np.vstack([np.repeat(X[:1], 4, axis=0), X[1:]])
    with pytest.raises(ValueError, match=r"remove the duplicate points"):
        sne.conditional_probabilities(data, 2.0)
    sne.conditional_probabilities(data, 4.0)
