"""The assert recorder keeps every assert's meaning and records each comparison's
margin."""

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from dr_lib import _check_log
from tests.check_log.asserts import RUNTIME, AssertRecorder


def run(code, namespace=None):
    """Run ``code`` with its asserts rewritten, as the IPython extension does."""
    tree = AssertRecorder().visit(ast.parse(code))
    namespace = dict(namespace or {}, np=np, math=math, sp=sp, **RUNTIME)
    exec(compile(tree, "cell.py", "exec"), namespace)  # noqa: S102
    return namespace


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "checks.jsonl"
    monkeypatch.setenv(_check_log.LOG_VARIABLE, str(path))
    monkeypatch.setenv(_check_log.NOTEBOOK_VARIABLE, "book/t.ipynb")
    monkeypatch.setenv(_check_log.CELL_VARIABLE, "4")
    # As in a kernel, the cell's code is the outermost frame that is not library code.
    here = str(Path(__file__).resolve().parent)
    monkeypatch.setattr(
        _check_log, "_LIBRARY_FOLDERS", (*_check_log._LIBRARY_FOLDERS, here)
    )

    def entries():
        if not path.exists():
            return []
        return [
            json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
        ]

    return entries


CASES = [
    # (assert test, whether it holds)
    ("0.25 < 1.0", True),
    ("1.0 < 0.25", False),
    ("2 >= 2", True),
    ("0.03 < 0.05 < 0.07", True),
    ("0.03 < 0.08 < 0.07", False),
    ("0.09 < 0.05 < 0.07", False),
    ("np.all(np.array([1e-9, 3e-9]) < 1e-8)", True),
    ("np.all(np.array([1e-9, 3e-8]) < 1e-8)", False),
    ("all(x > 0.5 for x in [0.6, 0.7])", True),
    ("np.isclose(1.0, 1.0 + 1e-9)", True),
    ("np.allclose([1.0, 2.0], [1.0, 2.1], atol=0.01)", False),
    ("np.allclose([1.0, 2.0], [1.0, 2.1], 0, 0.2)", True),
    ("not np.isclose(1.0, 1.5)", True),
    ("not np.isclose(1.0, 1.0)", False),
    ("math.isclose(1.0, 1.0 + 1e-12)", True),
    ("'a' < 'b'", True),
    ("sp.Symbol('x', positive=True) > 0", True),
    ("len([1, 2]) == 2", True),
    ("(1 < 2) and not (3 < 2)", True),
]


@pytest.mark.parametrize("test, holds", CASES)
def test_an_assert_means_what_it_meant(test, holds, log):
    assert bool(eval(test, {"np": np, "math": math, "sp": sp})) is holds  # noqa: S307
    if holds:
        run(f"assert {test}")
    else:
        with pytest.raises(AssertionError):
            run(f"assert {test}")


def test_the_margin_of_a_bound_is_recorded(log):
    run("err = 2.5e-9\nassert err < 1e-8\nassert 0.9 <= 0.93")
    first, second = log()
    assert first["label"] == "assert in cell 4, line 2: err < 1e-08"
    assert (
        first["site"].startswith("cell 4, line ")
        and first["notebook"] == "book/t.ipynb"
    )
    np.testing.assert_allclose([first["used"], first["headroom"]], [0.25, 0.75])
    np.testing.assert_allclose(second["headroom"], 0.03 / 0.93)


def test_chained_comparisons_record_each_link_and_arrays_their_worst_entry(log):
    run("assert 0.03 < 0.05 < 0.07\nassert np.all(np.array([1e-9, 5e-9]) < 1e-8)")
    links = log()
    assert [e["label"][-2:] for e in links[:2]] == ["#1", "#2"]
    np.testing.assert_allclose([e["used"] for e in links], [0.6, 0.05 / 0.07, 0.5])


def test_a_tiny_relative_margin_keeps_its_digits(log):
    run("assert 1.0 - 1e-12 < 1.0")
    (entry,) = log()
    np.testing.assert_allclose(entry["headroom"], 1e-12, rtol=1e-4)


def test_isclose_records_the_fraction_of_its_tolerance_and_not_isclose_its_inverse(log):
    run(
        "assert np.isclose(1.0, 1.0 + 5e-6, rtol=0, atol=1e-5)\n"
        "assert not np.isclose(1.0, 1.5, rtol=0, atol=0.1)\n"
        "assert math.isclose(2.0, 2.0 + 1e-9, rel_tol=1e-9)"
    )
    used = [e["used"] for e in log()]
    np.testing.assert_allclose(used, [0.5, 0.2, 0.5], rtol=1e-6)
    assert [e["kind"] for e in log()] == [
        "assert-close",
        "assert-not-close",
        "assert-close",
    ]


def test_a_loop_writes_only_new_worst_cases(log):
    run("for x in [0.1, 0.5, 0.2, 0.7, 0.3]:\n    assert x < 1.0")
    np.testing.assert_allclose([e["used"] for e in log()], [0.1, 0.5, 0.7])


def test_what_is_not_a_number_is_compared_without_a_record(log):
    run(
        "assert 'a' < 'b'\nassert sp.Symbol('x', positive=True) > 0\nassert 10**400 > 1"
    )
    assert log() == []


def test_nothing_is_recorded_without_the_log(monkeypatch, tmp_path):
    monkeypatch.delenv(_check_log.LOG_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    run("assert 0.5 < 1.0")
    assert list(tmp_path.iterdir()) == []


def test_only_what_the_assert_claims_is_recorded(log):
    run(
        "sigma = np.array([1e-3, 1e-7, 1e-12])\n"
        "err = np.array([1e-9, 1e-5, 1.0])\n"
        "assert np.all(err[sigma >= 1e-6] < 1e-4)\n"  # the mask is not a claim
        "assert np.sum(np.abs(sigma) < 1e-10) == 1\n"  # nor is a count
        "assert (sigma[0] < 0) or (sigma[0] > 1e-4)\n"  # nor either side of `or`
        "assert sigma[0] > 1e-4 and err[0] < 1e-8\n"  # both sides of `and` are
    )
    assert [e["label"].split(": ", 1)[1] for e in log()] == [
        "err[sigma >= 1e-06] < 0.0001",
        "sigma[0] > 0.0001",
        "err[0] < 1e-08",
    ]


def test_an_assert_in_a_helper_is_one_claim_per_calling_line(log):
    run(
        "def at_most(x, bound):\n"
        "    assert x <= bound\n"
        "\n"
        "at_most(0.5, 1.0)\n"
        "at_most(0.1, 1.0)\n"
    )
    labels = [e["label"] for e in log()]
    assert len(set(labels)) == 2 and all(
        "(called from line" in label for label in labels
    )
