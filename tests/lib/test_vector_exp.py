"""The vectorised exponential of NeRV's kernel against numpy's exp."""

from fractions import Fraction

import numpy as np
import pytest

from dr_lib._vector_exp import LN2_HI, LOWEST, exp_nonpositive


def _exp(x):
    x = np.asarray(x, dtype=np.float64)
    out, scratch = np.empty_like(x), np.empty_like(x)
    exp_nonpositive(x, out, scratch)
    return out


def test_within_two_units_in_the_last_place_over_the_whole_range():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            -rng.exponential(30.0, 200_000),
            -rng.uniform(0.0, -LOWEST, 200_000),
            -np.log(2.0) * (np.arange(1, 1000) / 2),  # the reduction's interval ends
            -np.spacing(1.0) * np.arange(1, 100),
        ]
    )
    exact = np.exp(x)
    assert np.max(np.abs(_exp(x) - exact) / np.spacing(exact)) <= 2.0


@pytest.mark.parametrize(
    ("x", "expected"),
    [(0.0, 1.0), (-0.0, 1.0), (-np.inf, 0.0), (LOWEST - 1e-9, 0.0), (-745.2, 0.0)],
)
def test_edge_values(x, expected):
    assert _exp([x])[0] == expected


def test_high_part_of_ln2_times_any_reachable_k_is_exact():
    # k ranges over -1022..0; k * LN2_HI must need no rounding, or r loses bits
    k = np.arange(-1022, 1, dtype=np.float64)
    products = k * LN2_HI
    assert all(
        Fraction(float(p)) == Fraction(int(kk)) * Fraction(LN2_HI)
        for kk, p in zip(k, products, strict=True)
    )
