"""The house formats of every page, read from the sources (no build needed).

Figures are captioned, named and referenced; errata boxes are collapsed and labelled;
library code is shown with literalinclude; hand-made figures fit the column; the intro's
map names only chapters that exist, or says they are planned. These hold for every
chapter, including those that later issues add.
"""

import ast
import re
import unicodedata

import pytest

from dr_lib import plotting

from .book_sources import (
    BOOK,
    book_pages,
    defined_labels,
    notebooks,
    page_markup,
    read_notebook,
    resolve,
    table,
    toc_files,
)

# Role references to a label: {numref}`fig-x`, {numref}`Figure %s <fig-x>`, {ref}`...`.
_ROLE_TARGET = re.compile(r"\{(?:numref|ref|eq|prf:ref)\}`(?:[^`<]*<)?([\w-]+)>?`")
# A MyST admonition opened with backticks or colons, its title, and its option lines.
_ADMONITION = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{admonition\}[ \t]*(?P<title>[^\n]*)\n"
    r"(?P<options>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
    re.MULTILINE,
)


def _code(path):
    return [
        "".join(c["source"])
        for c in read_notebook(path)["cells"]
        if c["cell_type"] == "code"
    ]


def _figure_cells(path):
    """(name, caption) of every cell with mystnb figure metadata."""
    figures = []
    for c in read_notebook(path)["cells"]:
        figure = c.get("metadata", {}).get("mystnb", {}).get("figure")
        if figure is not None:
            figures.append((figure.get("name"), figure.get("caption")))
    return figures


def _references():
    """Every label some page of the book refers to with a role."""
    return {
        target
        for page in book_pages()
        for target in _ROLE_TARGET.findall(page_markup(page))
    }


def _options(block: str) -> dict[str, str]:
    return dict(
        re.findall(r"^[ \t]*:([\w-]+):[ \t]*(.*?)\s*$", block, flags=re.MULTILINE)
    )


def _erratum_boxes():
    """(page, title, options) of every admonition whose title starts with "Erratum"."""
    boxes = []
    for page in book_pages():
        for m in _ADMONITION.finditer(page_markup(page)):
            if m.group("title").strip().startswith("Erratum"):
                boxes.append(
                    (page, m.group("title").strip(), _options(m.group("options")))
                )
    return boxes


# --------------------------------------------------------------------------- figures


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_figure_has_a_name_and_a_caption(path):
    bad = [
        (name, caption)
        for name, caption in _figure_cells(path)
        if not (name and name.startswith("fig-") and caption and caption.strip())
    ]
    assert not bad, f"{path.name}: figures need name: fig-... and a caption: {bad}"


def test_every_figure_is_referenced_in_the_text():
    referenced = _references()
    unreferenced = {
        name: path.relative_to(BOOK).as_posix()
        for path in notebooks()
        for name, _ in _figure_cells(path)
        if name and name not in referenced
    }
    assert not unreferenced, (
        f"figures never referenced with {{numref}}`fig-...` in the text: {unreferenced}"
    )


# ------------------------------------------------------------------------- alt text

# A screen reader reads a figure's alt text in place of the picture; without one,
# myst-nb writes the image's file path ("../../_images/3b0c….png"). The alt text is
# plain text (no MathJax, no MyST), says what the figure shows in a sentence or two,
# and does not repeat the caption, which the reader hears next anyway.
_ALT_LIMITS = (60, 450)  # characters: a placeholder below, a second caption above
_IMAGE_FILE = re.compile(r"\.(png|jpe?g|gif|svg|webp|pdf)\b|_images/", re.IGNORECASE)
_NOT_PLAIN = re.compile(r"\$|\\|\{\w[\w:-]*\}`")
_FILLER_START = re.compile(
    r"^(an? )?(image|picture|figure|graphic) (of|showing)\b", re.I
)


def _figure_alts(path):
    """(name, caption, alt) of every figure cell; alt is the cell's mystnb image alt,
    or None."""
    found = []
    for c in read_notebook(path)["cells"]:
        mystnb = c.get("metadata", {}).get("mystnb", {})
        if "figure" in mystnb:
            alt = (mystnb.get("image") or {}).get("alt")
            found.append(
                (
                    mystnb["figure"].get("name"),
                    mystnb["figure"].get("caption") or "",
                    alt,
                )
            )
    return found


def _alt_text_faults(alt, caption) -> list[str]:
    """What is wrong with one figure's alt text (empty list: nothing)."""
    if not isinstance(alt, str) or not alt.strip():
        return ["no alt text (mystnb: image: alt:)"]
    words = " ".join(alt.split())
    faults = []
    if _IMAGE_FILE.search(words):
        faults.append("names a file")
    if _NOT_PLAIN.search(words):
        faults.append("TeX or MyST markup: a screen reader reads it raw")
    if _FILLER_START.search(words):
        faults.append('starts with "image of": say what it shows')
    caption = " ".join(caption.split()).casefold()
    if caption and (words.casefold() in caption or caption in words.casefold()):
        faults.append("repeats the caption")
    if not _ALT_LIMITS[0] <= len(words) <= _ALT_LIMITS[1]:
        faults.append(f"{len(words)} characters, not {_ALT_LIMITS[0]}-{_ALT_LIMITS[1]}")
    return faults


def test_alt_text_faults_are_caught():
    caption = "The swiss roll embedded by Isomap, coloured by the position t."
    good = (
        "Scatter plot of the Isomap embedding: a flat rectangle whose colour runs "
        "from purple on the left to yellow on the right."
    )
    assert not _alt_text_faults(good, caption)
    assert _alt_text_faults(None, caption)
    assert _alt_text_faults("  ", caption)
    assert _alt_text_faults("../../_images/3b0cc734befae372482726a4d4413.png", caption)
    assert _alt_text_faults(caption, caption)
    assert _alt_text_faults(good + " " + caption, caption)
    assert _alt_text_faults("Image of " + good, caption)
    assert _alt_text_faults(good + " The kernel is $e^{-d^2}$.", caption)
    assert _alt_text_faults(good + " See {numref}`fig-x`.", caption)
    assert _alt_text_faults("A scatter plot.", caption)


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_figure_says_what_it_shows(path):
    bad = {
        name: faults
        for name, caption, alt in _figure_alts(path)
        if (faults := _alt_text_faults(alt, caption))
    }
    assert not bad, f"{path.name}: figure alt texts to write or fix: {bad}"


def test_no_two_figures_share_an_alt_text():
    seen: dict[str, str] = {}
    shared = []
    for path in notebooks():
        for name, _, alt in _figure_alts(path):
            if alt and (first := seen.setdefault(" ".join(alt.split()), name)) != name:
                shared.append((first, name))
    assert not shared, f"figures with the same alt text (copied?): {shared}"


_FIGSIZE = re.compile(r"figsize\s*=\s*\(\s*([0-9.]+)")


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_hand_made_figures_fit_the_column(path):
    wide = [float(w) for code in _code(path) for w in _FIGSIZE.findall(code)]
    wide = [w for w in wide if w > plotting.COLUMN_WIDTH]
    assert not wide, (
        f"{path.name}: figsize widths {wide} exceed plotting.COLUMN_WIDTH = "
        f"{plotting.COLUMN_WIDTH} in; the page would shrink them and their text. Use "
        "plotting.subplots(nrows, ncols, aspect=...)."
    )


# ------------------------------------------------------------------ library code shown


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_library_code_is_shown_with_literalinclude(path):
    printed = [c.splitlines()[0] for c in _code(path) if "inspect.getsource" in c]
    assert not printed, (
        f"{path.name}: inspect.getsource prints unhighlighted source; show it with a "
        "```{literalinclude} ../../dr_lib/<module>.py``` block and :pyobject: instead "
        f"(cells starting {printed})"
    )


# ---------------------------------------------------------------------- errata boxes


def test_the_book_has_erratum_boxes():
    assert _erratum_boxes(), (
        "no admonition titled 'Erratum …' found: is the pattern right?"
    )


@pytest.mark.parametrize(
    "page, title, options",
    [
        pytest.param(*box, id=box[2].get("name") or f"{box[0].stem}: {box[1]}")
        for box in _erratum_boxes()
    ],
)
def test_erratum_box_is_collapsed_and_labelled(page, title, options):
    classes = options.get("class", "").split()
    assert {"warning", "dropdown"} <= set(classes), (
        f"{page.name}: '{title}' needs ':class: warning dropdown' (collapsed, title "
        "shown)"
    )
    assert re.fullmatch(r"erratum-[a-z]+-[\w-]+", options.get("name", "")), (
        f"{page.name}: '{title}' needs ':name: erratum-<source>-<what>'"
    )


def test_every_erratum_row_points_at_an_erratum_box():
    boxes = {options.get("name") for _, _, options in _erratum_boxes()}
    rows = [r["check"] for r in table("errata")]
    not_boxes = [label for label in rows if label not in boxes]
    assert not not_boxes, (
        f"errata.yml rows whose check is not the :name: of an erratum box: {not_boxes}"
    )


def test_reported_by_names_a_source():
    bad = [r for r in table("errata") if r.get("reported_by") not in (None, *"TBWNS")]
    assert not bad, f"reported_by must be one of T, B, W, N, S: {bad}"


def test_every_source_in_the_concordance_has_its_table():
    page = (BOOK / "appendix" / "concordance.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"^:source:\s*(\w)\s*$", page, flags=re.MULTILINE))
    used = {r["source"] for r in table("concordance")}
    assert used <= shown, f"concordance rows of sources without a table: {used - shown}"


# ------------------------------------------------------------------- the intro's map


def _map_rows():
    intro = (BOOK / "intro.md").read_text(encoding="utf-8")
    section = intro.split("## Map of the book", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("|")][2:]


def _chapter_labels():
    """The section label of every chapter's landing page in the table of contents."""
    labels = {}
    for entry in toc_files():
        path = resolve(entry)
        if (
            path
            and path.name == "index.md"
            and re.match(r"\d\d[a-z]?_", path.parent.name)
        ):
            target = re.search(
                r"^\(([\w-]+)\)=", path.read_text(encoding="utf-8"), re.M
            )
            labels[path.parent.name] = target.group(1) if target else None
    return labels


def test_intro_map_names_only_chapters_that_exist_or_are_planned():
    # A row links to the chapters that exist (and may name planned ones beside them,
    # e.g. "{ref}`sec-metric`; autoencoders *planned*"); a row without links says
    # *planned*.
    rows = _map_rows()
    assert rows, "the intro has no 'Map of the book' table"
    labels = defined_labels()
    for row in rows:
        targets = _ROLE_TARGET.findall(row)
        if not targets:
            assert "*planned*" in row, (
                f"a map row neither links nor says *planned*: {row}"
            )
        missing = [t for t in targets if t not in labels]
        assert not missing, f"the map links to labels that do not exist: {missing}"


def test_every_chapter_is_on_the_intro_map():
    mapped = {t for row in _map_rows() for t in _ROLE_TARGET.findall(row)}
    chapters = _chapter_labels()
    assert chapters and all(chapters.values()), (
        f"every chapter index.md starts with a (sec-...)= label: {chapters}"
    )
    missing = {
        folder: label for folder, label in chapters.items() if label not in mapped
    }
    assert not missing, (
        f"chapters in _toc.yml that the intro's map does not name: {missing}"
    )


# ---------------------------------------------------------------- typed chapter numbers

# "chapter 7", "Chapters 4–6", "chapters 7 and 8": a number the reader's book may not
# carry (the build numbers Foundations 1, PCA 2, ...). The book refers to its chapters
# with roles, so the number is generated. A source's own chapter ("[T]'s chapter 10",
# "[W] open their chapter 10") is a citation, allowed when a source tag or "their" comes
# just before it.
_TYPED_CHAPTER = re.compile(r"\b[Cc]hapters?\s+\d+")
_SOURCE_BEFORE = re.compile(
    r"(\[[TWBNS]\]|their|textbook chapter|notes on)[^.;|]{0,40}$"
)


def _typed_chapters(text: str) -> list[str]:
    return [
        text[max(0, m.start() - 50) : m.end() + 10].replace("\n", " ")
        for m in _TYPED_CHAPTER.finditer(text)
        if not _SOURCE_BEFORE.search(text[max(0, m.start() - 60) : m.start()])
    ]


def _visible_texts():
    """(where, text) of every page's prose, figure captions and alt texts, and appendix
    data tables."""
    for page in book_pages():
        yield page.relative_to(BOOK), page_markup(page)
        if page.suffix == ".ipynb":
            for name, caption, alt in _figure_alts(page):
                yield f"{page.relative_to(BOOK)} figure {name}", caption or ""
                yield f"{page.relative_to(BOOK)} alt text of {name}", alt or ""
    for name in ("errata", "concordance", "glossary"):
        yield (
            f"appendix data {name}",
            (BOOK / "appendix" / "data" / f"{name}.yml").read_text(encoding="utf-8"),
        )


def test_typed_chapter_numbers_are_caught():
    assert _typed_chapters("the classical MDS of chapter 2, which")
    assert _typed_chapters("Chapters 4–6 already studied")
    assert not _typed_chapters("[W] open their chapter 10 with a list")
    assert not _typed_chapters("run every method of [T]'s chapter 10 on faces")


def test_no_typed_chapter_numbers_in_the_book():
    found = {
        where: hits
        for where, text in _visible_texts()
        if (hits := _typed_chapters(text))
    }
    assert not found, (
        "refer to a chapter with {ref}`sec-...` (or by its name), never by a typed "
        f"number: {found}"
    )


# ------------------------------------------------------------------ link texts

_LABELLED_HEADING = re.compile(r"^\(([\w-]+)\)=\s*\n#+ (.*)$", re.MULTILINE)
_BARE_REF = re.compile(r"\{ref\}`([\w-]+)`")


def test_headings_shown_as_link_texts_have_no_maths():
    # A bare {ref}`label` prints the section's title as plain text, so "$\beta_i$" in
    # the title reaches the reader as raw TeX (in the text and in the appendix tables).
    titles = {
        label: title
        for page in book_pages()
        for label, title in _LABELLED_HEADING.findall(page_markup(page))
    }
    # A bare role anywhere, or a bare label in the appendix tables (the page turns it
    # into a link).
    bare = {
        label
        for name, text in _visible_texts()
        for label in _BARE_REF.findall(text)
        + (re.findall(r"\bsec-[\w-]+", text) if "appendix data" in str(name) else [])
    }
    raw = {
        label: titles[label] for label in bare & titles.keys() if "$" in titles[label]
    }
    assert not raw, f"write these titles in words, or give the references a text: {raw}"


# ------------------------------------------------------------------ broken paragraphs

_FENCE = re.compile(r"^\s*(`{3,}|:{3,}|\$\$)")
_ITEM = re.compile(r"^(\s*)[+*-] \S")
_MARKER = re.compile(r"^\s*(?:[+*-]|\d+[.)])\s+")


def _lines_read_as_bullets(text: str) -> list[str]:
    """Lines inside a paragraph that Markdown reads as a new list item: a formula
    wrapped so that a line starts with "+ " or "- " is cut in two, and neither half is
    typeset."""
    hits, fence, previous = [], None, ""
    for line in text.split("\n"):
        stripped = line.strip()
        if fence is None and (m := _FENCE.match(line)):
            opener = m.group(1)
            one_line = opener == "$$" and len(stripped) > 2 and stripped.endswith("$$")
            fence = None if one_line else opener
        elif fence is not None:
            closes = stripped.startswith(fence) and not stripped.strip(fence[0])
            if closes or (fence == "$$" and stripped.endswith("$$")):
                fence = None
        elif (item := _ITEM.match(line)) and previous.strip():
            # where the previous line's text starts (after its own list marker, if any)
            marker = _MARKER.match(previous)
            column = (
                len(marker.group(0))
                if marker
                else len(previous) - len(previous.lstrip())
            )
            # (a bullet right under a bullet is a nested list, written on purpose)
            if column == len(item.group(1)) and not _ITEM.match(previous):
                hits.append(f"{previous.strip()[-40:]} / {stripped[:40]}")
        previous = line
    return hits


def test_a_wrapped_formula_is_caught():
    assert _lines_read_as_bullets("so that $a = b\n+ c$ holds")
    assert _lines_read_as_bullets("2. Then $x\n   - y$ is")
    assert not _lines_read_as_bullets("A list:\n\n- one\n- two\n  - nested")
    assert not _lines_read_as_bullets("```{math}\na\n+ b\n```")


@pytest.mark.parametrize("page", book_pages(), ids=lambda p: p.stem)
def test_no_line_of_a_paragraph_reads_as_a_bullet(page):
    hits = _lines_read_as_bullets(page_markup(page))
    assert not hits, f"rewrap so that no line starts with '+ ' or '- ': {hits}"


def test_captions_name_no_colour_that_dark_mode_swaps():
    # Dark mode inverts the lightness of every figure (_static/house.css): black ink
    # turns light and white turns dark, so a caption's "black dots" would point at white
    # ones.
    swapped = re.compile(r"\b(black|white)\b", re.IGNORECASE)
    found = [
        f"{page.relative_to(BOOK)} {name}: {m.group(0)}"
        for page in notebooks()
        for name, caption in _figure_cells(page)
        for m in swapped.finditer(caption or "")
    ]
    assert not found, f"say 'in the colour of the text' instead: {found}"


# --------------------------------------------------------------- shown code fits column

#: Characters per line of the rendered code column: the width ruff keeps code to.
CODE_COLUMN = 88
# A MyST literalinclude block: its fence, the included file, and its option lines.
_LITERALINCLUDE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{literalinclude\}[ \t]*(?P<file>\S+)[ \t]*\n"
    r"(?P<options>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
    re.MULTILINE,
)


def _literalincludes():
    """(page, included file, options) of every literalinclude in the book's pages."""
    return [
        (page, (page.parent / m.group("file")).resolve(), _options(m.group("options")))
        for page in book_pages()
        for m in _LITERALINCLUDE.finditer(page_markup(page))
    ]


def _pyobject_lines(source: str, pyobject: str) -> tuple[int, int]:
    """First and last line (1-based) of ``pyobject`` (``f``, ``C`` or ``C.m``), with
    its decorators, as Sphinx's ``:pyobject:`` cuts it."""
    body = ast.parse(source).body
    node = None
    for name in pyobject.split("."):
        node = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.name == name
            ),
            None,
        )
        assert node is not None, f"no {pyobject} to show"
        body = node.body
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return start, node.end_lineno


def _shown_lines(path, options) -> list[str]:
    """The lines a literalinclude shows, after ``:pyobject:`` and ``:dedent:``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if "pyobject" in options:
        start, end = _pyobject_lines("\n".join(lines), options["pyobject"])
        lines = lines[start - 1 : end]
    dedent = int(options.get("dedent") or 0)
    return [line[dedent:] if not line[:dedent].strip() else line for line in lines]


def _columns(line: str) -> int:
    """Columns a line takes in a monospace font, as ruff counts them: a combining mark
    (the bar of x̄) takes none, a wide East Asian character two."""
    return sum(
        0
        if unicodedata.combining(c)
        else 2
        if unicodedata.east_asian_width(c) in "WF"
        else 1
        for c in line
    )


def _too_wide(path, options) -> list[str]:
    return [
        line for line in _shown_lines(path, options) if _columns(line) > CODE_COLUMN
    ]


def test_shown_code_check_cuts_what_sphinx_shows():
    assert _shown_lines(
        BOOK.parent / "dr_lib" / "pca.py", {"pyobject": "PCA.fit", "dedent": "4"}
    )[0].startswith("def fit(")
    assert _columns("x̄ 式") == 4
    assert _LITERALINCLUDE.search(
        "```{literalinclude} ../../dr_lib/pca.py\n:pyobject: PCA\n"
        ":language: python\n```"
    )
    assert _literalincludes(), "the book shows no library code: is the pattern stale?"


@pytest.mark.parametrize(
    ("page", "path", "options"),
    _literalincludes(),
    ids=lambda v: v.stem if hasattr(v, "stem") else v.get("pyobject", "whole file"),
)
def test_shown_code_fits_the_code_column(page, path, options):
    # The book's code column is 88 characters wide: a longer line of a literalinclude
    # scrolls sideways. ruff keeps dr_lib's code, comments and docstrings within 88.
    assert path.is_file(), f"{page.relative_to(BOOK)}: no file {path}"
    wide = _too_wide(path, options)
    assert not wide, (
        f"{page.relative_to(BOOK)} shows lines of {path.name} wider than "
        f"{CODE_COLUMN} characters; rewrap them: {wide}"
    )


def test_no_figure_cell_ends_by_displaying_a_check():
    # A check displayed as the last value of a cell is a Markdown output; in a cell with
    # figure metadata myst-nb gives it the figure's name too, and the strict build fails
    # on the duplicate label. Print it, or display it before the figure is drawn.
    import ast

    found = []
    for page in notebooks():
        for c in read_notebook(page)["cells"]:
            figure = c.get("metadata", {}).get("mystnb", {}).get("figure")
            if c["cell_type"] != "code" or not figure:
                continue
            source = "".join(c["source"])
            source = re.sub(r"(?m)^\s*[%!].*$", "", source)  # magics
            body = ast.parse(source).body
            last = body[-1] if body else None
            if (
                isinstance(last, ast.Expr)
                and isinstance(last.value, ast.Call)
                and isinstance(last.value.func, ast.Attribute)
                and isinstance(last.value.func.value, ast.Name)
                and last.value.func.value.id == "symbolic"
            ):
                found.append(f"{page.relative_to(BOOK)} {figure.get('name')}")
    assert not found, f"figure cells that end by displaying a check: {found}"
