"""The set-up files agree with each other: pyproject, environment.yml, Makefile,
_config.yml.

requirements.lock has its own checks, in test_lock.py.
"""

import re
import tomllib

import yaml

from .book_sources import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
ENVIRONMENT = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


def _pip_lines():
    return next(d["pip"] for d in ENVIRONMENT["dependencies"] if isinstance(d, dict))


def _extras_in(spec: str) -> set[str]:
    match = re.search(r"\.\[([\w,\s-]+)\]", spec)
    assert match, f"no extras in {spec!r}"
    return {e.strip() for e in match.group(1).split(",")}


def test_environment_installs_the_package_with_the_makefile_extras():
    make_install = re.search(r'pip install [^\n]*-e "(\.\[[^\]]+\])"', MAKEFILE).group(
        1
    )
    (conda_install,) = [line for line in _pip_lines() if line.startswith("-e")]
    assert _extras_in(conda_install) == _extras_in(make_install)
    assert _extras_in(make_install) <= set(
        PYPROJECT["project"]["optional-dependencies"]
    )


def test_environment_lists_no_dependency_of_its_own():
    # Everything else comes from pyproject.toml and its lock; a second list would drift.
    conda = [d for d in ENVIRONMENT["dependencies"] if isinstance(d, str)]
    assert sorted(re.split(r"[=<>]", d)[0] for d in conda) == ["pip", "python"]
    (package,) = [line for line in _pip_lines() if line.startswith("-e")]
    assert sorted(_pip_lines()) == sorted(["-r requirements.lock", package])


def test_environment_python_satisfies_requires_python():
    (python,) = [
        d
        for d in ENVIRONMENT["dependencies"]
        if isinstance(d, str) and d.startswith("python")
    ]
    version = tuple(int(x) for x in python.split("=")[-1].split("."))
    minimum = tuple(
        int(x) for x in PYPROJECT["project"]["requires-python"].lstrip(">=").split(".")
    )
    assert version >= minimum


def test_torch_is_pinned_to_the_cpu_wheel_range():
    specs = [
        d
        for deps in PYPROJECT["project"]["optional-dependencies"].values()
        for d in deps
        if d.startswith("torch")
    ]
    assert specs and all("<=2.13.0" in s and ">=2.2" in s for s in specs)


def test_jupyter_book_stays_on_1x():
    book = PYPROJECT["project"]["optional-dependencies"]["book"]
    assert any(re.fullmatch(r"jupyter-book>=1\.0\.4,<2", d) for d in book)


def test_build_is_strict_and_cached():
    assert CONFIG["execute"]["execute_notebooks"] == "cache"
    assert CONFIG["execute"]["timeout"] > 0
    assert CONFIG["sphinx"]["config"]["nb_execution_raise_on_error"] is True
    assert CONFIG["only_build_toc_files"] is True
    assert {".venv", "_build", "tests", "benchmarks"} <= set(CONFIG["exclude_patterns"])
    assert re.search(r"JB_STRICT\s*:=\s*-W -n --keep-going", MAKEFILE)


def test_mathjax_is_served_locally_and_not_from_static():
    assert "sphinx-mathjax-offline" in CONFIG["sphinx"]["extra_extensions"]
    assert not (ROOT / "_static").exists() or not list(
        (ROOT / "_static").rglob("*mathjax*")
    )


def test_pytest_never_collects_the_build_folder():
    options = PYPROJECT["tool"]["pytest"]["ini_options"]
    assert options["testpaths"] == ["tests"]
    assert "_build" in options["norecursedirs"]


def test_make_test_runs_the_notebooks_under_a_second_blas_kernel():
    # A check that passes on one machine's round-off only must fail in CI (issue 21).
    recipe = re.search(r"^test: .*?\n(?=\S)", MAKEFILE, re.M | re.S).group(0)
    assert "DR_BOOK_CHECK_LOG=$(CHECKS)/default.jsonl" in recipe
    assert "tests.check_log.portability" in recipe and "--keep default" in recipe
    runs = re.search(r"^CI_RUNS\s*\?=\s*(\S+)", MAKEFILE, re.M).group(1)
    assert [run for run in runs.split(",") if run != "default"]
    assert "tests/check_log" in recipe  # the harness's own tests
