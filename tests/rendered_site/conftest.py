"""Serve the built book on localhost and visit every page once in headless Chromium.

The site checks need the built book (`make book`) and the Debian package `chromium`. When
either is missing they are skipped with the reason printed, unless `DR_BOOK_REQUIRE_SITE=1`
(set by `make test`) or `CI` is set, in which case a missing piece is a failure.
Set `DR_BOOK_SCREENSHOTS=<folder>` to also save a full-page screenshot of every page.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

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

# Runs in the page once it has loaded: waits for MathJax, then reports what the tests need.
INSPECT_JS = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const images = Array.from(document.images);
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
  const maths = Array.from(document.querySelectorAll('.math'));
  // TeX that MathJax could not parse (mjx-merror), or that it printed as text: a backslash
  // left in the MathML it builds for screen readers, e.g. \_ inside \texttt{...}.
  const mathErrors = Array.from(document.querySelectorAll('mjx-merror')).map(e => e.textContent)
    .concat(Array.from(document.querySelectorAll('mjx-assistive-mml'))
      .map(e => e.textContent).filter(t => t.includes('\\')));
  return {
    mathjax: Boolean(window.MathJax && MathJax.startup),
    math_total: maths.length,
    math_untypeset: maths.filter(m => !m.querySelector('mjx-container'))
      .map(m => m.textContent.slice(0, 80)),
    raw_math: raw,
    math_errors: mathErrors.map(t => t.slice(0, 80)),
    broken_images: images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
    links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
    ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
    title: document.title,
  };
}
"""


@dataclass
class PageReport:
    url: str
    data: dict
    failed_requests: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)


def _require_site() -> bool:
    return os.environ.get("DR_BOOK_REQUIRE_SITE") == "1" or bool(os.environ.get("CI"))


def _missing(reason: str):
    if _require_site():
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def is_redirect(path: Path) -> bool:
    """The root index.html that Jupyter Book writes is a meta-refresh to the first page."""
    return (
        'http-equiv="Refresh"'
        in path.read_text(encoding="utf-8", errors="ignore")[:2000]
    )


def html_pages() -> list[Path]:
    """Every HTML page of the built book (not the assets, not redirect stubs)."""
    if not HTML.exists():
        return []
    return sorted(
        p
        for p in HTML.rglob("*.html")
        if not {"_static", "_sources", "_images"} & set(p.relative_to(HTML).parts)
        and not is_redirect(p)
    )


@pytest.fixture(scope="session")
def site_url():
    if not (HTML / "index.html").exists():
        _missing(f"no built book at {HTML}: run `make book` first")
    handler = functools.partial(QuietHandler, directory=str(HTML))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output readable
        pass


@pytest.fixture(scope="session")
def browser():
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        _missing(
            "Chromium is not installed (apt-get install -y chromium); site checks skipped"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def site(site_url, browser) -> dict[str, PageReport]:
    """Visit every page once; map its path (relative to the site root) to a report."""
    screenshots = os.environ.get("DR_BOOK_SCREENSHOTS")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    reports: dict[str, PageReport] = {}
    for path in html_pages():
        rel = path.relative_to(HTML).as_posix()
        report = PageReport(url=site_url + rel, data={})
        page = context.new_page()

        page.route(lambda url: not url.startswith(site_url), _blocker(report))
        page.on(
            "requestfailed",
            lambda r, report=report: report.failed_requests.append(r.url),
        )
        page.on(
            "response",
            lambda r, report=report: (
                r.status >= 400 and report.failed_requests.append(f"{r.status} {r.url}")
            ),
        )
        page.on("pageerror", lambda e, report=report: report.page_errors.append(str(e)))
        page.goto(report.url, wait_until="load")
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
