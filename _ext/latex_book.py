"""The whole book as one PDF: what Sphinx's LaTeX builder needs to print this book well.

``make pdf`` builds the book with ``jupyter-book build . --builder latex`` and typesets
it with xelatex (``tests/rendered_site/print_book.py`` says why this route and not a
browser's print). The LaTeX builder writes the same doctrees as the HTML book; these
transforms fix what it would otherwise print badly, for the ``latex`` builder only:

- **Tables in outputs.** ``plotting.table`` returns a pandas ``Styler``, whose only rich
  output is HTML, which LaTeX cannot show: the PDF printed
  ``<pandas.io.formats.style.Styler at 0x…>``. Each such output becomes a real table
  with its caption.
- **Long tables** (the notation, glossary-like and appendix tables) become
  ``longtable``\\ s with column widths from their content, so that they break across
  pages instead of running off the bottom or the margin.
- **Links to boxes.** Erratum boxes, exercises and definitions carry labels that the
  LaTeX writer does not turn into anchors, and ``{numref}`` to an exercise asks LaTeX
  for a counter it does not have ("Exercise ??"). Each such box gets an anchor, and such
  a reference keeps the text Sphinx computed ("Exercise 13.3").
- **Maths in headings.** Bookmarks are plain text: a heading's formula gets a readable
  Unicode twin (``\\texorpdfstring``) instead of what hyperref makes of TeX
  ("Wbold0mu mumu").
- **Link texts taken from such headings** show the heading with its formula typeset, not
  the TeX source ("When \\mathbf S_w is singular").
- **The front matter**: bookmarks for the table of contents and the introduction.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

# --------------------------------------------------------------------------------------
# Maths as plain text, for PDF bookmarks


GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε",
    "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
SYMBOLS = {
    "top": "ᵀ", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
    "times": "×", "cdot": "·", "in": "∈", "to": "→", "infty": "∞", "sum": "Σ",
    "prod": "Π", "approx": "≈", "sim": "∼", "lVert": "‖", "rVert": "‖", "|": "‖",
    "ldots": "…", "dots": "…", "cdots": "⋯", "partial": "∂", "nabla": "∇",
}  # fmt: skip
#: Commands that only style their argument: the argument is kept, the command dropped.
STYLES = {
    "mathbf", "boldsymbol", "bm", "mathrm", "mathit", "mathsf", "mathcal", "mathbb",
    "operatorname", "text", "textrm", "textbf", "mathnormal", "left", "right", "big",
    "Big", "bigl", "bigr", "displaystyle",
}  # fmt: skip


def tex_to_text(tex: str) -> str:
    """A readable plain-text rendering of inline TeX, for a PDF bookmark.

    ``\\mathbf S\\mathbf W = \\mathbf W\\boldsymbol\\Lambda`` becomes ``SW = WΛ``,
    ``\\mathbf W^\\top`` becomes ``Wᵀ``, ``\\frac{1}{N}`` becomes ``1/N``; subscripts
    keep their underscore (``Q_NX``), primes become ``′``.
    """
    text = re.sub(r"\\[td]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", tex)
    text = re.sub(r"\(([A-Za-z0-9]+)\)/", r"\1/", text)
    text = re.sub(r"/\(([A-Za-z0-9]+)\)", r"/\1", text)

    def command(match: re.Match) -> str:
        name = match.group(1)
        if name in GREEK:
            return GREEK[name]
        if name in SYMBOLS:
            return SYMBOLS[name]
        return ""  # styles and spacing: keep only what follows

    text = re.sub(r"\\([A-Za-z]+|\|)\s*", command, text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = re.sub(r"\^\s*\{?ᵀ\}?", "ᵀ", text)
    text = text.replace("'", "′").replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


class _MathInTitles(SphinxPostTransform):
    """Give every formula in a section title a plain-text twin
    for the PDF's bookmarks."""

    default_priority = 950
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for title, parent, _ in list(_walk(self.document, self.env.docname)):
            if not isinstance(title, nodes.title) or not isinstance(
                parent, nodes.section
            ):
                continue
            for i, math in enumerate(title.children):
                if isinstance(math, nodes.math):
                    tex = math.astext()
                    plain = re.sub(r"([#$%&_{}])", r"\\\1", tex_to_text(tex))
                    title[i] = nodes.raw(
                        "", rf"\texorpdfstring{{\({tex}\)}}{{{plain}}}", format="latex"
                    )


# --------------------------------------------------------------------------------------
# HTML tables in notebook outputs


class _HtmlTable(HTMLParser):
    """The caption and the cells of the first <table> in an HTML string.

    ``rows`` holds, per row, ``(text, is_header, rowspan, colspan)`` for every cell;
    ``header`` how many leading rows came from ``<thead>``.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.caption = ""
        self.rows: list[list[tuple[str, bool, int, int]]] = []
        self.header = 0
        self._in = None  # "caption", or a cell (text parts, header, rowspan, colspan)
        self._in_head = self._skip = False
        self._tables = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._tables += 1
        elif self._tables != 1:
            return
        elif tag in ("style", "script"):
            self._skip = True
        elif tag == "caption":
            self._in = ["caption", []]
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self.rows.append([])
            self.header += self._in_head
        elif tag in ("td", "th") and self.rows:
            span = [int(attrs.get(key) or 1) for key in ("rowspan", "colspan")]
            self._in = ["cell", [], tag == "th", *span]
        elif tag == "br" and self._in:
            self._in[1].append(" ")

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self._skip = False
        elif tag == "thead":
            self._in_head = False
        elif tag == "caption" and self._in and self._in[0] == "caption":
            self.caption = _squeeze("".join(self._in[1]))
            self._in = None
        elif tag in ("td", "th") and self._in and self._in[0] == "cell":
            _, parts, header, rowspan, colspan = self._in
            self.rows[-1].append((_squeeze("".join(parts)), header, rowspan, colspan))
            self._in = None
        elif tag == "table":
            self._tables += 1  # anything after the first table is ignored

    def handle_data(self, data):
        if self._in and not self._skip:
            self._in[1].append(data)


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


def table_from_html(html: str) -> nodes.table | None:
    """A docutils table with the caption, spans and header rows of an HTML table."""
    parsed = _HtmlTable()
    parsed.feed(html)
    if not parsed.rows or not any(parsed.rows):
        return None
    # Lay the cells on a grid to count the columns (row spans fill cells below them).
    taken: set[tuple[int, int]] = set()
    columns = 0
    for r, row in enumerate(parsed.rows):
        c = 0
        for _, _, rowspan, colspan in row:
            while (r, c) in taken:
                c += 1
            taken.update((r + i, c + j) for i in range(rowspan) for j in range(colspan))
            c += colspan
        columns = max(columns, c, *(j + 1 for i, j in taken if i == r))
    table = nodes.table(classes=["dr-output-table"])
    if parsed.caption:
        table += nodes.title(parsed.caption, parsed.caption)
    group = nodes.tgroup(cols=columns)
    table += group
    widths = [1] * columns
    for row in parsed.rows:
        for c, (text, *_rest) in enumerate(row[:columns]):
            widths[c] = max(widths[c], min(len(text), 30))
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head, body = nodes.thead(), nodes.tbody()
    for r, cells in enumerate(parsed.rows):
        row = nodes.row()
        for text, header, rowspan, colspan in cells:
            entry = nodes.entry(morerows=rowspan - 1, morecols=colspan - 1)
            if rowspan == 1:
                del entry["morerows"]
            if colspan == 1:
                del entry["morecols"]
            if text:
                content = nodes.strong(text, text) if header else nodes.Text(text)
                entry += nodes.paragraph("", "", content)
            row += entry
        (head if r < parsed.header else body).append(row)
    if len(head):
        group += head
    group += body
    return table


class _HtmlTablesInOutputs(SphinxPostTransform):
    """Turn notebook outputs that are HTML tables into tables LaTeX can print.

    Runs before myst-nb chooses an output's format for the builder
    (its priority 4), when the bundle still holds every format: an output with an
    HTML table becomes that table.
    """

    default_priority = 3
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            html = next(
                (c for c in bundle.children if c.get("mime_type") == "text/html"), None
            )
            if html is None or "<table" not in html.astext():
                continue
            table = table_from_html(html.astext())
            if table is not None:
                bundle.replace_self(table)


# --------------------------------------------------------------------------------------
# Tables that would run off the page

#: A table is typeset as a longtable, which breaks across pages, when it has more body
#: rows than this or more text than :data:`LONG_TABLE_CHARACTERS` (rows that wrap onto
#: many lines); others stay tabulary, which sizes its columns itself but cannot break.
LONG_TABLE_ROWS = 30
LONG_TABLE_CHARACTERS = 1500
#: Widest column, in characters: longer cells wrap.
WIDEST_COLUMN = 60
#: Characters a line of the text block holds (455 pt of 10-pt type, about 5 pt each).
LINE_CHARACTERS = 90
#: The padding of a cell (two \tabcolsep of 6 pt), in characters.
CELL_PADDING = 3


#: TeX commands that print as an operator with space around it, like "=" and "+".
_OPERATORS = re.compile(
    r"\\(?:in|le|ge|leq|geq|ne|neq|times|cdot|approx|sim|to|mapsto)\b|[=+<>-]"
)


def _printed_length(text: str, maths: bool) -> int:
    """About how many characters wide ``text`` prints: a formula's commands print as one
    character or none, its operators as three (with the space around them)."""
    if not maths:
        return len(text)
    operators = len(_OPERATORS.findall(text))
    letters = re.sub(r"\\[A-Za-z]+|[{}^_\s=+<>-]", "", text)
    return len(letters) + 3 * operators


def _cell_lengths(entry: nodes.Element) -> tuple[int, int]:
    """How many characters wide a cell prints, and its widest unbreakable piece (a word,
    or a formula)."""
    pieces = []
    for node in entry.findall(nodes.Text):
        if isinstance(node.parent, nodes.math):
            pieces.append(_printed_length(node.astext(), maths=True))
        else:
            pieces += map(len, node.astext().split())
    return sum(pieces) + max(len(pieces) - 1, 0), max(pieces, default=0)


def _columns(group: nodes.tgroup) -> list[list[tuple[int, int]]]:
    """The cells of a table, column by column, as :func:`_cell_lengths`; a cell spanning
    several columns or rows counts where it starts; a header cell only by its widest
    piece (it may wrap, but not mid-word)."""
    columns = [[] for _ in range(int(group["cols"]))]
    taken: set[tuple[int, int]] = set()
    for r, row in enumerate(group.findall(nodes.row)):
        c = 0
        for entry in row.children:
            while (r, c) in taken:
                c += 1
            rows, cols = entry.get("morerows", 0) + 1, entry.get("morecols", 0) + 1
            taken.update((r + i, c + j) for i in range(rows) for j in range(cols))
            if c < len(columns):
                length, widest = _cell_lengths(entry)
                header = isinstance(row.parent, nodes.thead)
                columns[c].append((0 if header else length, widest))
            c += cols
    return columns


def _column_widths(columns: list[list[tuple[int, int]]]) -> list[int]:
    """Widths of a table's columns, in characters with their padding, summing to at most
    :data:`LINE_CHARACTERS` when the table can fit the line.

    A column wants room between its typical cell (three in four are shorter) and its
    longest, which wraps; it needs at least its longest word, which would otherwise run
    into the next column. Each column gets what it needs, then a share of what is left
    in proportion to what it wants beyond that (widths given as proportions of the line
    once squeezed the short columns of a wide table below their words).
    """
    needs, wants = [], []
    for column in columns:
        widths = sorted(width for width, _ in column if width) or [1]
        typical = widths[(3 * len(widths)) // 4]
        longest = min(widths[-1], WIDEST_COLUMN)
        word = max((word for _, word in column), default=0)
        needs.append(max(3, word) + CELL_PADDING)
        wants.append(max(3, word, (typical + longest) // 2) + CELL_PADDING)
    spare = LINE_CHARACTERS - sum(needs)
    extra = sum(w - n for w, n in zip(wants, needs))
    if spare <= 0 or extra <= spare:
        return needs if spare <= 0 else wants
    return [n + (w - n) * spare // extra for n, w in zip(needs, wants)]


class _LongTables(SphinxPostTransform):
    """Let long tables break across pages,
    with columns as wide as their content needs."""

    default_priority = 960
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for table in self.document.findall(nodes.table):
            groups = [g for g in table.children if isinstance(g, nodes.tgroup)]
            if len(groups) != 1:
                continue
            body = next(iter(groups[0].findall(nodes.tbody)), None)
            columns = _columns(groups[0])
            characters = sum(width for column in columns for width, _ in column)
            if body is None or (
                len(body) <= LONG_TABLE_ROWS and characters <= LONG_TABLE_CHARACTERS
            ):
                continue
            table["classes"] = [*table["classes"], "longtable"]
            if "colwidths-given" in table["classes"]:
                continue
            colspecs = [c for c in groups[0].children if isinstance(c, nodes.colspec)]
            for colspec, width in zip(colspecs, _column_widths(columns), strict=True):
                colspec["colwidth"] = width
            table["classes"].append("colwidths-given")


# --------------------------------------------------------------------------------------
# Anchors for boxes, and references to them


def _walk(node: nodes.Node, docname: str, parent: nodes.Element | None = None):
    """``(node, its parent, its document)`` for every node under ``node``, top-down.

    The LaTeX builder inlines every document under a ``start_of_file`` node. Parent
    links cannot be trusted to find it, nor to insert beside a node:
    sphinx-jupyterbook-latex moves children by list assignment. The walk follows the
    children, as the writer does.
    """
    if isinstance(node, addnodes.start_of_file):
        docname = node["docname"]
    yield node, parent, docname
    for child in node.children:
        yield from _walk(child, docname, node)


def _target_key(reference: nodes.Element, docname: str) -> str | None:
    """``<document>:<id>`` of an internal link's target,
    as the LaTeX writer names it."""
    uri = reference.get("refuri", "")
    if not uri and reference.get("refid"):
        return f"{docname}:{reference['refid']}"
    if uri.startswith("#"):
        return f"{docname}:{uri[1:]}"
    if uri.startswith("%") and "#" in uri:
        return uri[1:].replace("#", ":", 1)
    return None


def _anchors_for_boxes(app, doctree, docname) -> None:
    """Anchors at erratum boxes, exercises and definitions, and links that reach them.

    Sphinx's LaTeX writer sets an anchor for sections, figures, tables and targets, but
    not for admonitions (erratum boxes); sphinx-exercise and sphinx-proof label their
    boxes under names of their own, which the links do not use. A link to a box
    therefore pointed nowhere. Every box gets an anchor of its own
    (``box:<document>:<id>``) and every link to it is pointed there; a ``{numref}`` to a
    box keeps the text Sphinx computed ("Exercise 13.3"): LaTeX has no counter for these
    boxes, and ``\\ref`` printed "??".

    Runs when the references are resolved, after ``label_text.py`` has made its links
    ("erratum box, §3.1.2").
    """
    if app.builder.format != "latex":
        return
    walk = list(_walk(doctree, docname))
    boxes = set()
    for box, parent, doc in walk:
        if isinstance(box, nodes.Admonition) and box.get("ids") and parent is not None:
            keys = [f"{doc}:{id_}" for id_ in box["ids"]]
            boxes.update(keys)
            anchors = "".join(
                rf"\phantomsection\label{{\detokenize{{box:{key}}}}}" for key in keys
            )
            parent.insert(parent.index(box), nodes.raw("", anchors, format="latex"))
    for ref, parent, doc in walk:
        if not isinstance(ref, (nodes.reference, addnodes.number_reference)):
            continue
        if isinstance(ref, addnodes.number_reference) and type(ref) is not (
            addnodes.number_reference
        ):
            continue  # sphinx-exercise's own kind, which numbers itself
        key = _target_key(ref, doc)
        if key not in boxes:
            continue
        uri = "%box:" + key.replace(":", "#", 1)
        if isinstance(ref, addnodes.number_reference):
            link = nodes.reference("", "", *ref.children, internal=True, refuri=uri)
            parent.replace(ref, link)
        else:
            ref["refuri"] = uri
            ref.attributes.pop("refid", None)


# --------------------------------------------------------------------------------------
# Link texts that are a heading's TeX source


class _HeadingTextsInLinks(SphinxPostTransform):
    """Show a link whose text is a heading with maths as that heading, formula typeset.

    ``{ref}`` to a section takes the title as plain text, TeX included; the link then
    read "When \\mathbf S_w is singular".
    """

    default_priority = 940
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        walk = list(_walk(self.document, self.env.docname))
        titles = {}
        for section, _, docname in walk:
            if not isinstance(section, nodes.section):
                continue
            title = section.next_node(nodes.title)
            if title is not None and any(title.findall(nodes.math)):
                titles.update((f"{docname}:{id_}", title) for id_ in section["ids"])
        for ref, _, docname in walk:
            if not isinstance(ref, nodes.reference):
                continue
            title = titles.get(_target_key(ref, docname))
            if title is not None and ref.astext() == title.astext():
                inline = ref.next_node(nodes.inline) or ref
                inline.children = []
                for child in title.children:
                    inline += child.deepcopy()


# --------------------------------------------------------------------------------------
# Front matter


class _FrontMatter(SphinxPostTransform):
    """The introduction, which has no chapter heading: a line in the contents (and so a
    bookmark), anchors for its labels, and a running head."""

    default_priority = 990
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        root = self.config.root_doc
        if self.env.docname != root:
            return
        section = self.document.next_node(nodes.section)
        if section is None:
            return
        title = self.env.titles[root].astext()
        first = next(
            (
                i
                for i, c in enumerate(section.children)
                if not isinstance(c, nodes.title)
            ),
            0,
        )
        # sphinx-jupyterbook-latex prints the root document's title as the book's, so
        # its labels ({ref}`sec-intro`) have no anchor: they get one here.
        anchors = "".join(
            rf"\phantomsection\label{{\detokenize{{{root}:{id_}}}}}"
            for id_ in section["ids"]
        )
        section.insert(
            first,
            nodes.raw(
                "",
                r"\phantomsection\addcontentsline{toc}{chapter}"
                rf"{{{title}}}{anchors}"
                rf"\markboth{{{title}}}{{{title}}}",
                format="latex",
            ),
        )


# --------------------------------------------------------------------------------------

#: jupyterBook.cls (sphinx-jupyterbook-latex) loads bbm for ``\mathbbm`` shorthands that
#: this book never uses; Debian ships bbm only in texlive-fonts-extra (500 MB). The
#: class gets this stand-in instead.
BBM_STANDIN = r"""\ProvidesPackage{bbm}[2026/01/01 stand-in: mathbbm as mathbb]
\newcommand{\mathbbm}[1]{\mathbb{#1}}
"""


def _write_bbm_standin(app) -> None:
    if app.builder.format == "latex":
        Path(app.outdir).mkdir(parents=True, exist_ok=True)
        (Path(app.outdir) / "bbm.sty").write_text(BBM_STANDIN, encoding="utf-8")


def setup(app):
    for transform in (
        _HtmlTablesInOutputs,
        _MathInTitles,
        _LongTables,
        _HeadingTextsInLinks,
        _FrontMatter,
    ):
        app.add_post_transform(transform)
    app.connect("builder-inited", _write_bbm_standin)
    # after label_text.py's links (priority 500)
    app.connect("doctree-resolved", _anchors_for_boxes, priority=900)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
