"""``import dr_lib`` is light: heavy dependencies load only when a submodule is used."""

import json
import subprocess
import sys

import pytest

import dr_lib

HEAVY = ("torch", "matplotlib", "sympy", "pandas", "sklearn")


def _loaded_after(code):
    """Run ``code`` in a fresh interpreter; return which HEAVY modules it loaded."""
    report = f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    probe = f"import sys, json\n{code}\n{report}"
    command = [sys.executable, "-W", "error", "-c", probe]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_dr_lib_loads_no_heavy_dependency():
    assert _loaded_after("import dr_lib") == []


@pytest.mark.parametrize(
    "submodule, expected",
    [
        ("symbolic", {"sympy"}),
        ("datasets", {"pandas", "sklearn"}),
        ("plotting", {"matplotlib"}),
    ],
)
def test_submodules_load_only_what_they_need(submodule, expected):
    loaded = set(_loaded_after(f"from dr_lib import {submodule}"))
    assert expected <= loaded
    assert "torch" not in loaded


def test_version():
    assert dr_lib.__version__ == "0.1.0"


def test_lazy_names_are_listed_and_resolve():
    assert {"datasets", "plotting", "symbolic"} <= set(dir(dr_lib))
    assert dr_lib.symbolic.__name__ == "dr_lib.symbolic"


def test_lazy_table_resolves_attributes(monkeypatch):
    monkeypatch.setitem(
        dr_lib._LAZY, "check_array", ("dr_lib._validation", "check_array")
    )
    monkeypatch.delitem(vars(dr_lib), "check_array", raising=False)
    from dr_lib._validation import check_array

    assert dr_lib.check_array is check_array
    monkeypatch.delitem(vars(dr_lib), "check_array")


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        dr_lib.nonexistent  # noqa: B018
