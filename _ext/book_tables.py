"""Render the appendix tables (glossary, errata, concordance) from YAML data files.

The data live in ``book/appendix/data/*.yml`` so that every chapter adds rows without
touching page markup, and so that tests can read the same files. Each directive reads its
file, validates the rows and emits MyST markup (a glossary, or a list-table whose cells link
to the labels in the chapters). A row that points at a missing label therefore fails the
nitpicky build, and ``tests/structure`` checks the same thing without building.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

SOURCES = {"T": "[T]", "B": "[B]", "W": "[W]", "N": "[N]", "S": "[S]"}
CONCORDANCE_STATUSES = {
    "derived-and-checked": "derived and checked",
    "checked-numerically": "checked numerically",
    "erratum": "erratum (see errata)",
    "omitted": "omitted",
}


def label_link(label: str) -> str:
    """MyST role that links to ``label`` with the role its prefix calls for."""
    if label.startswith("eq-"):
        return f"{{eq}}`{label}`"
    if label.startswith("fig-"):
        return f"{{numref}}`{label}`"
    if label.startswith(("def-", "thm-", "prf-")):
        return f"{{prf:ref}}`{label}`"
    if label.startswith("sec-"):
        return f"{{ref}}`{label}`"
    return f"{{ref}}`{label} <{label}>`"


def cell(text: str) -> str:
    """One list-table cell on a single line (newlines in YAML folded to spaces)."""
    return " ".join(str(text).split()) or "—"


class _YamlTable(SphinxDirective):
    """Base: read a YAML list, check required keys, render MyST lines."""

    required_arguments = 1
    required_keys: tuple[str, ...] = ()

    def load_rows(self) -> list[dict]:
        rel, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        self.env.note_dependency(rel)
        rows = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or []
        for i, row in enumerate(rows):
            missing = [k for k in self.required_keys if not row.get(k)]
            if missing:
                raise self.error(
                    f"{self.arguments[0]} row {i}: missing {missing}: {row}"
                )
            if "source" in row and row["source"] not in SOURCES:
                raise self.error(
                    f"{self.arguments[0]} row {i}: unknown source {row['source']!r}"
                )
        return rows

    def render(self, lines: list[str]) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(
            StringList(lines, source=self.arguments[0]), 0, container
        )
        return container.children

    @staticmethod
    def list_table(header: list[str], rows: list[list[str]], widths: str) -> list[str]:
        if not rows:
            return ["*No entries yet.*"]
        lines = ["```{list-table}", ":header-rows: 1", f":widths: {widths}", ""]
        for row in [header, *rows]:
            lines.append(f"* - {row[0]}")
            lines.extend(f"  - {value}" for value in row[1:])
        lines.append("```")
        return lines


class ConcordanceTable(_YamlTable):
    """Source equation -> where the book derives or checks it (or why it is omitted)."""

    required_keys = ("source", "equation", "status")

    def run(self):
        rows = []
        for i, row in enumerate(self.load_rows()):
            status = row["status"]
            if status not in CONCORDANCE_STATUSES:
                raise self.error(f"concordance row {i}: unknown status {status!r}")
            if status != "omitted" and not row.get("book"):
                raise self.error(
                    f"concordance row {i}: status {status!r} needs a 'book' label"
                )
            if status == "omitted" and not row.get("note"):
                raise self.error(
                    f"concordance row {i}: an omitted equation needs a 'note' saying why"
                )
            where = label_link(row["book"]) if row.get("book") else "—"
            rows.append(
                [
                    SOURCES[row["source"]],
                    cell(row["equation"]),
                    where,
                    CONCORDANCE_STATUSES[status],
                    cell(row.get("note", "")),
                ]
            )
        header = ["Source", "Equation", "In this book", "Status", "Note"]
        return self.render(self.list_table(header, rows, "8 18 22 18 34"))


class ErrataTable(_YamlTable):
    """Errors found in the sources, each with the check that shows it."""

    required_keys = ("source", "where", "says", "correct", "check")

    def run(self):
        rows = [
            [
                SOURCES[r["source"]],
                cell(r["where"]),
                cell(r["says"]),
                cell(r["correct"]),
                label_link(r["check"]),
            ]
            for r in self.load_rows()
        ]
        header = ["Source", "Where", "What it says", "What is right", "The check"]
        return self.render(self.list_table(header, rows, "7 15 28 28 22"))


class BilingualGlossary(_YamlTable):
    """A sorted Sphinx glossary: each entry under its English and its Chinese term."""

    required_keys = ("term", "zh", "definition", "label")

    def run(self):
        lines = ["```{glossary}", ":sorted:", ""]
        for row in self.load_rows():
            lines += [
                row["term"],
                row["zh"],
                f"   {cell(row['definition'])} "
                f"Introduced in {label_link(row['label'])}.",
                "",
            ]
        lines.append("```")
        return self.render(lines)


def setup(app):
    app.add_directive("concordance-table", ConcordanceTable)
    app.add_directive("errata-table", ErrataTable)
    app.add_directive("bilingual-glossary", BilingualGlossary)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
