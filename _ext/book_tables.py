"""Render the appendix tables (glossary, errata, concordance) from YAML data files.

The data live in ``book/appendix/data/*.yml`` so that every chapter adds rows without
touching page markup, and so that tests can read the same files. Each directive reads
its file, validates the rows and emits MyST markup (a glossary, or a list-table whose
cells link to the labels in the chapters). A row that points at a missing label
therefore fails the nitpicky build, and ``tests/structure`` checks the same thing
without building.

Cells are MyST, so a row writes its maths as ``$\\lVert\\mathbf A\\rVert_F^2$``. Links
show readable text: an equation number, "Figure 3.2", a section or theorem title, or
(through the roles of ``label_text.py``) "erratum box, §3.1.2" and the chapter a label
lives in. The tables carry the class ``dr-appendix`` (``_static/house.css``): fixed
columns that wrap on a laptop, one card per row on a phone.
"""

from __future__ import annotations

import re
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
    """MyST role that links to ``label`` with readable text, by the label's prefix."""
    if label.startswith("eq-"):
        return f"{{eq}}`{label}`"
    if label.startswith("fig-"):
        return f"{{numref}}`{label}`"
    if label.startswith(("def-", "thm-", "prf-")):
        return f"{{prf:ref}}`{label}`"
    if label.startswith("erratum-"):
        return f"{{erratum-box}}`{label}`"
    return f"{{ref}}`{label}`"


# A label named in running text, e.g. "see erratum-t-colsum-sign": at least two hyphens.
_LABEL_IN_TEXT = re.compile(
    r"(?<![\w`{-])((?:eq|fig|sec|thm|def|ex|erratum)(?:-[a-z0-9]+){2,})"
)
# Inline maths and literal or role text, which are left as they are.
_PROTECTED = re.compile(r"(\$[^$]+\$|`[^`]*`)")


def link_labels(text: str) -> str:
    """Turn every label named in the prose of ``text`` into a link with readable
    text."""
    parts = _PROTECTED.split(text)
    for i in range(0, len(parts), 2):  # even parts lie outside maths and backticks
        parts[i] = _LABEL_IN_TEXT.sub(lambda m: label_link(m.group(1)), parts[i])
    return "".join(parts)


def cell(text: str) -> str:
    """One list-table cell on a single line (newlines in YAML folded to spaces), with
    the labels it names turned into links."""
    return link_labels(" ".join(str(text).split())) or "—"


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
        lines = [
            "```{list-table}",
            ":header-rows: 1",
            f":widths: {widths}",
            ":class: dr-appendix",
            "",
        ]
        for row in [header, *rows]:
            lines.append(f"* - {row[0]}")
            lines.extend(f"  - {value}" for value in row[1:])
        lines.append("```")
        return lines


class ConcordanceTable(_YamlTable):
    """Source equation -> where the book derives or checks it (or why it is omitted).

    With ``:source: T`` only that source's rows, without a source column (the page has
    one table per source, so that each fits the column).
    """

    required_keys = ("source", "equation", "status")
    option_spec = {"source": lambda value: value.strip()}

    def run(self):
        only = self.options.get("source")
        if only is not None and only not in SOURCES:
            raise self.error(f"unknown :source: {only!r}; use one of {sorted(SOURCES)}")
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
                    f"concordance row {i}: an omitted equation needs a 'note' saying "
                    "why"
                )
            if only is not None and row["source"] != only:
                continue
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
        if only is not None:
            header, rows = header[1:], [r[1:] for r in rows]
            return self.render(self.list_table(header, rows, "18 24 18 40"))
        return self.render(self.list_table(header, rows, "8 18 22 18 34"))


class ErrataTable(_YamlTable):
    """Errors found in the sources, each with the chapter and the box that checks it.

    ``:rows: found`` (the default) lists the errors this book found; ``:rows: reported``
    lists the rows with a ``reported_by`` field: errors of another book that a source
    itself reports (e.g. [W] correcting a printing of the Watermelon book), not charged
    to it.
    """

    required_keys = ("source", "where", "says", "correct", "check")
    option_spec = {"rows": lambda value: value.strip()}

    def run(self):
        which = self.options.get("rows", "found")
        if which not in {"found", "reported"}:
            raise self.error(f":rows: must be 'found' or 'reported', not {which!r}")
        rows = []
        for i, r in enumerate(self.load_rows()):
            reporter = r.get("reported_by")
            if reporter is not None and reporter not in SOURCES:
                raise self.error(f"errata row {i}: unknown reported_by {reporter!r}")
            if (reporter is not None) != (which == "reported"):
                continue
            rows.append(
                [
                    f"{{label-chapter}}`{r['check']}`",
                    SOURCES[reporter or r["source"]],
                    cell(r["where"]),
                    cell(r["says"]),
                    cell(r["correct"]),
                    label_link(r["check"]),
                ]
            )
        source = "Reported by" if which == "reported" else "Source"
        header = [
            "Chapter",
            source,
            "Where",
            "What it says",
            "What is right",
            "The check",
        ]
        return self.render(self.list_table(header, rows, "9 9 16 25 25 16"))


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
