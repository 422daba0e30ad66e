"""Glossary, errata and concordance: well-formed, and every label they name exists."""

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

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


class _StrictLoader(yaml.SafeLoader):
    """A YAML loader that rejects a key given twice in one mapping.

    The plain loader keeps the last value silently; a merge that drops one row's leading
    ``- source:`` line fuses two rows into one that way, and the first row vanishes.
    """

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(k, deep=deep) for k, _ in node.value]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            raise yaml.constructor.ConstructorError(
                None, None, f"keys given twice in one row: {twice}", node.start_mark
            )
        return super().construct_mapping(node, deep=deep)


@pytest.mark.parametrize("name", ["concordance", "errata", "glossary"])
def test_no_row_gives_a_key_twice(name):
    path = Path(__file__).resolve().parents[2] / "book/appendix/data" / f"{name}.yml"
    rows = yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLoader)
    assert rows == table(name)
