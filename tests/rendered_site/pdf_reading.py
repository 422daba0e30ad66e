"""Read the whole-book PDF as a reader meets it:
links, bookmarks, contents, text, figures.

Plain functions on a ``pypdf.PdfReader``, used by ``test_pdf.py``;
nothing here is a test.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache

from .site import ROOT

BOOK = ROOT / "book"

#: the PDF typesets straight quotes as curly ones ("[B]'s" becomes "[B]’s")
CURLY_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2032": "'"}
)


def squash(text: str) -> str:
    """Text without white space, quotes made straight: what two renderings share."""
    return re.sub(r"\s+", "", text.translate(CURLY_QUOTES))


# --------------------------------------------------------------------------------------
# Bookmarks and links


def outline(pdf) -> list[tuple[int, str, int]]:
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


def links(pdf) -> list[tuple[int, str | None, object]]:
    """(page index, URI or None, destination or None) of every link annotation."""
    found = []
    for index, page in enumerate(pdf.pages):
        for annotation in page.get("/Annots") or []:
            annotation = annotation.get_object()
            if annotation.get("/Subtype") != "/Link":
                continue
            action = annotation.get("/A")
            action = action.get_object() if action is not None else {}
            if action.get("/S") == "/URI":
                found.append((index, str(action["/URI"]), None))
            else:
                destination = action.get("/D", annotation.get("/Dest"))
                found.append((index, None, destination))
    return found


def lands_in_the_file(pdf, destination) -> bool:
    """Whether an internal link's destination is a named or explicit place
    in the PDF."""
    if destination is None:
        return False
    destination = (
        destination.get_object() if hasattr(destination, "get_object") else destination
    )
    if isinstance(
        destination, str
    ):  # a named destination (pypdf gives str and NameObject)
        return str(destination) in named_destinations(pdf)
    pages = {page.indirect_reference.idnum for page in pdf.pages}
    target = destination[0]
    return getattr(target, "idnum", None) in pages


def named_destinations(pdf) -> set[str]:
    key = id(pdf)
    if key not in _NAMED:
        _NAMED[key] = {str(name) for name in pdf.named_destinations}
    return _NAMED[key]


_NAMED: dict[int, set[str]] = {}


# --------------------------------------------------------------------------------------
# The book's sources: the words and headings a bookmark should be made of


def _markdown_of(path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        )
    return path.read_text(encoding="utf-8")


@cache
def source_texts() -> tuple[str, ...]:
    """The markdown of every page of the book, with the appendix's data files and the
    table of contents (its part captions are bookmarks too)."""
    paths = sorted(p for p in BOOK.rglob("*") if p.suffix in {".ipynb", ".md", ".yml"})
    return (*(_markdown_of(p) for p in paths), (ROOT / "_toc.yml").read_text("utf-8"))


@cache
def vocabulary() -> frozenset[str]:
    """Every word (run of Latin letters, lower case) of the book's text,
    TeX commands out."""
    words = set()
    for text in source_texts():
        text = re.sub(r"\\[A-Za-z]+", " ", text)
        words.update(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    return frozenset(words)


@cache
def headings_with_maths() -> tuple[str, ...]:
    """Every heading of the book whose text has inline maths ($...$)."""
    found = []
    for text in source_texts()[:-1]:
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        found += [
            m.group(1)
            for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)
            if "$" in m.group(1)
        ]
    return tuple(found)


# --------------------------------------------------------------------------------------
# Garbled bookmarks


#: A section number such as "10.2." or "III" at the start of a bookmark.
NUMBER = r"(?:[0-9]+(?:\.[0-9]+)*\.?|[IVXLC]+)"


def garbled(title: str, words: frozenset[str]) -> str | None:
    """Why a bookmark title is garbled, or None when it reads as a heading should.

    Garbled means one of:

    - **empty**: nothing but white space;
    - **doubled**: a run of text printed twice in a row:
      a section number ("10.2. 10.2."),
      six or more characters ("Neighbourhood components Neighbourhood components"),
      or a non-Latin letter three times ("ΛΛΛ", TeX expanded for a bookmark);
    - **not a word**: a run of three or more Latin letters that is no word of the book's
      text: words glued at a lost space ("falseneighbours", "componentsanalysis") and
      the debris of TeX ("Wbold0mu", "mumu").
    """
    if not title.strip():
        return "empty"
    tokens = title.split()
    for i, token in enumerate(tokens[:-1]):
        if re.fullmatch(NUMBER, token) and tokens[i + 1] == token:
            return f"doubled number {token!r}"
    doubled = re.search(r"(.{6,}?)\1", squash(title))
    if doubled and re.search(r"[^\W\d_]", doubled.group(1)):
        return f"doubled text {doubled.group(1)!r}"
    tripled = re.search(r"([^\x00-\x7f])\1\1", title)
    if tripled:
        return f"doubled symbol {tripled.group(1)!r}"
    for word in re.findall(r"[A-Za-z]{3,}", re.sub(rf"^\s*{NUMBER}\s", "", title)):
        if word.lower() not in words:
            return f"not a word of the book: {word!r}"
    return None


def maths_dropped(heading: str, titles: list[str]) -> str | None:
    """Whether the bookmark of a heading with maths lost a formula;
    None when it kept all.

    The bookmark is the one that holds every piece of the heading's prose, in order;
    each formula must leave at least one letter, digit or symbol between its neighbours.
    """
    pieces = re.split(r"\$[^$]+\$", heading)
    prose = [squash(p) for p in pieces]
    for title in titles:
        flat = squash(title)
        flat = re.sub(rf"^{NUMBER}", "", flat)
        positions, start = [], 0
        for i, piece in enumerate(prose):
            last = i == len(prose) - 1
            at = len(flat) if last and not piece else flat.find(piece, start)
            if at < 0:
                break
            positions.append((at, at + len(piece)))
            start = at + len(piece)
        else:
            gaps = [
                flat[positions[i][1] : positions[i + 1][0]]
                for i in range(len(prose) - 1)
            ]
            empty = [
                i for i, gap in enumerate(gaps) if not re.search(r"[\w=<>≤≥∈ᵀ′'/]", gap)
            ]
            if empty:
                return f"formula {empty[0] + 1} missing in {title!r}"
            return None
    return "no bookmark holds its words"


# --------------------------------------------------------------------------------------
# Text, with what is code set apart


MONOSPACE = re.compile(r"Mono|Courier|Code|Consol|Menlo", re.I)


def _is_monospace(font) -> bool:
    if font is None:
        return False
    font = font.get_object()
    fonts = [font, *(d.get_object() for d in font.get("/DescendantFonts") or [])]
    for f in fonts:
        if MONOSPACE.search(str(f.get("/BaseFont", ""))):
            return True
        descriptor = f.get("/FontDescriptor")
        if descriptor is not None and int(descriptor.get_object().get("/Flags", 0)) & 1:
            return True
    return False


def page_texts(pdf) -> list[tuple[str, str]]:
    """(prose, code) of every page:
    the text set in proportional and in monospace fonts."""
    key = id(pdf)
    if key in _TEXTS:
        return _TEXTS[key]
    texts = []
    monospace: dict[int, bool] = {}
    for page in pdf.pages:
        prose, code = [], []

        def visit(text, cm, tm, font, size, prose=prose, code=code):
            if not text:
                return
            mono = False
            if font is not None:
                ref = getattr(font, "indirect_reference", None)
                key = ref.idnum if ref is not None else id(font)
                if key not in monospace:
                    monospace[key] = _is_monospace(font)
                mono = monospace[key]
            (code if mono else prose).append(text)

        page.extract_text(visitor_text=visit)
        texts.append(("".join(prose), "".join(code)))
    _TEXTS[key] = texts
    return texts


_TEXTS: dict[int, list[tuple[str, str]]] = {}

#: TeX or MyST a reader should never see in the prose: a dollar sign, a TeX command, a
#: backtick, or a role's braces ({eq}, {ref}, ...).
RAW_TEX = re.compile(
    r"\$|\\[A-Za-z]{2,}|`|\{(?:eq|ref|numref|doc|cite(?::[pt])?|prf:ref|term|math"
    r"|erratum-box|label-chapter)\}"
)


def raw_tex(prose: str) -> list[tuple[int, str]]:
    """(position, a little context) of every place in ``prose`` where raw TeX shows."""
    return [
        (m.start(), prose[max(0, m.start() - 30) : m.end() + 30].replace("\n", " "))
        for m in RAW_TEX.finditer(prose)
    ]


# --------------------------------------------------------------------------------------
# Contents


def contents_pages(pdf, texts) -> list[int]:
    """The pages of the table of contents at the front: from the first page headed
    "Contents" to the last page of the run of pages full of page numbers."""
    for first in range(min(20, len(texts))):
        if re.match(
            r"\s*(?:\S+\s+){0,3}contents\b", texts[first][0], flags=re.I | re.S
        ):
            break
    else:
        return []
    pages = [first]
    for index in range(first + 1, min(first + 30, len(texts))):
        if len(re.findall(r"\b\d+\s*$", texts[index][0], flags=re.M)) < 10:
            break
        pages.append(index)
    return pages


def listed_page(contents: str, title: str) -> str | None:
    """The page number the contents give for ``title``,
    or None when it is not listed."""
    text = re.sub(r"(?:\s*\.){3,}", " ", contents.translate(CURLY_QUOTES))
    chars = [re.escape(c) for c in squash(title)]
    pattern = r"\s*".join(chars) + r"\s+([0-9]+|[ivxlc]+)\b"
    match = re.search(pattern, text)
    return match.group(1) if match else None


# --------------------------------------------------------------------------------------
# Figures: how many pixels per inch each is printed at


def _multiply(m, n):
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + b * c2,
        a * b2 + b * d2,
        c * a2 + d * c2,
        c * b2 + d * d2,
        e * a2 + f * c2 + e2,
        e * b2 + f * d2 + f2,
    )


def printed_images(pdf) -> list[dict]:
    """Every raster image drawn, with its pixels and the size it is printed at.

    Follows each page's content stream (and the forms it draws) with the current
    transformation matrix: an image fills the unit square of the matrix at ``Do``.
    """
    from pypdf.generic import ContentStream

    found = []

    def draw(content, resources, matrix, page_index, depth):
        xobjects = (resources or {}).get("/XObject") or {}
        if not xobjects:
            return
        stack, current = [], matrix
        for operands, operator in ContentStream(content, pdf).operations:
            if operator == b"q":
                stack.append(current)
            elif operator == b"Q" and stack:
                current = stack.pop()
            elif operator == b"cm":
                current = _multiply(tuple(float(x) for x in operands), current)
            elif operator == b"Do":
                xobject = xobjects.get(operands[0])
                if xobject is None:
                    continue
                xobject = xobject.get_object()
                if xobject.get("/Subtype") == "/Image":
                    a, b, c, d, _, _ = current
                    found.append(
                        {
                            "page": page_index,
                            "pixels": (int(xobject["/Width"]), int(xobject["/Height"])),
                            "inches": (math.hypot(a, b) / 72, math.hypot(c, d) / 72),
                        }
                    )
                elif xobject.get("/Subtype") == "/Form" and depth < 4:
                    form = tuple(
                        float(x) for x in xobject.get("/Matrix", [1, 0, 0, 1, 0, 0])
                    )
                    draw(
                        xobject,
                        xobject.get("/Resources") or resources,
                        _multiply(form, current),
                        page_index,
                        depth + 1,
                    )

    for index, page in enumerate(pdf.pages):
        resources = page.get("/Resources") or {}
        if not (resources.get("/XObject") or {}):
            continue
        content = page.get_contents()
        if content is not None:
            draw(content, resources, (1, 0, 0, 1, 0, 0), index, 0)
    for image in found:
        (px, py), (ix, iy) = image["pixels"], image["inches"]
        image["ppi"] = min(px / ix if ix else math.inf, py / iy if iy else math.inf)
    return found
