"""Read the book's source files: the table of contents, notebooks, labels and data
tables.

Shared by the structure tests; nothing here builds the book.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
DATA = BOOK / "appendix" / "data"

# Ways a label is defined in MyST: a target "(label)=", a directive option ":label: x"
# or ":name: x", and a figure name in a notebook cell's mystnb metadata.
_TARGET = re.compile(r"^\(([\w-]+)\)=\s*$", re.MULTILINE)
_OPTION = re.compile(r"^\s*:(?:label|name):\s*([\w-]+)\s*$", re.MULTILINE)
_TERM = re.compile(r"\{term\}`([^`<]+?)(?:\s*<([^>]+)>)?`")


def toc_files() -> list[str]:
    """Every file named in _toc.yml, without extension, relative to the repository
    root."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("parts"))
    walk(toc.get("chapters"))
    return files


def resolve(entry: str) -> Path | None:
    """The .ipynb or .md file a toc entry points at, or None."""
    for suffix in (".ipynb", ".md"):
        path = ROOT / f"{entry}{suffix}"
        if path.exists():
            return path
    return None


def book_pages() -> list[Path]:
    """Every notebook and MyST page under book/ (the data folder holds no pages)."""
    return sorted(
        p
        for p in BOOK.rglob("*")
        if p.suffix in {".ipynb", ".md"} and ".ipynb_checkpoints" not in p.parts
    )


def notebooks() -> list[Path]:
    return [p for p in book_pages() if p.suffix == ".ipynb"]


@cache
def read_notebook(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def page_markup(path: Path) -> str:
    """The MyST text of a page: a .md file, or the markdown cells of a notebook."""
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8")
    cells = read_notebook(path)["cells"]
    return "\n\n".join(
        "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
    )


def label_definitions() -> list[tuple[str, Path]]:
    """Every (label, page) pair where the book defines a label, duplicates included."""
    pairs = []
    for page in book_pages():
        text = page_markup(page)
        found = _TARGET.findall(text) + _OPTION.findall(text)
        if page.suffix == ".ipynb":
            for c in read_notebook(page)["cells"]:
                name = (
                    c.get("metadata", {})
                    .get("mystnb", {})
                    .get("figure", {})
                    .get("name")
                )
                if name:
                    found.append(name)
        pairs += [(label, page) for label in found]
    return pairs


def defined_labels() -> dict[str, Path]:
    """Every label defined anywhere in the book, mapped to the first page defining
    it."""
    labels: dict[str, Path] = {}
    for label, page in label_definitions():
        labels.setdefault(label, page)
    return labels


def used_terms() -> dict[str, Path]:
    """Every glossary term referenced with {term}`...` in the book, mapped to a page
    using it."""
    terms: dict[str, Path] = {}
    for page in book_pages():
        for text, target in _TERM.findall(page_markup(page)):
            terms.setdefault((target or text).strip(), page)
    return terms


def table(name: str) -> list[dict]:
    """Rows of book/appendix/data/<name>.yml."""
    return yaml.safe_load((DATA / f"{name}.yml").read_text(encoding="utf-8")) or []
