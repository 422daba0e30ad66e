"""Print the single-page build of the book to one PDF with headless Chromium (`make
pdf`).

Usage (after ``jupyter-book build . --builder singlehtml``)::

    python -m tests.rendered_site.print_book [SINGLEHTML_DIR] [PDF]

Why this route and not LaTeX: the single-page HTML is the very page the site tests
check, so what a reader sees on screen is what prints: MathJax maths (nothing to
translate into LaTeX, no package to miss), the figures at their on-screen size, the same
CSS. Chromium is already a dependency of the site tests, and the Chinese terms only need
the Debian fonts ``fonts-noto-cjk``, where xelatex would need a TeX installation of
several hundred MB.

Before printing, the page is shown in light mode, MathJax has finished, every image is
decoded and every folded block (erratum boxes, solutions, check lists) is opened. The
PDF has an outline (bookmarks) from the headings and page numbers in the footer.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .site import ROOT, chromium, chromium_executable, open_page, serve, set_theme

SINGLEHTML = ROOT / "_build" / "singlehtml"
PDF = ROOT / "_build" / "pdf" / "dr-book.pdf"
#: The single page: Jupyter Book writes the whole book into its root document...
ROOT_PAGE = "book/intro.html"
#: ...but with links relative to the build's root (``_static/``, ``_images/``), so it is
#: printed from a copy at the root.
PRINTED_PAGE = "dr-book.html"

PREPARE_JS = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const images = Array.from(document.images);
  images.forEach(img => { img.loading = 'eager'; });
  await Promise.all(images.map(img => img.decode().catch(() => null)));
  await document.fonts.ready;
  return {
    images: images.filter(i => i.naturalWidth > 0).length,
    untypeset: document.querySelectorAll('.math:not(:has(mjx-container))').length,
  };
}
"""

FOOTER = (
    '<div style="font-size:8px; width:100%; text-align:center; color:#555;">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


def print_book(singlehtml: Path = SINGLEHTML, pdf: Path = PDF) -> dict:
    """Print ``singlehtml``'s root page to ``pdf``; returns what was prepared."""
    if not (singlehtml / ROOT_PAGE).exists():
        raise SystemExit(
            f"no single-page build at {singlehtml / ROOT_PAGE}: run "
            "`jupyter-book build . --builder singlehtml` first (or `make pdf`)"
        )
    executable = chromium_executable()
    if executable is None:
        raise SystemExit(
            "printing the book needs Chromium: apt-get install -y chromium"
        )
    pdf.parent.mkdir(parents=True, exist_ok=True)
    (singlehtml / PRINTED_PAGE).write_bytes((singlehtml / ROOT_PAGE).read_bytes())
    start = time.perf_counter()
    with serve(singlehtml) as site_url, chromium(executable) as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(300_000)  # one page holds the whole book
        set_theme(context, "light")
        page = open_page(context, site_url + PRINTED_PAGE, site_url)
        prepared = page.evaluate(PREPARE_JS)
        page.emulate_media(media="print")
        page.pdf(
            path=str(pdf),
            format="A4",
            print_background=True,
            display_header_footer=True,
            header_template="<span></span>",
            footer_template=FOOTER,
            margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"},
            outline=True,
            tagged=True,
        )
        context.close()
    prepared["seconds"] = round(time.perf_counter() - start, 1)
    return prepared


def main(argv: list[str]) -> int:
    singlehtml = Path(argv[0]) if argv else SINGLEHTML
    pdf = Path(argv[1]) if len(argv) > 1 else PDF
    prepared = print_book(singlehtml, pdf)
    print(
        f"{pdf}: {pdf.stat().st_size / 1e6:.1f} MB, {prepared['images']} images, "
        f"{prepared['untypeset']} formulas left untypeset, {prepared['seconds']} s"
    )
    return 1 if prepared["untypeset"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
