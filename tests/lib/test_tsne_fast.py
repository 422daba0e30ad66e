"""The fast t-SNE kernels (sparse attraction, Barnes–Hut, FFT interpolation) and the
optimiser.

Every approximation is compared with the exact sums written as dense numpy here; the
tolerances are the ones book/07_sne_tsne states and measures.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from dr_lib import _tsne_bh, _tsne_fft, sne, tsne
from dr_lib._optimize import (
    Phase,
    _frobenius_norm,
    _rms_radius,
    gradient_descent,
    momentum_phases,
)
from dr_lib._tsne_attraction import attractive_forces, sum_p_log_w

RNG = np.random.default_rng(20)


def exact_sums(Z, dof, reference=None):
    """s_i = sum_j w_ij and r_i = sum_j w_ij w_ij^(1/alpha) (z_i - z_j), dense, j !=
    i."""
    reference = Z if reference is None else reference
    D2 = ((Z[:, None] - reference[None]) ** 2).sum(-1)
    W = sne.student_t_kernel(D2, dof)
    F = W * sne.kernel_force_factor(D2, dof)
    if reference is Z:
        np.fill_diagonal(W, 0.0)
        np.fill_diagonal(F, 0.0)
    return W.sum(axis=1), F.sum(axis=1)[:, None] * Z - F @ reference


def relative(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


# ------------------------------------------------------------------- attraction


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("dof", [1.0, 0.7, np.inf])
def test_sparse_attraction_equals_the_dense_sum(d, dof):
    X, _ = make_blobs(200, n_features=5, random_state=1)
    P = sne.joint_probabilities(X, 10.0, method="knn")
    Z = RNG.normal(size=(200, d)) * 3
    D2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    M = P.toarray() * sne.kernel_force_factor(D2, dof)
    dense = M.sum(axis=1)[:, None] * Z - M @ Z
    np.testing.assert_allclose(
        attractive_forces(P, Z, dof), dense, rtol=1e-12, atol=1e-15
    )
    W = sne.student_t_kernel(D2, dof)
    expected = np.sum(P.toarray() * np.log(np.where(P.toarray() > 0, W, 1.0)), axis=1)
    np.testing.assert_allclose(sum_p_log_w(P, Z, dof), expected, rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------- Barnes–Hut


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("dof", [1.0, 0.5, 4.0, np.inf])
def test_barnes_hut_with_theta_zero_is_exact(d, dof):
    Z = RNG.normal(size=(300, d)) * 4
    Z[7] = Z[8] = Z[9]  # duplicates share a leaf
    s, r = _tsne_bh.repulsion(_tsne_bh.build_tree(Z), Z, 0.0, dof)
    s_ex, r_ex = exact_sums(Z, dof)
    # s_i is the walk's total minus the point's own w = 1: absolute rounding ~1e-16
    np.testing.assert_allclose(s, s_ex, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r, r_ex, rtol=1e-10, atol=1e-12 * np.abs(r_ex).max())


# measured on this cloud (span ~70): s 1.2e-3, 1.2e-2, 3.2e-2; r 3.0e-3, 2.8e-2, 8.7e-2
@pytest.mark.parametrize(
    "theta, tol_s, tol_r", [(0.2, 2e-3, 5e-3), (0.5, 2e-2, 4e-2), (0.8, 5e-2, 0.12)]
)
def test_barnes_hut_error_grows_with_theta_but_stays_small(theta, tol_s, tol_r):
    Z = RNG.normal(size=(2000, 2)) * 10
    s, r = _tsne_bh.repulsion(_tsne_bh.build_tree(Z), Z, theta, 1.0)
    s_ex, r_ex = exact_sums(Z, 1.0)
    assert relative(s, s_ex) < tol_s
    assert relative(r, r_ex) < tol_r


def test_barnes_hut_error_falls_as_theta_falls():
    Z = RNG.normal(size=(1000, 2)) * 10
    tree = _tsne_bh.build_tree(Z)
    _, r_ex = exact_sums(Z, 1.0)
    errors = [
        relative(_tsne_bh.repulsion(tree, Z, theta, 1.0)[1], r_ex)
        for theta in (0.8, 0.4, 0.2, 0.1)
    ]
    assert all(b < a / 2 for a, b in zip(errors, errors[1:]))  # about theta^2


def test_tree_counts_and_centres_of_mass():
    Z = RNG.normal(size=(500, 2))
    tree = _tsne_bh.build_tree(Z)
    assert tree.count[0] == 500
    np.testing.assert_allclose(tree.centre_of_mass[0], Z.mean(axis=0), atol=1e-14)
    leaves = (tree.first_child == -1) & (tree.count > 0)
    assert tree.count[leaves].sum() == 500  # every point in exactly one leaf
    children = tree.first_child[tree.first_child >= 0]
    for first in children[:50]:
        parent = np.flatnonzero(tree.first_child == first)[0]
        assert tree.count[first : first + 4].sum() == tree.count[parent]


def test_tree_of_identical_points_is_one_leaf():
    tree = _tsne_bh.build_tree(np.ones((50, 2)))
    assert tree.n_cells == 1 and tree.count[0] == 50
    s, r = _tsne_bh.repulsion(tree, np.ones((50, 2)), 0.5, 1.0)
    np.testing.assert_allclose(s, 49.0)  # 49 others at distance 0, w = 1
    np.testing.assert_allclose(r, 0.0)


def test_morton_order_is_a_permutation_that_keeps_neighbours_close():
    Z = RNG.uniform(size=(4096, 2))
    order = _tsne_bh.morton_order(Z)
    assert sorted(order) == list(range(4096))
    steps = np.linalg.norm(np.diff(Z[order], axis=0), axis=1)
    random_steps = np.linalg.norm(np.diff(Z, axis=0), axis=1)
    assert np.median(steps) < np.median(random_steps) / 5


def test_repulsion_on_points_outside_the_tree():
    reference = RNG.normal(size=(400, 2)) * 5
    new = RNG.normal(size=(30, 2)) * 5
    tree = _tsne_bh.build_tree(reference)
    s, r = _tsne_bh.repulsion(tree, new, 0.0, 1.0, in_tree=False)
    s_ex, r_ex = exact_sums(new, 1.0, reference)
    np.testing.assert_allclose(s, s_ex, rtol=1e-12)
    np.testing.assert_allclose(r, r_ex, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------- FFT interpolation


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("scale", [0.5, 5.0, 40.0, 400.0])
def test_fft_repulsion_matches_exact_at_every_map_scale(d, scale):
    Z = RNG.normal(size=(1500, d)) * scale
    s, r = _tsne_fft.repulsion(Z, 1.0)
    s_ex, r_ex = exact_sums(Z, 1.0)
    assert relative(s, s_ex) < 5e-3
    assert relative(r, r_ex) < 5e-2


@pytest.mark.parametrize("dof", [0.5, 3.0, np.inf])
def test_fft_repulsion_other_kernels(dof):
    Z = RNG.normal(size=(1000, 2)) * 3
    s, r = _tsne_fft.repulsion(Z, dof)
    s_ex, r_ex = exact_sums(Z, dof)
    assert relative(s, s_ex) < 5e-3
    assert relative(r, r_ex) < 5e-2


def test_fft_error_falls_with_more_intervals():
    # the interpolation alone (no exact near field): error ~ h^3, 8x per halving of h
    Z = RNG.normal(size=(1000, 2)) * 3
    _, r_ex = exact_sums(Z, 1.0)
    errors = []
    for n_boxes in (20, 40, 80, 160):
        grid = _tsne_fft.make_grid(Z, min_intervals=n_boxes, max_intervals=n_boxes)
        grid.exact_near_field = False
        errors.append(relative(_tsne_fft.repulsion(Z, 1.0, grid)[1], r_ex))
    assert all(b < a / 5 for a, b in zip(errors, errors[1:]))
    assert errors[-1] < 1e-4


def test_the_grid_is_bounded_and_switches_to_an_exact_near_field():
    small = _tsne_fft.make_grid(RNG.normal(size=(100, 2)))
    large = _tsne_fft.make_grid(RNG.normal(size=(100, 2)) * 1e4)
    assert small.n_boxes == _tsne_fft.MIN_INTERVALS and not small.exact_near_field
    assert large.n_boxes == _tsne_fft.MAX_INTERVALS[2] and large.exact_near_field
    assert large.fft_length % 2 == 0 and large.fft_length >= 2 * large.n_nodes - 2


def test_bounded_grid_with_near_field_beats_the_grid_alone():
    Z = RNG.normal(size=(1500, 2)) * 60
    _, r_ex = exact_sums(Z, 1.0)
    grid = _tsne_fft.make_grid(Z)
    assert grid.exact_near_field
    with_near = relative(_tsne_fft.repulsion(Z, 1.0, grid)[1], r_ex)
    grid.exact_near_field = False  # the same grid without the exact near field
    without = relative(_tsne_fft.repulsion(Z, 1.0, grid)[1], r_ex)
    assert with_near < 2e-2 < 1.0 < without


# ------------------------------------------------------------------- the three methods


# Measured on this map (span ~55): cost 5.5e-3 (BH) and 2e-5 (FFT) relative; gradient
# error / norm of the exact repulsive term 1.8e-2 (BH, theta = 0.5) and 1.4e-2 (FFT).
# Near convergence attraction and repulsion cancel (the gradient is ~15 % of the
# repulsion), so the error is measured against the term that is approximated, and also
# against the gradient itself: an error smaller than the exact gradient keeps the fast
# gradient a descent direction for the exact cost (<g + e, g> >= |g|(|g| - |e|) > 0),
# which is what the optimiser needs and what book/07_sne_tsne asserts on its stored map.
@pytest.mark.parametrize(
    "method, cost_tol, grad_tol", [("barnes_hut", 1e-2, 3e-2), ("fft", 1e-3, 3e-2)]
)
def test_fast_gradients_match_the_exact_gradient_on_a_tsne_map(
    method, cost_tol, grad_tol
):
    X, _ = make_blobs(800, n_features=10, centers=4, random_state=3)
    P = sne.joint_probabilities(X, 20.0, method="knn")
    Z = tsne.TSNE(method="exact", max_iter=400, random_state=0).fit(X).embedding_
    exact_cost, exact_grad = tsne.gradient(P.toarray(), Z, method="exact")
    s_ex, r_ex = exact_sums(Z, 1.0)
    repulsive = 4.0 * r_ex / s_ex.sum()
    cost, grad = tsne.gradient(P, Z, method=method)
    assert abs(cost - exact_cost) < cost_tol * exact_cost
    error = np.linalg.norm(grad - exact_grad)
    assert error < grad_tol * np.linalg.norm(repulsive)
    assert error < np.linalg.norm(exact_grad)  # still a descent direction
    assert np.sum(grad * exact_grad) > 0


def test_fast_gradients_are_near_exact_on_a_small_map():
    # early in the optimisation the map spans a few units: both methods within 1e-4
    X, _ = make_blobs(800, n_features=10, centers=4, random_state=3)
    P = sne.joint_probabilities(X, 20.0, method="knn")
    Z = tsne.TSNE(method="exact", max_iter=200, random_state=0).fit(X).embedding_
    _, exact_grad = tsne.gradient(P.toarray(), Z, method="exact")
    for method in ("barnes_hut", "fft"):
        _, grad = tsne.gradient(P, Z, method=method)
        assert relative(grad, exact_grad) < 1e-4


# ------------------------------------------------------------------- the optimiser


def quadratic(target):
    """J = 1/2 ||Z - target||^2, gradient Z - target."""

    def evaluate(Z, exaggeration, compute_cost):
        cost = 0.5 * np.sum((Z - target) ** 2) if compute_cost else None
        return cost, Z - target

    return evaluate


def test_optimiser_finds_the_minimum_and_stops_when_the_gradient_vanishes():
    target = RNG.normal(size=(10, 2))
    result = gradient_descent(
        np.zeros((10, 2)), quadratic(target), [Phase(5000, 0.1, 0.5)], recentre=False
    )
    np.testing.assert_allclose(result.embedding, target, atol=1e-7)
    assert result.n_iter < 5000
    assert result.cost < 1e-13


def test_a_small_gradient_below_min_radius_does_not_end_the_phase():
    # the minimum of this cost is a map 1e-6 wide: with min_radius the optimiser keeps
    # going (all 300 iterations); without, it stops once the gradient is below 1e-7
    target = 1e-6 * RNG.normal(size=(10, 2))
    phases = [Phase(300, 0.1, 0.5)]
    kept = gradient_descent(
        np.zeros((10, 2)), quadratic(target), phases, recentre=False, min_radius=1.0
    )
    stopped = gradient_descent(
        np.zeros((10, 2)), quadratic(target), phases, recentre=False
    )
    assert kept.n_iter == 300
    assert stopped.n_iter < 300


def test_the_map_radius_is_the_rms_distance_from_the_mean():
    Z = RNG.normal(size=(500, 3)) + 7.0
    expected = np.sqrt(((Z - Z.mean(axis=0)) ** 2).sum(axis=1).mean())
    assert _rms_radius(Z) == pytest.approx(expected, rel=1e-12)


def test_the_stopping_norm_is_the_frobenius_norm():
    # computed in a loop rather than by BLAS (see _optimize._frobenius_norm)
    grad = RNG.normal(size=(20_000, 2))
    assert _frobenius_norm(grad) == pytest.approx(np.linalg.norm(grad), rel=1e-12)
    assert _frobenius_norm(np.zeros((3, 2))) == 0.0


def test_a_converged_phase_hands_over_to_the_next():
    # the first phase reaches its minimum and stops early; the second, whose cost has
    # another minimum (the exaggeration shifts the target), still runs
    target = RNG.normal(size=(5, 2))

    def evaluate(Z, exaggeration, compute_cost):
        shifted = exaggeration * target
        cost = 0.5 * np.sum((Z - shifted) ** 2) if compute_cost else None
        return cost, Z - shifted

    result = gradient_descent(
        np.zeros((5, 2)),
        evaluate,
        [Phase(5000, 0.1, 0.5, 2.0), Phase(5000, 0.1, 0.5, 1.0)],
        recentre=False,
    )
    np.testing.assert_allclose(result.embedding, target, atol=1e-7)
    assert result.n_iter < 10_000


def test_optimiser_clips_steps():
    target = RNG.normal(size=(10, 2)) * 100 + 50
    result = gradient_descent(
        np.zeros((10, 2)),
        quadratic(target),
        [Phase(3, 10.0, 0.0)],
        max_step=1.0,
        recentre=False,
    )
    lengths = np.linalg.norm(result.embedding, axis=1)
    np.testing.assert_allclose(lengths, 3.0)  # 3 clipped steps of length 1, straight


def test_optimiser_recentres():
    target = RNG.normal(size=(10, 2)) + 50
    result = gradient_descent(
        np.zeros((10, 2)), quadratic(target), [Phase(5, 0.1, 0.5)]
    )
    np.testing.assert_allclose(result.embedding.mean(axis=0), 0.0, atol=1e-12)
    # the differences between points still move towards the target's
    spread = result.embedding - target + target.mean(axis=0)
    assert np.linalg.norm(spread) < np.linalg.norm(target - target.mean(axis=0))


def test_optimiser_passes_each_phase_its_exaggeration_and_records_costs():
    seen = []

    def evaluate(Z, exaggeration, compute_cost):
        seen.append(exaggeration)
        return (1.0 if compute_cost else None), np.ones_like(Z)

    result = gradient_descent(
        np.zeros((4, 2)),
        evaluate,
        [Phase(3, 1.0, 0.5, 12.0), Phase(4, 1.0, 0.8, 1.0)],
        cost_every=2,
    )
    assert seen == [12.0] * 3 + [1.0] * 5  # and once more for the final cost
    assert [it for it, _ in result.history] == [2, 4, 6]
    assert result.n_iter == 7


@pytest.mark.parametrize(
    ("n_iter", "switch", "lengths"), [(300, 100, (100, 200)), (60, 100, (60, 0))]
)
def test_momentum_phases_switch_once_and_add_up(n_iter, switch, lengths):
    phases = momentum_phases(n_iter, 0.3, switch)
    assert tuple(phase.n_iter for phase in phases) == lengths
    assert [phase.momentum for phase in phases] == [0.5, 0.8]
    assert {phase.learning_rate for phase in phases} == {0.3}


def test_gains_grow_while_the_direction_holds():
    # a constant gradient: the gain grows by 0.2 per step, so steps lengthen linearly
    positions = []

    def evaluate(Z, exaggeration, compute_cost):
        positions.append(Z[0, 0])
        return (0.0 if compute_cost else None), np.full_like(Z, -1.0)

    gradient_descent(np.zeros((1, 1)), evaluate, [Phase(4, 1.0, 0.0)], recentre=False)
    steps = np.diff(positions[:5])
    np.testing.assert_allclose(steps, [1.2, 1.4, 1.6, 1.8])


def test_gradient_rejects_fft_in_three_dimensions():
    P = sp.identity(5, format="csr") / 5
    with pytest.raises(ValueError, match="method='fft' supports maps of at most 2"):
        tsne.gradient(P, np.zeros((5, 3)), method="fft")
