"""The bibliography parses as BibTeX: every entry closed, no key or field given
twice."""

from pathlib import Path

import pytest
from pybtex.database.input.bibtex import Parser

BIB = Path(__file__).resolve().parents[2] / "references.bib"


def test_bibliography_parses_strictly():
    # pybtex raises on an unclosed entry or a duplicate field in strict mode;
    # merges that interleave two branches' new entries produce exactly these.
    entries = Parser().parse_file(BIB).entries
    assert entries


def test_every_entry_opens_once():
    keys = [
        line.split("{", 1)[1].rstrip(",").strip()
        for line in BIB.read_text(encoding="utf-8").splitlines()
        if line.startswith("@")
    ]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    assert not twice, f"bibliography keys defined twice: {twice}"


@pytest.mark.parametrize("field", ["author", "title", "year"])
def test_every_entry_has(field):
    missing = [
        key
        for key, entry in Parser().parse_file(BIB).entries.items()
        if field not in entry.fields and not (field == "author" and entry.persons)
    ]
    assert not missing, f"entries without {field}: {missing}"
