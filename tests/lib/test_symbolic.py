"""Tests of dr_lib.symbolic: true identities pass, wrong ones fail loudly with their label."""

import dataclasses

import numpy as np
import pytest
import sympy as sp

from dr_lib import symbolic
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
    with pytest.raises(ValueError, match="check_identity or check_numeric"):
        symbolic.checks(True)
