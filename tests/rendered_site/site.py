"""Serve the built book on localhost and look at its pages in headless Chromium.

Plain functions, shared by the pytest fixtures (``conftest.py``) and by the report that
``make site-report`` prints (``report.py``). Nothing here is a test.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
#: The two windows every page is read in: a laptop and a phone.
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# Runs in the page once it has loaded: waits for MathJax, then reports what the tests
# need.
INSPECT_JS = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const images = Array.from(document.images);
  const drawnWidth = img => parseFloat(img.style.width) || img.naturalWidth;
  const figureName = img =>
    (img.closest('figure[id]') || {}).id || img.src.split('/').pop();
  images.forEach(img => { img.loading = 'eager'; });
  await Promise.all(images.map(img => img.decode().catch(() => null)));
  const skip = 'pre, code, script, style, textarea, mjx-container, mjx-assistive-mml';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(skip) || parent.closest('.onlyprint')) continue;
    const text = node.textContent;
    if (/\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{/.test(text)) raw.push(text.trim().slice(0, 80));
  }
  // Text a reader should never see: TeX that was not typeset, and link labels shown raw.
  const texLike = /_\{|\^\{|\\mathbf|\\frac|\\sum|\\lVert|\\operatorname/;
  const rawLabel = /(^|[\s(\[])(erratum|eq|fig|sec|thm|ex)-[a-z0-9]+(-[a-z0-9]+)+/;
  const rawText = [];
  const headingUnderscores = [];
  const walker2 = document.createTreeWalker(
    document.querySelector('article.bd-article') || document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker2.nextNode(); node; node = walker2.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(skip) || parent.closest('.cell_output')) continue;
    const text = node.textContent;
    if (texLike.test(text) || rawLabel.test(text)) rawText.push(text.trim().slice(0, 80));
    if (parent.closest('h1, h2, h3, h4, h5, h6') && /[A-Za-z0-9]_[A-Za-z0-9{]/.test(text)) {
      headingUnderscores.push(text.trim().slice(0, 80));
    }
  }
  const maths = Array.from(document.querySelectorAll('.math'));
  // TeX that MathJax could not parse (mjx-merror), or that it printed as text: a backslash
  // left in the MathML it builds for screen readers, e.g. \_ inside \texttt{...}.
  const mathErrors = Array.from(document.querySelectorAll('mjx-merror')).map(e => e.textContent)
    .concat(Array.from(document.querySelectorAll('mjx-assistive-mml'))
      .map(e => e.textContent).filter(t => t.includes('\\')));
  // Width: what scrolls sideways, or sticks out of the article column, at this viewport.
  const article = document.querySelector('article.bd-article') || document.body;
  const column = article.getBoundingClientRect();
  const scrolls = el => el && el.scrollWidth > el.clientWidth + 1;
  const sticksOut = rect => rect.right > column.right + 1 || rect.left < column.left - 1;
  const overflowingEquations = Array.from(
    document.querySelectorAll('mjx-container[display="true"]')).filter(eq => {
      const math = eq.querySelector('mjx-math') || eq;
      return scrolls(eq) || scrolls(eq.parentElement)
        || sticksOut(math.getBoundingClientRect());
    }).map(eq => {
      const box = eq.closest('div.math');
      const number = box && box.querySelector('.eqno');
      const mml = eq.querySelector('mjx-assistive-mml');
      return (number ? number.textContent.replace('#', '').trim() + ' ' : '')
        + (box && box.id ? box.id : '')
        + (mml ? ' ' + mml.textContent.trim().slice(0, 50) : '');
    });
  // Display equations that fit, with the room they leave in their column (px): the
  // width of the column's content box less the equation's.
  const label = eq => {
    const box = eq.closest('div.math');
    const mml = eq.querySelector('mjx-assistive-mml');
    return (box && box.id ? box.id : '') + (mml ? ' ' + mml.textContent.trim().slice(0, 50) : '');
  };
  const equationRoom = Array.from(
    document.querySelectorAll('div.math > mjx-container[display="true"]'))
    .filter(eq => !scrolls(eq) && eq.querySelector('mjx-math')
      && eq.querySelector('mjx-math').getBoundingClientRect().width > 0)
    .map(eq => {
      const column = eq.closest('div.math').parentElement;
      const style = getComputedStyle(column);
      const width = column.clientWidth - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight);
      const room = width - eq.querySelector('mjx-math').getBoundingClientRect().width;
      return {label: label(eq), room: Math.round(room * 10) / 10};
    });
  // Inline maths cut off: its right edge beyond the box that clips it (an element, not
  // inline, whose overflow is hidden or clip; a box that scrolls lets the reader reach it).
  const clipsItsContent = el => {
    const s = getComputedStyle(el);
    return s.display !== 'inline' && s.display !== 'contents'
      && ['hidden', 'clip'].includes(s.overflowX);
  };
  const clippedInline = Array.from(
    document.querySelectorAll('mjx-container:not([display="true"])'))
    .filter(m => {
      const rect = m.getBoundingClientRect();
      if (!rect.width) return false;
      let box = m.parentElement;
      while (box && !clipsItsContent(box)) box = box.parentElement;
      if (!box) return false;
      const right = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
      return rect.right > right + 1;
    }).map(label);
  const outputs = Array.from(document.querySelectorAll('.cell_output > .output'));
  const overflowingOutputs = outputs.filter(out =>
    scrolls(out) || Array.from(out.querySelectorAll('pre, .highlight, table'))
      .some(el => scrolls(el) || sticksOut(el.getBoundingClientRect()))
  ).map(out => out.textContent.trim().slice(0, 80));
  return {
    // Wider than the window: the page itself scrolls sideways.
    scroll_width: document.documentElement.scrollWidth,
    display_equations: document.querySelectorAll('mjx-container[display="true"]').length,
    overflowing_equations: overflowingEquations,
    equation_room: equationRoom,
    clipped_inline_maths: clippedInline,
    output_blocks: outputs.length,
    overflowing_outputs: overflowingOutputs,
    uncaptioned_tables: Array.from(document.querySelectorAll('.cell_output table'))
      .filter(t => !t.querySelector('caption') || !t.querySelector('caption').textContent.trim())
      .map(t => t.textContent.trim().slice(0, 60)),
    figures: Array.from(document.querySelectorAll('figure[id]')).map(f => f.id),
    folded_checks: document.querySelectorAll('details.dr-checks').length,
    // Figures the page shows narrower than drawn (the width dr_lib.plotting gives
    // them, or their pixels): their text is smaller than 9 pt.
    shrunk_figures: Array.from(document.querySelectorAll('.cell_output img'))
      .filter(img => img.naturalWidth > 0
        && img.getBoundingClientRect().width < drawnWidth(img) - 1)
      .map(img => figureName(img)
        + ` (${drawnWidth(img)} px shown at ${Math.round(img.getBoundingClientRect().width)})`),
    // Every figure: its name, the width it was drawn at, its pixels and its height
    // on the page.
    figure_images: Array.from(document.querySelectorAll('.cell_output img'))
      .filter(img => img.naturalWidth > 0)
      .map(img => ({name: figureName(img), drawn: drawnWidth(img),
                    pixels: img.naturalWidth,
                    height: Math.round(img.getBoundingClientRect().height)})),
    // Figures drawn on an opaque background: the top-left pixel of a house figure is clear.
    opaque_figures: Array.from(document.querySelectorAll('.cell_output img'))
      .filter(img => img.naturalWidth > 0 && /\.png$/i.test(img.src))
      .filter(img => {
        const canvas = document.createElement('canvas');
        canvas.width = 2; canvas.height = 2;
        const context = canvas.getContext('2d');
        context.drawImage(img, 0, 0, 2, 2, 0, 0, 2, 2);
        return context.getImageData(0, 0, 1, 1).data[3] > 0;
      })
      .map(figureName),
    mathjax: Boolean(window.MathJax && MathJax.startup),
    math_total: maths.length,
    math_untypeset: maths.filter(m => !m.querySelector('mjx-container'))
      .map(m => m.textContent.slice(0, 80)),
    raw_math: raw,
    raw_text: rawText,
    heading_underscores: headingUnderscores,
    math_errors: mathErrors.map(t => t.slice(0, 80)),
    broken_images: images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
    // What a screen reader reads in place of each image (null: no alt attribute).
    image_alts: images.map(i => ({src: i.getAttribute('src'), alt: i.getAttribute('alt')})),
    links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
    ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
    title: document.title,
  };
}
"""


# Opens every fold of a page, as a reader who opens them all would see it: <details>
# (check blocks, sphinx-design dropdowns) and sphinx-togglebutton's boxes (solutions,
# errata), whose button sits in the box's title.
OPEN_FOLDS_JS = r"""
() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(box => {
    const button = box.querySelector(':scope > .admonition-title .toggle-button');
    if (button) button.click();
  });
}
"""


@dataclass
class PageReport:
    url: str
    data: dict
    failed_requests: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)


def is_redirect(path: Path) -> bool:
    """The root index.html that Jupyter Book writes is a meta-refresh to the first
    page."""
    return (
        'http-equiv="Refresh"'
        in path.read_text(encoding="utf-8", errors="ignore")[:2000]
    )


def html_pages(html: Path = HTML) -> list[Path]:
    """Every HTML page of a built book (not the assets, not redirect stubs)."""
    if not html.exists():
        return []
    return sorted(
        p
        for p in html.rglob("*.html")
        if not {"_static", "_sources", "_images"} & set(p.relative_to(html).parts)
        and not is_redirect(p)
    )


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output readable
        pass


@contextlib.contextmanager
def serve(directory: Path = HTML) -> Iterator[str]:
    """Serve ``directory`` on a free localhost port; yields the site's URL."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def chromium_executable() -> str | None:
    """The Debian Chromium, or None when it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextlib.contextmanager
def chromium(executable: str):
    """A headless Chromium (Playwright ``Browser``) started from ``executable``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


def open_page(context, url: str, site_url: str, report: PageReport | None = None):
    """Open ``url`` in ``context`` with every request to another host refused.

    With a ``report``, refused and failed requests and JavaScript errors are recorded in
    it.
    """
    report = report if report is not None else PageReport(url=url, data={})
    page = context.new_page()
    page.route(lambda u: not u.startswith(site_url), _blocker(report))
    page.on("requestfailed", lambda r: report.failed_requests.append(r.url))
    page.on(
        "response",
        lambda r: (
            r.status >= 400 and report.failed_requests.append(f"{r.status} {r.url}")
        ),
    )
    page.on("pageerror", lambda e: report.page_errors.append(str(e)))
    page.on(
        "console",
        lambda m: m.type == "error" and report.console_errors.append(m.text),
    )
    page.goto(url, wait_until="load")
    return page


def set_theme(context, theme: str) -> None:
    """Open every later page of ``context`` in the theme's ``light`` or ``dark``
    mode."""
    context.add_init_script(
        f"localStorage.setItem('mode', '{theme}'); localStorage.setItem('theme', "
        f"'{theme}');"
    )


def visit_pages(
    browser,
    site_url: str,
    *,
    viewport=LAPTOP,
    theme=None,
    screenshots=None,
    open_folds=False,
) -> dict[str, PageReport]:
    """Visit every page once; map its path (relative to the site root) to a report.

    ``screenshots``: a folder to save a full-page screenshot of every page in.
    ``open_folds``: open every solution, dropdown and check block before looking.
    """
    context = browser.new_context(viewport=viewport)
    if theme:
        set_theme(context, theme)
    reports: dict[str, PageReport] = {}
    for path in html_pages():
        rel = path.relative_to(HTML).as_posix()
        report = PageReport(url=site_url + rel, data={})
        page = open_page(context, report.url, site_url, report)
        if open_folds:
            page.evaluate(OPEN_FOLDS_JS)
        report.data = page.evaluate(INSPECT_JS)
        if screenshots:
            Path(screenshots).mkdir(parents=True, exist_ok=True)
            page.screenshot(
                path=str(Path(screenshots) / (rel.replace("/", "__") + ".png")),
                full_page=True,
            )
        page.close()
        reports[rel] = report
    context.close()
    return reports


def _blocker(report: PageReport):
    """A route handler that refuses, and records, every request to another host."""

    def block(route):
        report.external_requests.append(route.request.url)
        route.abort()

    return block


def local_path(url: str, site_url: str) -> tuple[str, str]:
    """(path relative to the site root, fragment) of a same-site URL."""
    parts = urlsplit(url)
    rel = parts.path.lstrip("/")
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    return unquote(rel), unquote(parts.fragment)
