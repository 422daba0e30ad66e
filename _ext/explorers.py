"""Serve BokehJS from the book's own ``_static``, on the pages that have a parameter
explorer (``dr_lib.plotting.parameter_explorer``, issue 25).

An explorer is a cell output whose HTML carries a serialised Bokeh document and a small
script that draws it with the page's BokehJS. The site must work with no network, so
BokehJS never comes from a CDN: at the end of an HTML build the files are copied from
the installed bokeh package into ``_static/bokeh/`` (so the JavaScript is always the
version that serialised the documents), and each page that shows an explorer, and only
such a page, loads them once in its head, however many explorers it has.

A page whose explorers were serialised by another bokeh version (a notebook executed
before bokeh was upgraded, kept in the execution cache) would draw nothing: the build
warns, which fails the strict build, and says which notebook to execute again.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: The BokehJS bundles an explorer needs: the core (plots) and the widgets (slider,
#: buttons, text).
BUNDLES = ("bokeh", "bokeh-widgets")
MARK = 'class="dr-explorer"'
VERSION = re.compile(r'class="dr-explorer"[^>]*data-bokeh-version="([^"]+)"')


def bokeh_files() -> list[tuple[Path, str]]:
    """(file in the installed bokeh, path under the site's ``_static``) per bundle."""
    import bokeh

    folder = Path(bokeh.__file__).parent / "server" / "static" / "js"
    return [
        (folder / f"{name}.min.js", f"bokeh/{name}-{bokeh.__version__}.min.js")
        for name in BUNDLES
    ]


def _load_on_explorer_pages(app, pagename, templatename, context, doctree):
    if app.builder.format != "html":
        return
    body = context.get("body") or ""
    if MARK not in body:
        return
    import bokeh

    stale = sorted(set(VERSION.findall(body)) - {bokeh.__version__})
    if stale:
        logger.warning(
            f"{pagename}: parameter explorers serialised by bokeh {', '.join(stale)}, "
            f"but the book serves BokehJS {bokeh.__version__}: execute the notebook "
            "again (jupyter-book build --all, or remove it from _build/.jupyter_cache)",
            type="dr_explorer",
            subtype="bokeh_version",
        )
    for _, target in bokeh_files():
        app.add_js_file(target)


def _copy_bokeh(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for source, target in bokeh_files():
        destination = Path(app.outdir) / "_static" / target
        destination.parent.mkdir(parents=True, exist_ok=True)
        if (
            not destination.exists()
            or destination.stat().st_size != source.stat().st_size
        ):
            shutil.copyfile(source, destination)


def setup(app):
    app.connect("html-page-context", _load_on_explorer_pages)
    app.connect("build-finished", _copy_bokeh)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
