"""Record how close every comparison a notebook asserts came to failing.

``assert err < 1e-8`` in a notebook is a numeric claim like ``symbolic.check_numeric``:
on another CPU's BLAS the error may be 3e-8. When the check log is on
(``DR_BOOK_CHECK_LOG``, :mod:`dr_lib._check_log`), this IPython extension rewrites the
``assert`` statements of every cell before it runs, so that

- each order comparison ``a < b``, ``a <= b``, ``a > b``, ``a >= b`` (also chained, also
  element-wise inside ``np.all(...)`` or a generator) and
- each call of ``np.isclose``, ``np.allclose`` or ``math.isclose`` (or ``not`` of one)

that the assert claims (the test itself, the operands of ``and``, what ``all`` is taken
over; not a mask inside a subscript, a count, or a side of ``or``)

also writes one line to the log: the fraction of its margin used. For ``a ≤ b`` that is
1 + max(a − b) / s with s = max(|a|, |b|) (``a / b`` for positive numbers; at most 1
passes), and its headroom −max(a − b) / s; for ``isclose`` it is the fraction of the
tolerance, as for ``check_numeric``, and for ``not isclose`` its inverse. The assert's
value is unchanged: the rewritten expression computes exactly what the original did, and
any operand that is not a number (a string, a symbol) is compared without a record.
Equality (``==``) is not recorded: an exact claim has no margin to measure.

The label of a record is ``assert in cell C, line L: <the comparison>``: the extension
numbers the cells as they run, from 0 as nbval does, so the same text in two cells is
two checks. An assert inside a helper function adds the line that called the helper,
``(called from line 42)``: two calls with other arguments are two claims.
"""

import ast
import math
import operator
import os

import numpy as np

from dr_lib import _check_log

__all__ = ["install", "AssertRecorder", "RUNTIME"]

_ORDER = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_CLOSE_NAMES = {"isclose", "allclose"}
_LABEL_CHARS = 80


def _as_numbers(value):
    """``value`` as a float array, or None if it is not numbers (strings, symbols,
    ...)."""
    try:
        numbers = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return None
    return numbers if numbers.size else None


def _comparison_headroom(left, op, right):
    """−max(small − large) / s for ``small ≤ large`` (1 − used); None if not numbers.

    Entries that are infinitely inside the bound (−inf ≤ x, x ≤ inf) use nothing; a NaN
    or an entry infinitely outside uses infinitely much.
    """
    small, large = (left, right) if op in ("<", "<=") else (right, left)
    small, large = _as_numbers(small), _as_numbers(large)
    if small is None or large is None:
        return None
    try:
        small, large = np.broadcast_arrays(small, large)
    except (
        ValueError
    ):  # shapes that do not broadcast: the comparison itself will say so
        return None
    finite = np.isfinite(small) & np.isfinite(large)
    inside = (small == -np.inf) | (large == np.inf)
    if not np.all(finite | inside):
        return -math.inf
    if not finite.any():
        return 1.0
    small, large = small[finite], large[finite]
    scale = float(np.maximum(np.abs(small), np.abs(large)).max())
    if scale == 0:
        return 0.0  # 0 ≤ 0: exactly at the bound
    return -float((small - large).max()) / scale


def _record(line, text, used, kind, headroom=None):
    if used is None:
        return
    cell = os.environ.get(_check_log.CELL_VARIABLE, "?")
    place = f"assert in cell {cell}, line {line}"
    site = _check_log.call_site()
    if not site.endswith(f", line {line}"):
        place += f" (called from {site.rpartition(', ')[2]})"  # an assert in a helper
    _check_log.record(f"{place}: {text}", used, kind=kind, headroom=headroom)


def _record_comparison(line, text, left, op, right):
    headroom = _comparison_headroom(left, op, right)
    if headroom is not None:
        _record(line, text, 1.0 - headroom, "assert", headroom)


def _compare(line, text, op, left, right):
    """``left <op> right``, recorded."""
    _record_comparison(line, text, left, op, right)
    return _OPERATORS[op](left, right)


def _chain(line, text, ops, *operands):
    """``a <op1> b <op2> c ...`` with Python's meaning (stop at the first false
    link)."""
    result = True
    for k, op in enumerate(ops):
        left, right = operands[k], operands[k + 1]
        _record_comparison(line, f"{text} #{k + 1}", left, op, right)
        result = _OPERATORS[op](left, right)
        if not result:
            return result
    return result


def _close_used(function, args, kwargs):
    """The fraction of ``function``'s tolerance that ``args`` use, or None."""
    if function in (np.isclose, np.allclose):
        names = ("a", "b", "rtol", "atol")
        given = dict(zip(names, args)) | kwargs
        rtol, atol = given.get("rtol", 1e-5), given.get("atol", 1e-8)
        a, b = _as_numbers(given.get("a")), _as_numbers(given.get("b"))
        if a is None or b is None:
            return None
        return _check_log.fraction_of_tolerance(a, b, rtol, atol)
    if function is math.isclose and len(args) == 2:
        a, b = (float(x) for x in args)
        rel_tol, abs_tol = kwargs.get("rel_tol", 1e-9), kwargs.get("abs_tol", 0.0)
        tolerance = max(rel_tol * max(abs(a), abs(b)), abs_tol)
        if a == b:
            return 0.0
        return abs(a - b) / tolerance if tolerance > 0 else math.inf
    return None


def _close(line, text, negated, function, *args, **kwargs):
    """``function(*args, **kwargs)`` for an isclose-like function, recorded."""
    used = _close_used(function, args, kwargs)
    if used is not None and negated:
        # "not close": the claim is that the difference exceeds the tolerance.
        used = 0.0 if math.isinf(used) else (math.inf if used == 0 else 1.0 / used)
    _record(line, text, used, "assert-not-close" if negated else "assert-close")
    return function(*args, **kwargs)


#: The names the rewritten cells call; :func:`install` puts them in the user namespace.
RUNTIME = {
    "__dr_compare__": _compare,
    "__dr_chain__": _chain,
    "__dr_close__": _close,
}


def _call(name, *args):
    return ast.Call(
        func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[]
    )


def _text(node):
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"


def _is_close_call(node):
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else None
    name = function.id if isinstance(function, ast.Name) else name
    return name in _CLOSE_NAMES


def _is_all_call(node):
    """``all(x)``, ``np.all(x)``, ``numpy.all(x)``: the claim is its argument,
    everywhere."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
        return False
    function = node.func
    if isinstance(function, ast.Name):
        return function.id == "all"
    return isinstance(function, ast.Attribute) and function.attr == "all"


def _is_all_method(node):
    """``(x < c).all()``: the claim is the receiver."""
    return (
        isinstance(node, ast.Call)
        and not node.args
        and not node.keywords
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "all"
        and not isinstance(node.func.value, ast.Name | ast.Attribute)  # np.all(): above
    )


def _claim(node, line):
    """Rewrite the parts of an assert's test that it claims hold.

    A claim is the test itself, each operand of ``and``, the argument of ``all`` or
    ``np.all`` (and the receiver of ``.all()``, the element of a generator passed to
    ``all``), and ``not`` of an isclose call. A comparison anywhere else (a mask in a
    subscript, a count in ``np.sum(x < c) == 2``, one side of ``or``) is not a claim on
    its own and is left alone.
    """
    line = ast.Constant(line)
    if isinstance(node, ast.Compare) and all(type(op) in _ORDER for op in node.ops):
        ops = [_ORDER[type(op)] for op in node.ops]
        text = ast.Constant(_text(node))
        if len(ops) == 1:
            return _call(
                "__dr_compare__", line, text, ast.Constant(ops[0]), node.left,
                node.comparators[0],
            )  # fmt: skip
        ops_node = ast.Tuple([ast.Constant(op) for op in ops], ast.Load())
        return _call("__dr_chain__", line, text, ops_node, node.left, *node.comparators)
    if _is_close_call(node):
        return _close_call(node, line, negated=False)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        if _is_close_call(node.operand):
            node.operand = _close_call(node.operand, line, negated=True)
        return node
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        node.values = [_claim(value, line.value) for value in node.values]
        return node
    if _is_all_call(node):
        argument = node.args[0]
        if isinstance(argument, ast.GeneratorExp | ast.ListComp):
            argument.elt = _claim(argument.elt, line.value)
        else:
            node.args[0] = _claim(argument, line.value)
        return node
    if _is_all_method(node):
        node.func.value = _claim(node.func.value, line.value)
    return node


def _close_call(node, line, negated):
    call = _call(
        "__dr_close__", line, ast.Constant(_text(node)), ast.Constant(negated),
        node.func, *node.args,
    )  # fmt: skip
    call.keywords = node.keywords
    return call


class AssertRecorder(ast.NodeTransformer):
    """An IPython AST transformer: every ``assert`` of a cell records its claims."""

    def visit_Assert(self, node):
        node.test = _claim(node.test, node.lineno)
        return ast.fix_missing_locations(node)


class _CellCounter:
    """Numbers the cells as they run, from 0 as nbval does, in ``DR_BOOK_CELL``."""

    def __init__(self):
        self.next = 0

    def __call__(self, info):
        os.environ[_check_log.CELL_VARIABLE] = str(self.next)
        self.next += 1


def install(ipython):
    """From now on, number the cells ``ipython`` runs and record their asserts."""
    ipython.events.register("pre_run_cell", _CellCounter())
    ipython.user_ns.update(RUNTIME)
    ipython.ast_transformers.append(AssertRecorder())
