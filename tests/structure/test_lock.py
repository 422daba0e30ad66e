"""requirements.lock pins every package of the book's environment, and that is what is
installed.

pyproject.toml says which versions the book accepts; requirements.lock (written by `make
lock`) says which ones `make setup` installs. These checks keep the two in step, keep
the lock a list of exact versions, compare it with the environment the tests run in, and
with the versions the README names as the source of the printed numbers.
"""

import os
import re
import tomllib
from importlib import metadata

import pytest
from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from .book_sources import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
LOCK_LINES = [
    line.strip()
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.lstrip().startswith("#")
]
# `make test-latest` runs the tests against the newest releases, not the lock's.
LATEST = os.environ.get("DR_BOOK_LATEST") == "1"
README_SECTION = "### The versions behind the printed numbers"


def _lock() -> dict[str, Requirement]:
    return {canonicalize_name(r.name): r for r in map(Requirement, LOCK_LINES)}


def _pin(req: Requirement) -> Version:
    (spec,) = req.specifier
    return Version(spec.version)


def _applies(req: Requirement) -> bool:
    """Whether a requirement's environment marker (if any) holds on this machine."""
    environment = {**default_environment(), "extra": ""}
    return req.marker is None or req.marker.evaluate(environment)


def _installed_extras() -> set[str]:
    """The extras that some `pip install ... -e ".[a,b]"` line of the Makefile
    installs."""
    found = re.findall(r'pip install [^\n]*-e "\.\[([\w,-]+)\]"', MAKEFILE)
    assert found, "the Makefile installs the project nowhere"
    return {e.strip() for group in found for e in group.split(",")}


def _requirements(extras: set[str]) -> list[Requirement]:
    """[project.dependencies] and those of the extras, following dr-lib[...] to its
    extras."""
    optional = PROJECT["optional-dependencies"]
    reqs = [Requirement(r) for r in PROJECT["dependencies"]]
    seen, todo = set(), set(extras)
    while todo:
        extra = todo.pop()
        seen.add(extra)
        for req in map(Requirement, optional[extra]):
            if canonicalize_name(req.name) == canonicalize_name(PROJECT["name"]):
                todo |= req.extras - seen
            else:
                reqs.append(req)
    return reqs


def test_make_lock_compiles_every_extra_the_makefile_installs():
    recipe = re.search(r"^lock:\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE).group(1)
    assert set(re.findall(r"--extra (\w+)", recipe)) == _installed_extras()
    assert re.search(r"^PINS\s*:=\s*-r requirements\.lock$", MAKEFILE, re.MULTILINE)
    assert re.search(r'pip install [^\n]*\$\(PINS\) -e "\.\[', MAKEFILE)


def test_the_lock_pins_every_dependency_within_its_range():
    lock = _lock()
    for req in _requirements(_installed_extras()):
        if not _applies(req):
            continue
        name = canonicalize_name(req.name)
        assert name in lock, f"{req} (pyproject.toml) is not in requirements.lock"
        assert req.specifier.contains(_pin(lock[name]), prereleases=True), (
            f"requirements.lock pins {lock[name]}, outside pyproject.toml's {req}"
        )


def test_every_line_of_the_lock_is_an_exact_pin():
    names = []
    for line in LOCK_LINES:
        try:
            req = Requirement(line)
        except InvalidRequirement:  # an option line (-e, --find-links), say
            pytest.fail(f"not a requirement: {line!r}")
        (spec,) = req.specifier
        assert spec.operator == "==" and "*" not in spec.version, line
        # a local label (+cpu) exists on one machine only: `make lock` cuts it off
        assert Version(spec.version).local is None, line
        assert not req.url and not req.extras, line
        names.append(canonicalize_name(req.name))
    assert names and len(names) == len(set(names)), "a package is pinned twice"
    assert canonicalize_name(PROJECT["name"]) not in names


@pytest.mark.skipif(LATEST, reason="make test-latest installs the newest, not the lock")
def test_the_installed_versions_are_the_locks():
    installed = {
        canonicalize_name(d.metadata["Name"]): Version(d.version)
        for d in metadata.distributions()
        if d.metadata["Name"]
    }
    installed.pop(canonicalize_name(PROJECT["name"]), None)
    lock = {name: req for name, req in _lock().items() if _applies(req)}
    # PEP 440: ==2.13.0 is met by this machine's CPU build of torch, 2.13.0+cpu.
    wrong = {
        name: f"{installed.get(name)} installed, {_pin(req)} locked"
        for name, req in lock.items()
        if not req.specifier.contains(installed.get(name, "0"), prereleases=True)
    }
    assert not wrong, f"installed, but not the lock's version (run make setup): {wrong}"
    extra = sorted(set(installed) - set(lock))
    assert not extra, f"installed and not in requirements.lock: {extra}"


def test_readme_names_the_locked_versions():
    assert README_SECTION in README, f"README.md has no section {README_SECTION!r}"
    section = re.split(r"\n#{1,3} ", README.split(README_SECTION, 1)[1])[0]
    rows = re.findall(r"^\| `?([\w.-]+)`? +\| (\d[^\s|]*) +\|", section, re.MULTILINE)
    assert len(rows) >= 5, "the README lists too few versions"
    lock = _lock()
    for name, version in rows:
        pinned = lock.get(canonicalize_name(name))
        assert pinned, f"README.md names {name}, which requirements.lock does not pin"
        assert Version(version) == _pin(pinned), (
            f"README.md: {name} {version}, lock: {pinned}"
        )
