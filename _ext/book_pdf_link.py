"""Link the whole-book PDF from every page, and name the print button for what it does.

sphinx-book-theme's download menu offers ".pdf", which prints the page on screen
(``window.print()``): readers took it for the book, and nothing on the site led to the
book's PDF. The menu now calls that button "Print this page" and, once the whole book
has been built as a PDF (``make pdf`` writes ``_build/pdf/dr-book.pdf``), offers "Whole
book (PDF)", a link to the copy of it that the build puts at the root of the site.

The link is only there when the PDF is: a site built without it has no dead link. When
the PDF appears or goes away, every page is written again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

PDF_NAME = "dr-book.pdf"


def _built_pdf(app) -> Path:
    """Where ``make pdf`` leaves the PDF:
    ``_build/pdf`` beside the HTML's ``_build/html``."""
    return Path(app.outdir).parent / "pdf" / PDF_NAME


def _has_pdf(app) -> bool:
    return app.builder.format == "html" and _built_pdf(app).is_file()


def _outdated_when_the_pdf_changes(app, env, added, changed, removed):
    if app.builder.format != "html":
        return []
    has_pdf = _has_pdf(app)
    if getattr(env, "dr_book_has_pdf", None) == has_pdf:
        return []
    env.dr_book_has_pdf = has_pdf
    return sorted(env.found_docs)


def _download_menu(app, pagename, templatename, context, doctree):
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        group["tooltip"] = "Download"
        for button in group["buttons"]:
            if button.get("label") == "download-pdf-button":
                button["text"] = "Print this page"
                button["tooltip"] = "Print this page, or save it as a PDF"
                button["icon"] = "fas fa-print"
        if _has_pdf(app):
            group["buttons"].append(
                {
                    "type": "link",
                    "url": context["pathto"](PDF_NAME, 1),
                    "text": "Whole book (PDF)",
                    "tooltip": (
                        "The whole book as one PDF, with contents and page numbers"
                    ),
                    "icon": "fas fa-book",
                    "label": "download-book-pdf-button",
                }
            )


def _copy_pdf(app, exception):
    if exception is None and _has_pdf(app):
        shutil.copyfile(_built_pdf(app), Path(app.outdir) / PDF_NAME)


def setup(app):
    app.connect("env-get-outdated", _outdated_when_the_pdf_changes)
    # after sphinx-book-theme has filled the menu (its handlers run at priority 501)
    app.connect("html-page-context", _download_menu, priority=502)
    app.connect("build-finished", _copy_pdf)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
