"""Mark the figures that show values through a colour map, so that dark mode keeps them.

In dark mode the book's stylesheet inverts the lightness of a figure (dark ink on a
transparent background becomes light ink), which keeps the hues of lines and markers
but turns a colour map upside down: viridis's bright yellow end becomes dark olive and
the best cell of a heat map the darkest. dr_lib.plotting records in every figure's PNG
whether the figure maps values to colours (a text chunk, ``plotting.COLOUR_MAP_KEY``,
decided from the figure's artists, not from a list of figures); this extension gives
the image of each such figure the class ``dr-colour-map``, and ``_static/house.css``
shows it as drawn, on a light panel.
"""

from pathlib import Path

from docutils import nodes

#: The class a figure with a colour map gets on the page.
CLASS = "dr-colour-map"


def shows_a_colour_map(png: Path) -> bool:
    """Whether the PNG at ``png`` says that its figure shows a colour map."""
    from PIL import Image

    from dr_lib.plotting import COLOUR_MAP_KEY

    with Image.open(png) as image:
        return getattr(image, "text", {}).get(COLOUR_MAP_KEY) == "yes"


def _mark_colour_maps(app, doctree):
    for image in doctree.findall(nodes.image):
        # after Sphinx's image collector: the URI is relative to the source folder
        path = Path(app.srcdir, image["uri"])
        if path.suffix.lower() == ".png" and path.is_file():
            if shows_a_colour_map(path) and CLASS not in image["classes"]:
                image["classes"].append(CLASS)


def setup(app):
    # Sphinx's image collector rewrites image URIs at doctree-read, priority 500.
    app.connect("doctree-read", _mark_colour_maps, priority=600)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
