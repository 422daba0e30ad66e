"""The book as a student reads it: on a phone, at a laptop's width, in dark mode.

Each test states a promise of the house style (``_static/house.css``,
``_static/house.js``, ``dr_lib.plotting``, ``_ext/``) that holds for every page,
including chapters still to come.
"""

import re
from html.parser import HTMLParser

import pytest

from .site import LAPTOP, PHONE, open_page, set_theme

#: Above this share of output blocks that scroll sideways at 1280 px, the test fails.
MAX_OVERFLOWING_OUTPUT_SHARE = 0.05
#: Above this share of display equations that scroll sideways at 390 px, the test fails.
#: A formula broken for a phone's column is longer to read on a laptop, and sympy prints
#: a matrix whole, so a few may scroll.
MAX_SCROLLING_EQUATION_SHARE_ON_A_PHONE = 0.10
APPENDIX = "book/appendix/"


def _chapter_pages(pages):
    """Pages of the chapters (not the intro, not the appendix)."""
    return [rel for rel in pages if re.match(r"book/\d\d[a-z]?_", rel)]


# ------------------------------------------------------------------------ phone menus


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    yield context
    context.close()


def _tap_visible(page, selector):
    """Tap the one button of ``selector`` a reader can see (the theme renders two)."""
    visible = page.locator(f"{selector}:visible")
    assert visible.count() == 1, f"{visible.count()} visible {selector} buttons"
    visible.first.tap()


def test_phone_menu_button_shows_the_chapters(phone, pages, site_url):
    page = open_page(phone, site_url + "book/01_pca/01_derivation.html", site_url)
    _tap_visible(page, ".primary-toggle")
    dialog = page.locator("#pst-primary-sidebar-modal")
    dialog.wait_for(state="visible", timeout=5000)
    shown = dialog.locator("a:visible").evaluate_all("as => as.map(a => a.href)")
    chapters = [rel for rel in _chapter_pages(pages) if rel.endswith("/index.html")]
    assert chapters
    missing = [rel for rel in chapters if not any(h.endswith(rel) for h in shown)]
    assert not missing, f"the phone menu does not show the chapters {missing}"
    page.close()


def test_phone_contents_button_shows_the_sections(phone, site_url):
    page = open_page(phone, site_url + "book/01_pca/01_derivation.html", site_url)
    _tap_visible(page, ".secondary-toggle")
    dialog = page.locator("#pst-secondary-sidebar-modal")
    dialog.wait_for(state="visible", timeout=5000)
    anchors = dialog.locator("a:visible").evaluate_all(
        "as => as.map(a => a.getAttribute('href'))"
    )
    assert len([a for a in anchors if a.startswith("#")]) >= 3, anchors
    page.close()


def test_phone_contents_drawer_closes_when_a_link_is_followed(phone, site_url):
    page = open_page(phone, site_url + "book/01_pca/01_derivation.html", site_url)
    _tap_visible(page, ".secondary-toggle")
    dialog = page.locator("#pst-secondary-sidebar-modal")
    dialog.wait_for(state="visible", timeout=5000)
    dialog.locator('a[href^="#"]:visible').nth(2).tap()
    page.wait_for_timeout(500)
    assert not dialog.evaluate("d => d.open"), "the contents drawer stayed open"
    page.close()


def test_phone_menu_opens_at_the_current_page(phone, pages, site_url):
    # the last page of the book sits lowest in the navigation drawer
    last = sorted(_chapter_pages(pages))[-1]
    page = open_page(phone, site_url + last, site_url)
    _tap_visible(page, ".primary-toggle")
    dialog = page.locator("#pst-primary-sidebar-modal")
    dialog.wait_for(state="visible", timeout=5000)
    page.wait_for_timeout(300)
    here = dialog.locator("li.current > a").last
    box, height = here.bounding_box(), page.viewport_size["height"]
    assert box and 0 <= box["y"] and box["y"] + box["height"] <= height, (
        f"the current page is at y = {box and box['y']:.0f} px, outside the screen"
    )
    page.close()


def test_appendix_tables_are_cards_on_a_phone(phone, pages, site_url):
    # Every table of the appendix (notation, glossary, errata, concordance) shows one
    # card per row at 390 px, none wider than the screen.
    appendix = [rel for rel in pages if rel.startswith(APPENDIX)]
    wide = {}
    for rel in appendix:
        page = open_page(phone, site_url + rel, site_url)
        tables = page.evaluate(
            """() => Array.from(document.querySelectorAll('.bd-content table'))
                .map(t => ({
                    cards: getComputedStyle(t.querySelector('tr')).display === 'block',
                    width: t.getBoundingClientRect().width,
                }))"""
        )
        page.close()
        bad = [t for t in tables if not t["cards"] or t["width"] > PHONE["width"]]
        if bad:
            wide[rel] = bad
    assert appendix, "no appendix page"
    assert not wide, f"appendix tables that are not cards on a phone: {wide}"


def test_no_page_scrolls_sideways_on_a_phone(phone_site):
    # Wide things scroll inside their own box (code, outputs, display maths); the page
    # itself never does (an unbreakable inline name used to push three pages sideways),
    # not even with every solution, dropdown and check block open.
    wide = {
        rel: r.data["scroll_width"]
        for rel, r in phone_site.items()
        # (one pixel: sub-pixel layout rounds up)
        if r.data["scroll_width"] > PHONE["width"] + 1
    }
    assert not wide, f"pages wider than the {PHONE['width']}-px phone: {wide}"


def test_laptop_menu_button_folds_the_sidebar(browser, site_url):
    context = browser.new_context(viewport=LAPTOP)
    page = open_page(context, site_url + "book/intro.html", site_url)
    sidebar = page.locator("#pst-primary-sidebar")
    assert sidebar.is_visible()
    page.locator(".primary-toggle:visible").first.click()
    page.wait_for_timeout(500)
    assert not page.locator("#pst-primary-sidebar-modal").evaluate("d => d.open")
    assert "pst-sidebar-hidden" in sidebar.get_attribute("class")
    context.close()


# ------------------------------------------------------------------- nothing cut off


def _found(site, key):
    """Pages whose report lists something under ``key``: path -> the list."""
    return {rel: r.data[key] for rel, r in site.items() if r.data[key]}


def test_no_display_equation_is_wider_than_the_column(site):
    cut = _found(site, "overflowing_equations")
    assert not cut, (
        "display equations that scroll sideways at 1280 px (break them with aligned, "
        f"one relation per line): {cut}"
    )


def test_display_equations_fit_a_phone(phone_site):
    # Every solution and dropdown open: their equations sit in a narrower box. Where an
    # equation and its number do not fit side by side, the number goes below it.
    total = sum(r.data["display_equations"] for r in phone_site.values())
    cut = _found(phone_site, "overflowing_equations")
    count = sum(len(equations) for equations in cut.values())
    print(f"display equations wider than the column at 390 px: {count} of {total}")
    assert total and count <= MAX_SCROLLING_EQUATION_SHARE_ON_A_PHONE * total, (
        f"{count} of {total} display equations scroll sideways at 390 px; break the "
        f"long ones (aligned, one relation per line): {cut}"
    )


#: Least room, in CSS px, that a display equation which fits a phone leaves in its
#: column: an equation closer to the edge looks cut off.
MIN_EQUATION_ROOM_ON_A_PHONE = 8


def test_display_equations_that_fit_a_phone_leave_room(phone_site):
    # 14 equations left under 8 px: seven filled the column to within 1.3 px, three of
    # them a pixel wider than it.
    tight = {
        rel: [f"{e['label']} ({e['room']} px)" for e in close]
        for rel, r in phone_site.items()
        if (
            close := [
                e
                for e in r.data["equation_room"]
                if e["room"] < MIN_EQUATION_ROOM_ON_A_PHONE
            ]
        )
    }
    assert not tight, (
        f"display equations that leave less than {MIN_EQUATION_ROOM_ON_A_PHONE} px of "
        f"a 390-px column (break them with aligned): {tight}"
    )


def test_no_inline_maths_is_cut_off_on_a_phone(phone_site):
    # Inline formulas did not wrap: 56 on 25 pages (most in solutions) ran past the
    # edge of the box that holds them at 390 px and were cut off (house.css lets them
    # wrap).
    cut = _found(phone_site, "clipped_inline_maths")
    assert not cut, f"inline maths cut off at 390 px: {cut}"


def test_output_blocks_fit_the_column(site):
    total = sum(r.data["output_blocks"] for r in site.values())
    cut = _found(site, "overflowing_outputs")
    n_cut = sum(len(v) for v in cut.values())
    assert total, "no output blocks found: is the output selector still right?"
    assert n_cut <= MAX_OVERFLOWING_OUTPUT_SHARE * total, (
        f"{n_cut} of {total} output blocks scroll sideways at 1280 px: {cut}"
    )


def test_every_table_in_an_output_has_a_caption(site):
    bad = {
        rel: r.data["uncaptioned_tables"]
        for rel, r in site.items()
        if r.data["uncaptioned_tables"]
    }
    assert not bad, f"tables without a caption (use plotting.table(df, caption)): {bad}"


def test_headings_show_no_raw_underscores(site):
    bad = {
        rel: r.data["heading_underscores"]
        for rel, r in site.items()
        if r.data["heading_underscores"]
    }
    assert not bad, f"headings with raw underscores (write $Q_{{NX}}$): {bad}"


def test_appendix_shows_no_raw_tex_and_no_raw_labels(site):
    pages = {rel: r for rel, r in site.items() if rel.startswith(APPENDIX)}
    assert len(pages) >= 3
    bad = {rel: r.data["raw_text"] for rel, r in pages.items() if r.data["raw_text"]}
    assert not bad, f"raw TeX (write $...$) or raw labels in the appendix: {bad}"


# -------------------------------------------------------------- collapsed errata boxes


def _erratum_links(page):
    return page.locator("table.dr-appendix a[href*='#erratum-']").evaluate_all(
        "as => as.map(a => a.href)"
    )


def test_a_link_to_a_collapsed_erratum_opens_it(browser, site_url):
    context = browser.new_context(viewport=LAPTOP)
    errata = open_page(context, site_url + APPENDIX + "errata.html", site_url)
    links = _erratum_links(errata)
    assert links, "the errata page links to no erratum box"
    href = links[0]
    errata.locator("table.dr-appendix a[href*='#erratum-']").first.click()
    errata.wait_for_url(href)
    errata.wait_for_load_state("load")
    box_id = href.split("#")[1]
    box = errata.locator(f"#{box_id}")
    assert "dropdown" in box.get_attribute("class"), (
        f"{box_id} is not a collapsed box (:class: warning dropdown)"
    )
    errata.wait_for_function(
        "id => !document.getElementById(id).classList.contains('toggle-hidden')",
        arg=box_id,
        timeout=5000,
    )
    assert box.locator("p").nth(1).is_visible(), "the box's text stays hidden"
    # Without the fragment the same box starts collapsed.
    plain = open_page(context, href.split("#")[0], site_url)
    plain.wait_for_timeout(300)
    assert "toggle-hidden" in plain.locator(f"#{box_id}").get_attribute("class")
    context.close()


def test_every_erratum_box_the_errata_page_names_is_collapsed(browser, site_url):
    context = browser.new_context(viewport=LAPTOP)
    errata = open_page(context, site_url + APPENDIX + "errata.html", site_url)
    boxes_by_page = {}
    for href in sorted(set(_erratum_links(errata))):
        url, box_id = href.split("#")
        boxes_by_page.setdefault(url, []).append(box_id)
    assert boxes_by_page, "the errata page links to no erratum box"
    open_boxes = []
    for url, box_ids in boxes_by_page.items():
        page = open_page(context, url, site_url)
        for box_id in box_ids:
            classes = page.locator(f"#{box_id}").get_attribute("class") or ""
            if "toggle-hidden" not in classes:
                open_boxes.append(f"{url.split('/book/')[-1]}#{box_id}")
        page.close()
    context.close()
    assert not open_boxes, (
        f"erratum boxes shown open (use :class: warning dropdown): {open_boxes}"
    )


# -------------------------------------------------------------------------- figures


def test_figures_have_a_transparent_background(site):
    bad = {
        rel: r.data["opaque_figures"]
        for rel, r in site.items()
        if r.data["opaque_figures"]
    }
    assert not bad, (
        "figures on an opaque background, a grey card in dark mode (draw them with "
        f"dr_lib.plotting or after plotting.use_house_style()): {bad}"
    )


def test_figures_are_shown_at_full_size(site):
    bad = {
        rel: r.data["shrunk_figures"]
        for rel, r in site.items()
        if r.data["shrunk_figures"]
    }
    assert not bad, (
        "figures wider than the column, shrunk with their text (draw them with "
        f"plotting.subplots or a figsize no wider than plotting.COLUMN_WIDTH): {bad}"
    )


def test_every_figure_fits_a_laptop_screen(site):
    # A figure taller than the screen is never seen whole: the 13 MNIST maps in rows
    # of three were 994 px tall (dr_lib.plotting.MAX_FIGURE_HEIGHT).
    tall = {
        rel: [f"{f['name']} ({f['height']} px)" for f in figures]
        for rel, r in site.items()
        if (figures := [f for f in r.data["figure_images"] if f["height"] > 800])
    }
    assert not tall, f"figures taller than a 1280 x 800 laptop screen: {tall}"


def test_figures_have_twice_the_pixels_they_are_shown_at(site):
    # Sharp on a high-density screen (and in print): dr_lib.plotting.figure_png.
    from dr_lib.plotting import PIXEL_DENSITY

    soft = {
        rel: [f"{f['name']} ({f['pixels']} px for {f['drawn']})" for f in blurred]
        for rel, r in site.items()
        if (
            blurred := [
                f
                for f in r.data["figure_images"]
                if f["pixels"] < PIXEL_DENSITY * f["drawn"] - PIXEL_DENSITY
            ]
        )
    }
    assert any(r.data["figure_images"] for r in site.values())
    assert not soft, f"figures with fewer than {PIXEL_DENSITY}x pixels: {soft}"


class _Figures(HTMLParser):
    """(src, classes) of every figure image in a page's cell outputs."""

    def __init__(self):
        super().__init__()
        self.depth, self.images = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "div":
            self.depth.append("cell_output" in classes)
        elif tag == "img" and any(self.depth):
            self.images.append((attrs["src"], classes))

    def handle_endtag(self, tag):
        if tag == "div" and self.depth:
            self.depth.pop()


def _png_shows_a_colour_map(png):
    from PIL import Image

    from dr_lib.plotting import COLOUR_MAP_KEY

    with Image.open(png) as image:
        return image.text.get(COLOUR_MAP_KEY) == "yes"


def test_every_figure_with_a_colour_map_is_marked_for_dark_mode(site):
    # dr_lib.plotting records in each PNG whether its figure maps values to colours;
    # every such figure, and no other, carries the class that keeps its colours.
    from .site import HTML

    wrong, marked = [], 0
    for rel in site:
        page = HTML / rel
        figures = _Figures()
        figures.feed(page.read_text(encoding="utf-8"))
        for src, classes in figures.images:
            png = (page.parent / src).resolve()
            if png.suffix != ".png":
                continue
            colour_map = _png_shows_a_colour_map(png)
            marked += colour_map
            if colour_map != ("dr-colour-map" in classes):
                wrong.append(f"{rel}: {png.name[:12]} (colour map: {colour_map})")
    assert marked, "no figure of the book records a colour map"
    assert not wrong, f"figures marked wrongly for dark mode: {wrong}"


#: Figures whose meaning is a colour map (a heat map whose best cell is the brightest;
#: a checkerboard of grey levels), and one of lines and markers only.
COLOUR_MAP_FIGURES = {
    "book/12_exercises/02_pca_svm.html": "fig-exercises-svm-grid",
    "book/10_autoencoders/02_convolution_as_matrix.html": "fig-ae-checkerboard",
}
INK_FIGURE = ("book/07_sne_tsne/02_symmetric_and_crowding.html", "fig-tsne-volume")


def _dark_style(context, site_url, rel, name):
    """(filter, background colour) of a figure's image in dark mode."""
    page = open_page(context, site_url + rel, site_url)
    style = page.locator(f"figure#{name} img").evaluate(
        "img => { const s = getComputedStyle(img); "
        "return [s.filter, s.backgroundColor]; }"
    )
    page.close()
    return style


def _lightness(css_colour):
    """Mean of the red, green and blue channels (0-255) of an rgb()/rgba() colour;
    0 for a transparent one."""
    channels = [float(c) for c in re.findall(r"[\d.]+", css_colour)]
    if len(channels) == 4 and channels[3] == 0:
        return 0.0
    return sum(channels[:3]) / 3


def test_dark_mode_keeps_colour_maps_and_inverts_the_rest(browser, site_url):
    # Inverted, viridis's bright end turned dark olive and a heat map's best cell the
    # darkest: a figure with a colour map is shown as drawn, on a light panel.
    context = browser.new_context(viewport=LAPTOP)
    set_theme(context, "dark")
    for rel, name in COLOUR_MAP_FIGURES.items():
        filter_, background = _dark_style(context, site_url, rel, name)
        assert filter_ == "none", f"{name} is filtered in dark mode: {filter_}"
        assert _lightness(background) > 200, f"{name} sits on {background}"
    filter_, _ = _dark_style(context, site_url, *INK_FIGURE)
    assert "invert" in filter_, f"{INK_FIGURE[1]} lost the dark treatment: {filter_}"
    context.close()


def test_a_figure_opens_enlarged_and_closes(phone, browser, site_url):
    # On a phone a grid of panels is shrunk to the screen, its text to 4-5 px: a tap
    # shows it at least at the size it was drawn; Escape, the close button or Enter on
    # the focused figure work as well.
    rel = "book/11_case_studies/02_mnist_all_methods.html"
    page = open_page(phone, site_url + rel, site_url)
    figure = page.locator("figure#fig-case-mnist-grid img")
    figure.scroll_into_view_if_needed()
    drawn = figure.evaluate("img => parseFloat(img.style.width) || img.naturalWidth")
    assert figure.bounding_box()["width"] < 0.6 * drawn  # shrunk on the phone
    view = page.locator("dialog.dr-figure-view")
    figure.tap()
    view.wait_for(state="visible", timeout=5000)
    assert view.locator("img").bounding_box()["width"] >= drawn - 1
    page.keyboard.press("Escape")
    view.wait_for(state="hidden", timeout=5000)
    figure.focus()
    page.keyboard.press("Enter")
    view.wait_for(state="visible", timeout=5000)
    view.locator(".dr-figure-close").tap()
    view.wait_for(state="hidden", timeout=5000)
    assert figure.evaluate("img => img === document.activeElement")
    page.close()
    # On a laptop the same figure opens larger than the page shows it.
    context = browser.new_context(viewport=LAPTOP)
    page = open_page(context, site_url + rel, site_url)
    page.locator("figure#fig-case-mnist-grid img").click()
    enlarged = page.locator("dialog.dr-figure-view img").bounding_box()["width"]
    assert enlarged > 1.5 * drawn, f"{enlarged:.0f} px for a figure of {drawn:.0f}"
    context.close()


def test_dark_mode_shows_figures_without_a_card(browser, site_url):
    context = browser.new_context(viewport=LAPTOP)
    set_theme(context, "dark")
    page = open_page(context, site_url + "book/01_pca/01_derivation.html", site_url)
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    style = page.locator(".cell_output img").first.evaluate(
        "img => { const s = getComputedStyle(img); "
        "return [s.backgroundColor, s.filter, s.paddingLeft]; }"
    )
    assert style[0] in ("rgba(0, 0, 0, 0)", "transparent"), style
    assert "invert" in style[1] and style[2] == "0px", style
    context.close()


# ------------------------------------------------------------------- folded checks


def test_folded_checks_open_on_click(site, browser, site_url):
    pages = [rel for rel, r in site.items() if r.data.get("folded_checks")]
    if not pages:
        pytest.skip("no page folds its checks with symbolic.checks(...) yet")
    context = browser.new_context(viewport=LAPTOP)
    page = open_page(context, site_url + pages[0], site_url)
    block = page.locator("details.dr-checks").first
    assert not block.evaluate("d => d.open")
    body = block.locator("pre.dr-checks-body")
    assert not body.is_visible()
    summary = block.locator("summary")
    assert re.match(r"✔ \d+ checks? holds?", summary.inner_text())
    assert summary.bounding_box()["height"] < 40, "the summary is more than one line"
    summary.click()
    assert body.is_visible()
    context.close()


# ------------------------------------------------------------ equations that scroll

#: A page whose theorem boxes (tinted, unlike the page) hold display equations.
BOXED_EQUATIONS = "book/00_foundations/04_manifolds.html"

_SHADED = r"""() => Array.from(
  document.querySelectorAll('.bd-content div.math mjx-container[display="true"]'))
  .map(eq => ({
    scrolls: eq.scrollWidth > eq.clientWidth + 1,
    shaded: getComputedStyle(eq).backgroundImage !== 'none',
    boxed: Boolean(eq.closest('.admonition')),
  }))"""


def _pixel(page, x, y):
    """The colour (r, g, b) shown at (x, y) of the viewport."""
    import io

    from PIL import Image

    shot = page.screenshot(clip={"x": x, "y": y, "width": 1, "height": 1})
    return Image.open(io.BytesIO(shot)).convert("RGB").getpixel((0, 0))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_only_equations_that_scroll_are_shaded(browser, site_url, theme):
    # The shadows that say "this scrolls" were painted on every display equation, with
    # covers in the page's colour: bands inside tinted boxes (16 equations).
    context = browser.new_context(viewport=LAPTOP)
    set_theme(context, theme)
    page = open_page(context, site_url + BOXED_EQUATIONS, site_url)
    page.wait_for_timeout(300)  # house.js marks the equations after MathJax
    equations = page.evaluate(_SHADED)
    assert any(e["boxed"] for e in equations)
    wrong = [e for e in equations if e["shaded"] != e["scrolls"]]
    assert not wrong, f"{theme}: equations shaded although they fit, or not: {wrong}"
    # Narrowed until it scrolls, a boxed equation is shaded, and the cover at its
    # left end (nothing hidden there yet) has the colour of the box around it.
    box = page.locator(".admonition:has(mjx-container[display='true'])").first
    equation = box.locator("mjx-container[display='true']").first
    equation.evaluate("eq => { eq.style.maxWidth = '80px'; }")
    page.wait_for_function(
        "eq => eq.classList.contains('dr-scrolls')", arg=equation.element_handle()
    )
    cover = equation.evaluate(
        "eq => getComputedStyle(eq).getPropertyValue('--dr-cover')"
    )
    equation.scroll_into_view_if_needed()
    eq_box, box_box = equation.bounding_box(), box.bounding_box()
    beside = _pixel(
        page, box_box["x"] + box_box["width"] - 4, eq_box["y"] + eq_box["height"] / 2
    )
    expected = [float(c) for c in re.findall(r"[\d.]+", cover)][:3]
    assert max(abs(a - b) for a, b in zip(beside, expected)) <= 2, (
        f"{theme}: the cover of a scrolling equation is {cover}, the box shows {beside}"
    )
    context.close()
