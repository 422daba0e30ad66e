/*
 * House behaviour of the book's pages. Jupyter Book loads every .js file in _static/ on
 * every page; the site tests in tests/rendered_site exercise each part below.
 *
 * 1. Sidebar buttons on phones. sphinx-book-theme 1.3 renders its own ☰ and "contents"
 *    buttons (classes .primary-toggle, .secondary-toggle) in the article header, and
 *    pydata-sphinx-theme 0.17 adds a second pair in its navbar, which sphinx-book-theme
 *    hides. The theme attaches its open-the-sidebar handler only to the FIRST element of
 *    each class, the hidden one, so the visible buttons did nothing on a narrow screen
 *    (pydata-sphinx-theme issue #2451, sphinx-book-theme issue #988). A click on any other
 *    button of the class is forwarded to the first one, and only to it, so the theme's own
 *    code (a dialog on phones, a collapsing sidebar on wide screens) runs exactly once.
 *    Harmless once the themes are fixed: the first button then still owns the handler.
 *
 * 2. A link to a collapsed box opens it. Erratum boxes are admonitions with the class
 *    "dropdown" (sphinx-togglebutton hides their body) and the check blocks printed by
 *    dr_lib.symbolic.checks are <details>. Following a link such as
 *    errata.html → chapter.html#erratum-t-squared opens every collapsed box around the
 *    target, on page load and when the fragment changes, then scrolls to it.
 *
 * 3. Printing shows everything: <details> blocks are opened before printing and closed
 *    again afterwards (sphinx-togglebutton opens its own boxes for print).
 *
 * 4. On a phone the appendix tables (class dr-appendix) show one card per row; each cell
 *    is labelled with its column's header (data-label, used by house.css).
 *
 * 5. The phone's drawers. The theme shows the sidebars on a phone as modal dialogs. A tap
 *    on a link in one closes it, so the reader sees where the link led (the page-contents
 *    drawer stayed open over most of the screen); and the navigation drawer opens with
 *    the current page in view (it sat a thousand pixels down a long table of contents).
 *
 * 6. Figures enlarged. A figure of several panels, shrunk to a phone's width, has text
 *    of 4-5 px. A click or a tap on a figure, or Enter or Space on it (each figure is
 *    focusable), opens it in a full-screen dialog: at up to twice its width on the page
 *    (its PNG has the pixels, dr_lib.plotting.PIXEL_DENSITY), never narrower than it was
 *    drawn, so on a phone its text is back to 9 points and the reader pans across it.
 *    Escape, the close button or a click anywhere closes it, and the focus returns to
 *    the figure.
 *
 * 7. Display equations that scroll. An equation wider than its column scrolls
 *    sideways; house.css shades its cut edge. The shading is painted only on an
 *    equation that does scroll (class dr-scrolls, kept up to date as the column's
 *    width changes or a fold opens), and its covers take the colour actually behind
 *    the equation (--dr-cover: the backgrounds of its boxes, composited over the
 *    page's): covers in the page's colour painted bands inside coloured boxes.
 */
(() => {
  "use strict";

  // ---------------------------------------------------------------- 1. sidebar buttons
  const forwardToTheFirst = (selector) => {
    document.addEventListener(
      "click",
      (event) => {
        const button = event.target.closest(selector);
        const owner = document.querySelector(selector);
        if (!button || !owner || button === owner) return;
        event.preventDefault();
        event.stopImmediatePropagation();
        owner.click();
      },
      true, // capture: runs before any handler on the button itself
    );
  };
  forwardToTheFirst(".primary-toggle");
  forwardToTheFirst(".secondary-toggle");

  // ------------------------------------------------------- 2. open what a link points at
  const openAround = (target) => {
    for (let el = target; el && el !== document.body; el = el.parentElement) {
      if (el.tagName === "DETAILS") el.open = true;
      if (el.classList.contains("toggle-hidden")) {
        const button = el.querySelector(":scope > .admonition-title .toggle-button");
        if (button) button.click();
      }
    }
  };

  const revealFragment = () => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (!target) return;
    openAround(target);
    target.scrollIntoView();
  };

  // sphinx-togglebutton collapses its boxes on DOMContentLoaded; "load" comes after it.
  window.addEventListener("load", revealFragment);
  window.addEventListener("hashchange", revealFragment);
  // A second click on a link to the fragment already in the address bar fires no
  // hashchange, yet the reader may have closed the box in between.
  document.addEventListener("click", (event) => {
    const link = event.target.closest('a[href*="#"]');
    if (!link || link.pathname !== window.location.pathname) return;
    window.setTimeout(revealFragment, 0);
  });

  // --------------------------------------------------------- 4. appendix tables as cards
  const labelCells = () => {
    document.querySelectorAll("table.dr-appendix").forEach((table) => {
      const headers = Array.from(table.querySelectorAll("thead th")).map((th) =>
        th.textContent.trim(),
      );
      table.querySelectorAll("tbody tr").forEach((row) => {
        Array.from(row.children).forEach((cell, i) => {
          if (headers[i]) cell.dataset.label = headers[i];
        });
      });
    });
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", labelCells);
  } else {
    labelCells();
  }

  // ------------------------------------------------------------- 5. the phone's drawers
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    const drawer = link && link.closest("dialog[open]");
    if (drawer && drawer.id.endsWith("-sidebar-modal")) drawer.close();
  });
  const showCurrentPage = (drawer) => {
    const here = Array.from(drawer.querySelectorAll("li.current > a")).pop();
    if (here) here.scrollIntoView({ block: "center" });
  };
  const watchDrawer = () => {
    const drawer = document.getElementById("pst-primary-sidebar-modal");
    if (!drawer) return;
    new MutationObserver(() => drawer.open && showCurrentPage(drawer)).observe(drawer, {
      attributes: true,
      attributeFilter: ["open"],
    });
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watchDrawer);
  } else {
    watchDrawer();
  }

  // ---------------------------------------------------------------- 6. figures enlarged
  const FIGURE = ".bd-content div.cell_output img";
  let viewer = null;
  let opener = null;
  const figureViewer = () => {
    if (viewer) return viewer;
    viewer = document.createElement("dialog");
    viewer.className = "dr-figure-view";
    viewer.setAttribute("aria-label", "Enlarged figure");
    const close = document.createElement("button");
    close.type = "button";
    close.className = "dr-figure-close";
    close.setAttribute("aria-label", "Close the enlarged figure");
    close.textContent = "×";
    viewer.appendChild(close);
    viewer.addEventListener("click", () => viewer.close());
    viewer.addEventListener("close", () => {
      viewer.querySelectorAll("img").forEach((img) => img.remove());
      if (opener) opener.focus({ preventScroll: true });
    });
    document.body.appendChild(viewer);
    return viewer;
  };
  const enlarge = (figure) => {
    const view = figureViewer();
    const copy = figure.cloneNode(false);
    ["style", "tabindex", "role", "aria-label", "data-enlarge", "loading"].forEach(
      (name) => copy.removeAttribute(name),
    );
    const drawn = parseFloat(figure.style.width) || figure.naturalWidth;
    const room = document.documentElement.clientWidth - 16;
    copy.style.width = `${Math.max(drawn, Math.min(room, figure.naturalWidth))}px`;
    view.appendChild(copy);
    opener = figure;
    view.showModal();
    view.scrollTo(0, 0);
  };
  const offerToEnlarge = () => {
    document.querySelectorAll(FIGURE).forEach((figure) => {
      figure.dataset.enlarge = "";
      figure.tabIndex = 0;
      figure.setAttribute("role", "button");
      figure.setAttribute("aria-label", `Enlarge the figure: ${figure.alt}`);
    });
  };
  document.addEventListener("click", (event) => {
    const figure = event.target.closest(`${FIGURE}[data-enlarge]`);
    if (figure) enlarge(figure);
  });
  document.addEventListener("keydown", (event) => {
    const figure = event.target.closest && event.target.closest(`${FIGURE}[data-enlarge]`);
    if (!figure || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault(); // Space would scroll the page
    enlarge(figure);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", offerToEnlarge);
  } else {
    offerToEnlarge();
  }

  // ------------------------------------------------------- 7. equations that scroll
  const rgba = (css) => {
    const parts = (css.match(/[\d.]+/g) || []).map(Number);
    return parts.length < 3 ? [0, 0, 0, 0] : [...parts.slice(0, 3), parts[3] ?? 1];
  };
  const colourBehind = (element) => {
    const layers = [];
    for (let el = element; el; el = el.parentElement) {
      const layer = rgba(getComputedStyle(el).backgroundColor);
      if (layer[3] > 0) layers.push(layer);
      if (layer[3] >= 1) break;
    }
    let colour = [255, 255, 255]; // the canvas, should no element be opaque
    layers.reverse().forEach(([r, g, b, a]) => {
      colour = [r, g, b].map((c, i) => c * a + colour[i] * (1 - a));
    });
    return `rgb(${colour.map(Math.round).join(", ")})`;
  };
  const markScrolling = (equation) => {
    const scrolls = equation.scrollWidth > equation.clientWidth + 1;
    equation.classList.toggle("dr-scrolls", scrolls);
    if (scrolls) {
      equation.style.setProperty("--dr-cover", colourBehind(equation.parentElement));
    }
  };
  const displayEquations = () =>
    document.querySelectorAll('.bd-content div.math mjx-container[display="true"]');
  const watchEquations = () => {
    const sizes = new ResizeObserver((entries) =>
      entries.forEach((entry) => markScrolling(entry.target)),
    );
    displayEquations().forEach((equation) => sizes.observe(equation));
    // light <-> dark changes the colours behind, not the sizes
    new MutationObserver(() => displayEquations().forEach(markScrolling)).observe(
      document.documentElement,
      { attributes: true, attributeFilter: ["data-theme"] },
    );
  };
  window.addEventListener("load", () => {
    const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset || Promise.resolve()).then(watchEquations);
  });

  // ------------------------------------------------------------------- 3. printing
  let closedForPrint = [];
  window.addEventListener("beforeprint", () => {
    closedForPrint = Array.from(document.querySelectorAll("details:not([open])"));
    closedForPrint.forEach((details) => {
      details.open = true;
    });
  });
  window.addEventListener("afterprint", () => {
    closedForPrint.forEach((details) => {
      details.open = false;
    });
    closedForPrint = [];
  });
})();
