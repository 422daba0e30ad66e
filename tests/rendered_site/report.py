"""Print what a reader of the built book would find cut off, page by page.

Usage (after `make book`)::

    python -m tests.rendered_site.report [--screenshots FOLDER]

For every page at 1280 x 900: the display equations that scroll sideways or stick out of
the text column, the output blocks that do, the tables without a caption, and the
figures; then the display equations that scroll at 390 x 844, every fold open. With
``--screenshots``, also saves full-page screenshots of every page at laptop and phone
size, in light and dark mode, to look at. `make site-report` runs it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .site import (
    HTML,
    LAPTOP,
    PHONE,
    chromium,
    chromium_executable,
    serve,
    visit_pages,
)


def summarise(reports) -> tuple[list[str], dict[str, int]]:
    """Lines of the per-page report and the book's totals."""
    lines = []
    totals = dict.fromkeys(
        [
            "display_equations",
            "overflowing_equations",
            "output_blocks",
            "overflowing_outputs",
            "uncaptioned_tables",
            "figures",
        ],
        0,
    )
    for rel, report in reports.items():
        data = report.data
        counts = {
            "display_equations": data["display_equations"],
            "overflowing_equations": len(data["overflowing_equations"]),
            "output_blocks": data["output_blocks"],
            "overflowing_outputs": len(data["overflowing_outputs"]),
            "uncaptioned_tables": len(data["uncaptioned_tables"]),
            "figures": len(data["figures"]),
        }
        for key, value in counts.items():
            totals[key] += value
        if not any(
            counts[k]
            for k in (
                "overflowing_equations",
                "overflowing_outputs",
                "uncaptioned_tables",
            )
        ):
            continue
        lines.append(
            f"{rel}: equations cut {counts['overflowing_equations']}/"
            f"{counts['display_equations']}, outputs overflowing "
            f"{counts['overflowing_outputs']}/{counts['output_blocks']}, tables "
            f"without caption {counts['uncaptioned_tables']}"
        )
        lines += [f"    equation {e}" for e in data["overflowing_equations"]]
        lines += [f"    output   {o!r}" for o in data["overflowing_outputs"][:5]]
    return lines, totals


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", type=Path, help="folder for screenshots")
    args = parser.parse_args(argv)
    executable = chromium_executable()
    if not (HTML / "index.html").exists() or executable is None:
        print("needs the built book (make book) and Chromium", file=sys.stderr)
        return 2
    with serve(HTML) as site_url, chromium(executable) as browser:
        reports = visit_pages(browser, site_url)
        phone = visit_pages(browser, site_url, viewport=PHONE, open_folds=True)
        if args.screenshots:
            for size, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
                for theme in ("light", "dark"):
                    folder = args.screenshots / f"{size}-{theme}"
                    visit_pages(
                        browser,
                        site_url,
                        viewport=viewport,
                        theme=theme,
                        screenshots=folder,
                    )
                    print(f"screenshots: {folder}")
    lines, totals = summarise(reports)
    print("\n".join(lines))
    print(
        f"\n{len(reports)} pages; display equations cut off: "
        f"{totals['overflowing_equations']} of {totals['display_equations']}; output "
        f"blocks overflowing: {totals['overflowing_outputs']} of "
        f"{totals['output_blocks']}; tables without caption: "
        f"{totals['uncaptioned_tables']}; figures: {totals['figures']}"
    )
    cut = [
        f"    {rel}: {equation}"
        for rel, report in phone.items()
        for equation in report.data["overflowing_equations"]
    ]
    total = sum(report.data["display_equations"] for report in phone.values())
    print(f"display equations cut off at 390 px: {len(cut)} of {total}", *cut, sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
