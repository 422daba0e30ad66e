"""The rendered book, as a reader's browser sees it (headless Chromium, no network)."""

import re

import pytest

from .site import HTML, local_path


def test_the_book_has_pages(site):
    assert "book/intro.html" in site and len(site) >= 5


def test_the_front_door_leads_to_the_introduction(browser, site_url):
    page = browser.new_page()
    page.goto(site_url)
    page.wait_for_url("**/book/intro.html")
    assert "Dimensionality Reduction" in page.title()
    page.close()


def test_every_page_opens_without_errors(site):
    bad = {
        rel: r.page_errors + r.console_errors
        for rel, r in site.items()
        if r.page_errors or r.console_errors
    }
    assert not bad, f"JavaScript errors: {bad}"


def test_no_page_reaches_for_the_network(site):
    # Everything, MathJax included, must come from the built site itself.
    bad = {rel: r.external_requests for rel, r in site.items() if r.external_requests}
    assert not bad, f"requests to other hosts: {bad}"


def test_every_resource_loads(site):
    bad = {rel: r.failed_requests for rel, r in site.items() if r.failed_requests}
    assert not bad, f"failed requests: {bad}"


def test_mathjax_typeset_all_maths(site):
    with_maths = {rel: r for rel, r in site.items() if r.data["math_total"]}
    assert with_maths, (
        "no page has any mathematics: is MathJax output being checked at all?"
    )
    bad = {
        rel: r.data["math_untypeset"]
        for rel, r in with_maths.items()
        if not r.data["mathjax"] or r.data["math_untypeset"]
    }
    assert not bad, f"maths left untypeset: {bad}"


def test_mathjax_understood_all_maths(site):
    bad = {
        rel: r.data["math_errors"] for rel, r in site.items() if r.data["math_errors"]
    }
    assert not bad, f"TeX that MathJax rendered as an error or as literal text: {bad}"


def test_no_raw_tex_delimiters_in_visible_text(site):
    bad = {rel: r.data["raw_math"] for rel, r in site.items() if r.data["raw_math"]}
    assert not bad, f"raw \\(, \\[, $$ or \\begin{{ left in the text: {bad}"


def test_every_image_loaded(site):
    bad = {
        rel: r.data["broken_images"]
        for rel, r in site.items()
        if r.data["broken_images"]
    }
    assert not bad, f"images that did not load: {bad}"


# An alt text that only names the image file: myst-nb's default for a figure cell
# without `mystnb: image: alt:` ("../../_images/3b0c….png").
_FILE_NAME_ALT = re.compile(r"^\S*\.(png|jpe?g|gif|svg|webp)$|_images/", re.IGNORECASE)


def _says_nothing(image: dict) -> bool:
    """An image whose alt text is missing, empty, or its file path."""
    alt = (image["alt"] or "").strip()
    return not alt or bool(_FILE_NAME_ALT.search(alt)) or alt == image["src"]


def test_every_image_says_what_it_shows(site):
    shown = [image for r in site.values() for image in r.data["image_alts"]]
    assert shown, "no page has an image: is the check looking at the figures?"
    bad = {
        rel: [f"{(i['src'] or '').rsplit('/', 1)[-1]}: alt {i['alt']!r}" for i in wrong]
        for rel, r in site.items()
        if (wrong := [i for i in r.data["image_alts"] if _says_nothing(i)])
    }
    assert not bad, (
        "images whose alt text is missing or a file path (write what the figure shows "
        f"in the cell's mystnb: image: alt:): {bad}"
    )


def test_no_internal_link_is_broken(site, site_url):
    broken = []
    for rel, report in site.items():
        for href in report.data["links"]:
            if not href.startswith(site_url):
                continue
            target, fragment = local_path(href, site_url)
            if not (HTML / target).is_file():
                broken.append((rel, href))
            elif (
                fragment and target in site and fragment not in site[target].data["ids"]
            ):
                broken.append((rel, href))
    assert not broken, f"broken internal links: {broken}"


@pytest.mark.parametrize("rel", ["book/intro.html"])
def test_download_and_print_buttons(rel, browser, site_url):
    page = browser.new_page()
    page.goto(site_url + rel)
    assert page.locator(".btn-download-source-button").count() >= 1
    assert page.locator(".btn-download-pdf-button").count() == 1
    page.close()


def test_notebook_pages_offer_the_notebook(site, site_url, browser):
    notebook_pages = [
        rel for rel in site if (HTML / "_sources" / rel).with_suffix(".ipynb").exists()
    ]
    assert notebook_pages, "no page built from a notebook"
    page = browser.new_page()
    for rel in notebook_pages:
        page.goto(site_url + rel)
        hrefs = page.locator(".btn-download-source-button").evaluate_all(
            "els => els.map(e => e.href)"
        )
        assert any(h.endswith(".ipynb") for h in hrefs), f"{rel} has no .ipynb download"
    page.close()


def test_dark_mode_switches_the_colours(browser, site_url):
    page = browser.new_page()
    page.goto(site_url + "book/intro.html")
    page.evaluate("() => document.documentElement.dataset.theme = 'light'")
    light = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    for _ in range(3):  # the switch cycles light -> dark -> auto
        page.locator(".theme-switch-button").first.click()
        if page.evaluate("() => document.documentElement.dataset.theme") == "dark":
            break
    dark = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert light != dark
    page.close()


def test_a_first_visit_logs_no_error_and_finds_the_icon(browser, site_url):
    # A reader's first visit: no mode stored yet (the theme logged "Got invalid theme
    # mode" when the book set no default), and the browser looks for the site's icon.
    from .site import PageReport, open_page

    context = browser.new_context()
    report = PageReport(url=site_url + "book/intro.html", data={})
    page = open_page(context, report.url, site_url, report)
    icon = page.evaluate(
        "() => { const l = document.querySelector('link[rel~=\"icon\"]');"
        " return l && l.href; }"
    )
    loaded = icon and page.request.get(icon).status
    context.close()
    assert not report.console_errors, f"console errors: {report.console_errors}"
    assert not report.page_errors and not report.failed_requests
    assert icon and loaded == 200, (
        f"no icon the page links, or it fails: {icon} {loaded}"
    )


def test_every_exercise_says_whether_the_workbook_checks_it(site):
    """Each exercise box ends with the workbook line, and it says "Self-check" exactly
    for the exercises that dr_lib.exercises checks."""
    from html.parser import HTMLParser

    from dr_lib import exercises

    class Boxes(HTMLParser):
        def __init__(self):
            super().__init__()
            self.depth, self.box, self.found = 0, None, {}

        def handle_starttag(self, tag, attrs):
            attributes = dict(attrs)
            classes = (attributes.get("class") or "").split()
            if self.box is None and tag == "div" and "exercise" in classes:
                self.box, self.depth = attributes.get("id", ""), 0
                self.found[self.box] = None
            if self.box is not None:
                self.depth += tag == "div"
                if "dr-workbook-note" in classes:
                    self.found[self.box] = ""

        def handle_endtag(self, tag):
            if self.box is not None and tag == "div":
                self.depth -= 1
                self.box = None if self.depth == 0 else self.box

        def handle_data(self, data):
            if self.box is not None and self.found.get(self.box) is not None:
                self.found[self.box] += data

    notes = {}
    for rel in site:
        parser = Boxes()
        parser.feed((HTML / rel).read_text(encoding="utf-8"))
        notes |= {label: note for label, note in parser.found.items() if label}
    assert len(notes) >= 80, f"only {len(notes)} exercise boxes found"
    missing = sorted(label for label, note in notes.items() if note is None)
    assert not missing, f"exercise boxes without the workbook line: {missing}"
    says_checked = {
        label for label, note in notes.items() if note.startswith("Self-check")
    }
    assert says_checked == set(exercises.registry) & set(notes)
    assert set(exercises.registry) <= set(notes)
