"""The whole book as one PDF (`make pdf`): what a reader of the printed book relies on.

Every page, figure and Chinese term is there; every link leads somewhere a reader can
go; the bookmarks and the table of contents read as the headings do and point at the
right pages; no TeX shows; figures are sharp. Needs `_build/pdf/dr-book.pdf` (built by
`make pdf`, and by `make test` before these checks), or the PDF that `DR_BOOK_PDF`
names; the reading itself is in `pdf_reading.py`.
"""

import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from . import pdf_reading as reading
from .conftest import missing
from .pdf_reading import squash
from .site import HTML, ROOT

PDF = Path(os.environ.get("DR_BOOK_PDF", ROOT / "_build" / "pdf" / "dr-book.pdf"))
BOOK = ROOT / "book"
CJK_FONT = re.compile(
    r"CJK|SourceHan|HanSans|HanSerif|PingFang|YaHei|Hei|Song|Ming", re.I
)
#: A link no reader can follow: the machine the PDF was built on, or a relative path.
LOCAL = re.compile(r"^(?:file:|https?://(?:localhost|127\.|0\.0\.0\.0|\[::1\]))", re.I)
EXTERNAL = re.compile(r"^(?:https?://|mailto:)", re.I)
#: The cross-reference roles of the book's text, each of which must become a link.
ROLE = re.compile(
    r"\{(?:ref|numref|eq|doc|prf:ref|cite(?::[pt])?|erratum-box|label-chapter)\}`"
)
#: A figure printed at fewer pixels per inch than this looks soft on paper.
SHARP_PPI = 200


@pytest.fixture(scope="module")
def pdf():
    if not PDF.exists():
        missing(f"no PDF at {PDF}: run `make pdf` first")
    import pypdf

    return pypdf.PdfReader(PDF)


@pytest.fixture(scope="module")
def outline(pdf):
    """(depth, title, page index) of every bookmark, in order."""
    return reading.outline(pdf)


@pytest.fixture(scope="module")
def images(pdf):
    """Every raster image drawn, with its pixels and printed size."""
    return reading.printed_images(pdf)


@pytest.fixture(scope="module")
def texts(pdf):
    """(prose, code) text of every page."""
    return reading.page_texts(pdf)


def _page_titles():
    """The title of every page in the table of contents (its first '# ' heading)."""
    from structure.book_sources import toc_files

    titles = {}
    for entry in toc_files():
        md, nb = ROOT / f"{entry}.md", ROOT / f"{entry}.ipynb"
        if md.exists():
            text = md.read_text(encoding="utf-8")
        else:
            cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
            text = "\n".join(
                "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
            )
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        title = re.search(r"^# (.+)$", text, flags=re.M).group(1)
        titles[entry] = title.split("$")[0].strip()  # the words before any formula
    return titles


def _bookmark_of(outline, title):
    """(depth, title, page) of the shallowest bookmark with ``title``: chapters share
    titles with sections inside other chapters ("Exercises 练习")."""
    matches = [(d, t, p) for d, t, p in outline if squash(title) in squash(t)]
    return min(matches, key=lambda m: m[0]) if matches else None


def _figures_in_the_book():
    count = 0
    for path in BOOK.rglob("*.ipynb"):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell.get("metadata", {}).get("mystnb", {}).get("figure"):
                count += 1
    return count


def _font_names(pdf):
    names = set()
    for page in pdf.pages:
        for ref in ((page.get("/Resources") or {}).get("/Font") or {}).values():
            font = ref.get_object()
            for f in [
                font,
                *(d.get_object() for d in font.get("/DescendantFonts") or []),
            ]:
                names.add(str(f.get("/BaseFont")))
                if f.get("/FontDescriptor") is not None:
                    names.add(str(f["/FontDescriptor"].get_object().get("/FontName")))
    return names


# --------------------------------------------------------------------------------------
# Everything is there


def test_the_pdf_has_every_page_of_the_book(outline):
    bookmarks = squash("".join(title for _, title, _ in outline))
    titles = _page_titles()
    assert len(titles) >= 10
    absent = [
        entry for entry, title in titles.items() if squash(title) not in bookmarks
    ]
    assert not absent, (
        f"pages of the book without a bookmark (heading) in the PDF: {absent}"
    )


def test_every_chapter_starts_a_page(pdf, outline):
    chapters = {
        entry: title
        for entry, title in _page_titles().items()
        if entry.endswith("/index") or "/appendix/" in entry
    }
    assert chapters
    late = []
    for entry, title in chapters.items():
        _, _, page = _bookmark_of(outline, title)
        # (the chapter heading may be set in capitals)
        top = squash(pdf.pages[page].extract_text())[:200].casefold()
        if squash(title)[:12].casefold() not in top:
            late.append(entry)
    assert not late, f"chapters that do not start at the top of a page: {late}"


def test_the_pdf_has_every_figure(images):
    figures = _figures_in_the_book()
    assert figures > 0
    assert len(images) >= figures, (
        f"{len(images)} images drawn in the PDF for {figures} figures in the book"
    )


def test_the_chinese_terms_have_a_chinese_font(pdf, outline):
    fonts = _font_names(pdf)
    assert any(CJK_FONT.search(name) for name in fonts), (
        f"no CJK font embedded: {fonts}"
    )
    pca = next(page for depth, title, page in outline if "主成分分析" in title)
    assert "主成分分析" in pdf.pages[pca].extract_text()


def test_output_tables_are_printed_as_tables(texts):
    """A table in a notebook's output (a pandas Styler) prints as a table, not as the
    Python object it came from."""
    objects = [
        (index + 1, m.group(0))
        for index, (prose, code) in enumerate(texts)
        for m in re.finditer(
            r"<pandas\.[\w.]+ (?:object )?at 0x[0-9a-f]+>", prose + code
        )
    ]
    assert not objects, (
        f"outputs printed as Python objects (page, text): {objects[:10]}"
    )


# --------------------------------------------------------------------------------------
# Links


def test_no_link_points_to_the_build_machine(pdf):
    """Web links go to the web: the references' DOIs,
    not the machine that built the PDF."""
    uris = [uri for _, uri, _ in reading.links(pdf) if uri is not None]
    assert any(uri.startswith("https://doi.org/") for uri in uris), "no DOI is a link"
    local = Counter(
        re.sub(r"^(\w+://[^/]+).*", r"\1", uri)
        for uri in uris
        if LOCAL.match(uri) or not EXTERNAL.match(uri)
    )
    assert not local, (
        f"{sum(local.values())} of {len(uris)} web links lead to the machine that "
        f"built the PDF (or to a relative path), dead for every reader: {dict(local)}"
    )


def test_every_cross_reference_jumps_inside_the_pdf(pdf):
    """Every internal link lands on a place in the file, and there are at least as many
    of them as the book's text has cross-references (equations, figures, sections,
    boxes, citations)."""
    internal = [(page, dest) for page, uri, dest in reading.links(pdf) if uri is None]
    nowhere = [
        page + 1 for page, dest in internal if not reading.lands_in_the_file(pdf, dest)
    ]
    assert not nowhere, f"internal links that land nowhere, on pages {nowhere[:20]}"
    roles = sum(len(ROLE.findall(text)) for text in reading.source_texts())
    assert roles > 100
    assert len(internal) >= roles, (
        f"{len(internal)} links inside the PDF for {roles} cross-references in the text"
    )


# --------------------------------------------------------------------------------------
# Bookmarks and contents


def test_no_bookmark_is_garbled(outline):
    """No bookmark is empty, doubled or made of words the book does not have (see
    ``pdf_reading.garbled``)."""
    words = reading.vocabulary()
    bad = [
        (title, why)
        for _, title, _ in outline
        if (why := reading.garbled(title, words))
    ]
    assert len(outline) >= len(_page_titles())
    assert not bad, f"{len(bad)} of {len(outline)} bookmarks garbled: {bad[:15]}"


def test_bookmarks_keep_the_maths_of_their_headings(outline):
    titles = [title for _, title, _ in outline]
    headings = reading.headings_with_maths()
    assert headings
    lost = [
        (heading, why)
        for heading in headings
        if (why := reading.maths_dropped(heading, titles))
    ]
    assert not lost, f"headings whose bookmark lost its formulas: {lost}"


def test_the_contents_list_every_page_of_the_book_with_its_page_number(
    pdf, outline, texts
):
    """The table of contents at the front lists every chapter and section with the page
    number printed on the page where its heading is."""
    pages = reading.contents_pages(pdf, texts)
    assert pages and pages[0] < 10, "no table of contents near the front"
    contents = "\n".join(texts[index][0] for index in pages)
    labels = pdf.page_labels
    unlisted, wrong = [], []
    for entry, title in _page_titles().items():
        _, bookmark, page = _bookmark_of(outline, title)
        assert squash(title)[:15].casefold() in squash(texts[page][0]).casefold(), (
            f"the bookmark of {entry} points at page {labels[page]}, "
            "which does not show its heading"
        )
        listed = reading.listed_page(contents, bookmark)
        if listed is None:
            unlisted.append(entry)
        elif listed != labels[page]:
            wrong.append((entry, f"listed at {listed}, is on {labels[page]}"))
    assert not unlisted, (
        f"pages the contents do not list with a page number: {unlisted}"
    )
    assert not wrong, f"contents entries with the wrong page number: {wrong}"


# --------------------------------------------------------------------------------------
# Text


def test_no_raw_tex_in_the_text(texts):
    """No dollar sign, TeX command, backtick or role ({eq}, {ref}) shows in the text
    outside code (text set in a monospace font). (A formula wrapped so that a line
    starts with "+ " is cut by Markdown into a list item; tests/structure catches that
    in the sources, this test whatever else reaches the print.)"""
    hits = [
        (index + 1, context)
        for index, (prose, _) in enumerate(texts)
        for _, context in reading.raw_tex(prose)
    ]
    assert not hits, f"raw TeX in the PDF's text (page, context): {hits[:20]}"


def test_the_bookmarks_show_no_raw_tex(outline):
    raw = [title for _, title, _ in outline if reading.raw_tex(title)]
    assert not raw, f"bookmarks with raw TeX: {raw}"


def test_tables_print_no_nan(texts):
    nan = [
        (index + 1, prose[max(0, m.start() - 25) : m.end() + 5])
        for index, (prose, _) in enumerate(texts)
        for m in re.finditer(r"(?<![A-Za-z])nan(?![A-Za-z])", prose)
    ]
    assert not nan, f"'nan' printed in tables (page, context): {nan[:10]}"


def test_the_maths_is_typeset(pdf, outline):
    pages = sorted({page for _, title, page in outline if re.match(r"\s*2\.1", title)})
    assert pages, "no section 2.1 in the outline"
    text = "".join(pdf.pages[p].extract_text() for p in range(pages[0], pages[-1] + 1))
    raw = [t for t in ("\\mathbf", "\\frac", "\\(", "$$", "\\begin{") if t in text]
    assert not raw, f"raw TeX printed in the PDF: {raw}"


# --------------------------------------------------------------------------------------
# Figures


def _printed_under(images, ppi):
    """(page, ppi) of every figure printed at fewer than ``ppi`` pixels per inch."""
    return [(i["page"] + 1, round(i["ppi"])) for i in images if i["ppi"] < ppi]


def test_figures_print_at_their_drawn_size_or_smaller(images):
    """No figure is enlarged beyond the size it was drawn at (110 dpi, dr_lib.plotting):
    enlarging only spreads the same pixels over more paper."""
    from dr_lib import plotting

    assert images
    soft = _printed_under(images, plotting.HOUSE_STYLE["savefig.dpi"] - 1)
    assert not soft, f"figures enlarged in print (page, ppi): {soft[:10]}"


def test_figures_are_sharp_in_print(images):
    """Figures are PNGs of twice their pixels on the page (dr_lib.plotting.figure_png),
    printed at their drawn size: 220 ppi."""
    soft = _printed_under(images, SHARP_PPI)
    assert not soft, f"{len(soft)} figures under {SHARP_PPI} ppi in print: {soft[:10]}"


# --------------------------------------------------------------------------------------
# The site leads to the PDF


def test_every_page_of_the_site_links_the_whole_book(pdf):
    """The download menu of every page of the book offers the whole book, and the file
    is there; the button that prints one page says so."""
    if not (HTML / "index.html").exists():
        missing(f"no built book at {HTML}: run `make book` first")
    from .site import html_pages

    copy = HTML / PDF.name
    assert copy.is_file() and copy.stat().st_size == PDF.stat().st_size, (
        f"the site has no copy of the PDF at {copy}"
    )
    # the pages of the book: those with a download menu (not search, not the indices)
    pages = {
        page: page.read_text(encoding="utf-8")
        for page in html_pages()
        if "btn-download-source-button" in page.read_text(encoding="utf-8")
    }
    assert len(pages) >= len(_page_titles())
    without = []
    for page, html in pages.items():
        link = re.search(rf'href="([^"]*{re.escape(PDF.name)})"', html)
        rel = page.relative_to(HTML).as_posix()
        if link is None or (page.parent / link.group(1)).resolve() != copy.resolve():
            without.append(rel)
        elif ">.pdf<" in re.sub(r"\s+", "", html):
            without.append(rel + " (its print button says .pdf)")
    assert not without, f"pages that do not link the whole-book PDF: {without[:10]}"
