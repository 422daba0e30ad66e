"""Parameter explorers (``dr_lib.plotting.parameter_explorer``) as a reader moves them.

With every request to another host refused (``site.open_page``): each page with an
explorer loads BokehJS once, from the site's own ``_static``, within the budget of
issue 25; every explorer draws; moving its slider (by the keyboard, as a reader can),
pressing its buttons and its play button changes the coordinates it plots, with no
JavaScript error; it fits the column at a laptop's and at a phone's width; in dark mode
its lightness is inverted like every figure's. The PDF prints its static twin.
"""

from __future__ import annotations

import re

import pytest

from .site import HTML, LAPTOP, PHONE, PageReport, html_pages, open_page, set_theme

MARK = 'class="dr-explorer"'
PLAY = re.compile("play|pause")
#: The JavaScript shared by the explorers of a page, loaded once (issue 25's budget).
MAX_SHARED_BYTES = 2_000_000
#: The data of one explorer in its page.
MAX_EXPLORER_BYTES = 500_000
SCRIPT = re.compile(r'<script src="([^"]*_static/bokeh/[^"]+\.js)[^"]*"')
EXPLORER = re.compile(r'<div class="dr-explorer" id="([^"]+)".*?</script></div>', re.S)

#: What an explorer plots now, read from its Bokeh document, and what it prints.
STATE_JS = """(box) => {
  const item = JSON.parse(document.getElementById(box.id + '-data').textContent);
  const doc = Bokeh.documents.find((d) => d.get_model_by_id(item.root_id));
  const shown = doc.get_model_by_name('dr_shown');
  return {
    x: Array.from(shown.data.x), y: Array.from(shown.data.y),
    readout: doc.get_model_by_name('dr_readout').text,
  };
}"""


@pytest.fixture(scope="module")
def explorer_pages(site_url):
    """path -> HTML of every page that shows an explorer."""
    pages = {}
    for path in html_pages():
        text = path.read_text(encoding="utf-8")
        if MARK in text:
            pages[path.relative_to(HTML).as_posix()] = text
    assert pages, "no page of the book shows a parameter explorer"
    return pages


def _open(context, site_url, rel):
    report = PageReport(url=site_url + rel, data={})
    page = open_page(context, report.url, site_url, report)
    boxes = page.locator("div.dr-explorer")
    page.wait_for_function(
        "n => document.querySelectorAll('div.dr-explorer[data-ready]').length === n",
        arg=boxes.count(),
        timeout=30_000,
    )
    return page, boxes, report


def test_bokehjs_is_served_by_the_site_once_per_page(explorer_pages):
    for rel, text in explorer_pages.items():
        scripts = SCRIPT.findall(text)
        assert scripts, f"{rel} shows an explorer but loads no BokehJS from _static"
        assert len(scripts) == len(set(scripts)), f"{rel} loads BokehJS twice"
        files = [(HTML / rel).parent / src for src in scripts]
        assert all(f.is_file() for f in files), f"{rel}: missing {files}"
        shared = sum(f.stat().st_size for f in files)
        assert shared <= MAX_SHARED_BYTES, f"{rel}: {shared / 1e6:.2f} MB of BokehJS"
        for match in EXPLORER.finditer(text):
            size = len(match.group(0).encode("utf-8"))
            assert size <= MAX_EXPLORER_BYTES, f"{rel} {match.group(1)}: {size} bytes"
    others = [
        p.relative_to(HTML).as_posix()
        for p in html_pages()
        if p.relative_to(HTML).as_posix() not in explorer_pages
        and "_static/bokeh/" in p.read_text(encoding="utf-8")
    ]
    assert not others, f"pages without an explorer that load BokehJS: {others[:5]}"


def _moved(before, after):
    return before["x"] != after["x"] or before["y"] != after["y"]


def test_every_explorer_moves_offline_without_errors(browser, site_url, explorer_pages):
    context = browser.new_context(viewport=LAPTOP)
    still = []
    for rel in explorer_pages:
        page, boxes, report = _open(context, site_url, rel)
        for i in range(boxes.count()):
            box = boxes.nth(i)
            name = f"{rel} #{i + 1}"
            start = box.evaluate(STATE_JS)
            assert start["x"], f"{name} plots no points"
            # the slider, moved by the keyboard as a reader can (it is the last control)
            handle = box.locator(".noUi-handle").last
            handle.focus()
            page.keyboard.press("Home")
            page.wait_for_timeout(200)
            first = box.evaluate(STATE_JS)  # the default may be the first value or not
            page.keyboard.press("ArrowRight")
            page.wait_for_timeout(200)
            moved = box.evaluate(STATE_JS)
            if not _moved(first, moved) or moved["readout"] == first["readout"]:
                still.append(f"{name}: slider")
            # buttons of a parameter given as choices (not the play button)
            choices = box.locator(".bk-btn").filter(has_not_text=PLAY)
            if choices.count():
                first_pressed = choices.first.evaluate(
                    "b => b.classList.contains('bk-active')"
                )
                choices.nth(1 if first_pressed else 0).click()
                page.wait_for_timeout(200)
                if not _moved(moved, box.evaluate(STATE_JS)):
                    still.append(f"{name}: buttons")
            # the play button steps the slider on its own
            before_play = box.evaluate(STATE_JS)
            box.get_by_role("button", name="▶ play").click()
            page.wait_for_timeout(1800)
            if not _moved(before_play, box.evaluate(STATE_JS)):
                still.append(f"{name}: play")
            box.get_by_role("button", name="❚❚ pause").click()
        page.close()
        assert not report.external_requests, f"{rel}: {report.external_requests}"
        assert not report.failed_requests, f"{rel}: {report.failed_requests}"
        errors = report.page_errors + report.console_errors
        assert not errors, f"{rel}: JavaScript errors {errors}"
    context.close()
    assert not still, f"explorers that did not move: {still}"


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_every_explorer_fits_the_column(browser, site_url, explorer_pages, viewport):
    context = browser.new_context(viewport=viewport)
    bad = []
    for rel in explorer_pages:
        page, boxes, _ = _open(context, site_url, rel)
        column = page.locator("article.bd-article").bounding_box()
        for i in range(boxes.count()):
            box = boxes.nth(i).locator(".dr-explorer-root").bounding_box()
            right, left = box["x"] + box["width"], box["x"]
            if right > column["x"] + column["width"] + 1 or left < column["x"] - 1:
                bad.append(f"{rel} #{i + 1}: sticks out ({box}, column {column})")
            elif box["width"] < 0.9 * min(column["width"], 688):
                bad.append(
                    f"{rel} #{i + 1}: {box['width']:.0f} px of {column['width']:.0f}"
                )
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > viewport["width"] + 1:
            bad.append(f"{rel}: the page is {width} px wide")
        page.close()
    context.close()
    assert not bad, f"explorers that do not fit at {viewport['width']} px: {bad}"


def test_explorers_read_in_dark_mode(browser, site_url, explorer_pages):
    context = browser.new_context(viewport=PHONE)
    set_theme(context, "dark")
    rel = next(iter(explorer_pages))
    page, boxes, report = _open(context, site_url, rel)
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    for i in range(boxes.count()):
        root = boxes.nth(i).locator(".dr-explorer-root")
        style = root.evaluate("e => getComputedStyle(e).filter")
        assert "invert" in style and "hue-rotate" in style, style
        # transparent: the page's own dark background shows through the map
        fills = boxes.nth(i).evaluate(
            """(box) => {
              const item = JSON.parse(document.getElementById(box.id + '-data')
                .textContent);
              const doc = Bokeh.documents.find((d) => d.get_model_by_id(item.root_id));
              const map = doc.get_model_by_name('dr_map');
              return [map.background_fill_color, map.border_fill_color];
            }"""
        )
        assert fills == [None, None], f"explorer {i + 1} of {rel} has a card: {fills}"
    assert not (report.page_errors + report.console_errors)
    context.close()


# --------------------------------------------------------------------------- the PDF


def _explorer_captions():
    """The caption of every figure cell whose code draws a parameter explorer."""
    import json

    from .site import ROOT

    captions = []
    for path in sorted((ROOT / "book").rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure")
            if figure and "parameter_explorer(" in "".join(cell["source"]):
                captions.append(figure["caption"])
    return captions


def test_the_pdf_prints_each_explorer_as_its_static_twin():
    """Each explorer's caption is printed under an image on its page (the default
    state, drawn as a PNG), never under an empty box or raw HTML."""
    import os
    from pathlib import Path

    from . import pdf_reading as reading
    from .conftest import missing
    from .pdf_reading import squash
    from .site import ROOT

    pdf_path = Path(
        os.environ.get("DR_BOOK_PDF", ROOT / "_build" / "pdf" / "dr-book.pdf")
    )
    if not pdf_path.exists():
        missing(f"no PDF at {pdf_path}: run `make pdf` first")
    import pypdf

    pdf = pypdf.PdfReader(pdf_path)
    texts = [squash(prose) for prose, _ in reading.page_texts(pdf)]
    pages_with_images = {image["page"] for image in reading.printed_images(pdf)}
    captions = _explorer_captions()
    assert captions, "no figure cell draws a parameter explorer"
    bad = []
    for caption in captions:
        start = squash(caption)[:40]
        pages = [i for i, text in enumerate(texts) if start in text]
        if not pages:
            bad.append(f"caption not printed: {caption[:60]}")
        elif not {pages[0], pages[0] - 1} & pages_with_images:
            bad.append(f"no image above: {caption[:60]}")
    raw = [i + 1 for i, text in enumerate(texts) if "dr-explorer" in text]
    assert not raw, f"explorer HTML printed as text on pages {raw}"
    assert not bad, bad
