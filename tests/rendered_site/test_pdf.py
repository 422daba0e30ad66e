"""The whole book as one PDF (`make pdf`): every page, every figure, typeset maths,
Chinese.

Needs `_build/pdf/dr-book.pdf` (built by `make pdf`, and by `make test` before these
checks).
"""

import json
import re

import pytest

from .conftest import missing
from .site import ROOT

PDF = ROOT / "_build" / "pdf" / "dr-book.pdf"
BOOK = ROOT / "book"
CJK_FONT = re.compile(
    r"CJK|SourceHan|HanSans|HanSerif|PingFang|YaHei|Hei|Song|Ming", re.I
)


#: the PDF typesets straight quotes as curly ones ("[B]'s" becomes "[B]’s")
CURLY_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text.translate(CURLY_QUOTES))


@pytest.fixture(scope="module")
def pdf():
    if not PDF.exists():
        missing(f"no PDF at {PDF}: run `make pdf` first")
    import pypdf

    return pypdf.PdfReader(PDF)


@pytest.fixture(scope="module")
def outline(pdf):
    """(depth, title, page index) of every bookmark, in order."""
    entries = []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                entries.append(
                    (depth, item.title, pdf.get_destination_page_number(item))
                )

    walk(pdf.outline, 0)
    return entries


def _page_titles():
    """The title of every page in the table of contents (its first '# ' heading)."""
    from structure.book_sources import toc_files

    files = toc_files()
    titles = {}
    for entry in files:
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


def _figures_in_the_book():
    count = 0
    for path in BOOK.rglob("*.ipynb"):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell.get("metadata", {}).get("mystnb", {}).get("figure"):
                count += 1
    return count


def _images(pdf):
    """Distinct image objects drawn anywhere in the PDF (forms included)."""
    found = set()

    def walk(resources, depth):
        for ref in (resources or {}).get("/XObject", {}).values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Image":
                found.add(ref.idnum)
            elif xobject.get("/Subtype") == "/Form" and depth < 4:
                walk(xobject.get("/Resources"), depth + 1)

    for page in pdf.pages:
        walk(page.get("/Resources"), 0)
    return found


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


def test_the_pdf_has_every_page_of_the_book(outline):
    bookmarks = _squash("".join(title for _, title, _ in outline))
    titles = _page_titles()
    assert len(titles) >= 10
    absent = [
        entry for entry, title in titles.items() if _squash(title) not in bookmarks
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
        # the shallowest bookmark with this title: chapters share titles with
        # sections inside other chapters ("Exercises 练习")
        _, page = min((d, p) for d, t, p in outline if _squash(title) in _squash(t))
        top = _squash(pdf.pages[page].extract_text())[:200]
        if _squash(title)[:12] not in top:
            late.append(entry)
    assert not late, f"chapters that do not start at the top of a page: {late}"


def test_the_pdf_has_every_figure(pdf):
    figures = _figures_in_the_book()
    assert figures > 0
    assert len(_images(pdf)) >= figures, (
        f"{len(_images(pdf))} images in the PDF for {figures} figures in the book"
    )


def test_the_chinese_terms_have_a_chinese_font(pdf, outline):
    fonts = _font_names(pdf)
    assert any(CJK_FONT.search(name) for name in fonts), (
        f"no CJK font embedded: {fonts}"
    )
    pca = next(page for depth, title, page in outline if "主成分分析" in title)
    assert "主成分分析" in pdf.pages[pca].extract_text()


def test_the_maths_is_typeset(pdf, outline):
    pages = sorted({page for _, title, page in outline if re.match(r"\s*2\.1", title)})
    assert pages, "no section 2.1 in the outline"
    text = "".join(pdf.pages[p].extract_text() for p in range(pages[0], pages[-1] + 1))
    raw = [t for t in ("\\mathbf", "\\frac", "\\(", "$$", "\\begin{") if t in text]
    assert not raw, f"raw TeX printed in the PDF: {raw}"
