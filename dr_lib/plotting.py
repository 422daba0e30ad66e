"""The book's figures, in one house style.

Colour-blind-safe throughout: the Okabe–Ito palette for categories, three more colours
for the ten digits (:data:`CATEGORY_COLOURS`, with a second marker shape from the eighth
category on) and viridis for continuous values. Every axis is
labelled. Each function takes an optional ``ax`` and returns the matplotlib ``Axes``
(``embedding_grid`` and ``image_grid`` return the ``Figure``). Figures are drawn inside
the house style (:data:`HOUSE_STYLE`); call :func:`use_house_style` to make it the
default for a whole notebook.

Sizes: no figure is wider than the book's text column (:data:`COLUMN_WIDTH`), so the
page shows it at 100 % and its 9-point text stays 9 points on screen. Figures with
several panels come from :func:`subplots` (or :func:`embedding_grid`), which divide that
width.

Light and dark pages: figures are drawn with dark ink on a transparent background. The
book's stylesheet (``_static/house.css``) shows them as they are on a light page and
inverts their lightness, keeping the hues, on a dark page, so a figure never sits on a
grey card. A figure that shows values through a colour map (:func:`uses_colour_map`) is
never inverted, since inverting viridis turns its bright end dark: the PNG says so
(:data:`COLOUR_MAP_KEY`) and a dark page shows it as drawn, on a light panel. Lines and
small markers never use Okabe–Ito's yellow, which does not read on white
(:data:`LINE_COLOURS`); a legend that :func:`curves` places over the data moves outside.

Sharp figures: in a notebook every figure is shown as a PNG of :data:`PIXEL_DENSITY`
times its pixels at the size it takes on the page (:func:`figure_png`), so that it stays
sharp on high-density screens and in print.
"""

import base64
import functools
import io
import math
import textwrap

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import (
    FuncFormatter,
    LogFormatterSciNotation,
    MaxNLocator,
    NullFormatter,
)

# A slider over precomputed embeddings, for the HTML book (see dr_lib._explorer).
from dr_lib._explorer import parameter_explorer  # noqa: F401
from dr_lib._validation import (
    check_integer,
    check_labels,
    check_n_features,
    check_positive,
    check_vector,
)

__all__ = [
    "COLUMN_WIDTH",
    "COLUMN_PIXELS",
    "OKABE_ITO",
    "YELLOW",
    "LINE_COLOURS",
    "CATEGORY_COLOURS",
    "MIN_FONT_SIZE",
    "MARKERS",
    "LINESTYLES",
    "HOUSE_STYLE",
    "PIXEL_DENSITY",
    "COLOUR_MAP_KEY",
    "use_house_style",
    "uses_colour_map",
    "overlapping_tick_labels",
    "readable_ticks",
    "figure_png",
    "subplots",
    "scatter_3d",
    "embedding_2d",
    "embedding_grid",
    "curves",
    "place_legend",
    "legend_covers_data",
    "image_grid",
    "table",
    "displacement_map",
    "neighbourhood_weights",
    "heatmap",
]

#: Okabe & Ito's colour-blind-safe palette (black last, so the first seven are colours).
OKABE_ITO = [
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
    "#000000",
]

#: Okabe–Ito's yellow: kept for filled areas, never for lines or small markers on white.
YELLOW = "#F0E442"

#: Colours of lines and of small markers (curves, categories): Okabe–Ito without yellow.
LINE_COLOURS = [colour for colour in OKABE_ITO if colour != YELLOW]

#: Colours of categories in a scatter: the seven line colours, then three more for the
#: ten digits (Tol's wine and olive, and a mid grey; dark enough for small markers on
#: white, and still apart after the dark page inverts their lightness).
CATEGORY_COLOURS = LINE_COLOURS + ["#882255", "#999933", "#999999"]

#: What a table shows for a missing value (a method with no counterpart, a run not
#: made).
NO_VALUE = "—"

#: Marker shapes: for curves, and for categories beyond the seventh (a second cue
#: besides colour, for readers who cannot tell all ten colours apart).
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
#: Line styles, so that curves stay distinguishable in greyscale.
LINESTYLES = ["-", "--", "-.", ":"]

#: At most this many distinct integer or string labels are drawn as categories.
MAX_CATEGORIES = 10

#: Width of the book's text column in pixels, at a window 1280 pixels wide (measured on
#: the built page; tests/rendered_site checks that no figure is shown narrower than it
#: is).
COLUMN_PIXELS = 688

#: Widest figure, in inches, at the house resolution of 110 dpi. The notebook saves a
#: figure with a tight bounding box and 0.1 in of padding on each side, so a figure this
#: wide becomes an image of at most :data:`COLUMN_PIXELS` and is shown at 100 %; a wider
#: one would be scaled down, text included.
COLUMN_WIDTH = 6.1

#: Default size of a figure with one panel (inches).
SINGLE_PANEL = (4.8, 3.6)

#: Smallest text size of a house figure, in points, at the size the page shows it.
MIN_FONT_SIZE = 9

#: rcParams of the house style.
HOUSE_STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 110,
    "figure.constrained_layout.use": True,
    # Transparent: the page's own background shows through, in light and in dark mode.
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.transparent": True,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": mpl.cycler(color=LINE_COLOURS),
    "image.cmap": "viridis",
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
}


#: Pixels of a figure's PNG per pixel of its size on the page: twice the house
#: resolution, so that a figure is sharp on a high-density screen and prints at 220 ppi.
PIXEL_DENSITY = 2

#: Key of the PNG text chunk that says whether a figure shows values through a colour
#: map ("yes" or "no"); the book's pages read it (``_ext/figure_colours.py``) to keep
#: such a figure's colours in dark mode.
COLOUR_MAP_KEY = "dr_lib colour map"


def use_house_style():
    """Make the house style the default for every later figure (updates
    ``rcParams``); in a notebook, show every figure as :func:`figure_png` draws it."""
    mpl.rcParams.update(HOUSE_STYLE)
    _show_figures_sharp()


def _maps_values(artist):
    """Whether ``artist`` colours an array of values through a colour map."""
    return isinstance(artist, mpl.cm.ScalarMappable) and artist.get_array() is not None


def uses_colour_map(fig):
    """Whether ``fig`` shows values through a colour map.

    True when it draws an image (``imshow``), a mesh, a filled contour, a colour bar or
    a scatter coloured by value (``c=``): any artist that maps an array of values to
    colours. Lines, and markers in fixed colours, do not.

    Parameters
    ----------
    fig : matplotlib Figure

    Returns
    -------
    bool
    """
    return bool(fig.findobj(_maps_values))


def _tick_label_boxes(axis):
    """(text, window extent) of every tick label ``axis`` draws."""
    return [
        (label.get_text(), label.get_window_extent())
        for label in axis.get_ticklabels(which="both")
        if label.get_visible() and label.get_text()
    ]


#: Least space between two tick labels, in points: closer, they read as one number.
TICK_LABEL_GAP = 3


def _axis_overlaps(axis):
    """Pairs of tick label texts of ``axis`` closer than :data:`TICK_LABEL_GAP` (the
    figure must have been drawn)."""
    half_gap = TICK_LABEL_GAP / 2 * axis.figure.dpi / 72  # pixels
    boxes = [(text, box.padded(half_gap)) for text, box in _tick_label_boxes(axis)]
    return [
        (a, b)
        for i, (a, box_a) in enumerate(boxes)
        for b, box_b in boxes[i + 1 :]
        if box_a.overlaps(box_b)
    ]


def _plain_axes(fig):
    """The 2-D axes of ``fig`` (3-D axes place their tick labels in perspective)."""
    return [ax for ax in fig.axes if ax.name != "3d"]


def overlapping_tick_labels(fig):
    """Tick labels of ``fig`` that overlap a neighbour, as pairs of their texts.

    Parameters
    ----------
    fig : matplotlib Figure

    Returns
    -------
    list of (str, str)
    """
    fig.draw_without_rendering()
    return [
        pair
        for ax in _plain_axes(fig)
        for axis in (ax.xaxis, ax.yaxis)
        for pair in _axis_overlaps(axis)
    ]


#: Labelled minor ticks of a log axis, by their mantissa, densest first: a crowded axis
#: takes the first set whose labels do not overlap.
LOG_MINOR_LABELS = ((2, 3, 4, 5, 6, 8), (2, 5), (3,), ())

#: A log axis within these limits labels its ticks as plain numbers (0.01, 20, 300),
#: narrower than powers of ten (2×10¹).
PLAIN_LOG_RANGE = (1e-3, 1e4)

#: rcParams (after "xtick."/"ytick.") that place a tick label away from its axis.
TICK_KEYS = ("major.pad", "major.size", "minor.size")


def _log_label(value, _position, *, mantissas, plain):
    """The label of a tick at ``value`` on a log axis: every power of ten, and the
    minor ticks whose mantissa is in ``mantissas``."""
    exponent = math.floor(math.log10(value) + 1e-9)
    mantissa = round(value / 10**exponent)
    if mantissa != 1 and mantissa not in mantissas:
        return ""
    return f"{value:g}" if plain else LogFormatterSciNotation()(value)


def _thin_log_labels(axis):
    """Label fewer minor ticks of a log ``axis`` until no two labels overlap; the
    labels of minor ticks line up with those of the powers of ten."""
    low, high = sorted(axis.get_view_interval())
    plain = PLAIN_LOG_RANGE[0] <= low and high <= PLAIN_LOG_RANGE[1]
    tick = {key: mpl.rcParams[f"{axis.axis_name}tick.{key}"] for key in TICK_KEYS}
    axis.set_tick_params(
        which="minor", pad=tick["major.pad"] + tick["major.size"] - tick["minor.size"]
    )
    for mantissas in LOG_MINOR_LABELS:
        formatter = FuncFormatter(
            functools.partial(_log_label, mantissas=mantissas, plain=plain)
        )
        axis.set_major_formatter(formatter)
        axis.set_minor_formatter(formatter)
        axis.figure.draw_without_rendering()
        if not _axis_overlaps(axis):
            return


def _thin_linear_labels(axis):
    """Fewer ticks on a linear ``axis`` until no two labels overlap."""
    for nbins in (6, 4, 3, 2):
        axis.set_major_locator(MaxNLocator(nbins=nbins))
        axis.figure.draw_without_rendering()
        if not _axis_overlaps(axis):
            return


def readable_ticks(fig):
    """Thin the tick labels of every axis of ``fig`` whose labels overlap.

    A log axis labels fewer of its minor ticks (:data:`LOG_MINOR_LABELS`), as plain
    numbers where they are short (:data:`PLAIN_LOG_RANGE`); a linear axis takes fewer
    ticks. Axes whose labels do not overlap are left as drawn. :func:`figure_png` calls
    it on every figure a notebook shows.

    Parameters
    ----------
    fig : matplotlib Figure
    """
    fig.draw_without_rendering()
    for ax in _plain_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            if not _axis_overlaps(axis):
                continue
            if axis.get_scale() == "log":
                _thin_log_labels(axis)
            elif axis.get_scale() == "linear":
                _thin_linear_labels(axis)


def figure_png(fig):
    """The PNG a page shows for ``fig``, and the size it takes on the page.

    Saved as Jupyter's inline backend saves a figure (tight bounding box, the figure's
    own background), at :data:`PIXEL_DENSITY` times its resolution; the width on the
    page stays that of the figure at its own resolution. A text chunk
    (:data:`COLOUR_MAP_KEY`) records :func:`uses_colour_map`. Tick labels that would
    overlap are thinned first (:func:`readable_ticks`).

    Parameters
    ----------
    fig : matplotlib Figure

    Returns
    -------
    png : bytes, or None for a figure with nothing drawn
    size : dict
        ``{"width": w}``: the width in CSS pixels the page shows the PNG at (its height
        follows from the image).
    """
    if not fig.axes and not fig.lines:
        return None, {}
    readable_ticks(fig)
    buffer = io.BytesIO()
    fig.savefig(
        buffer,
        format="png",
        dpi=PIXEL_DENSITY * fig.dpi,
        bbox_inches="tight",
        facecolor=fig.get_facecolor(),
        edgecolor=fig.get_edgecolor(),
        metadata={COLOUR_MAP_KEY: "yes" if uses_colour_map(fig) else "no"},
    )
    png = buffer.getvalue()
    width = int.from_bytes(png[16:20], "big")  # the IHDR chunk: width, then height
    return png, {"width": round(width / PIXEL_DENSITY)}


def _png_for_notebook(fig):
    """IPython's PNG formatter for a Figure: base64 data and its size on the page."""
    png, size = figure_png(fig)
    if png is None:
        return None
    return base64.b64encode(png).decode("ascii"), size


def _show_figures_sharp():
    """In IPython, show every matplotlib Figure through :func:`figure_png`.

    Called again after each house figure is drawn: the inline backend, loaded with the
    first figure of a notebook, installs its own PNG formatter then.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # dr_lib does not need IPython outside a notebook
        return
    shell = get_ipython()
    if shell is not None:
        formatter = shell.display_formatter.formatters["image/png"]
        formatter.for_type(mpl.figure.Figure, _png_for_notebook)


def _house_style(function):
    """Draw ``function``'s figure inside the house style, leaving ``rcParams`` as they
    were."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with mpl.rc_context(HOUSE_STYLE):
            result = function(*args, **kwargs)
            interactive = mpl.is_interactive()
        # rc_context restores every rcParam on exit, "interactive" included. A backend
        # first loaded inside the call (Jupyter's inline backend switches interactive
        # mode on) must keep that setting, or no later figure of the notebook would be
        # shown.
        mpl.interactive(interactive)
        _show_figures_sharp()
        return result

    return wrapper


def _axes(ax, **subplot_kw):
    """``ax``, or the axes of a new figure of the default size."""
    if ax is not None:
        return ax
    return plt.figure(figsize=SINGLE_PANEL).add_subplot(**subplot_kw)


def _panel_figsize(nrows, ncols, aspect, width):
    """(width, height) in inches for ``nrows x ncols`` panels of height/width
    ``aspect``."""
    return width, width / ncols * aspect * nrows


@_house_style
def subplots(nrows=1, ncols=1, *, aspect=0.8, width=COLUMN_WIDTH, projection=None):
    """A figure of ``nrows x ncols`` panels that fits the text column.

    The house replacement for ``plt.subplots(..., figsize=...)``: the total width is at
    most :data:`COLUMN_WIDTH`, so the page never shrinks the figure and its text.

    Parameters
    ----------
    nrows, ncols : int, default=1
    aspect : float, default=0.8
        Height of one panel over its width.
    width : float, default=COLUMN_WIDTH
        Total width in inches, at most :data:`COLUMN_WIDTH`.
    projection : str, optional
        e.g. ``"3d"`` for 3-D panels.

    Returns
    -------
    fig : matplotlib Figure
    axes : ndarray of Axes of shape (nrows, ncols), squeezed like ``plt.subplots``
        A single Axes when ``nrows = ncols = 1``.
    """
    nrows = check_integer(nrows, name="nrows")
    ncols = check_integer(ncols, name="ncols")
    aspect = check_positive(aspect, name="aspect")
    width = check_positive(width, name="width")
    if width > COLUMN_WIDTH:
        raise ValueError(
            f"width={width} is wider than the text column ({COLUMN_WIDTH} in); the "
            f"page would shrink the figure and its text. Pass width <= {COLUMN_WIDTH}, "
            "or split the figure."
        )
    subplot_kw = {} if projection is None else {"projection": projection}
    return plt.subplots(
        nrows,
        ncols,
        figsize=_panel_figsize(nrows, ncols, aspect, width),
        subplot_kw=subplot_kw,
    )


# ----------------------------------------------------------------------------- 3-D


@_house_style
def scatter_3d(
    X,
    color,
    *,
    ax=None,
    title=None,
    cmap="viridis",
    colorbar_label=None,
    elev=10,
    azim=-70,
    s=6,
):
    """3-D points coloured by a continuous value (e.g. a manifold's intrinsic
    coordinate).

    Parameters
    ----------
    X : array-like of shape (n_samples, 3)
    color : array-like of shape (n_samples,)
    ax : matplotlib 3-D Axes, optional
        Created with ``fig.add_subplot(projection="3d")``; a new figure if omitted.
    title : str, optional
    cmap : str, default="viridis"
    colorbar_label : str, optional
        Label of the colour bar; "intrinsic coordinate" if omitted.
    elev, azim : float
        Viewing angles in degrees.
    s : float, default=6
        Marker size.

    Returns
    -------
    matplotlib Axes (3-D)
    """
    X = check_n_features(X, 3)
    color = check_vector(color, name="color", n=len(X))
    ax = _axes(ax, projection="3d")
    if ax.name != "3d":
        raise ValueError(
            "ax must be a 3-D Axes for scatter_3d; create it with "
            "fig.add_subplot(projection='3d') or pass ax=None."
        )
    points = ax.scatter(
        X[:, 0], X[:, 1], X[:, 2], c=color, cmap=cmap, s=s, linewidths=0
    )
    ax.set(xlabel="x", ylabel="y", zlabel="z", title=title or "")
    # Tick labels of a 3-D box overlap at any size the column allows, and the axes of
    # the toy manifolds carry no units worth reading: keep a few tick marks, drop the
    # numbers.
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.set_major_locator(MaxNLocator(nbins=4))
        axis.set_major_formatter(NullFormatter())
    ax.tick_params(pad=0)
    ax.xaxis.labelpad = ax.yaxis.labelpad = ax.zaxis.labelpad = -8
    ax.view_init(elev=elev, azim=azim)
    label = colorbar_label or "intrinsic coordinate"
    ax.figure.colorbar(points, ax=ax, shrink=0.7, pad=0.1, label=label)
    return ax


# ----------------------------------------------------------------------------- 2-D


def _is_categorical(labels):
    """Strings, or at most ``MAX_CATEGORIES`` distinct integers, are categories."""
    if labels.dtype.kind in "USOb":
        return True
    return labels.dtype.kind in "iu" and len(np.unique(labels)) <= MAX_CATEGORIES


def _category_style(k):
    """Colour and marker of the ``k``-th category: ten colours (no yellow), and a new
    marker shape after every seven categories."""
    colour = CATEGORY_COLOURS[k % len(CATEGORY_COLOURS)]
    return colour, MARKERS[(k // len(LINE_COLOURS)) % len(MARKERS)]


#: Size of a category's marker in a legend, in points: the same however small the
#: points of a dense plot are.
LEGEND_MARKER_SIZE = 6


def _marker_path(marker):
    """The path ``ax.scatter`` draws for ``marker``, at its size for ``s = 1``."""
    style = mpl.markers.MarkerStyle(marker)
    return style.get_path().transformed(style.get_transform())


def _draw_categories(ax, Y, labels, s):
    """All points in one scatter, in a shuffled (seeded) order, so that no category
    covers the others by being drawn last; returns one legend handle per category."""
    values, codes = np.unique(labels, return_inverse=True)
    styles = [_category_style(k) for k in range(len(values))]
    order = np.random.default_rng(0).permutation(len(Y))
    points = ax.scatter(
        Y[order, 0],
        Y[order, 1],
        s=s,
        color=[styles[k][0] for k in codes[order]],
        marker=styles[0][1],
        linewidths=0,
    )
    if len({marker for _, marker in styles}) > 1:
        paths = {marker: _marker_path(marker) for _, marker in styles}
        points.set_paths([paths[styles[k][1]] for k in codes[order]])
    return [
        mpl.lines.Line2D(
            [],
            [],
            linestyle="none",
            color=colour,
            marker=marker,
            markersize=LEGEND_MARKER_SIZE,
            markeredgewidth=0,
            label=str(value),
        )
        for value, (colour, marker) in zip(values, styles)
    ]


def _draw_embedding(ax, Y, labels, s):
    """Scatter ``Y`` coloured by ``labels``; returns the key to draw: legend or colour
    bar.

    Returns ``("legend", handles)``, ``("colorbar", mappable)`` or ``None`` (no labels).
    """
    if labels is None:
        ax.scatter(Y[:, 0], Y[:, 1], s=s, color=OKABE_ITO[4], linewidths=0)
        return None
    if _is_categorical(labels):
        return "legend", _draw_categories(ax, Y, labels, s)
    values = check_vector(labels, name="labels")
    return "colorbar", ax.scatter(
        Y[:, 0], Y[:, 1], s=s, c=values, cmap="viridis", linewidths=0
    )


def _add_key(key, title, *, ax=None, fig=None, axes=None):
    """Draw a legend or colour bar next to one axes (``ax``) or a whole figure
    (``fig``)."""
    if key is None:
        return
    kind, artist = key
    if kind == "colorbar":
        owner = fig if fig is not None else ax.figure
        owner.colorbar(
            artist, ax=axes if axes is not None else ax, label=title or "value"
        )
    elif fig is not None:
        fig.legend(handles=artist, title=title, loc="outside right upper")
    else:
        ax.legend(
            handles=artist,
            title=title,
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
        )


def _annotate(ax, Y, texts):
    """Write ``texts[i]`` next to point ``Y[i]``."""
    for (x, y), text in zip(Y, texts):
        ax.annotate(
            str(text),
            (x, y),
            xytext=(3, 3),
            textcoords="offset points",
            fontsize=MIN_FONT_SIZE,
        )


@_house_style
def embedding_2d(
    Y,
    labels=None,
    *,
    ax=None,
    title=None,
    xlabel="dimension 1",
    ylabel="dimension 2",
    s=8,
    legend_title=None,
    annotate=None,
):
    """A 2-D embedding, coloured by label.

    Categorical labels (strings, or at most 10 distinct integers) get Okabe–Ito colours
    and a legend; anything else is treated as continuous, drawn with viridis and a
    colour bar.

    Parameters
    ----------
    Y : array-like of shape (n_samples, 2)
    labels : array-like of shape (n_samples,), optional
    ax : matplotlib Axes, optional
    title : str, optional
    xlabel, ylabel : str
    s : float, default=8
        Marker size.
    legend_title : str, optional
        Title of the legend, or label of the colour bar.
    annotate : sequence of str of length n_samples, optional
        Text written next to each point (e.g. city names on the MDS map in book/02_mds).

    Returns
    -------
    matplotlib Axes
    """
    Y = check_n_features(Y, 2, name="Y")
    labels = None if labels is None else check_labels(labels, len(Y), name="labels")
    ax = _axes(ax)
    key = _draw_embedding(ax, Y, labels, s)
    _add_key(key, legend_title, ax=ax)
    if annotate is not None:
        _annotate(ax, Y, check_labels(annotate, len(Y), name="annotate"))
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title or "")
    return ax


def _panel(value):
    """``(Y, seconds)`` from a panel given as ``Y`` or as ``(Y, seconds)``."""
    if isinstance(value, tuple) and len(value) == 2 and np.ndim(value[1]) == 0:
        return value[0], check_positive(value[1], name="seconds", strict=False)
    return value, None


#: Share of a panel of :func:`embedding_grid` that its markers would cover together if
#: none overlapped: dense enough to show the shape of the data, sparse enough to show
#: where points pile up.
GRID_INK_SHARE = 0.5

#: Smallest and largest marker of :func:`embedding_grid`, as matplotlib's ``s``
#: (points²).
GRID_MARKER_SIZES = (0.8, 4.0)


def _grid_marker_size(n_points, side):
    """``s`` for ``n_points`` markers in a square panel ``side`` inches wide: their
    discs cover :data:`GRID_INK_SHARE` of it, within :data:`GRID_MARKER_SIZES`."""
    area = (side * 72) ** 2  # points²
    s = 4 / math.pi * GRID_INK_SHARE * area / n_points  # a marker's disc is π s / 4
    return float(np.clip(s, *GRID_MARKER_SIZES))


#: Average width of a character of the house font, as a fraction of its size in points.
_CHAR_WIDTH = 0.6


def _panel_title(name, seconds, width):
    """ "name (0.42 s)", or just the name when no time is given, wrapped onto as many
    lines as a panel ``width`` inches wide needs, so that neighbouring titles never
    touch."""
    text = name if seconds is None else f"{name} ({seconds:.2f}\0s)"  # unit kept
    size = mpl.rcParams["axes.titlesize"]
    size = size if isinstance(size, int | float) else mpl.rcParams["font.size"]
    return _wrap_keeping_maths(text, max(8, int(width * 72 / (_CHAR_WIDTH * size))))


def _wrap_keeping_maths(text, columns):
    """``text`` wrapped to ``columns`` characters a line, keeping its own line breaks
    and never breaking inside ``$…$`` (a split formula is printed as raw TeX) or at a
    ``"\\0"``, which is printed as a space."""
    lines = []
    for line in text.split("\n"):
        pieces = line.split("$")  # odd pieces are maths: their spaces must not break
        glued = "$".join(
            p.replace(" ", "\0") if i % 2 else p for i, p in enumerate(pieces)
        )
        lines.append(textwrap.fill(glued, columns).replace("\0", " "))
    return "\n".join(lines)


#: Tallest figure, in inches: at the house 110 dpi, 770 CSS pixels, which a laptop
#: screen of 1280 x 800 shows whole (tests/rendered_site measures every figure).
MAX_FIGURE_HEIGHT = 7.0


def _grid_columns(n_panels, key_room):
    """Three panels a row, or more where three would make the grid taller than
    :data:`MAX_FIGURE_HEIGHT`."""
    for ncols in range(3, n_panels + 1):
        nrows = math.ceil(n_panels / ncols)
        height = _panel_figsize(nrows, ncols, 1.0, COLUMN_WIDTH - key_room)[1]
        if height + GRID_TITLE_ROOM <= MAX_FIGURE_HEIGHT:
            return ncols
    return max(n_panels, 1)


#: Height added to a grid's panels for its titles, in inches.
GRID_TITLE_ROOM = 0.25


@_house_style
def embedding_grid(
    panels, labels=None, *, ncols=None, suptitle=None, legend_title=None
):
    """A grid of 2-D embeddings of the same data, each titled with its method and time.

    The grid fills the text column (:data:`COLUMN_WIDTH`); the panels carry no ticks,
    since an embedding's coordinates have no units to read, and share one legend or
    colour bar. The markers shrink as the points get more numerous or the panels
    smaller (:data:`GRID_INK_SHARE`), so that thousands of points in a small panel do
    not merge into one blot.

    Parameters
    ----------
    panels : dict
        ``name -> Y`` or ``name -> (Y, seconds)``, in display order; every ``Y`` has
        shape (n_samples, 2).
    labels : array-like of shape (n_samples,), optional
        Shared by all panels; one legend or colour bar is drawn for the whole figure.
    ncols : int, optional
        Panels a row. By default three, or more where three rows of many panels would
        make the figure taller than a laptop screen (:data:`MAX_FIGURE_HEIGHT`).
    suptitle : str, optional
    legend_title : str, optional
        Title of the shared legend, or label of the shared colour bar.

    Returns
    -------
    matplotlib Figure
    """
    if not isinstance(panels, dict) or not panels:
        raise ValueError(
            "panels must be a non-empty dict name -> Y or name -> (Y, seconds)."
        )
    key_room = 0.0 if labels is None else 0.9  # inches kept for the legend / colour bar
    if ncols is None:
        ncols = _grid_columns(len(panels), key_room)
    ncols = min(check_integer(ncols, name="ncols"), len(panels))
    nrows = math.ceil(len(panels) / ncols)
    width = COLUMN_WIDTH - key_room
    height = _panel_figsize(nrows, ncols, 1.0, width)[1] + GRID_TITLE_ROOM
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(COLUMN_WIDTH, height),
        squeeze=False,
    )
    key = None
    for ax, (name, value) in zip(axes.flat, panels.items()):
        Y, seconds = _panel(value)
        Y = check_n_features(Y, 2, name=f"panels[{name!r}]")
        panel_labels = (
            None if labels is None else check_labels(labels, len(Y), name="labels")
        )
        s = _grid_marker_size(len(Y), width / ncols)
        key = _draw_embedding(ax, Y, panel_labels, s=s)
        ax.set(xticks=[], yticks=[], title=_panel_title(name, seconds, width / ncols))
    for ax in axes.flat[len(panels) :]:
        ax.set_axis_off()
    _add_key(key, legend_title, fig=fig, axes=axes.ravel().tolist())
    if suptitle:
        fig.suptitle(suptitle)
    return fig


# --------------------------------------------------------------------------- curves


def _series(x, name, value):
    """``(x, y)`` of one named series, given as ``y`` or as ``(x, y)``."""
    if isinstance(value, tuple) and len(value) == 2:
        x, value = value
    if x is None:
        raise ValueError(
            f"series {name!r} has no x values; pass x, or give it as (x, y)."
        )
    x = check_vector(x, name=f"x of series {name!r}")
    return x, check_vector(value, name=f"series[{name!r}]", n=len(x))


def _line_style(k, markers):
    """Colour, line style and marker of the ``k``-th series."""
    return {
        "color": LINE_COLOURS[k % len(LINE_COLOURS)],
        "linestyle": LINESTYLES[k % len(LINESTYLES)],
        "marker": MARKERS[k % len(MARKERS)] if markers else None,
    }


@_house_style
def curves(
    x,
    series,
    *,
    ax=None,
    xlabel,
    ylabel,
    title=None,
    logx=False,
    logy=False,
    markers=True,
    styles=None,
    legend_loc="best",
):
    """Several named line series on one axes, distinguishable in colour and in
    greyscale.

    Parameters
    ----------
    x : array-like of shape (n,) or None
        Shared x values; may be None if every series brings its own.
    series : dict
        ``name -> y`` (same length as ``x``) or ``name -> (x, y)``.
    ax : matplotlib Axes, optional
    xlabel, ylabel : str
        Required: every axis is labelled.
    title : str, optional
    logx, logy : bool, default=False
        Logarithmic axes.
    markers : bool, default=True
        Draw a distinct marker on each series.
    styles : dict, optional
        ``name -> dict`` of ``Axes.plot`` keyword arguments overriding the default style
        of that series (e.g. ``{"theory": {"linestyle": "-", "marker": None}}``). A
        series without markers is drawn above those with markers.
    legend_loc : str, default="best"
        Where the legend goes, as matplotlib's ``loc`` (e.g. ``"lower right"``). With
        "best", a legend that would still cover a data point or a line is moved outside,
        to the right of the axes.

    Returns
    -------
    matplotlib Axes
    """
    if not isinstance(series, dict) or not series:
        raise ValueError("series must be a non-empty dict name -> y or name -> (x, y).")
    styles = styles or {}
    ax = _axes(ax)
    for k, (name, value) in enumerate(series.items()):
        xs, ys = _series(x, name, value)
        style = {**_line_style(k, markers), **styles.get(name, {})}
        # A line without markers (a closed form, a reference) goes above the markers
        # of measured series, which would hide it.
        bare = style.get("marker") in (None, "", "none", "None")
        style.setdefault("zorder", 2.5 if bare else 2)
        ax.plot(xs, ys, label=name, **style)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title or "")
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    place_legend(ax, loc=legend_loc)
    return ax


def _data_points(ax, samples=24):
    """Display coordinates of what ``ax`` draws: line vertices (and ``samples`` points
    on every segment between them) and scatter points."""
    chunks = [np.empty((0, 2))]
    for line in ax.get_lines():
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) > 1:
            t = np.linspace(0.0, 1.0, samples)[:, None, None]
            xy = (xy[:-1] * (1 - t) + xy[1:] * t).reshape(-1, 2)
        chunks.append(xy)
    for collection in ax.collections:
        offsets = np.asarray(collection.get_offsets(), dtype=float)
        if offsets.size:
            chunks.append(collection.get_offset_transform().transform(offsets))
    return np.concatenate(chunks)


def legend_covers_data(ax):
    """Whether the legend of ``ax`` hides a data point or a stretch of a line."""
    legend = ax.get_legend()
    if legend is None:
        return False
    ax.figure.draw_without_rendering()
    box = legend.get_window_extent()
    xy = _data_points(ax)
    inside = (
        (xy[:, 0] >= box.x0)
        & (xy[:, 0] <= box.x1)
        & (xy[:, 1] >= box.y0)
        & (xy[:, 1] <= box.y1)
    )
    return bool(inside.any())


@_house_style
def place_legend(ax, *, loc="best", **kwargs):
    """Draw the legend of ``ax`` where it hides no data.

    ``loc="best"`` tries matplotlib's best place inside the axes first; if the legend
    still covers a data point or a line there (:func:`legend_covers_data`), it goes
    outside, to the right of the axes. Any other ``loc`` is kept as asked.

    Returns
    -------
    matplotlib Legend
    """
    legend = ax.legend(loc=loc, **kwargs)
    if loc == "best" and legend_covers_data(ax):
        legend = ax.legend(
            loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kwargs
        )
    return legend


# --------------------------------------------------------------------------- images


def _image_grid_figsize(n_rows, n_cols, panel_size):
    """Square panels of ``panel_size`` inches, shrunk so that the grid fits the
    column."""
    side = min(check_positive(panel_size, name="panel_size"), COLUMN_WIDTH / n_cols)
    return side * n_cols, side * n_rows


@_house_style
def image_grid(
    images,
    *,
    image_shape,
    col_titles=None,
    cmap="gray_r",
    vmin=None,
    vmax=None,
    panel_size=1.1,
):
    """A grid of small images, e.g. digits and their reconstructions side by side.

    Parameters
    ----------
    images : array-like of shape (n_rows, n_cols, n_pixels)
        One flattened image per cell of the grid.
    image_shape : tuple of int
        The shape each flattened image is reshaped to, e.g. ``(8, 8)``.
    col_titles : list of str, optional
        One title per column, written above the top row.
    cmap : str, default="gray_r"
        Colour map; "gray_r" shows ink as dark on light.
    vmin, vmax : float, optional
        The same grey scale for every panel (by default each panel is scaled on its
        own).
    panel_size : float, default=1.1
        Width and height of one panel in inches; reduced when the grid would be wider
        than the text column (:data:`COLUMN_WIDTH`).

    Returns
    -------
    matplotlib Figure
    """
    images = np.asarray(images, dtype=np.float64)
    if images.ndim != 3 or images.shape[2] != math.prod(image_shape):
        raise ValueError(
            f"images must have shape (n_rows, n_cols, {math.prod(image_shape)}) for "
            f"image_shape={tuple(image_shape)}; got {images.shape}."
        )
    n_rows, n_cols, _ = images.shape
    if col_titles is not None and len(col_titles) != n_cols:
        raise ValueError(
            f"col_titles has {len(col_titles)} entries; pass one per column ({n_cols})."
        )
    fig, axes = plt.subplots(
        n_rows,
        n_cols,
        squeeze=False,
        figsize=_image_grid_figsize(n_rows, n_cols, panel_size),
    )
    for (r, c), ax in np.ndenumerate(axes):
        ax.imshow(images[r, c].reshape(image_shape), cmap=cmap, vmin=vmin, vmax=vmax)
        ax.set_xticks([])
        ax.set_yticks([])
    for c, title in enumerate(col_titles or []):
        axes[0, c].set_title(title)
    return fig


# --------------------------------------------------------------------------- tables


def table(frame, caption, *, precision=3):
    """A table of results for the page: a pandas DataFrame with a caption.

    Every table the book shows goes through this function, so that it carries a caption
    (the rendered-site tests check that every table in a cell output has one) and its
    numbers a fixed number of decimals.

    Parameters
    ----------
    frame : pandas.DataFrame
    caption : str
        What the table shows, in a sentence; shown above it.
    precision : int, default=3
        Decimals shown for floating-point columns.

    Returns
    -------
    pandas.io.formats.style.Styler
        Displays as an HTML table with a ``<caption>``; ``.data`` is the frame itself. A
        missing value (NaN, None) shows as an em dash, not as "nan".
    """
    import pandas as pd  # only here: importing dr_lib.plotting stays light

    if not isinstance(frame, pd.DataFrame):
        raise ValueError(
            f"frame must be a pandas DataFrame; got {type(frame).__name__}. "
            f"Wrap it first, e.g. pd.DataFrame(rows)."
        )
    if not isinstance(caption, str) or not caption.strip():
        raise ValueError(
            "caption must be a non-empty sentence saying what the table shows."
        )
    precision = check_integer(precision, name="precision", low=0)
    styler = frame.style.set_caption(caption).format(
        precision=precision, na_rep=NO_VALUE
    )
    return styler.set_uuid("dr")  # the same HTML on every run


# -------------------------------------------------------------------- displacements


#: Size of a :func:`displacement_map` drawn on its own: the column width, 4:3.
DISPLACEMENT_MAP_SIZE = (COLUMN_WIDTH, 0.78 * COLUMN_WIDTH)


@_house_style
def displacement_map(
    reference,
    moved,
    *,
    magnify=1.0,
    names=None,
    name_offsets=None,
    ax=None,
    xlabel,
    ylabel,
    reference_label="reference",
    moved_label="moved",
    legend_loc="lower left",
):
    """Points and how far each one moved, with the offsets magnified so that they show.

    Each point is a dot at its reference position; a line leads from it to
    ``reference + magnify * (moved - reference)``, which is marked too. Used for the map
    of the provincial capitals in book/02_mds, where the MDS positions differ from the
    true ones by a few kilometres on a map thousands of kilometres wide: drawn as they
    are, the two sets of dots would cover each other. Both axes get the same scale.

    Parameters
    ----------
    reference, moved : array-like of shape (n_points, 2)
        Positions before and after, in the same units.
    magnify : float > 0, default=1
        Factor applied to every offset ``moved - reference``; stated in the legend.
    names : sequence of str of length n_points, optional
        Text written next to each reference position.
    name_offsets : dict, optional
        ``name -> (dx, dy)`` in points, to move a label away from a close neighbour; the
        other labels sit at (3, 3), up and to the right of their dot.
    ax : matplotlib Axes, optional
        A new figure of the column width if omitted.
    xlabel, ylabel : str
        Required: every axis is labelled.
    reference_label, moved_label : str
        Legend entries of the two kinds of position.
    legend_loc : str, default="lower left"
        Where the legend goes, as matplotlib's ``loc``; pick an empty corner.

    Returns
    -------
    matplotlib Axes
    """
    reference = check_n_features(reference, 2, name="reference")
    moved = check_n_features(moved, 2, name="moved")
    if moved.shape != reference.shape:
        raise ValueError(
            f"moved has shape {moved.shape} but reference has {reference.shape}; pass "
            f"one moved position per reference position, in the same order."
        )
    magnify = check_positive(magnify, name="magnify")
    name_offsets = dict(name_offsets or {})
    if names is not None:
        names = [str(n) for n in check_labels(names, len(reference), name="names")]
    unknown = sorted(set(name_offsets) - set(names or []))
    if unknown:
        raise ValueError(
            f"name_offsets has keys {unknown} that are not in names; pass offsets only "
            f"for names that are drawn."
        )
    if ax is None:
        ax = plt.figure(figsize=DISPLACEMENT_MAP_SIZE).add_subplot()
    shown = reference + magnify * (moved - reference)
    segments = np.stack([reference, shown], axis=1)
    ax.add_collection(
        mpl.collections.LineCollection(segments, colors=OKABE_ITO[5], linewidths=1.2)
    )
    ax.scatter(*reference.T, s=14, color=OKABE_ITO[4], label=reference_label, zorder=3)
    ax.scatter(
        *shown.T,
        s=10,
        color=OKABE_ITO[5],
        marker="s",
        label=f"{moved_label} (offset × {magnify:g})",
        zorder=3,
    )
    for name, (x, y) in zip(names or [], reference):
        ax.annotate(
            name,
            (x, y),
            xytext=name_offsets.get(name, (3, 3)),
            textcoords="offset points",
            fontsize=MIN_FONT_SIZE,
        )
    ax.set(xlabel=xlabel, ylabel=ylabel)
    ax.set_aspect("equal", adjustable="datalim")
    ax.legend(loc=legend_loc, markerscale=1.5)
    return ax


# ------------------------------------------------------------- LLE neighbourhoods


def _weight_arc(ax, start, end, colour, width):
    """A parabola from ``start`` to ``end`` above the line y = 0, a third of its span
    high; returns its apex."""
    u = np.linspace(0.0, 1.0, 30)
    height = abs(end - start) / 3
    ax.plot(start + u * (end - start), 4 * height * u * (1 - u), color=colour, lw=width)
    return np.array([(start + end) / 2, height])


def _draw_neighbourhood(ax, points, centre, neighbors, weights, norm, cmap):
    """One panel of :func:`neighbourhood_weights`; ``points`` has shape (n, 1) or (n,
    2).

    Each weight is written at the top of its arc (1-D), or next to its neighbour in the
    plane; neighbours in a row on the same side of the point get their labels on
    alternate sides of the edge, so that the labels do not collide.
    """
    flat = points.shape[1] == 1
    xy = np.column_stack([points[:, 0], np.zeros(len(points))]) if flat else points
    ax.scatter(xy[:, 0], xy[:, 1], s=8, color="#999999", linewidths=0, zorder=1)
    span = np.ptp(xy[np.r_[centre, neighbors]], axis=0).max()
    directions = xy[neighbors] - xy[centre]
    order = np.argsort(np.linalg.norm(directions, axis=1))
    side = np.sign(directions @ directions[order[0]])
    for p in order:
        j, w = neighbors[p], weights[p]
        colour, width = cmap(norm(w)), 1.0 + 3.0 * abs(w) / norm.vmax
        if flat:
            where = _weight_arc(ax, xy[centre, 0], xy[j, 0], colour, width)
            where = where + [0.0, 0.05 * span]
        else:
            ax.plot(*xy[[centre, j]].T, color=colour, lw=width, zorder=2)
            along = directions[p] / np.linalg.norm(directions[p])
            rank = np.sum(side[order[: list(order).index(p)]] == side[p])
            normal = (-1) ** rank * np.array([-along[1], along[0]])
            where = xy[j] + 0.09 * span * normal
        ax.annotate(f"{w:.2f}", where, ha="center", va="center", fontsize=9)
    ax.scatter(
        *xy[neighbors].T, s=24, color="#666666", zorder=3, label="its neighbours"
    )
    ax.scatter(*xy[centre], s=60, color=OKABE_ITO[4], zorder=3, label="point $i$")
    ax.scatter(
        *(weights @ xy[neighbors]),
        s=90,
        marker="x",
        color=OKABE_ITO[2],
        linewidths=2,
        zorder=4,
        label="its reconstruction from the neighbours",
    )
    middle = xy[np.r_[centre, neighbors]].mean(0)
    half = 0.8 * span
    ax.set_xlim(middle[0] - half, middle[0] + half)
    if flat:
        ax.set_ylim(-0.2 * span, 0.5 * span)
        ax.set_yticks([])
        ax.spines["left"].set_visible(False)
    else:
        ax.set_ylim(middle[1] - half, middle[1] + half)
        ax.set_aspect("equal", adjustable="box")


@_house_style
def neighbourhood_weights(
    X, centre, neighbors, weights, *, Z=None, titles=("data", "embedding")
):
    """One point, its neighbours and its reconstruction weights, drawn on the data.

    The picture behind locally linear embedding (book/05_lle, [T] (10-19)): an edge from
    point ``centre`` to each neighbour, coloured and thickened by the weight w_ij on a
    diverging scale centred at zero, the weight written next to it; the point itself
    (blue dot) and its reconstruction Σ_j w_ij x_j (green cross). With ``Z``, a second
    panel applies the same weights to the embedding, where LLE asks them to rebuild z_i.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Planar data (e.g. a curve in the plane).
    centre : int
        Index of the point whose neighbourhood is drawn.
    neighbors : array-like of int, shape (k,)
        Indices of its neighbours.
    weights : array-like of shape (k,)
        The weight of each neighbour (e.g. a row of ``lle.barycenter_weights``).
    Z : array-like of shape (n_samples,) or (n_samples, 2), optional
        An embedding of the same points; a 1-D one is drawn on a line, its edges as
        arcs.
    titles : tuple of str, default=("data", "embedding")
        Titles of the two panels.

    Returns
    -------
    matplotlib Figure
    """
    X = check_n_features(X, 2, name="X")
    centre = check_integer(centre, name="centre", low=0, high=len(X) - 1)
    neighbors = check_vector(neighbors, name="neighbors")
    neighbors = np.array(
        [
            check_integer(j, name=f"neighbors[{p}]", low=0, high=len(X) - 1)
            for p, j in enumerate(neighbors)
        ]
    )
    weights = check_vector(weights, name="weights", n=len(neighbors))
    panels = [X]
    if Z is not None:
        if np.ndim(Z) == 1:
            panels.append(check_vector(Z, name="Z", n=len(X))[:, None])
        else:
            panels.append(check_n_features(Z, 2, name="Z"))
            check_vector(panels[1][:, 0], name="Z", n=len(X))
    limit = np.abs(weights).max() or 1.0
    norm, cmap = mpl.colors.Normalize(-limit, limit), mpl.colormaps["PuOr"]
    fig, axes = plt.subplots(
        1,
        len(panels),
        squeeze=False,
        figsize=(COLUMN_WIDTH, 0.55 * COLUMN_WIDTH if len(panels) == 2 else 3.6),
    )
    for ax, points, title in zip(axes[0], panels, titles):
        _draw_neighbourhood(ax, points, centre, neighbors, weights, norm, cmap)
        ax.set_title(title)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=3)
    mappable = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
    fig.colorbar(mappable, ax=axes.ravel().tolist(), label="weight $w_{ij}$")
    return fig


# ------------------------------------------------------------------------- heat maps


def _cell_text_colour(rgba):
    """Black on light cells, white on dark ones (relative luminance of the cell)."""
    red, green, blue = rgba[:3]
    return "black" if 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.45 else "white"


def _check_heatmap_input(values, row_labels, col_labels, panel_titles):
    """``values`` as an array of shape (n_panels, n_rows, n_cols), labels checked."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 2:
        values = values[None]
    if values.ndim != 3 or 0 in values.shape:
        raise ValueError(
            f"values must have shape (n_rows, n_cols) or (n_panels, n_rows, n_cols); "
            f"got {values.shape}."
        )
    for name, labels, n in (
        ("row_labels", row_labels, values.shape[1]),
        ("col_labels", col_labels, values.shape[2]),
        ("panel_titles", panel_titles, values.shape[0]),
    ):
        if labels is not None and len(labels) != n:
            raise ValueError(f"{name} has {len(labels)} entries; pass one per {n}.")
    return values


@_house_style
def heatmap(
    values,
    *,
    row_labels,
    col_labels,
    xlabel,
    ylabel,
    panel_titles=None,
    colorbar_label="value",
    fmt="{:.2f}",
    highlight=None,
    cmap="viridis",
):
    """Values on a grid of two parameters as coloured, labelled cells; several panels
    (e.g. one per value of a third parameter) share one colour scale and colour bar.

    Made for cross-validated scores over a hyper-parameter grid (book/12_exercises):
    every cell shows its value, in black or white to stay readable on its colour.

    Parameters
    ----------
    values : array-like of shape (n_rows, n_cols) or (n_panels, n_rows, n_cols)
    row_labels, col_labels : list of str
        Tick labels of the rows (y axis, top to bottom) and of the columns (x axis).
    xlabel, ylabel : str
        Axis labels (mathtext allowed, e.g. ``"$\\gamma$"``).
    panel_titles : list of str, optional
        One title per panel.
    colorbar_label : str, default="value"
    fmt : str, default="{:.2f}"
        Format of the number written in each cell.
    highlight : tuple of int, optional
        ``(panel, row, col)`` of a cell to outline, e.g. the best one.
    cmap : str, default="viridis"

    Returns
    -------
    matplotlib Figure
    """
    values = _check_heatmap_input(values, row_labels, col_labels, panel_titles)
    n_panels, n_rows, n_cols = values.shape
    fig, axes = subplots(1, n_panels, aspect=n_rows / n_cols + 0.35)
    axes = np.atleast_1d(axes)
    norm = mpl.colors.Normalize(np.nanmin(values), np.nanmax(values))
    colours = mpl.colormaps[cmap]
    for p, ax in enumerate(axes):
        image = ax.imshow(values[p], cmap=colours, norm=norm, aspect="auto")
        for (r, c), value in np.ndenumerate(values[p]):
            colour = _cell_text_colour(colours(norm(value)))
            ax.text(c, r, fmt.format(value), ha="center", va="center", color=colour)
        ax.set_xticks(range(n_cols), col_labels)
        ax.set_yticks(range(n_rows), row_labels if p == 0 else [])
        ax.set_xlabel(xlabel)
        if p == 0:
            ax.set_ylabel(ylabel)
        if panel_titles is not None:
            ax.set_title(panel_titles[p])
        ax.spines[:].set_visible(False)
    if highlight is not None:
        p, r, c = highlight
        axes[p].add_patch(
            mpl.patches.Rectangle(
                (c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="#D55E00", linewidth=2.5
            )
        )
    fig.colorbar(image, ax=list(axes), label=colorbar_label)
    return fig
