"""Fixtures: the built book served on localhost, a headless Chromium, every page
visited.

The site checks need the built book (`make book`) and the Debian package `chromium`.
When either is missing they are skipped with the reason printed, unless
`DR_BOOK_REQUIRE_SITE=1` (set by `make test`) or `CI` is set, in which case a missing
piece is a failure. Set `DR_BOOK_SCREENSHOTS=<folder>` to also save a full-page
screenshot of every page (`make site-report` saves them at laptop and phone size, light
and dark).
"""

from __future__ import annotations

import os

import pytest

from .site import (
    HTML,
    PHONE,
    chromium,
    chromium_executable,
    html_pages,
    serve,
    visit_pages,
)


def require_site() -> bool:
    return os.environ.get("DR_BOOK_REQUIRE_SITE") == "1" or bool(os.environ.get("CI"))


def missing(reason: str):
    """Skip, or fail when the site checks are required."""
    if require_site():
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def site_url():
    if not (HTML / "index.html").exists():
        missing(f"no built book at {HTML}: run `make book` first")
    with serve(HTML) as url:
        yield url


@pytest.fixture(scope="session")
def pages(site_url):
    """Every page's path relative to the site root, without visiting them."""
    return [path.relative_to(HTML).as_posix() for path in html_pages()]


@pytest.fixture(scope="session")
def browser():
    executable = chromium_executable()
    if executable is None:
        missing(
            "Chromium is not installed (apt-get install -y chromium); site checks "
            "skipped"
        )
    with chromium(executable) as browser:
        yield browser


@pytest.fixture(scope="session")
def site(site_url, browser):
    """Every page, visited once at 1280 x 900: path relative to the site root ->
    report."""
    return visit_pages(
        browser, site_url, screenshots=os.environ.get("DR_BOOK_SCREENSHOTS")
    )


@pytest.fixture(scope="session")
def phone_site(site_url, browser):
    """Every page, visited once at 390 x 844 with every fold open: path relative to the
    site root -> report."""
    return visit_pages(browser, site_url, viewport=PHONE, open_folds=True)
