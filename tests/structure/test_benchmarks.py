"""The benchmark scripts call the shared harness the way it is defined.

`make bench` is not part of `make test` (timings are not tests), so a script that passes
the harness an argument it no longer takes would only fail there; these checks read the
scripts.
"""

import ast
import importlib.util
import inspect
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(BENCH.glob("bench_*.py"))


def _harness():
    spec = importlib.util.spec_from_file_location("_harness", BENCH / "_harness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HARNESS = _harness()
EXPORTED = {
    name: inspect.signature(obj)
    for name, obj in vars(HARNESS).items()
    if inspect.isfunction(obj) and not name.startswith("_")
}


def _calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            if name in EXPORTED:
                yield name, node


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_harness_calls_match_its_signatures(script):
    tree = ast.parse(script.read_text(encoding="utf-8"))
    bad = []
    for name, call in _calls(tree):
        accepted = EXPORTED[name].parameters
        for keyword in call.keywords:
            if keyword.arg is not None and keyword.arg not in accepted:
                bad.append(f"line {call.lineno}: {name}(..., {keyword.arg}=...)")
    assert not bad, f"{script.name} passes arguments the harness does not take: {bad}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_script_has_a_main_for_run_all(script):
    tree = ast.parse(script.read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "main" in names, f"{script.name} has no main(); run_all.py calls main()"
