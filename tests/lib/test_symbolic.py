"""Tests of dr_lib.symbolic: true identities pass, wrong ones fail loudly with their
label."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from dr_lib import _check_log, symbolic
from dr_lib.symbolic import Check, NumericCheckError, SymbolicCheckError

# ------------------------------------------------------------------------- helpers


def test_matrix_has_distinct_real_symbols_with_one_based_names():
    A = symbolic.matrix("a", 2, 3)
    assert A.shape == (2, 3)
    assert len(A.free_symbols) == 6
    assert str(A[0, 1]) == "a_{1,2}" and A[1, 2].is_real
    assert sp.latex(A[0, 1]) == "a_{1,2}"
    assert symbolic.matrix("b", 2, 2, real=False)[0, 0].is_real is None


def test_vector_and_diagonal_shapes():
    v = symbolic.vector("x", 4)
    assert v.shape == (4, 1) and [str(s) for s in v] == ["x_1", "x_2", "x_3", "x_4"]
    L = symbolic.diagonal("lambda", 3)
    assert L.shape == (3, 3) and L.is_diagonal() and len(L.free_symbols) == 3
    assert L[1, 1] == sp.Symbol("lambda_2", real=True)


@pytest.mark.parametrize("n, dim", [(2, 1), (4, 2), (5, 3)])
def test_centred_points_sum_to_zero(n, dim):
    Z = symbolic.centred_points(n, dim)
    assert Z.shape == (dim, n)
    assert sp.simplify(Z * sp.ones(n, 1)) == sp.zeros(dim, 1)
    assert len(Z.free_symbols) == dim * (n - 1)


def test_centred_points_rejects_a_single_point():
    with pytest.raises(ValueError, match="n=1 must be at least 2"):
        symbolic.centred_points(1, 2)


def test_style_guide_example_column_sums_of_squared_distances():
    # eq-mds-colsum from STYLE.md: sum_i d_ij^2 = tr(B) + N b_jj for centred points
    Z = symbolic.centred_points(n=4, dim=2)
    B = Z.T * Z

    def d2(i, j):
        diff = Z[:, i] - Z[:, j]
        return (diff.T * diff)[0]

    for j in range(4):
        symbolic.check_identity(
            sum(d2(i, j) for i in range(4)), B.trace() + 4 * B[j, j], "eq-mds-colsum"
        )


# ------------------------------------------------------------------ check_identity


def test_trace_is_cyclic_and_frobenius_norm_is_a_trace():
    A, B = symbolic.matrix("a", 2, 3), symbolic.matrix("b", 3, 2)
    check = symbolic.check_identity(
        (A * B).trace(), (B * A).trace(), "eq-found-trace-cyclic"
    )
    assert check == Check("eq-found-trace-cyclic", "symbolic", "sympy: exact")
    fro2 = sum(a**2 for a in A)
    symbolic.check_identity(fro2, (A * A.T).trace(), "eq-found-fro-trace")


def test_matrix_identity_holds():
    A, B = symbolic.matrix("a", 2, 2), symbolic.matrix("b", 2, 2)
    check = symbolic.check_identity((A * B).T, B.T * A.T, "eq-transpose-product")
    assert check.detail == "sympy: all 4 entries exact"


def test_trigonometric_identity_needs_simplify():
    x = sp.Symbol("x", real=True)
    symbolic.check_identity(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1, "eq-pythagoras")
    symbolic.check_identity(
        1 / (x - 1) - 1 / (x + 1), 2 / (x**2 - 1), "eq-partial-fractions"
    )
    with pytest.raises(SymbolicCheckError, match="eq-wrong-fraction"):
        symbolic.check_identity(
            1 / (x - 1) + 1 / (x + 1), 2 / (x**2 - 1), "eq-wrong-fraction"
        )


def test_wrong_trace_product_raises_with_label_and_residual():
    A, B = symbolic.matrix("a", 2, 2), symbolic.matrix("b", 2, 2)
    with pytest.raises(
        SymbolicCheckError, match="eq-wrong-trace does not hold"
    ) as info:
        symbolic.check_identity(
            (A * B).trace(), A.trace() * B.trace(), "eq-wrong-trace"
        )
    assert "a_{1,2}" in str(info.value)
    assert isinstance(info.value, AssertionError)


def test_sign_flip_in_a_matrix_raises():
    A = symbolic.matrix("a", 2, 2)
    with pytest.raises(SymbolicCheckError, match="eq-sign"):
        symbolic.check_identity((A - A.T).T, A - A.T, "eq-sign")


def test_shape_mismatch_raises():
    with pytest.raises(SymbolicCheckError, match=r"eq-shape.*\(2, 1\).*\(1, 2\)"):
        symbolic.check_identity(
            symbolic.vector("x", 2), symbolic.vector("x", 2).T, "eq-shape"
        )


def test_assumptions_are_used():
    x = sp.Symbol("x")
    with pytest.raises(SymbolicCheckError):
        symbolic.check_identity(sp.sqrt(x**2), x, "eq-root")
    symbolic.check_identity(sp.sqrt(x**2), x, "eq-root", assumptions=sp.Q.positive(x))


def test_long_residual_is_truncated():
    A, B = symbolic.matrix("a", 6, 6), symbolic.matrix("b", 6, 6)
    with pytest.raises(SymbolicCheckError) as info:
        symbolic.check_identity(A * B, B * A, "eq-commute")
    message = str(info.value)
    assert "more characters" in message
    assert len(message) < symbolic.MAX_RESIDUAL_CHARS + 200


# -------------------------------------------------------------------- check_numeric


def test_check_numeric_passes_within_tolerance():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(4, 3)), rng.normal(size=(3, 4))
    check = symbolic.check_numeric(np.trace(A @ B), np.trace(B @ A), "eq-trace-numeric")
    assert check.kind == "numeric" and check.detail.startswith("max err ")


def test_check_numeric_fails_with_max_difference():
    with pytest.raises(
        NumericCheckError, match=r"eq-num does not hold: max \|lhs - rhs\| = 1.000e-03"
    ):
        symbolic.check_numeric(np.array([1.0, 2.0]), np.array([1.0, 2.001]), "eq-num")


def test_check_numeric_rejects_shape_mismatch_and_nan():
    with pytest.raises(NumericCheckError, match="shapes"):
        symbolic.check_numeric(np.ones(3), np.ones((3, 1)), "eq-shape")
    with pytest.raises(NumericCheckError):
        symbolic.check_numeric(np.array([np.nan]), np.array([np.nan]), "eq-nan")


def test_check_numeric_tolerance_is_respected():
    symbolic.check_numeric(1.0, 1.0 + 1e-3, "eq-loose", rtol=1e-2)
    with pytest.raises(NumericCheckError):
        symbolic.check_numeric(1.0, 1.0 + 1e-3, "eq-tight")


# ----------------------------------------------------------------------------- Check


def test_check_line_is_short_and_frozen():
    check = Check("eq-found-fro-trace", "symbolic", "sympy: exact")
    assert repr(check) == "✔ eq-found-fro-trace  (sympy: exact)"
    assert check._repr_markdown_() == "✔ `eq-found-fro-trace`  (sympy: exact)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        check.label = "other"


def test_numeric_check_line_shows_the_error_and_a_loose_tolerance_only():
    tight = symbolic.check_numeric(1.0, 1.0 + 4e-15, "eq-tight")
    assert repr(tight) == "✔ eq-tight  (max err 4e-15)"
    loose = symbolic.check_numeric(1.0, 1.001, "eq-loose", rtol=1e-2)
    assert repr(loose) == "✔ eq-loose  (max err 1e-03, rtol 0.01)"


def test_checks_fold_into_one_block():
    a = symbolic.check_numeric(1.0, 1.0, "eq-a")
    b = symbolic.check_identity(sp.Integer(2), sp.Integer(2), "eq-<b>")
    folded = symbolic.checks(a, b, title="two facts")
    assert repr(folded).splitlines() == [
        "✔ 2 checks hold: two facts",
        "  ✔ eq-a  (max err 0e+00)",
        "  ✔ eq-<b>  (sympy: exact)",
    ]
    html = folded._repr_html_()
    mark = '<span class="dr-check-mark">✔</span>'
    assert html.startswith(
        f'<details class="dr-checks"><summary>{mark} 2 checks hold: two'
    )
    assert html.count(mark) == 3  # the summary and each line: green in the book
    assert "eq-&lt;b&gt;" in html and "<b>" not in html  # labels are escaped
    assert repr(symbolic.checks(a)).startswith("✔ 1 check holds")


def test_a_single_check_shows_one_line_with_its_mark():
    check = symbolic.check_numeric(1.0, 1.0, "eq-<a>")
    html = check._repr_html_()
    assert html == (
        '<div class="dr-check"><span class="dr-check-mark">✔</span> eq-&lt;a&gt;  '
        "(max err 0e+00)</div>"
    )
    assert check._repr_markdown_() == "✔ `eq-<a>`  (max err 0e+00)"


def test_checks_rejects_anything_but_checks():
    with pytest.raises(ValueError, match="results of the check_"):
        symbolic.checks(True)


# ------------------------------------------------------------ bounds, and the check log


def test_check_at_most_and_at_least_pass_and_fail_with_the_worst_entry():
    line = symbolic.check_at_most(np.array([0.2, 0.7]), 1.0, "errors ≤ 1")
    assert repr(line) == "✔ errors ≤ 1  (max 0.7 ≤ 1)"
    assert (
        repr(symbolic.check_at_least(0.93, 0.9, "T ≥ 0.9")) == "✔ T ≥ 0.9  (0.93 ≥ 0.9)"
    )
    with pytest.raises(NumericCheckError, match=r"errors ≤ 1 does not hold: max 1.5"):
        symbolic.check_at_most([0.2, 1.5], 1.0, "errors ≤ 1")
    with pytest.raises(NumericCheckError, match=r"min 0.89 is not ≥ 0.9"):
        symbolic.check_at_least([0.95, 0.89], 0.9, "T ≥ 0.9")
    with pytest.raises(NumericCheckError):
        symbolic.check_at_most(np.nan, 1.0, "NaN is no number below 1")
    with pytest.raises(ValueError, match="scale"):
        symbolic.check_at_most(-1.0, 0.0, "a bound of 0 needs a scale")


def _read_log(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_checks_are_logged_with_the_fraction_of_the_tolerance_used(
    tmp_path, monkeypatch
):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv(_check_log.LOG_VARIABLE, str(log))
    monkeypatch.setenv(_check_log.NOTEBOOK_VARIABLE, "book/x.ipynb")
    symbolic.check_numeric([1.0, 2.0], [1.0, 2.0 + 5e-7], "numeric", atol=1e-6, rtol=0)
    symbolic.check_numeric(3.0, 3.0 + 3e-9, "relative", rtol=1e-9, atol=0)
    symbolic.check_at_most(0.25, 1.0, "at most")
    symbolic.check_at_least(0.95, 0.9, "at least", scale=0.1)
    with pytest.raises(NumericCheckError):
        symbolic.check_numeric(1.0, 1.1, "failing", atol=0.05, rtol=0)
    with pytest.raises(NumericCheckError):
        symbolic.check_numeric(np.nan, 1.0, "nan")
    entries = _read_log(log)
    assert [e["label"] for e in entries] == [
        "numeric", "relative", "at most", "at least", "failing", "nan"
    ]  # fmt: skip
    used = [e["used"] for e in entries]
    np.testing.assert_allclose(
        used[:5], [0.5, 3e-9 / (1e-9 * 3.000000003), 0.25, 0.5, 2]
    )
    assert used[5] is None  # NaN: not finite
    assert {e["notebook"] for e in entries} == {"book/x.ipynb"}
    here = Path(__file__).name
    assert all(e["site"].startswith(f"{here}:") for e in entries)
    assert entries[0]["kind"] == "numeric" and entries[2]["kind"] == "at_most"


def test_used_is_at_most_one_exactly_when_allclose_passes():
    rng_used = np.random.default_rng(3)
    for _ in range(200):
        a = rng_used.normal(size=5)
        b = a + rng_used.normal(size=5) * 10.0 ** rng_used.integers(-12, 0)
        rtol, atol = (
            10.0 ** rng_used.integers(-10, -2),
            10.0 ** rng_used.integers(-12, -4),
        )
        used = _check_log.fraction_of_tolerance(a, b, rtol, atol)
        assert (used <= 1) == np.allclose(a, b, rtol=rtol, atol=atol)
    assert (
        _check_log.fraction_of_tolerance(np.array([np.inf]), np.array([np.inf]), 0, 0)
        == 0
    )
    assert (
        _check_log.fraction_of_tolerance(np.array([1.0]), np.array([1.1]), 0, 0)
        == np.inf
    )


def test_nothing_is_logged_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(_check_log.LOG_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    symbolic.check_numeric(1.0, 1.0, "quiet")
    symbolic.check_at_most(0.5, 1.0, "quiet too")
    assert list(tmp_path.iterdir()) == []


def test_check_differs_passes_exactly_when_check_numeric_fails(tmp_path, monkeypatch):
    line = symbolic.check_differs([1.0, 2.0], [1.0, 2.5], "printed formula is wrong")
    assert repr(line) == "✔ printed formula is wrong  (differs by 5.0e-01)"
    with pytest.raises(NumericCheckError, match="the two sides agree"):
        symbolic.check_differs(1.0, 1.0 + 1e-13, "a true identity")
    with pytest.raises(NumericCheckError, match="shapes"):
        symbolic.check_differs(np.ones(3), np.ones(4), "shapes")
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv(_check_log.LOG_VARIABLE, str(log))
    symbolic.check_differs(1.0, 1.5, "differs by 5 tolerances", rtol=0, atol=0.1)
    (entry,) = _read_log(log)
    assert entry["kind"] == "differs" and abs(entry["used"] - 0.2) < 1e-12
