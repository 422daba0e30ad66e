"""Typeset the book's LaTeX build into one PDF with xelatex (`make pdf`), and read the log.

Usage (after ``jupyter-book build . --builder latex``)::

    python -m tests.rendered_site.print_book [LATEX_DIR] [PDF]

Why LaTeX and not a browser's print of the single-page HTML (measured on this book, 2026-11,
on the 2-core build machine): Chromium's print gave 838 pages and 49 MB in about 5 minutes,
with 1,900 of its 2,441 links pointing at the local server it printed from, 117 of 370
bookmarks garbled (doubled text, lost spaces, formulas dropped), no table of contents with
page numbers, figures at 96-105 ppi and empty boxes under every code cell; each of these
would have to be rebuilt by hand on top of the browser. Sphinx's LaTeX builder gives the
table of contents with page numbers, internal links and bookmarks natively: about 560 pages
and 7 MB, in about 1.5 minutes of Sphinx and 3 xelatex runs of about 1 minute each. Its cost
is TeX Live in CI (the Debian packages in ``.ci/run``: about 160 MB to download, 1.5 minutes
to install). What the LaTeX writer prints badly in this book is fixed in
``_ext/latex_book.py``.

The log is read after the run: an undefined reference (a link that would point nowhere, or
print "??"), a label defined twice, or a character missing from its font (printed as
nothing) fails the build, with the places listed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .site import HTML, ROOT

LATEX = ROOT / "_build" / "latex"
PDF = ROOT / "_build" / "pdf" / "dr-book.pdf"
#: latex_documents' target name in _config.yml
TEX = "dr-book.tex"
#: the Debian packages that provide what the build runs and loads (as .ci/run installs them)
TEX_PACKAGES = (
    "texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-lang-chinese "
    "latexmk fonts-freefont-otf fonts-dejavu-core fonts-noto-cjk"
)

#: What in xelatex's log makes the PDF wrong, and how to name it.
PROBLEMS = {
    "undefined reference": re.compile(
        r"LaTeX Warning: (?:Hyper r|R)eference `([^']+)' on page \d+ undefined"
    ),
    "undefined citation": re.compile(
        r"LaTeX Warning: Citation `([^']+)' on page \d+ undefined"
    ),
    "label defined twice": re.compile(
        r"LaTeX Warning: Label `([^']+)' multiply defined"
    ),
    "character missing from its font": re.compile(
        r"Missing character: There is no (\S+ \(U\+[0-9A-F]+\)) in font ([^/!]+)"
    ),
}


def unwrap_log(text: str) -> str:
    """TeX wraps its log at 79 characters; join the wrapped lines back."""
    return re.sub(r"(?m)^(.{79})\n", r"\1", text)


def log_problems(log: str) -> dict[str, list[str]]:
    """Every problem of :data:`PROBLEMS` in a (wrapped) xelatex log, deduplicated."""
    text = unwrap_log(log)
    found = {}
    for name, pattern in PROBLEMS.items():
        hits = sorted({" in ".join(m.groups()) for m in pattern.finditer(text)})
        if hits:
            found[name] = hits
    return found


def typeset(latex: Path = LATEX, pdf: Path = PDF) -> dict:
    """Run latexmk (xelatex, as Sphinx's Makefile sets it up) and copy the PDF to ``pdf``."""
    if not (latex / TEX).exists():
        raise SystemExit(
            f"no LaTeX build at {latex / TEX}: run "
            "`jupyter-book build . --builder latex` first (or `make pdf`)"
        )
    if shutil.which("latexmk") is None or shutil.which("xelatex") is None:
        raise SystemExit(
            "typesetting the book needs TeX Live: "
            f"apt-get install -y --no-install-recommends {TEX_PACKAGES}"
        )
    start = time.perf_counter()
    run = subprocess.run(
        [
            "make",
            "-C",
            str(latex),
            "all-pdf",
            "LATEXMKOPTS=-interaction=nonstopmode -halt-on-error",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = round(time.perf_counter() - start, 1)
    log = (
        (latex / TEX).with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    )
    if run.returncode != 0:
        errors = re.findall(r"(?m)^! .*(?:\n.*){0,3}", unwrap_log(log))
        raise SystemExit(
            f"xelatex failed ({latex / TEX}):\n"
            + "\n".join(errors[:5] or [run.stdout[-3000:]])
        )
    pdf.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile((latex / TEX).with_suffix(".pdf"), pdf)
    # The site links the whole book from every page (_ext/book_pdf_link.py).
    if (HTML / "index.html").exists():
        shutil.copyfile(pdf, HTML / pdf.name)
    return {
        "seconds": seconds,
        "runs": len(
            re.findall(r"Run number \d+ of rule '(?:pdf|xe)?latex'", run.stdout)
        ),
        "problems": log_problems(log),
    }


def main(argv: list[str]) -> int:
    latex = Path(argv[0]) if argv else LATEX
    pdf = Path(argv[1]) if len(argv) > 1 else PDF
    result = typeset(latex, pdf)
    import pypdf

    pages = len(pypdf.PdfReader(pdf).pages)
    print(
        f"{pdf}: {pages} pages, {pdf.stat().st_size / 1e6:.1f} MB, "
        f"{result['runs']} xelatex runs, {result['seconds']} s"
    )
    for name, hits in result["problems"].items():
        print(f"{len(hits)} x {name}:")
        for hit in hits[:20]:
            print(f"    {hit}")
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
