"""Parameter explorers: embeddings precomputed over a parameter grid, moved by a slider.

A reader of the built book has no Python kernel and, by the house rules, no network. So
the notebook computes an embedding for every value of a parameter grid, and the page
switches between them in its own JavaScript: a Bokeh layout (scatter plot, slider,
play button, the quality numbers beside it) serialised as a standalone JSON item, drawn
by the BokehJS that the book serves from its own ``_static`` (``_ext/explorers.py``
copies it from the installed bokeh package at build time, so the versions match).

:func:`parameter_explorer` returns an :class:`Explorer`. Shown as a cell's output it is
one MIME bundle with two faces: ``text/html`` (the explorer, which the HTML book
shows) and ``image/png`` (its default state in the house style, with a line saying that
the figure moves in the HTML book; the PDF's LaTeX builder takes PNG before anything
else). Used as ``dr_lib.plotting.parameter_explorer``; the first one is in
book/07_sne_tsne.
"""

from __future__ import annotations

import base64
import gzip
import html as html_lib
import json
import re
import textwrap
import zlib
from dataclasses import dataclass

import numpy as np

__all__ = ["Explorer", "parameter_explorer", "read_payload", "MAX_PAYLOAD_BYTES"]

#: At most this many bytes of data per explorer in the page (issue 25's budget).
MAX_PAYLOAD_BYTES = 500_000
#: Height of the map in pixels, at any width (the map stretches to the column's width
#: and keeps equal scales on its two axes).
MAP_HEIGHT = 360
#: Height of each panel of quality curves, in pixels.
CURVE_HEIGHT = 130
#: Milliseconds between two frames when the play button runs.
PLAY_INTERVAL = 700
#: Marker shapes of bokeh for matplotlib's (dr_lib.plotting.MARKERS).
_BOKEH_MARKERS = {
    "o": "circle",
    "s": "square",
    "^": "triangle",
    "D": "diamond",
    "v": "inverted_triangle",
    "P": "plus",
    "X": "x",
    "*": "star",
}


@dataclass
class Explorer:
    """A parameter explorer: its data, its HTML (the book) and its PNG (the PDF).

    Attributes
    ----------
    grid : dict of str -> list
        The parameters and their values, in the order of the axes of ``frames``.
    frames : ndarray of float32, shape (*grid shape, n_samples, 2)
        The coordinates drawn, after the optional rescaling and alignment.
    labels : ndarray or None
    quality : dict of str -> ndarray of the grid's shape
    default : tuple of int
        The grid index shown first, and in the static figure.
    """

    grid: dict
    frames: np.ndarray
    labels: np.ndarray | None
    quality: dict
    default: tuple
    reference: np.ndarray | None
    legend_title: str | None
    title: str | None
    rescaled: bool = True
    _html: str | None = None
    _png: tuple | None = None  # (PNG, its size on the page), once drawn

    # ----------------------------------------------------------------------- faces
    def html(self) -> str:
        """The explorer as HTML: a container, its JSON data and the script that draws
        it with the page's BokehJS."""
        if self._html is None:
            self._html = _render_html(self)
        return self._html

    def png(self) -> bytes:
        """The static twin: the default state, drawn in the house style (for the
        PDF)."""
        return self._static_twin()[0]

    def _static_twin(self):
        if self._png is None:
            self._png = _render_png(self)
        return self._png

    @property
    def payload_bytes(self) -> int:
        """Bytes this explorer adds to its page (its HTML, data included)."""
        return len(self.html().encode("utf-8"))

    def _repr_mimebundle_(self, include=None, exclude=None):
        png, size = self._static_twin()
        data = {
            "text/html": self.html(),
            "image/png": base64.b64encode(png).decode("ascii"),
            "text/plain": self._describe(),
        }
        return data, {"image/png": size}

    def _describe(self) -> str:
        sizes = ", ".join(f"{name} ({len(v)} values)" for name, v in self.grid.items())
        return f"<parameter explorer over {sizes}: {self.frames.shape[-2]} points>"

    def default_label(self) -> str:
        """ "perplexity = 30" for the default frame (all parameters)."""
        return ", ".join(
            f"{name} = {_value_text(values[i])}"
            for (name, values), i in zip(self.grid.items(), self.default)
        )


# --------------------------------------------------------------------------- input


def _check_grid(grid):
    from dr_lib._validation import check_integer

    if not isinstance(grid, dict) or not 1 <= len(grid) <= 2:
        raise ValueError(
            "grid must be a dict of one or two parameters, name -> list of values, "
            "e.g. {'perplexity': [2, 5, 30]}."
        )
    checked = {}
    for name, values in grid.items():
        values = list(values)
        check_integer(len(values), name=f"the number of values of {name!r}", low=2)
        kinds = {isinstance(v, str) for v in values}
        if len(kinds) != 1:
            raise ValueError(
                f"grid[{name!r}] mixes strings and numbers; pass all strings (choices) "
                "or all numbers (a slider)."
            )
        if kinds == {False}:
            values = [float(v) if not float(v).is_integer() else int(v) for v in values]
        checked[str(name)] = values
    return checked


def _check_frames(embeddings, shape):
    frames = np.asarray(embeddings, dtype=np.float64)
    if frames.shape[: len(shape)] != shape or frames.ndim != len(shape) + 2:
        raise ValueError(
            f"embeddings must have shape {shape} + (n_samples, 2): one 2-D embedding "
            f"per grid point; got {frames.shape}."
        )
    if frames.shape[-1] != 2:
        raise ValueError(
            f"each embedding must have 2 columns; got {frames.shape[-1]}. Pass "
            "two-dimensional embeddings."
        )
    if not np.all(np.isfinite(frames)):
        raise ValueError(
            "embeddings contain NaN or inf; fix the runs that produced them."
        )
    return frames


def _check_quality(quality, shape):
    checked = {}
    for name, values in (quality or {}).items():
        values = np.asarray(values, dtype=np.float64)
        if values.shape != shape:
            raise ValueError(
                f"quality[{name!r}] has shape {values.shape}; pass one number per grid "
                f"point, shape {shape}."
            )
        checked[str(name)] = values
    return checked


def _check_default(default, grid, shape):
    if default is None:
        return tuple(n // 2 for n in shape)
    if not isinstance(default, dict):
        raise ValueError(
            "default must be a dict parameter -> value, e.g. {'perplexity': 30}."
        )
    index = []
    for name, values in grid.items():
        if name not in default:
            raise ValueError(f"default names no value for {name!r}; give one.")
        matches = [i for i, v in enumerate(values) if v == default[name]]
        if not matches:
            raise ValueError(
                f"default[{name!r}] = {default[name]!r} is not one of its grid values "
                f"{values}."
            )
        index.append(matches[0])
    return tuple(index)


def _normalise(frames, default, rescale, align):
    """Centre and scale every frame to unit RMS radius; rotate each onto the default
    one (orthogonal Procrustes: a rotation or reflection, no scaling)."""
    if not rescale:
        if align:
            raise ValueError(
                "align=True needs rescale=True: frames are aligned after being centred "
                "and scaled."
            )
        return frames
    flat = frames.reshape(-1, *frames.shape[-2:])
    centred = flat - flat.mean(axis=1, keepdims=True)
    radius = np.sqrt((centred**2).sum(axis=2).mean(axis=1))
    if np.any(radius == 0):
        raise ValueError(
            "an embedding has all its points at one place; cannot scale it"
        )
    centred = centred / radius[:, None, None]
    centred = centred.reshape(frames.shape)
    if align:
        _align_chains(centred, default)
    return centred


def _rotate_onto(frame, target):
    """``frame`` rotated or reflected to lie closest to ``target`` (both centred)."""
    u, _, vt = np.linalg.svd(frame.T @ target)
    return frame @ (u @ vt)


def _align_chains(frames, default):
    """Align, in place, each frame onto its neighbour along the last parameter, from the
    default value outwards; each row of the first parameter starts from its frame at the
    default value, aligned onto the default frame. Neighbours differ least, so the map
    moves smoothly where the slider does."""
    rows = frames.reshape(-1, *frames.shape[-3:])  # (rows, values, n, 2)
    first = 0 if frames.ndim == 3 else default[0]
    middle = default[-1]
    target = rows[first, middle].copy()
    for row in rows:
        row[middle] = _rotate_onto(row[middle], target)
        for j in range(middle + 1, len(row)):
            row[j] = _rotate_onto(row[j], row[j - 1])
        for j in range(middle - 1, -1, -1):
            row[j] = _rotate_onto(row[j], row[j + 1])


def parameter_explorer(
    grid,
    embeddings,
    labels=None,
    *,
    quality=None,
    default=None,
    legend_title=None,
    reference=None,
    rescale=True,
    align=True,
    title=None,
):
    """A scatter plot with a slider (and a play button) over precomputed embeddings.

    The HTML book shows it live, drawn by BokehJS from the book's own ``_static``; the
    PDF shows its default state, with a line saying that the figure moves in the HTML
    book. Categories are coloured as :func:`dr_lib.plotting.embedding_2d` colours them
    (ten colours without Okabe–Ito's yellow, a second marker shape from the eighth on),
    continuous labels with viridis. In dark mode the page inverts its lightness and
    keeps its hues, as it does for every figure.

    Parameters
    ----------
    grid : dict of str -> sequence
        One or two parameters and their values, e.g. ``{"perplexity": [2, 5, 30]}``.
        The last parameter gets a slider (which shows its values, numbers or strings)
        and the play button, which steps it; a first parameter of two gets a row of
        buttons if its values are strings, else a slider too.
    embeddings : array-like of shape (*grid shape, n_samples, 2)
        One embedding per grid point, in the order of ``grid``.
    labels : array-like of shape (n_samples,), optional
        Categories (strings, or at most 10 distinct integers) or continuous values.
    quality : dict of str -> array-like of the grid's shape, optional
        Numbers shown beside the slider (e.g. KL, kNN recall) for the current grid
        point; with one parameter, also drawn as curves against it.
    default : dict of str -> value, optional
        The grid point shown first and in the PDF; the middle one if omitted.
    legend_title : str, optional
        Title of the legend (categories) or of the colour scale.
    reference : array-like of shape (n_samples, 2), optional
        Fixed points drawn in grey, each joined to its moving point by a line (e.g. the
        data and their projections onto a rotating direction, book/01_pca).
    rescale : bool, default=True
        Centre every embedding and scale it to unit RMS radius, so that the slider shows
        changes of shape rather than of size. False keeps the coordinates as given (one
        fixed scale for all frames: sizes can be compared).
    align : bool, default=True
        Rotate or reflect every embedding onto the default one (orthogonal Procrustes),
        so that an arbitrary sign or rotation does not make the map jump. Needs
        ``rescale=True``.
    title : str, optional
        Title above the map.

    Returns
    -------
    Explorer
        Displays as the explorer (HTML) or its static twin (PNG), whichever the output
        format takes; ``.frames`` holds the coordinates drawn, ``.payload_bytes`` its
        size in the page (at most :data:`MAX_PAYLOAD_BYTES`).
    """
    from dr_lib._validation import check_labels, check_n_features

    grid = _check_grid(grid)
    shape = tuple(len(v) for v in grid.values())
    frames = _check_frames(embeddings, shape)
    n = frames.shape[-2]
    if labels is not None:
        labels = check_labels(labels, n, name="labels")
    if reference is not None:
        reference = check_n_features(reference, 2, name="reference")
        if len(reference) != n:
            raise ValueError(
                f"reference has {len(reference)} points; pass one per embedded point "
                f"({n})."
            )
    default = _check_default(default, grid, shape)
    frames = _normalise(frames, default, rescale, align).astype(np.float32)
    explorer = Explorer(
        grid=grid,
        frames=frames,
        labels=labels,
        quality=_check_quality(quality, shape),
        default=default,
        reference=None if reference is None else reference.astype(np.float32),
        legend_title=legend_title,
        title=title,
        rescaled=bool(rescale),
    )
    size = explorer.payload_bytes
    if size > MAX_PAYLOAD_BYTES:
        raise ValueError(
            f"this explorer would add {size / 1e6:.2f} MB to its page, more than the "
            f"{MAX_PAYLOAD_BYTES / 1e6:.1f} MB allowed: subsample the points or use "
            "fewer grid values."
        )
    return explorer


# --------------------------------------------------------------------- colours


def _value_text(value) -> str:
    if isinstance(value, str):
        return value
    return f"{value:g}"


def _point_styles(labels):
    """(colour per point, marker per point, category per point or None, colour key).

    The key is ``("legend", [(category, colour, marker)])`` or ``("colorbar", (low,
    high))``.
    """
    from dr_lib import plotting

    n = 0 if labels is None else len(labels)
    if labels is None:
        return None, None, None, None
    if plotting._is_categorical(labels):
        categories = np.unique(labels)
        styles = [plotting._category_style(k) for k in range(len(categories))]
        index = np.searchsorted(categories, labels)
        colours = [styles[i][0] for i in index]
        markers = [_BOKEH_MARKERS[styles[i][1]] for i in index]
        names = [str(c) for c in categories]
        key = [(names[k], *styles[k]) for k in range(len(categories))]
        return colours, markers, [names[i] for i in index], ("legend", key)
    import matplotlib as mpl

    values = np.asarray(labels, dtype=np.float64)
    low, high = float(values.min()), float(values.max())
    norm = mpl.colors.Normalize(low, high)
    colours = [mpl.colors.to_hex(c) for c in mpl.colormaps["viridis"](norm(values))]
    return colours, ["circle"] * n, None, ("colorbar", (low, high))


# ------------------------------------------------------------------------ HTML

#: Drawn by the page: waits for BokehJS (loaded by the page's head), then embeds the
#: item; a page without BokehJS (a notebook in Jupyter) keeps the message.
_EMBED_JS = """(function () {
  var target = "%(id)s";
  function draw() {
    var box = document.getElementById(target);
    if (!box || box.dataset.drawn) return true;
    if (!(window.Bokeh && Bokeh.embed)) return false;
    var item = JSON.parse(document.getElementById(target + "-data").textContent);
    box.dataset.drawn = "1";
    var note = document.getElementById(target + "-note");
    if (note) note.remove();
    Promise.resolve(Bokeh.embed.embed_item(item, target + "-root")).then(function () {
      box.dataset.ready = "1";  // drawn: the site tests wait for this
    });
    return true;
  }
  if (!draw()) {
    window.addEventListener("DOMContentLoaded", draw);
    window.addEventListener("load", draw);
  }
})();"""

_NOTE = (
    "This figure moves in the HTML book, where the page serves BokehJS. In Jupyter, "
    "run <code>import bokeh.io, bokeh.resources; "
    "bokeh.io.output_notebook(bokeh.resources.INLINE)</code> once, then this cell."
)


#: A model's name in a serialised bokeh document: where it is defined and referred to.
_MODEL_ID = re.compile(r'"(id|root_id)":"([A-Za-z]*\d+)"')


def _render_html(explorer: Explorer) -> str:
    import bokeh
    from bokeh.embed import json_item

    layout = _bokeh_layout(explorer)
    item = json_item(layout)
    text = json.dumps(
        item, separators=(",", ":")
    )  # (in bokeh's order: definitions first)
    # bokeh numbers its models by a counter of the whole process: renumbered in order of
    # appearance, and then named after the content, the same notebook gives the same
    # page, and two explorers on one page never share a model's name.
    order = {}
    for _, old in _MODEL_ID.findall(text):
        order.setdefault(old, len(order) + 1)
    text = _MODEL_ID.sub(lambda m: f'"{m.group(1)}":"m{order[m.group(2)]}"', text)
    digest = zlib.crc32(text.encode("utf-8")) & 0xFFFFFFFF
    ident = f"dr-explorer-{digest:08x}"
    text = _MODEL_ID.sub(lambda m: f'"{m.group(1)}":"{digest:08x}-{m.group(2)}"', text)
    # "</" cannot appear inside a <script> element.
    text = text.replace("</", "<\\/")
    names = " ".join(explorer.grid)
    return (
        f'<div class="dr-explorer" id="{ident}"'
        f' data-bokeh-version="{bokeh.__version__}"'
        f' data-parameters="{html_lib.escape(names)}">'
        f'<div class="dr-explorer-root" id="{ident}-root"></div>'
        f'<p class="dr-explorer-note" id="{ident}-note">{_NOTE}</p>'
        f'<script type="application/json" id="{ident}-data">{text}</script>'
        f"<script>{_EMBED_JS % {'id': ident}}</script>"
        "</div>"
    )


def read_payload(html: str) -> dict:
    """The data an explorer's HTML carries, decoded: ``grid`` (name -> values),
    ``frames`` (float32, shape (*grid shape, n, 2)) and ``quality``.

    The inverse of what :func:`parameter_explorer` writes, for the tests: it reads the
    serialised Bokeh document, as the page's JavaScript does.
    """
    match = re.search(
        r'<script type="application/json" id="[^"]+-data">(.*?)</script>', html, re.S
    )
    if match is None:
        raise ValueError("no explorer data in this HTML")
    item = json.loads(match.group(1).replace("<\\/", "</"))
    meta = _find_model(item, "dr_explorer")
    frames_source = _find_model(item, "dr_frames")
    data = _source_data(frames_source)
    shape = tuple(meta["shape"])
    n = meta["n"]
    frames = np.stack([data["x"], data["y"]], axis=-1).reshape(*shape, n, 2)
    quality = {
        name: np.asarray(values).reshape(shape)
        for name, values in meta["quality"].items()
    }
    return {"grid": meta["grid"], "frames": frames, "quality": quality}


def _walk_json(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk_json(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk_json(value)


def _find_model(item, name):
    """The attributes of the model named ``name`` in a serialised Bokeh item; for the
    CustomJS that carries the metadata, its ``args``' ``meta``."""
    for node in _walk_json(item):
        attributes = node.get("attributes")
        if isinstance(attributes, dict) and attributes.get("name") == name:
            if name == "dr_explorer":
                return _decode(attributes["args"])["meta"]
            return attributes
    raise ValueError(f"no model named {name!r} in this explorer")


def _decode(node):
    """Bokeh's serialised values back to Python: maps, typed arrays, plain values."""
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "map":
            return {_decode(k): _decode(v) for k, v in node.get("entries", [])}
        if kind == "ndarray":
            buffer = node["array"]
            raw = _decode(buffer)
            values = np.frombuffer(raw, dtype=np.dtype(node["dtype"]).newbyteorder("<"))
            return values.reshape(node["shape"])
        if kind == "bytes":  # bokeh gzips every buffer
            raw = base64.b64decode(node["data"])
            return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        return {k: _decode(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_decode(v) for v in node]
    return node


def _source_data(source_attributes):
    return {
        key: np.asarray(value)
        for key, value in _decode(source_attributes["data"]).items()
    }


def _bokeh_layout(explorer: Explorer):
    from bokeh.layouts import column, row
    from bokeh.models import (
        Button,
        ColorBar,
        ColumnDataSource,
        CustomJS,
        CustomJSTickFormatter,
        DataRange1d,
        Div,
        LegendItem,
        LinearColorMapper,
        RadioButtonGroup,
        Slider,
    )
    from bokeh.plotting import figure

    grid, frames = explorer.grid, explorer.frames
    shape, n = frames.shape[:-2], frames.shape[-2]
    flat = frames.reshape(-1, n, 2)
    start = flat[np.ravel_multi_index(explorer.default, shape)]
    colours, markers, categories, key = _point_styles(explorer.labels)
    shown = {"x": start[:, 0].copy(), "y": start[:, 1].copy()}
    if colours is not None:
        shown["colour"] = colours
        shown["marker"] = markers
    if categories is not None:
        shown["category"] = categories
    source = ColumnDataSource(shown, name="dr_shown")
    frames_source = ColumnDataSource(
        {"x": flat[:, :, 0].ravel(), "y": flat[:, :, 1].ravel()}, name="dr_frames"
    )

    # Frames kept at their own scale: the ranges follow an invisible box around every
    # frame (and the reference), so that the axes stay put and sizes can be compared.
    # Rescaled frames: the ranges follow the points shown, so that every frame fills
    # the map (one far outlier of another frame would shrink all the others).
    every = flat.reshape(-1, 2)
    if explorer.reference is not None:
        every = np.vstack([every, explorer.reference])
    low, high = every.min(axis=0), every.max(axis=0)
    pad = 0.04 * (high - low).max()
    box = ColumnDataSource(
        {"x": [low[0] - pad, high[0] + pad], "y": [low[1] - pad, high[1] + pad]}
    )
    plot = figure(
        height=MAP_HEIGHT,
        sizing_mode="stretch_width",
        match_aspect=True,
        aspect_scale=1,
        x_range=DataRange1d(),
        y_range=DataRange1d(),
        toolbar_location=None,
        tools="",
        title=explorer.title,
        x_axis_location=None,  # an embedding's coordinates have no units to read
        y_axis_location=None,
        name="dr_map",
    )
    bounds = plot.scatter("x", "y", source=box, alpha=0, size=1)
    plot.background_fill_color = None
    plot.border_fill_color = None
    plot.outline_line_color = "#bbbbbb"
    plot.grid.visible = False
    plot.min_border = 4

    if explorer.reference is not None:
        ref = explorer.reference
        links = ColumnDataSource(
            {
                "x0": ref[:, 0],
                "y0": ref[:, 1],
                "x1": start[:, 0].copy(),
                "y1": start[:, 1].copy(),
            },
            name="dr_links",
        )
        plot.segment("x0", "y0", "x1", "y1", source=links, color="#999999", alpha=0.6)
        plot.scatter(ref[:, 0], ref[:, 1], size=5, color="#999999", alpha=0.8)
    else:
        links = None

    style = {"size": 5 if n > 400 else 6, "line_width": 0}
    if colours is None:
        points = plot.scatter("x", "y", source=source, color="#0072B2", **style)
    else:
        points = plot.scatter(
            "x", "y", source=source, color="colour", marker="marker", **style
        )
    if key is not None and key[0] == "legend":
        items = []
        for name, colour, marker in key[1]:
            proxy = plot.scatter(
                [np.nan], [np.nan], color=colour, marker=_BOKEH_MARKERS[marker], size=8
            )
            items.append(LegendItem(label=name, renderers=[proxy]))
        _legend_above(
            plot,
            items,
            title=explorer.legend_title,
            location="top_left",
            label_text_font_size="11px",
            title_text_font_size="11px",
            glyph_width=12,
            spacing=2,
            padding=2,
            margin=2,
            click_policy="none",
            # ten digits in one row are wider than a phone: two rows of five
            nrows=2 if len(items) > 6 else "auto",
        )
    elif key is not None:
        from bokeh.palettes import Viridis256

        low_value, high_value = key[1]
        bar = ColorBar(
            color_mapper=LinearColorMapper(Viridis256, low=low_value, high=high_value),
            title=explorer.legend_title,
            width=10,
            title_text_font_size="11px",
            title_text_font_style="normal",
            major_label_text_font_size="10px",
            background_fill_alpha=0,
        )
        plot.add_layout(bar, "right")
    followed = points if explorer.rescaled else bounds
    plot.x_range.renderers = plot.y_range.renderers = [followed]

    readout = Div(text="", sizing_mode="stretch_width", name="dr_readout")
    selectors = []
    for axis, (name, values) in enumerate(grid.items()):
        if isinstance(values[0], str) and axis < len(grid) - 1:
            widget = RadioButtonGroup(
                labels=values, active=explorer.default[axis], name=f"dr_axis_{axis}"
            )
        else:
            # The slider runs over the index; it shows the grid value at that index.
            shown_value = CustomJSTickFormatter(
                args={"values": [_value_text(v) for v in values]},
                code="return values[Math.round(tick)];",
            )
            widget = Slider(
                start=0,
                end=len(values) - 1,
                step=1,
                value=explorer.default[axis],
                format=shown_value,
                title=name,
                sizing_mode="stretch_width",
                name=f"dr_axis_{axis}",
            )
        selectors.append(widget)
    play = Button(label="▶ play", width=80, name="dr_play")

    curves, markers_src, curve_x = [], [], []
    if explorer.quality:
        name, values = list(grid.items())[-1]
        numeric = not isinstance(values[0], str)
        curve_x = list(values) if numeric else list(range(len(values)))
        rows = list(grid.items())[0][1] if len(grid) == 2 else [None]
        for q_name, q_values in explorer.quality.items():
            curve, marker_source = _quality_curve(
                explorer, name, curve_x, rows, q_name, q_values.reshape(len(rows), -1)
            )
            if len(values) <= 12:
                curve.xaxis.ticker = curve_x
            if not numeric:
                curve.xaxis.major_label_overrides = dict(enumerate(values))
            curves.append(curve)
            markers_src.append(marker_source)

    meta = {
        "grid": grid,
        "shape": list(shape),
        "n": int(n),
        "quality": {
            k: [float(x) for x in v.ravel()] for k, v in explorer.quality.items()
        },
        "curve_x": curve_x,
    }
    update = CustomJS(
        name="dr_explorer",
        args={
            "meta": meta,
            "source": source,
            "frames": frames_source,
            "links": links,
            "selectors": selectors,
            "readout": readout,
            "curves": markers_src,
        },
        code=_UPDATE_JS,
    )
    for widget in selectors:
        widget.js_on_change(
            "active" if isinstance(widget, RadioButtonGroup) else "value", update
        )
    play.js_on_event(
        "button_click",
        CustomJS(
            args={"selector": selectors[-1], "play": play, "interval": PLAY_INTERVAL},
            code=_PLAY_JS,
        ),
    )
    readout.text = _readout_text(explorer, explorer.default)
    controls = row(play, *selectors, sizing_mode="stretch_width")
    children = [plot, controls, readout, *curves]
    return column(children, sizing_mode="stretch_width", name="dr_layout")


def _legend_above(plot, items, **options):
    """A horizontal legend without a box above ``plot``."""
    from bokeh.models import Legend

    legend = Legend(
        items=items,
        orientation="horizontal",
        background_fill_alpha=0,
        border_line_alpha=0,
        **options,
    )
    plot.add_layout(legend, "above")


def _quality_curve(explorer, name, xs, rows, q_name, q_values):
    """A small plot of one quality number against the last parameter (one line per value
    of the first), with a dot at the current grid point."""
    from bokeh.models import ColumnDataSource, LegendItem
    from bokeh.plotting import figure

    from dr_lib import plotting

    log_x = min(xs) > 0 and max(xs) / min(xs) >= 20
    curve = figure(
        height=CURVE_HEIGHT,
        sizing_mode="stretch_width",
        toolbar_location=None,
        tools="",
        x_axis_type="log" if log_x else "linear",
        x_axis_label=name,
        y_axis_label=q_name,
    )
    items = []
    for r, row in enumerate(rows):
        colour = plotting.LINE_COLOURS[(3 + r) % len(plotting.LINE_COLOURS)]
        line = curve.line(xs, q_values[r], color=colour, line_width=2)
        if row is not None:
            label = f"{list(explorer.grid)[0]} = {row}"
            items.append(LegendItem(label=label, renderers=[line]))
    if items:
        _legend_above(curve, items, label_text_font_size="10px", padding=0, margin=0)
    r = explorer.default[0] if len(rows) > 1 else 0
    j = explorer.default[-1]
    marker = ColumnDataSource({"x": [xs[j]], "y": [q_values[r, j]]})
    # the current grid point: in the colour of the text, on every line's colour
    curve.scatter("x", "y", source=marker, size=9, color="#1a1a1a", line_width=0)
    curve.background_fill_color = None
    curve.border_fill_color = None
    curve.outline_line_color = None
    curve.grid.grid_line_alpha = 0.4
    curve.axis.axis_label_text_font_size = "11px"
    curve.axis.axis_label_text_font_style = "normal"
    curve.axis.major_label_text_font_size = "10px"
    curve.min_border_left = 50
    curve.yaxis.ticker.desired_num_ticks = 4
    return curve, marker


def _readout_text(explorer, index):
    parts = [
        f"{name} = {_value_text(values[i])}"
        for (name, values), i in zip(explorer.grid.items(), index)
    ]
    parts += [
        f"{name} = {values[index]:.3g}" for name, values in explorer.quality.items()
    ]
    return " · ".join(parts)


#: Slider or buttons moved: copy that frame's coordinates into the drawn points.
_UPDATE_JS = """
const get = (o, key) => (o instanceof Map ? o.get(key) : o[key]);
const entries = (o) => (o instanceof Map ? Array.from(o.entries()) : Object.entries(o));
const index = selectors.map((w) => (w.active !== undefined ? w.active : w.value));
const shape = get(meta, "shape");
let k = 0;
for (let a = 0; a < shape.length; a++) k = k * shape[a] + index[a];
const n = get(meta, "n");
const x = frames.data.x.slice(k * n, (k + 1) * n);
const y = frames.data.y.slice(k * n, (k + 1) * n);
source.data = Object.assign({}, source.data, {x: x, y: y});
if (links !== null) links.data = Object.assign({}, links.data, {x1: x, y1: y});
const grid = entries(get(meta, "grid"));
const text = (v) => (typeof v === "string" ? v : String(Number(v.toPrecision(4))));
const parts = grid.map(([name, values], a) => name + " = " + text(values[index[a]]));
const curveX = get(meta, "curve_x");
entries(get(meta, "quality")).forEach(([name, values], c) => {
  parts.push(name + " = " + String(Number(Number(values[k]).toPrecision(3))));
  const last = index[index.length - 1];
  if (c < curves.length) curves[c].data = {x: [curveX[last]], y: [values[k]]};
});
readout.text = parts.join(" · ");
"""

#: Play: step the last parameter once per interval, from the start when at the end.
_PLAY_JS = """
const key = "__dr_play_" + play.id;
if (window[key]) {
  clearInterval(window[key]);
  window[key] = null;
  play.label = "▶ play";
  return;
}
const last = selector.end !== undefined ? selector.end : selector.labels.length - 1;
const get = () => (selector.active !== undefined ? selector.active : selector.value);
const set = (v) => {
  if (selector.active !== undefined) selector.active = v;
  else selector.value = v;
};
if (get() >= last) set(0);
play.label = "❚❚ pause";
window[key] = setInterval(() => {
  if (get() >= last) {
    clearInterval(window[key]);
    window[key] = null;
    play.label = "▶ play";
    return;
  }
  set(get() + 1);
}, interval);
"""


# ------------------------------------------------------------------------- PNG


def _render_png(explorer: Explorer):
    """The default state in the house style, with a line saying that it moves: its
    PNG and its size on the page, as :func:`dr_lib.plotting.figure_png` gives them."""
    import matplotlib.pyplot as plt

    from dr_lib import plotting

    k = np.ravel_multi_index(explorer.default, explorer.frames.shape[:-2])
    frame = explorer.frames.reshape(-1, *explorer.frames.shape[-2:])[k]
    curves = len(explorer.grid) == 1 and bool(explorer.quality)
    with plotting.mpl.rc_context(plotting.HOUSE_STYLE):
        if curves:
            fig = plt.figure(figsize=(plotting.COLUMN_WIDTH, 3.9))
            spec = fig.add_gridspec(len(explorer.quality), 2, width_ratios=[1.5, 1])
            ax = fig.add_subplot(spec[:, 0])
            side = [fig.add_subplot(spec[i, 1]) for i in range(len(explorer.quality))]
        else:
            fig = plt.figure(figsize=(plotting.COLUMN_WIDTH * 0.75, 3.9))
            ax, side = fig.add_subplot(), []
        if explorer.reference is not None:
            ref = explorer.reference
            for (x0, y0), (x1, y1) in zip(ref, frame):
                ax.plot([x0, x1], [y0, y1], color="#999999", lw=0.6, alpha=0.6)
            ax.scatter(*ref.T, s=8, color="#999999", linewidths=0)
        plotting.embedding_2d(
            frame,
            explorer.labels,
            ax=ax,
            s=8,
            legend_title=explorer.legend_title,
            xlabel="",
            ylabel="",
            title=explorer.default_label(),
        )
        legend = ax.get_legend()
        if legend is not None:
            legend.set_loc("best")
            legend.set_bbox_to_anchor(None)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_aspect("equal", adjustable="datalim")
        if curves:
            ((name, values),) = explorer.grid.items()
            numeric = not isinstance(values[0], str)
            xs = values if numeric else list(range(len(values)))
            for axis, (q_name, q_values) in zip(side, explorer.quality.items()):
                axis.plot(xs, q_values, color=plotting.OKABE_ITO[4])
                i = explorer.default[0]
                axis.plot(xs[i], q_values[i], "o", color=plotting.OKABE_ITO[5])
                axis.set_ylabel(q_name)
                if numeric and min(xs) > 0 and max(xs) / min(xs) >= 20:
                    axis.set_xscale("log")
                    axis.minorticks_off()
                if not numeric or len(xs) <= 8:
                    axis.set_xticks(xs, [_value_text(v) for v in values])
            side[-1].set_xlabel(name)
        note = textwrap.fill(_moves_note(explorer), 100 if curves else 75)
        fig.text(
            0.01,
            0.0,
            note,
            fontsize=plotting.MIN_FONT_SIZE,
            style="italic",
            va="bottom",
        )
        bottom = 0.02 + 0.05 * (note.count("\n") + 1)
        fig.get_layout_engine().set(rect=(0, bottom, 1, 1 - bottom))
        png_and_size = plotting.figure_png(fig)
        plt.close(fig)
    return png_and_size


def _moves_note(explorer):
    what = " and ".join(
        f"{len(values)} values of {name}" for name, values in explorer.grid.items()
    )
    return (
        f"Shown: {explorer.default_label()}. The figure moves in the HTML book, "
        f"through {what}."
    )
