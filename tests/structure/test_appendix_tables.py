"""Glossary, errata and concordance: well-formed, and every label they name exists."""

import re
from collections import Counter

import pytest

from .book_sources import defined_labels, label_definitions, table, used_terms

LABELS = defined_labels()
STATUSES = {"derived-and-checked", "checked-numerically", "erratum", "omitted"}
SOURCES = {"T", "B", "W", "N", "S"}


def test_labels_are_unique_across_the_book():
    counts = Counter(label for label, _ in label_definitions())
    twice = [label for label, n in counts.items() if n > 1]
    assert not twice, f"labels defined more than once: {twice}"


@pytest.mark.parametrize(
    "row", table("concordance"), ids=lambda r: f"{r['source']}{r['equation']}"
)
def test_concordance_row(row):
    assert row["source"] in SOURCES
    assert row["status"] in STATUSES
    if row["status"] == "omitted":
        assert row.get("note"), "an omitted equation needs a note saying why"
    else:
        assert row.get("book") in LABELS, (
            f"concordance points at missing label {row.get('book')!r}"
        )


def test_concordance_has_no_duplicate_equations():
    keys = [(r["source"], r["equation"]) for r in table("concordance")]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("row", table("errata"), ids=lambda r: r["check"])
def test_erratum_points_at_its_check(row):
    assert row["source"] in SOURCES
    assert all(row.get(k) for k in ("where", "says", "correct"))
    assert row["check"] in LABELS, f"erratum names missing check label {row['check']!r}"


@pytest.mark.parametrize("row", table("glossary"), ids=lambda r: r["term"])
def test_glossary_entry(row):
    assert re.search(r"[\u4e00-\u9fff]", row["zh"]), "the Chinese term is missing"
    assert row["label"] in LABELS, (
        f"glossary entry introduced at missing label {row['label']!r}"
    )


def test_every_term_used_is_in_the_glossary():
    known = {r["term"] for r in table("glossary")} | {
        r["zh"] for r in table("glossary")
    }
    unknown = {
        term: page.name for term, page in used_terms().items() if term not in known
    }
    assert not unknown, f"{{term}} references without a glossary entry: {unknown}"


def test_glossary_terms_are_unique():
    terms = [r["term"].lower() for r in table("glossary")]
    assert len(terms) == len(set(terms))


def test_each_erratum_is_listed_once():
    counts = Counter((r["source"], r["check"], r["where"]) for r in table("errata"))
    twice = [key for key, n in counts.items() if n > 1]
    assert not twice, f"errata rows listed twice: {twice}"
