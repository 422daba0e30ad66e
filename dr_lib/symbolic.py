"""sympy helpers to state a derivation step and check it.

A chapter writes an equation, then a code cell whose check fails if the step is wrong::

    A, B = symbolic.matrix("a", 2, 3), symbolic.matrix("b", 3, 2)
    symbolic.check_identity((A * B).trace(), (B * A).trace(), "eq-found-trace-cyclic")

The last line of the cell shows ``✔ eq-found-trace-cyclic  (sympy: exact)``; a wrong
identity raises :class:`SymbolicCheckError` instead. A run of several checks is folded
into one block with :func:`checks`.
"""

import html
from dataclasses import dataclass

import numpy as np
import sympy as sp

from dr_lib import _check_log
from dr_lib._validation import check_integer, check_positive

__all__ = [
    "Check",
    "CheckList",
    "checks",
    "SymbolicCheckError",
    "NumericCheckError",
    "matrix",
    "vector",
    "diagonal",
    "centred_points",
    "check_identity",
    "check_numeric",
    "check_differs",
    "check_at_most",
    "check_at_least",
]

#: Longest residual shown in a failure message, in characters.
MAX_RESIDUAL_CHARS = 1200


class SymbolicCheckError(AssertionError):
    """A symbolic identity does not hold: ``lhs - rhs`` does not simplify to zero."""


class NumericCheckError(AssertionError):
    """Two numeric results differ by more than the tolerance."""


@dataclass(frozen=True)
class Check:
    """The record of a check that passed; shows as one short line in a notebook.

    The line is ``✔ <label>  (<detail>)``, e.g. ``✔ eq-pca-svd  (max err 4e-15)``, short
    enough to fit the page column next to a long label.

    Attributes
    ----------
    label : str
        The equation label, e.g. ``"eq-mds-colsum"``.
    kind : {"symbolic", "numeric"}
    detail : str
        How it was checked, e.g. "sympy: exact" or "max err 4e-15".
    """

    label: str
    kind: str
    detail: str

    def __repr__(self):
        return f"✔ {self.label}  ({self.detail})"

    def _repr_markdown_(self):
        return f"✔ `{self.label}`  ({self.detail})"

    def _repr_html_(self):
        """The line of :meth:`__repr__`, its mark styled by the book (class
        dr-check)."""
        return f'<div class="dr-check">{self._html_line()}</div>'

    def _html_line(self):
        return (
            f'<span class="dr-check-mark">✔</span> {html.escape(self.label)}  '
            f"({html.escape(self.detail)})"
        )


class CheckList(tuple):
    """Several passed checks shown as one folded block: a summary line, details on
    demand.

    Returned by :func:`checks`. As the last expression of a notebook cell it renders, in
    the book, as a collapsed block whose summary reads "✔ 7 checks hold: <title>";
    printed (``print``, nbval, a terminal) it is one line per check.
    """

    title = ""

    def __new__(cls, items, title=""):
        self = super().__new__(cls, items)
        self.title = title
        return self

    @property
    def summary(self):
        """One line: how many checks hold, and what they are about."""
        noun = "check holds" if len(self) == 1 else "checks hold"
        return f"✔ {len(self)} {noun}" + (f": {self.title}" if self.title else "")

    def __repr__(self):
        return "\n".join([self.summary, *(f"  {check!r}" for check in self)])

    def _repr_html_(self):
        rows = "\n".join(check._html_line() for check in self)
        summary = html.escape(self.summary).replace(
            "✔", '<span class="dr-check-mark">✔</span>', 1
        )
        return (
            f'<details class="dr-checks"><summary>{summary}</summary>'
            f'<pre class="dr-checks-body">{rows}</pre></details>'
        )


def checks(*results, title=""):
    """Fold a run of passed checks into one block (see :class:`CheckList`).

    Parameters
    ----------
    *results : Check
        What :func:`check_identity` and :func:`check_numeric` returned.
    title : str, optional
        What the checks are about, shown on the summary line.

    Returns
    -------
    CheckList

    Examples
    --------
    >>> symbolic.checks(
    ...     symbolic.check_numeric(1.0, 1.0, "eq-a"),
    ...     symbolic.check_numeric(2.0, 2.0, "eq-b"),
    ...     title="the two identities of the trace",
    ... )  # doctest: +SKIP
    """
    for result in results:
        if not isinstance(result, Check):
            raise ValueError(
                f"checks() takes the results of the check_* functions; got "
                f"{type(result).__name__}. Pass each check's return value."
            )
    return CheckList(results, title=title)


# ------------------------------------------------------------------ symbolic objects


def _assumptions(real):
    """Keyword assumptions for ``sp.Symbol``: real, or none at all (complex allowed)."""
    return {"real": True} if real else {}


def matrix(name, rows, cols, *, real=True):
    """A ``rows x cols`` matrix of distinct symbols ``name_{i,j}`` (1-based indices).

    With ``real=False`` the symbols carry no assumption (they may be complex).

    Returns
    -------
    sympy.Matrix
        Entry (i, j) is the symbol displayed as ``name_{i+1,j+1}``.
    """
    rows = check_integer(rows, name="rows")
    cols = check_integer(cols, name="cols")
    assumptions = _assumptions(real)
    return sp.Matrix(
        rows, cols, lambda i, j: sp.Symbol(f"{name}_{{{i + 1},{j + 1}}}", **assumptions)
    )


def _symbols(name, n, real):
    """Symbols ``name_1, ..., name_n``."""
    n = check_integer(n, name="n")
    return [sp.Symbol(f"{name}_{i + 1}", **_assumptions(real)) for i in range(n)]


def vector(name, n, *, real=True):
    """A column vector (``n x 1`` matrix) of symbols ``name_1, ..., name_n``.

    With ``real=False`` the symbols carry no assumption (they may be complex).

    Returns
    -------
    sympy.Matrix of shape (n, 1)
    """
    return sp.Matrix(_symbols(name, n, real))


def diagonal(name, n):
    """A diagonal matrix with real symbols ``name_1, ..., name_n`` on the diagonal.

    Returns
    -------
    sympy.Matrix of shape (n, n)
    """
    return sp.diag(*_symbols(name, n, real=True))


def centred_points(n, dim, *, name="z"):
    """``n`` symbolic points in ``dim`` dimensions whose mean is zero, as columns.

    The sources write samples as columns: this is the ``dim x n`` matrix Z = [z_1, ...,
    z_n] with sum_i z_i = 0, the assumption behind [T] (10-12) and [W] 式(10.4). The
    first ``n - 1`` columns are free symbols ``name_{i,j}``; the last is minus their
    sum. See book/02_mds.

    Returns
    -------
    sympy.Matrix of shape (dim, n)
    """
    n = check_integer(n, name="n", low=2)
    free = matrix(name, dim, n - 1)
    last = -sum((free[:, j] for j in range(n - 1)), sp.zeros(free.rows, 1))
    return free.row_join(last)


# ------------------------------------------------------------------------ the checks


def _simplify(expr, assumptions):
    """``expr`` simplified to a canonical form (refined under ``assumptions``).

    An expanded polynomial is already canonical, so the slow ``sp.simplify`` is only
    needed for anything else (fractions, roots, trigonometric functions, ...).
    """
    expr = sp.expand(expr)
    if assumptions is not None:
        expr = sp.refine(expr, assumptions)
    return expr if expr == 0 or expr.is_polynomial() else sp.simplify(expr)


def _residual(lhs, rhs, label):
    """``lhs - rhs`` as a sympy object, with a readable error for mismatched shapes."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    lhs_shape = getattr(lhs, "shape", ())
    rhs_shape = getattr(rhs, "shape", ())
    if lhs_shape != rhs_shape:
        raise SymbolicCheckError(
            f"{label} does not hold: the left side has shape {lhs_shape} and the right "
            f"side {rhs_shape}."
        )
    return lhs - rhs


def _shorten(text):
    """``text``, cut to :data:`MAX_RESIDUAL_CHARS` characters."""
    if len(text) <= MAX_RESIDUAL_CHARS:
        return text
    return (
        text[:MAX_RESIDUAL_CHARS]
        + f"\n… ({len(text) - MAX_RESIDUAL_CHARS} more characters)"
    )


def check_identity(lhs, rhs, label, *, assumptions=None):
    """Check a symbolic identity ``lhs == rhs`` (scalars or matrices of the same shape).

    ``lhs - rhs`` is expanded and simplified (entry by entry for matrices); the identity
    holds when the result is exactly zero.

    Parameters
    ----------
    lhs, rhs : sympy expression or Matrix
    label : str
        The equation label, shown in the result and in any error.
    assumptions : sympy Boolean, optional
        Facts used to refine the difference before simplifying, e.g.
        ``sp.Q.positive(x)``.

    Returns
    -------
    Check

    Raises
    ------
    SymbolicCheckError
        If the difference does not simplify to zero; the message shows the residual.
    """
    residual = _residual(lhs, rhs, label)
    if isinstance(residual, sp.MatrixBase):
        residual = residual.applyfunc(lambda entry: _simplify(entry, assumptions))
        holds = residual.is_zero_matrix
        detail = f"sympy: all {len(residual)} entries exact"
    else:
        residual = _simplify(residual, assumptions)
        holds = residual == 0
        detail = "sympy: exact"
    if not holds:
        raise SymbolicCheckError(
            f"{label} does not hold: lhs - rhs simplifies "
            f"to\n{_shorten(sp.pretty(residual))}"
        )
    return Check(label=label, kind="symbolic", detail=detail)


def check_numeric(lhs, rhs, label, *, rtol=1e-10, atol=1e-12):
    """Check that two numeric results agree (``np.allclose``) and have the same shape.

    The tolerance is the claim: choose it from the accuracy of the method (round-off of
    a stable algorithm, an optimiser's tolerance, a Monte-Carlo standard error), with
    room for other machines' BLAS (see CONTRIBUTING.md); never from the error that one
    run happened to show. With ``DR_BOOK_CHECK_LOG`` set, the fraction of the tolerance
    used, max |lhs − rhs| / (atol + rtol·|rhs|), is recorded (:mod:`dr_lib._check_log`).

    Parameters
    ----------
    lhs, rhs : array-like or scalar
    label : str
        The equation label, shown in the result and in any error; unique in a notebook.
    rtol, atol : float
        Tolerances of :func:`numpy.allclose`.

    Returns
    -------
    Check

    Raises
    ------
    NumericCheckError
        If the shapes differ or any entry differs by more than the tolerance; the
        message gives the largest absolute difference.
    """
    a, b = np.asarray(lhs), np.asarray(rhs)
    if a.shape != b.shape:
        raise NumericCheckError(
            f"{label} does not hold: shapes {a.shape} and {b.shape} differ."
        )
    max_diff = float(np.max(np.abs(a - b), initial=0.0))
    holds = np.allclose(a, b, rtol=rtol, atol=atol)
    if _check_log.enabled():
        used = _check_log.fraction_of_tolerance(a, b, rtol, atol)
        _check_log.record(label, used, kind="numeric", rtol=rtol, atol=atol)
    if not holds:
        raise NumericCheckError(
            f"{label} does not hold: max |lhs - rhs| = {max_diff:.3e} "
            f"(rtol={rtol:g}, atol={atol:g})."
        )
    return Check(label=label, kind="numeric", detail=_numeric_detail(max_diff, rtol))


def check_differs(lhs, rhs, label, *, rtol=1e-10, atol=1e-12):
    """Check that two numeric results do *not* agree: a formula shown to be wrong.

    The mirror image of :func:`check_numeric`: passes exactly when it would fail on
    arrays of the same shape (a printed formula, a transposed product). With
    ``DR_BOOK_CHECK_LOG`` set, records the inverse of the fraction of the tolerance the
    difference uses, so that a difference barely above the tolerance counts as thin.

    Returns
    -------
    Check
        Its line reads, e.g., ``✔ printed (10-12) is wrong  (differs by 3.2e+00)``.

    Raises
    ------
    NumericCheckError
        If the shapes differ (the comparison would prove nothing) or the two agree
        within the tolerance.
    """
    a, b = np.asarray(lhs), np.asarray(rhs)
    if a.shape != b.shape:
        raise NumericCheckError(
            f"{label}: shapes {a.shape} and {b.shape} differ, so comparing them shows "
            f"nothing; compare arrays of the same shape."
        )
    used = _check_log.fraction_of_tolerance(a, b, rtol, atol)
    if _check_log.enabled():
        inverse = 0.0 if np.isinf(used) else (np.inf if used == 0 else 1.0 / used)
        _check_log.record(label, inverse, kind="differs", rtol=rtol, atol=atol)
    max_diff = float(np.max(np.abs(a - b), initial=0.0))
    if used <= 1:
        raise NumericCheckError(
            f"{label} does not hold: the two sides agree (max |lhs - rhs| = "
            f"{max_diff:.3e}, rtol={rtol:g}, atol={atol:g})."
        )
    return Check(label=label, kind="numeric", detail=f"differs by {max_diff:.1e}")


def _check_bound(value, bound, label, scale, *, upper):
    values = np.asarray(value, dtype=np.float64)
    bound = float(bound)
    # A bound of 0 has no size of its own to measure the margin against.
    scale = check_positive(abs(bound) if scale is None else scale, name="scale")
    worst = float(values.max() if upper else values.min())
    excess = values - bound if upper else bound - values
    holds = bool(np.all(excess <= 0))  # False for NaN
    if _check_log.enabled():
        # headroom = how far inside the bound the worst entry is, in units of the scale
        headroom = (
            -float(np.max(excess)) / scale if np.all(np.isfinite(excess)) else -np.inf
        )
        kind = "at_most" if upper else "at_least"
        _check_log.record(
            label,
            1.0 - headroom,
            kind=kind,
            headroom=headroom,
            bound=bound,
            scale=scale,
        )
    side, sign = ("max", "≤") if upper else ("min", "≥")
    if not holds:
        raise NumericCheckError(
            f"{label} does not hold: {side} {worst:.4g} is not {sign} {bound:.4g}."
        )
    prefix = f"{side} " if values.size > 1 else ""
    return Check(
        label=label, kind="numeric", detail=f"{prefix}{worst:.3g} {sign} {bound:.3g}"
    )


def check_at_most(value, bound, label, *, scale=None):
    """Check that every entry of ``value`` is at most ``bound``.

    For an error bound, a cost or an upper limit claimed by the text. With
    ``DR_BOOK_CHECK_LOG`` set, records the fraction of the bound used,
    1 + (max value − bound) / scale (max value / bound for a positive bound and the
    default scale), as :func:`check_numeric` does for its tolerance.

    Parameters
    ----------
    value : array-like or scalar
    bound : float
    label : str
        What is claimed, shown in the result and in any error; unique in a notebook.
    scale : float, optional
        The size against which the margin is measured; ``|bound|`` by default (needed
        when the bound is 0).

    Returns
    -------
    Check
        Its line reads, e.g., ``✔ peak MB ≤ half the array  (31.2 ≤ 40)``.

    Raises
    ------
    NumericCheckError
        If an entry exceeds the bound or is NaN.
    """
    return _check_bound(value, bound, label, scale, upper=True)


def check_at_least(value, bound, label, *, scale=None):
    """Check that every entry of ``value`` is at least ``bound``.

    The mirror image of :func:`check_at_most`, for a lower limit (an accuracy, a
    speed-up, a gap); the fraction recorded is 1 + (bound − min value) / scale.
    """
    return _check_bound(value, bound, label, scale, upper=False)


#: A relative tolerance above this is loose enough to be worth showing on the check
#: line.
LOOSE_RTOL = 1e-6


def _numeric_detail(max_diff, rtol):
    """ "max err 4e-15", with the relative tolerance when it is loose
    ("..., rtol 0.01")."""
    detail = f"max err {max_diff:.0e}"
    return detail + (f", rtol {rtol:g}" if rtol > LOOSE_RTOL else "")
