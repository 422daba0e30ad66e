"""ClassNeRV's weights and stress against the statements of book/08_nerv_classnerv."""

import numpy as np
import pytest
from scipy.special import rel_entr

from dr_lib import nerv


def test_admissible_set_is_where_the_four_weights_are_non_negative():
    # eq-classnerv-admissible; a dyadic grid makes every sum exact in floating point
    step = 1 / 32
    for tau_star in np.arange(0, 1 + step, step):
        for epsilon in np.arange(-0.5, 1 + step, step):
            t_in, t_out = tau_star + epsilon, tau_star - epsilon
            admissible = epsilon >= 0 and min(t_in, 1 - t_in, t_out, 1 - t_out) >= 0
            if admissible:
                assert nerv.class_weights(tau_star, epsilon) == (t_in, t_out)
            else:
                with pytest.raises(ValueError, match="epsilon"):
                    nerv.class_weights(tau_star, epsilon)


@pytest.mark.parametrize("epsilon", [0.0, 0.15, 0.4])
def test_classnerv_stress_is_nerv_plus_epsilon_times_the_class_term(epsilon):
    # eq-classnerv-split: NeRV with plain KL divergences, plus epsilon times a class
    # term
    rng = np.random.default_rng(7)
    y = np.arange(45) % 3
    X = rng.normal(scale=4.0, size=(3, 5))[y] + rng.normal(size=(45, 5))
    Z = rng.normal(scale=2.0, size=(45, 2))
    P, _, beta = nerv.neighbourhoods(X, 9.0)
    D2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    np.fill_diagonal(D2, np.inf)
    Q = np.exp(-beta[:, None] * (D2 - D2.min(axis=1, keepdims=True)))
    Q /= Q.sum(axis=1, keepdims=True)
    off = ~np.eye(45, dtype=bool)
    p, q = P[off], Q[off]
    chi = np.where(y[:, None] == y[None, :], 1.0, -1.0)[off]
    d_pq, d_qp = rel_entr(p, q) - p + q, rel_entr(q, p) - q + p
    tau_star = 0.45
    expected = tau_star * rel_entr(p, q).sum() + (1 - tau_star) * rel_entr(q, p).sum()
    expected += epsilon * np.sum(chi * (d_pq - d_qp))
    cost, _ = nerv.stress_gradient(
        X, Z, y, tau_in=tau_star + epsilon, tau_out=tau_star - epsilon, perplexity=9.0
    )
    assert cost == pytest.approx(expected, rel=1e-10)
