"""Tests of dr_lib.plotting: right return types, labelled axes, keys, colour choices,
bad input."""

import io
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from dr_lib import plotting  # noqa: E402

from .colour_distance import (  # noqa: E402
    apply_css_filter,
    ciede2000,
    closest_pair,
    hex_to_rgb,
)

rng = np.random.default_rng(0)
Y = rng.normal(size=(60, 2))
X3 = rng.normal(size=(60, 3))
classes = np.repeat(np.arange(3), 20)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _colorbars(fig):
    return [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]


def _legend_styles(legend):
    """(colour, marker) of every entry of a legend of categories."""
    return [(to_hex(h.get_color()), h.get_marker()) for h in legend.legend_handles]


def _point_colours(ax):
    """The colour of every point of the scatters of ``ax``, in drawing order."""
    return [to_hex(c) for coll in ax.collections for c in coll.get_facecolor()]


# ---------------------------------------------------------------------------- style


def test_okabe_ito_palette():
    assert len(plotting.OKABE_ITO) == 8 and len(set(plotting.OKABE_ITO)) == 8
    assert all(c.startswith("#") and len(c) == 7 for c in plotting.OKABE_ITO)


def test_use_house_style_sets_rcparams():
    with matplotlib.rc_context():
        plotting.use_house_style()
        assert matplotlib.rcParams["axes.spines.top"] is False
        assert matplotlib.rcParams["axes.spines.right"] is False
        assert matplotlib.rcParams["figure.dpi"] == 110
        assert [
            to_hex(c) for c in matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
        ] == [c.lower() for c in plotting.LINE_COLOURS]


def test_plotting_leaves_global_rcparams_alone():
    before = matplotlib.rcParams["axes.spines.top"]
    ax = plotting.embedding_2d(Y)
    assert ax.spines["top"].get_visible() is False
    assert matplotlib.rcParams["axes.spines.top"] == before


# ------------------------------------------------------------------------------ 3-D


def test_scatter_3d_labels_and_colorbar():
    ax = plotting.scatter_3d(
        X3, X3[:, 0], title="roll", colorbar_label="t", elev=20, azim=30
    )
    assert isinstance(ax, Axes) and ax.name == "3d"
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()) == ("x", "y", "z")
    assert ax.get_title() == "roll"
    assert (ax.elev, ax.azim) == (20, 30)
    (cbar,) = _colorbars(ax.figure)
    assert cbar.get_ylabel() == "t"


def test_scatter_3d_keeps_few_ticks_and_no_tick_labels():
    ax = plotting.scatter_3d(100 * X3, X3[:, 0])
    ax.figure.canvas.draw()
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        assert len(axis.get_major_locator()()) <= 6
        assert all(label.get_text() == "" for label in axis.get_ticklabels())


def test_scatter_3d_on_given_axes_with_default_colorbar_label():
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d")
    assert plotting.scatter_3d(X3, np.arange(60), ax=ax) is ax
    assert _colorbars(fig)[0].get_ylabel() == "intrinsic coordinate"


@pytest.mark.parametrize(
    "X, color, pattern",
    [
        (Y, np.arange(60), "exactly 3 columns"),
        (X3, np.arange(59), "color has length 59"),
        (X3[:, 0], np.arange(60), "2-D"),
    ],
)
def test_scatter_3d_rejects_bad_input(X, color, pattern):
    with pytest.raises(ValueError, match=pattern):
        plotting.scatter_3d(X, color)


def test_scatter_3d_rejects_2d_axes():
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="3-D Axes"):
        plotting.scatter_3d(X3, X3[:, 0], ax=ax)


# ------------------------------------------------------------------------------ 2-D


def test_embedding_2d_categorical_uses_okabe_ito_and_legend():
    ax = plotting.embedding_2d(Y, classes, title="t", legend_title="class")
    assert isinstance(ax, Axes)
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == (
        "dimension 1",
        "dimension 2",
        "t",
    )
    legend = ax.get_legend()
    colours = [colour for colour, _ in _legend_styles(legend)]
    assert colours == [c.lower() for c in plotting.LINE_COLOURS[:3]]
    assert set(_point_colours(ax)) == set(colours)
    assert legend.get_title().get_text() == "class"
    assert [t.get_text() for t in legend.get_texts()] == ["0", "1", "2"]
    assert not _colorbars(ax.figure)


def test_ten_digits_get_ten_colours_and_a_second_marker_after_seven():
    digits = np.arange(100) % 10
    points_2d = rng.normal(size=(100, 2))
    ax = plotting.embedding_2d(points_2d, digits)
    colours, markers = zip(*_legend_styles(ax.get_legend()))
    assert len(set(colours)) == 10 and plotting.YELLOW.lower() not in colours
    assert len(set(markers[:7])) == 1 and markers[7] != markers[0]
    # every point is drawn in its own category's colour and shape
    (points,) = ax.collections
    shapes = {plotting._marker_path(m).vertices.tobytes(): m for m in set(markers)}
    index = {tuple(xy): i for i, xy in enumerate(points_2d)}
    drawn = [index[tuple(xy)] for xy in np.asarray(points.get_offsets())]
    assert sorted(drawn) == list(range(100))
    for i, colour, path in zip(drawn, points.get_facecolor(), points.get_paths()):
        style = (to_hex(colour), shapes[path.vertices.tobytes()])
        assert style == (colours[digits[i]], markers[digits[i]])
    # the pairs (colour, marker) stay distinct far beyond ten categories
    styles = [plotting._category_style(k) for k in range(56)]
    assert len(set(styles)) == 56


def test_embedding_2d_string_labels_are_categories():
    labels = np.array(["cat", "dog"] * 30)
    ax = plotting.embedding_2d(Y, labels)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["cat", "dog"]


def test_embedding_2d_ten_digit_classes_stay_distinguishable():
    labels = np.arange(60) % 10
    ax = plotting.embedding_2d(Y, labels)
    assert len(set(_legend_styles(ax.get_legend()))) == 10


def test_no_category_covers_the_others_by_being_drawn_last():
    # Fig 12.2: drawn one category after the other, the last digits (8, 9) hid the
    # rest of every dense map. Drawn in a shuffled order, the last tenth of the points
    # drawn holds every category in about its share.
    digits = np.repeat(np.arange(10), 500)
    ax = plotting.embedding_2d(rng.normal(size=(5000, 2)), digits, s=1)
    last = _point_colours(ax)[-500:]
    shares = [last.count(colour) / 500 for colour in set(last)]
    assert len(shares) == 10 and max(shares) < 0.2, shares


def test_embedding_2d_continuous_uses_viridis_and_colorbar():
    ax = plotting.embedding_2d(Y, Y[:, 0], legend_title="t")
    assert ax.get_legend() is None
    (cbar,) = _colorbars(ax.figure)
    assert cbar.get_ylabel() == "t"
    assert ax.collections[0].get_cmap().name == "viridis"


def test_embedding_2d_many_integers_are_continuous():
    ax = plotting.embedding_2d(Y, np.arange(60))
    assert ax.get_legend() is None and len(_colorbars(ax.figure)) == 1


def test_embedding_2d_unlabelled_and_annotated():
    names = [f"p{i}" for i in range(60)]
    ax = plotting.embedding_2d(Y, annotate=names, xlabel="lon", ylabel="lat")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("lon", "lat")
    assert [t.get_text() for t in ax.texts] == names
    assert ax.get_legend() is None and not _colorbars(ax.figure)


def test_embedding_2d_draws_on_given_axes():
    _, ax = plt.subplots()
    assert plotting.embedding_2d(Y, classes, ax=ax) is ax


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        (dict(Y=X3), "exactly 2 columns"),
        (dict(Y=Y, labels=classes[:10]), "labels has length 10"),
        (dict(Y=Y, annotate=["a"]), "annotate has length 1"),
        (dict(Y=Y[:, 0]), "2-D"),
        (dict(Y=np.where(Y > 2, np.nan, Y)), "NaN"),
    ],
)
def test_embedding_2d_rejects_bad_input(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        plotting.embedding_2d(**kwargs)


# ----------------------------------------------------------------------------- grid


def test_embedding_grid_titles_with_timings_and_shared_legend():
    panels = {"PCA": (Y, 0.4213), "MDS": Y * 2, "Isomap": (Y, 1.5), "LLE": (Y, 0.01)}
    fig = plotting.embedding_grid(panels, classes, suptitle="compare")
    assert isinstance(fig, Figure)
    visible = [ax for ax in fig.axes if ax.axison]
    assert [ax.get_title() for ax in visible] == [
        "PCA (0.42 s)",
        "MDS",
        "Isomap (1.50 s)",
        "LLE (0.01 s)",
    ]
    assert len(fig.axes) == 6  # 2 rows x 3 columns, two switched off
    assert all(not ax.get_xticks().size and not ax.get_yticks().size for ax in visible)
    assert fig.get_figwidth() <= plotting.COLUMN_WIDTH
    assert len(fig.legends) == 1 and fig.get_suptitle() == "compare"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["0", "1", "2"]


def test_embedding_grid_titles_keep_formulas_whole_and_their_own_line_breaks():
    # textwrap alone split "$c_0 = 0$" over two lines (raw TeX) and dropped "\n"
    formula = r"Gaussian kernel of width $\gamma = 2$ and offset $c_0 = 0$"
    for ncols in (2, 3, 4, 5, 6):  # panel widths from 3 inches down to 1
        panels = {formula: Y, "Isomap\nk = 5": Y, "kernel PCA (rbf)": (Y, 0.34)}
        fig = plotting.embedding_grid(panels, ncols=ncols)
        titles = [ax.get_title() for ax in fig.axes if ax.axison]
        assert "(0.34 s)" in titles[2]  # a time is never split from its unit
        lines = titles[0].split("\n")
        assert all(line.count("$") % 2 == 0 for line in lines), lines
        assert r"$\gamma = 2$" in titles[0] and "$c_0 = 0$" in titles[0]
        assert titles[1].split("\n")[0] == "Isomap"
        plt.close(fig)


def test_embedding_grid_continuous_labels_get_one_colorbar():
    fig = plotting.embedding_grid(
        {"a": Y, "b": Y}, Y[:, 1], ncols=2, legend_title="height"
    )
    (cbar,) = _colorbars(fig)
    assert cbar.get_ylabel() == "height" and not fig.legends


def test_embedding_grid_without_labels():
    fig = plotting.embedding_grid({"only": Y})
    assert len(fig.axes) == 1 and not fig.legends and not _colorbars(fig)


@pytest.mark.parametrize(
    "panels, labels, pattern",
    [
        ({}, None, "non-empty dict"),
        ({"a": X3}, None, r"panels\['a'\] must have exactly 2 columns"),
        ({"a": Y}, classes[:5], "labels has length 5"),
        ({"a": (Y, -1.0)}, None, "seconds"),
    ],
)
def test_embedding_grid_rejects_bad_input(panels, labels, pattern):
    with pytest.raises(ValueError, match=pattern):
        plotting.embedding_grid(panels, labels)


def test_no_house_figure_is_wider_than_the_column():
    figures = [
        plotting.embedding_grid({str(k): Y for k in range(7)}, classes, ncols=4),
        plotting.image_grid(rng.uniform(size=(2, 12, 16)), image_shape=(4, 4)),
        plotting.subplots(2, 5)[0],
        plotting.embedding_2d(Y).figure,
        plotting.scatter_3d(X3, X3[:, 0]).figure,
    ]
    assert all(fig.get_figwidth() <= plotting.COLUMN_WIDTH + 1e-9 for fig in figures)


def test_subplots_divides_the_column_and_refuses_a_wider_figure():
    fig, axes = plotting.subplots(1, 3, aspect=1.0, projection="3d")
    assert axes.shape == (3,) and all(ax.name == "3d" for ax in axes)
    assert fig.get_size_inches() == pytest.approx((plotting.COLUMN_WIDTH, 6.1 / 3))
    fig, ax = plotting.subplots()
    assert isinstance(ax, Axes)
    with pytest.raises(ValueError, match="wider than the text column"):
        plotting.subplots(1, 2, width=10)


# --------------------------------------------------------------------------- curves


def test_curves_styles_are_distinct_and_labelled():
    n = np.array([10, 100, 1000])
    series = {"a": 1 / n, "b": 2 / n, "c": (n[:2], [1.0, 2.0])}
    ax = plotting.curves(
        n, series, xlabel="n", ylabel="error", logx=True, logy=True, title="t"
    )
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("n", "error", "t")
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lines = ax.get_lines()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "c"]
    assert (
        len({l.get_linestyle() for l in lines}) == 3
        and len({l.get_marker() for l in lines}) == 3
    )
    assert [to_hex(l.get_color()) for l in lines] == [
        c.lower() for c in plotting.LINE_COLOURS[:3]
    ]
    np.testing.assert_array_equal(lines[2].get_xdata(), [10, 100])


def test_curves_style_override_and_no_markers():
    x = np.arange(4.0)
    styles = {"theory": {"linestyle": ":", "color": "k"}}
    series = {"data": x, "theory": x**2}
    ax = plotting.curves(
        x, series, xlabel="x", ylabel="y", markers=False, styles=styles
    )
    data, theory = ax.get_lines()
    assert data.get_marker() in ("None", None, "")
    assert theory.get_linestyle() == ":" and to_hex(theory.get_color()) == "#000000"
    assert ax.get_xscale() == "linear"


@pytest.mark.parametrize(
    "x, series, pattern",
    [
        (
            np.arange(3),
            {"a": np.arange(4)},
            r"series\['a'\] has length 4 but there are 3",
        ),
        (None, {"a": np.arange(4)}, "has no x values"),
        (np.arange(3), {}, "non-empty dict"),
        (np.arange(3), {"a": np.ones((3, 2))}, "must be 1-D"),
    ],
)
def test_curves_rejects_bad_input(x, series, pattern):
    with pytest.raises(ValueError, match=pattern):
        plotting.curves(x, series, xlabel="x", ylabel="y")


def test_curves_requires_axis_labels():
    with pytest.raises(TypeError):
        plotting.curves(np.arange(3), {"a": np.arange(3)})


def test_curves_legend_location():
    ax = plotting.curves(
        [1, 2], {"a": [1, 2]}, xlabel="x", ylabel="y", legend_loc="lower right"
    )
    assert ax.get_legend()._loc == 4  # matplotlib's code for "lower right"


def test_a_backend_loaded_inside_a_plot_keeps_its_interactive_mode(tmp_path):
    # Regression: rc_context rolled back the interactive mode that Jupyter's inline
    # backend switches on when it is loaded, so after a first figure drawn by
    # dr_lib.plotting no later figure of the notebook was shown. A stand-in backend does
    # the same on import.
    import os
    import subprocess
    import sys

    (tmp_path / "interactive_backend.py").write_text(
        "import matplotlib\n"
        "from matplotlib.backends.backend_agg import FigureCanvasAgg as FigureCanvas\n"
        "matplotlib.interactive(True)\n"
    )
    code = (
        "import matplotlib as mpl\n"
        "from dr_lib import plotting\n"
        "plotting.curves([1, 2], {'a': [1, 2]}, xlabel='x', ylabel='y')\n"
        "assert mpl.is_interactive(), 'interactive mode rolled back'\n"
    )
    env = {
        **os.environ,
        "MPLBACKEND": "module://interactive_backend",
        "PYTHONPATH": os.pathsep.join(
            [str(tmp_path), os.environ.get("PYTHONPATH", "")]
        ),
    }
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------- images


def test_image_grid_draws_one_panel_per_image_with_column_titles():
    images = rng.uniform(size=(2, 3, 16))
    fig = plotting.image_grid(
        images, image_shape=(4, 4), col_titles=["a", "b", "c"], vmin=0, vmax=1
    )
    assert isinstance(fig, Figure) and len(fig.axes) == 6
    assert [ax.get_title() for ax in fig.axes[:3]] == ["a", "b", "c"]
    np.testing.assert_array_equal(
        fig.axes[4].images[0].get_array(), images[1, 1].reshape(4, 4)
    )
    assert fig.axes[0].images[0].get_clim() == (0, 1)


@pytest.mark.parametrize(
    "shape, titles, pattern",
    [((2, 3, 15), None, "n_rows, n_cols, 16"), ((2, 3, 16), ["a"], "one per column")],
)
def test_image_grid_rejects_bad_input(shape, titles, pattern):
    with pytest.raises(ValueError, match=pattern):
        plotting.image_grid(np.zeros(shape), image_shape=(4, 4), col_titles=titles)


# --------------------------------------------------------------------------- tables


def test_table_has_a_caption_and_fixed_decimals():
    import pandas as pd

    frame = pd.DataFrame({"T(10)": [0.91234, 0.5]}, index=["ours", "sklearn"])
    styled = plotting.table(frame, "Trustworthiness of two embeddings.", precision=2)
    html = styled.to_html()
    assert "<caption>Trustworthiness of two embeddings.</caption>" in html
    assert "0.91" in html and "0.912" not in html
    assert (
        styled.data is frame
        and html
        == plotting.table(
            frame, "Trustworthiness of two embeddings.", precision=2
        ).to_html()
    )


def test_table_shows_a_missing_value_as_a_dash():
    import pandas as pd

    frame = pd.DataFrame({"vs dr_lib": [0.25, np.nan]}, index=["sklearn", "dr_lib"])
    html = plotting.table(frame, "A comparison with one empty cell.").to_html()
    assert ">nan<" not in html
    assert f">{plotting.NO_VALUE}</td>" in html and "0.250" in html


@pytest.mark.parametrize(
    "frame, caption, pattern",
    [([[1.0]], "c", "pandas DataFrame"), (None, "  ", "caption")],
)
def test_table_rejects_bad_input(frame, caption, pattern):
    import pandas as pd

    frame = pd.DataFrame([[1.0]]) if frame is None else frame
    with pytest.raises(ValueError, match=pattern):
        plotting.table(frame, caption)


# -------------------------------------------------------------------- displacements


def _segments(ax):
    lines = [c for c in ax.collections if hasattr(c, "get_segments")]
    assert len(lines) == 1
    return np.array(lines[0].get_segments())


def test_displacement_map_magnifies_every_offset():
    moved = Y + 0.01 * rng.normal(size=Y.shape)
    ax = plotting.displacement_map(
        Y, moved, magnify=20, xlabel="east (km)", ylabel="north (km)"
    )
    segments = _segments(ax)
    np.testing.assert_allclose(segments[:, 0], Y)
    np.testing.assert_allclose(segments[:, 1] - segments[:, 0], 20 * (moved - Y))
    assert ax.get_xlabel() == "east (km)" and ax.get_ylabel() == "north (km)"
    assert any("× 20" in t.get_text() for t in ax.get_legend().get_texts())
    assert ax.figure.get_size_inches()[0] <= plotting.COLUMN_WIDTH


def test_displacement_map_names_and_their_offsets():
    names = [f"p{i}" for i in range(len(Y))]
    ax = plotting.displacement_map(
        Y, Y, names=names, name_offsets={"p3": (-20, -9)}, xlabel="x", ylabel="y"
    )
    texts = {t.get_text(): t for t in ax.texts}
    assert set(texts) == set(names)
    assert texts["p3"].xyann == (-20, -9) and texts["p0"].xyann == (3, 3)


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"moved": Y[:-1]}, "one moved position per reference"),
        ({"magnify": 0}, "magnify"),
        ({"names": ["a"] * len(Y), "name_offsets": {"b": (1, 1)}}, "not in names"),
        ({"name_offsets": {"a": (1, 1)}}, "not in names"),
    ],
)
def test_displacement_map_rejects_bad_input(kwargs, pattern):
    arguments = {"moved": Y, "xlabel": "x", "ylabel": "y", **kwargs}
    with pytest.raises(ValueError, match=pattern):
        plotting.displacement_map(Y, **arguments)


# ------------------------------------------------- house defaults: light and dark pages


def _three_d_pair():
    fig, axes = plotting.subplots(1, 2, projection="3d")
    for ax in axes:
        plotting.scatter_3d(X3, X3[:, 0], ax=ax)
    return fig


#: One figure of every kind dr_lib.plotting draws, with legends, bars and notes.
HOUSE_FIGURES = {
    "embedding_2d, categories": lambda: plotting.embedding_2d(Y, classes).figure,
    "embedding_2d, ten classes": lambda: (
        plotting.embedding_2d(Y, np.arange(60) % 10).figure
    ),
    "embedding_2d, continuous": lambda: plotting.embedding_2d(Y, Y[:, 0]).figure,
    "embedding_2d, annotated": lambda: (
        plotting.embedding_2d(Y, annotate=[f"city {i}" for i in range(60)]).figure
    ),
    "embedding_grid": lambda: plotting.embedding_grid(
        {str(k): (Y, 0.5) for k in range(6)}, classes, legend_title="class"
    ),
    "embedding_grid, continuous": lambda: plotting.embedding_grid(
        {str(k): Y for k in range(4)}, Y[:, 0], ncols=2
    ),
    "scatter_3d": lambda: plotting.scatter_3d(X3, X3[:, 0]).figure,
    "subplots of scatter_3d": _three_d_pair,
    "curves": lambda: (
        plotting.curves(
            np.arange(5.0),
            {f"method {k}": np.arange(5.0) * (k + 1) for k in range(8)},
            xlabel="$k$",
            ylabel="$Q_{NX}(k)$",
        ).figure
    ),
    "image_grid": lambda: plotting.image_grid(
        rng.uniform(size=(2, 10, 64)), image_shape=(8, 8), col_titles=list("abcdefghij")
    ),
    "displacement_map": lambda: (
        plotting.displacement_map(
            Y,
            Y + 0.01 * rng.normal(size=Y.shape),
            names=[f"p{i}" for i in range(len(Y))],
            xlabel="east (km)",
            ylabel="north (km)",
        ).figure
    ),
}


def _saved_png(fig):
    """The PNG the notebook shows (plotting.figure_png), as an array of pixels, and the
    width the page shows it at."""
    import io

    from matplotlib.image import imread

    png, size = plotting.figure_png(fig)
    return imread(io.BytesIO(png)), size["width"]


@pytest.mark.parametrize("kind", list(HOUSE_FIGURES))
def test_house_figure_fits_the_column_and_reads_at_9_points(kind):
    fig = HOUSE_FIGURES[kind]()
    _, width = _saved_png(fig)
    column_px = plotting.COLUMN_PIXELS
    assert width <= column_px, f"{width} px is wider than the column"
    scale = min(1.0, column_px / width)  # the page would shrink a wider image
    small = sorted(
        {
            (round(t.get_fontsize() * scale, 1), t.get_text())
            for t in fig.findobj(matplotlib.text.Text)
            if t.get_visible() and t.get_text().strip()
        }
    )
    assert small[0][0] >= plotting.MIN_FONT_SIZE, f"text below 9 pt: {small[:5]}"


@pytest.mark.parametrize("kind", list(HOUSE_FIGURES))
def test_house_figure_has_a_transparent_background(kind):
    fig = HOUSE_FIGURES[kind]()
    png, _ = _saved_png(fig)
    assert png.shape[2] == 4 and png[0, 0, 3] == 0 and png[-1, -1, 3] == 0
    # ...and is not blank: the ink is opaque.
    assert png[..., 3].max() == 1.0


def test_house_style_makes_every_later_figure_transparent():
    with matplotlib.rc_context():
        plotting.use_house_style()
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        assert fig.get_facecolor()[3] == 0 and ax.get_facecolor()[3] == 0
        assert _saved_png(fig)[0][0, 0, 3] == 0


# ------------------------------------------------ sharp figures, colour maps kept


#: The house figures that show values through a colour map: dark mode must not invert
#: them.
COLOUR_MAPPED = {
    "embedding_2d, continuous",
    "embedding_grid, continuous",
    "scatter_3d",
    "subplots of scatter_3d",
    "image_grid",
}


@pytest.mark.parametrize("kind", list(HOUSE_FIGURES))
def test_figures_with_a_colour_map_are_told_apart(kind):
    fig = HOUSE_FIGURES[kind]()
    assert plotting.uses_colour_map(fig) == (kind in COLOUR_MAPPED)


@pytest.mark.parametrize(
    "draw, expected",
    [
        (lambda ax: ax.imshow(np.eye(3)), True),
        (lambda ax: ax.pcolormesh(np.eye(3)), True),
        (lambda ax: ax.contourf(np.outer(np.arange(4), np.arange(4))), True),
        (lambda ax: ax.scatter([0, 1], [0, 1], c=[0.0, 1.0]), True),
        (lambda ax: ax.scatter([0, 1], [0, 1], color=["red", "blue"]), False),
        (lambda ax: ax.plot([0, 1], [0, 1]), False),
        (lambda ax: ax.fill_between([0, 1], [0, 1]), False),
    ],
)
def test_a_colour_map_is_found_whatever_draws_it(draw, expected):
    fig, ax = plt.subplots()
    draw(ax)
    assert plotting.uses_colour_map(fig) == expected


def test_heat_maps_and_weight_maps_have_a_colour_map():
    X, centre, neighbors, weights, _ = _neighbourhood_case()
    assert plotting.uses_colour_map(
        plotting.neighbourhood_weights(X, centre, neighbors, weights)
    )
    heat = plotting.heatmap(
        np.eye(2), row_labels=["a", "b"], col_labels=["u", "v"], xlabel="u", ylabel="a"
    )
    assert plotting.uses_colour_map(heat)


def _png_image(png):
    from PIL import Image

    return Image.open(io.BytesIO(png))


def test_a_figure_png_has_twice_the_pixels_of_its_size_on_the_page():
    fig = HOUSE_FIGURES["curves"]()
    png, size = plotting.figure_png(fig)
    image = _png_image(png)
    one_x = fig.get_window_extent().width  # pixels at the house resolution
    assert abs(size["width"] - one_x) < 0.1 * one_x  # tight box: near the figure
    assert image.size[0] in range(2 * size["width"] - 1, 2 * size["width"] + 2)
    assert image.text[plotting.COLOUR_MAP_KEY] == "no"
    images = plotting.figure_png(HOUSE_FIGURES["image_grid"]())[0]
    assert _png_image(images).text[plotting.COLOUR_MAP_KEY] == "yes"
    assert plotting.figure_png(plt.figure()) == (None, {})


def test_a_notebook_shows_every_figure_sharp():
    # In a notebook, Jupyter's inline backend is loaded with the first figure and then
    # installs its own 1x PNG formatter; every figure must still reach the page through
    # plotting.figure_png. Run as a notebook runs it: an IPython shell, the inline
    # backend as matplotlib's backend, the house style set before the first figure.
    import base64
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "from dr_lib import plotting\n"
        "plotting.use_house_style()\n"
        "ax = plotting.curves([1, 2], {'a': [1, 2]}, xlabel='x', ylabel='y')\n"
        "data, metadata = shell.display_formatter.format(ax.figure)\n"
        "print(json.dumps([data['image/png'], metadata['image/png']]))\n"
    )
    env = {**os.environ, "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    png, size = json.loads(result.stdout.strip().splitlines()[-1])
    width = _png_image(base64.b64decode(png)).size[0]
    assert width in range(2 * size["width"] - 1, 2 * size["width"] + 2)


def test_yellow_is_kept_for_areas_but_never_drawn_as_a_line_or_small_marker():
    assert plotting.YELLOW in plotting.OKABE_ITO
    assert plotting.YELLOW not in plotting.LINE_COLOURS
    assert len(plotting.LINE_COLOURS) == len(plotting.OKABE_ITO) - 1
    drawn = set()
    for fig in (make() for make in HOUSE_FIGURES.values()):
        for ax in fig.axes:
            drawn |= {to_hex(line.get_color()) for line in ax.get_lines()}
            drawn |= {
                to_hex(c)
                for collection in ax.collections
                if collection.get_array() is None  # not colour-mapped
                for c in collection.get_facecolor()
            }
    with matplotlib.rc_context():
        plotting.use_house_style()
        cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
        drawn |= {to_hex(c) for c in cycle}
    assert plotting.YELLOW.lower() not in drawn
    assert len(drawn & {c.lower() for c in plotting.LINE_COLOURS}) == 7


def _legend_outside(ax):
    ax.figure.draw_without_rendering()
    return ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1


def test_curves_legend_moves_outside_when_the_data_fill_the_axes():
    x = np.linspace(0, 1, 50)
    series = {f"noise {k}": rng.uniform(size=50) for k in range(4)}
    ax = plotting.curves(x, series, xlabel="x", ylabel="y", markers=False)
    assert _legend_outside(ax) and not plotting.legend_covers_data(ax)
    assert plotting.curves(x, series, xlabel="x", ylabel="y").figure.get_figwidth() <= (
        plotting.COLUMN_WIDTH
    )


def test_curves_legend_stays_inside_when_there_is_room():
    x = np.linspace(0, 1, 50)
    ax = plotting.curves(x, {"low": 0.1 * x, "lower": 0.05 * x}, xlabel="x", ylabel="y")
    assert not _legend_outside(ax) and not plotting.legend_covers_data(ax)


def test_curves_keeps_an_explicit_legend_place():
    x = np.linspace(0, 1, 50)
    series = {f"noise {k}": rng.uniform(size=50) for k in range(4)}
    ax = plotting.curves(x, series, xlabel="x", ylabel="y", legend_loc="lower right")
    assert not _legend_outside(ax) and plotting.legend_covers_data(ax)


def test_legend_covers_data_sees_a_line_between_two_distant_vertices():
    _, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="diagonal")  # two vertices, both far from the centre
    ax.legend(loc="center")
    assert plotting.legend_covers_data(ax)
    ax.legend(loc="upper left")
    assert not plotting.legend_covers_data(ax)


def test_embedding_grid_markers_shrink_with_many_points_in_small_panels():
    # Fig 12.2: 5,000 digits in panels 1.3 in wide merged into blots at the size that
    # suits a few hundred points.
    def marker_size(n_points, ncols):
        points = rng.normal(size=(n_points, 2))
        labels = np.arange(n_points) % 10
        panels = {str(k): points for k in range(4)}
        fig = plotting.embedding_grid(panels, labels, ncols=ncols)
        return fig.axes[0].collections[0].get_sizes()[0]

    few, many, many_wide = (
        marker_size(300, 2),
        marker_size(5000, 4),
        marker_size(5000, 3),
    )
    low, high = plotting.GRID_MARKER_SIZES
    assert few == high and low <= many < many_wide < high
    side = (plotting.COLUMN_WIDTH - 0.9) / 4 * 72  # points
    covered = 5000 * np.pi / 4 * many / side**2
    assert covered == pytest.approx(plotting.GRID_INK_SHARE, rel=0.01)


def test_curves_draw_a_line_without_markers_above_the_markers():
    # Fig 8.2: the closed forms r^D, thin lines, disappeared under the sampled markers.
    x = np.linspace(0, 1, 5)
    ax = plotting.curves(
        x,
        {"sampled": x**2, "closed form": x**2},
        xlabel="r",
        ylabel="F",
        styles={"closed form": {"marker": None}},
    )
    sampled, closed = ax.get_lines()
    assert closed.get_zorder() > sampled.get_zorder()


def test_embedding_grid_titles_never_touch_their_neighbours():
    panels = {
        "dr_lib Isomap": (Y, 1.31),
        "scikit-learn Isomap": (Y, 1.26),
        "Laplacian eigenmaps (heat kernel)": Y,
    }
    fig = plotting.embedding_grid(panels, classes)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    boxes = [ax.title.get_window_extent(renderer) for ax in fig.axes[:3]]
    assert all(left.x1 < right.x0 for left, right in zip(boxes, boxes[1:])), boxes
    assert "\n" in fig.axes[0].get_title()  # the time went onto a second line
    assert fig.axes[0].get_title().replace("\n", " ") == "dr_lib Isomap (1.31 s)"


# -------------------------------------------------------------- LLE neighbourhoods


def _neighbourhood_case():
    angle = np.linspace(0, 1.5, 12)
    X = np.column_stack([np.cos(angle), np.sin(angle)])
    neighbors = np.array([4, 6, 3, 7])
    weights = np.array([0.7, 0.6, -0.2, -0.1])
    return X, 5, neighbors, weights, angle


def test_neighbourhood_weights_draws_the_weights_and_the_reconstruction():
    X, centre, neighbors, weights, angle = _neighbourhood_case()
    fig = plotting.neighbourhood_weights(X, centre, neighbors, weights, Z=angle)
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(panels) == 2 and len(_colorbars(fig)) == 1
    cmap = matplotlib.colormaps["PuOr"]
    expected = sorted(to_hex(cmap((w / 0.7 + 1) / 2)) for w in weights)
    for ax, points in zip(panels, [X, np.column_stack([angle, 0 * angle])]):
        assert sorted(to_hex(line.get_color()) for line in ax.lines) == expected
        assert sorted(t.get_text() for t in ax.texts) == sorted(
            f"{w:.2f}" for w in weights
        )
        cross = [c for c in ax.collections if c.get_label().startswith("its recon")]
        np.testing.assert_allclose(
            cross[0].get_offsets()[0], weights @ points[neighbors]
        )
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {
        "point $i$",
        "its neighbours",
        "its reconstruction from the neighbours",
    }


def test_neighbourhood_weights_without_an_embedding_has_one_panel():
    X, centre, neighbors, weights, _ = _neighbourhood_case()
    fig = plotting.neighbourhood_weights(X, centre, neighbors, weights)
    assert len([ax for ax in fig.axes if ax.get_label() != "<colorbar>"]) == 1
    assert fig.get_size_inches()[0] <= plotting.COLUMN_WIDTH


@pytest.mark.parametrize(
    "change, pattern",
    [
        ({"centre": 12}, "centre"),
        ({"neighbors": np.array([4, 6, 3, 40])}, r"neighbors\[3\]"),
        ({"weights": np.ones(3)}, "weights"),
        ({"Z": np.zeros(5)}, "Z"),
        ({"Z": np.zeros((12, 3))}, "Z"),
    ],
)
def test_neighbourhood_weights_rejects_bad_input(change, pattern):
    X, centre, neighbors, weights, _ = _neighbourhood_case()
    arguments = {"centre": centre, "neighbors": neighbors, "weights": weights}
    arguments.update(change)
    with pytest.raises(ValueError, match=pattern):
        plotting.neighbourhood_weights(X, **arguments)


# ------------------------------------------------------------------------- heat maps


def test_heatmap_writes_every_value_on_one_shared_scale():
    values = np.arange(24, dtype=float).reshape(2, 3, 4) / 23
    fig = plotting.heatmap(
        values,
        row_labels=["a", "b", "c"],
        col_labels=["1", "2", "3", "4"],
        xlabel="$\\gamma$",
        ylabel="$C$",
        panel_titles=["left", "right"],
        highlight=(1, 2, 3),
    )
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(panels) == 2 and len(_colorbars(fig)) == 1
    assert fig.get_size_inches()[0] <= plotting.COLUMN_WIDTH
    for ax, block in zip(panels, values):
        assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in block.ravel()]
        assert ax.images[0].get_clim() == (0.0, 1.0)
    # dark cells get white text, light cells black (viridis runs dark to light)
    assert panels[0].texts[0].get_color() == "white"
    assert panels[1].texts[-1].get_color() == "black"
    outline = panels[1].patches[0]
    assert outline.get_xy() == (2.5, 1.5)
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["a", "b", "c"]
    assert panels[0].get_ylabel() == "$C$" and panels[1].get_title() == "right"


def test_heatmap_accepts_one_panel():
    fig = plotting.heatmap(
        [[0.1, 0.2], [0.3, 0.4]],
        row_labels=["x", "y"],
        col_labels=["u", "v"],
        xlabel="u",
        ylabel="x",
    )
    assert len([ax for ax in fig.axes if ax.get_label() != "<colorbar>"]) == 1


@pytest.mark.parametrize(
    "change, pattern",
    [
        ({"values": np.zeros(3)}, "values"),
        ({"row_labels": ["a"]}, "row_labels"),
        ({"col_labels": ["a", "b", "c"]}, "col_labels"),
        ({"panel_titles": ["a", "b"]}, "panel_titles"),
    ],
)
def test_heatmap_rejects_bad_input(change, pattern):
    arguments = {
        "values": np.zeros((2, 2)),
        "row_labels": ["a", "b"],
        "col_labels": ["u", "v"],
        "xlabel": "u",
        "ylabel": "a",
    }
    arguments.update(change)
    with pytest.raises(ValueError, match=pattern):
        plotting.heatmap(**arguments)


# ------------------------------------------------------------- colours in dark mode

HOUSE_CSS = Path(__file__).resolve().parents[2] / "_static" / "house.css"


def _dark_mode_filter():
    """The CSS filter through which a dark page shows a figure (house.css): the
    figures' rule applies ``--dr-dark-ink-filter``, which explorers share."""
    css = HOUSE_CSS.read_text(encoding="utf-8")
    figures = (
        r'html\[data-theme="dark"\][^{]*cell_output[^{]*img \{[^}]*filter: ([^;]+);'
    )
    rule = re.search(figures, css)
    assert rule.group(1) == "var(--dr-dark-ink-filter)", rule.group(1)
    return re.search(r"--dr-dark-ink-filter: ([^;]+);", css).group(1)


def test_colour_difference_matches_published_pairs():
    # Sharma, Wu & Dalal (2005), table 1: pairs 1, 7 and 17 with their ΔE00.
    pairs = [
        ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
        ((50, 0, 0), (50, -1, 2), 2.3669),
        ((50, 2.5, 0), (73, 25, -18), 27.1492),
    ]
    for lab1, lab2, expected in pairs:
        assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)


def test_css_filter_model_matches_chromium():
    # Pixels Chromium 156 painted for the old dark-mode filter, invert(0.92)
    # hue-rotate(180deg) saturate(1.5) brightness(1.2): orange, vermillion, black.
    old = "invert(0.92) hue-rotate(180deg) saturate(1.5) brightness(1.2)"
    painted = {
        "#E69F00": (218, 110, 0),
        "#D55E00": (255, 140, 0),
        "#000000": (255,) * 3,
    }
    for colour, pixel in painted.items():
        shown = apply_css_filter(hex_to_rgb(colour), old)
        np.testing.assert_allclose(shown * 255, pixel, atol=0.5)


def test_category_colours_stay_apart_in_dark_mode():
    # Dark mode shows every figure through house.css's filter; no two categories may
    # come closer than the closest two on a light page (the old filter turned digit 0's
    # orange and digit 4's vermillion into two oranges, ΔE00 10 where light mode's
    # closest pair is 20.6 apart).
    light = [hex_to_rgb(c) for c in plotting.CATEGORY_COLOURS]
    dark = [apply_css_filter(c, _dark_mode_filter()) for c in light]
    light_gap, *_ = closest_pair(light)
    dark_gap, i, j = closest_pair(dark)
    names = plotting.CATEGORY_COLOURS[i], plotting.CATEGORY_COLOURS[j]
    assert dark_gap >= light_gap, (
        f"in dark mode {names} are ΔE00 {dark_gap:.1f} apart, closer than any two "
        f"categories on a light page ({light_gap:.1f})"
    )
    # and the ink stays light: black text and lines become (near) white
    assert apply_css_filter(np.zeros(3), _dark_mode_filter()).min() > 0.9


# ------------------------------------------------------------------ readable ticks


def _log_curves(low, high):
    x = np.geomspace(low, high, 50)
    return plotting.curves(
        x, {"a": x, "b": 2 * x}, xlabel="x", ylabel="y", logx=True, logy=True
    ).figure


#: Log axes over ranges of 0.3 to 9 decades; the first is the perplexity–σ figure of
#: book/07_sne_tsne (σ from 2 to 60), whose x labels ran into each other.
LOG_RANGES = [(2, 60), (0.5, 3), (1, 30), (3, 300), (1e-6, 0.1), (1, 1e9), (40, 900)]


@pytest.mark.parametrize("low, high", LOG_RANGES)
def test_log_axes_show_no_overlapping_tick_labels(low, high):
    fig = _log_curves(low, high)
    plotting.figure_png(fig)
    assert not plotting.overlapping_tick_labels(fig)
    # every power of ten in view keeps its label, and at least two labels are left
    labels = [t for t in fig.axes[0].xaxis.get_ticklabels(which="both") if t.get_text()]
    assert len(labels) >= 2


@pytest.mark.parametrize("kind", list(HOUSE_FIGURES))
def test_house_figures_show_no_overlapping_tick_labels(kind):
    fig = HOUSE_FIGURES[kind]()
    plotting.figure_png(fig)
    assert not plotting.overlapping_tick_labels(fig)


def test_long_linear_tick_labels_are_thinned():
    ax = plotting.curves(
        np.linspace(1e6, 1.2e6, 5), {"a": np.arange(5.0)}, xlabel="x", ylabel="y"
    )
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=20))
    ax.xaxis.set_major_formatter("{x:,.0f} samples")
    assert plotting.overlapping_tick_labels(ax.figure)
    plotting.figure_png(ax.figure)
    assert not plotting.overlapping_tick_labels(ax.figure)


def test_overlap_is_detected():
    # the check itself: the perplexity–σ axis as matplotlib labels it
    fig = _log_curves(2, 60)
    assert plotting.overlapping_tick_labels(fig)


def test_a_grid_of_many_maps_fits_a_laptop_screen():
    # the 13 maps of book/11_case_studies, three a row, made a figure of 994 px
    fig = plotting.embedding_grid(
        {f"method {k}": (Y, 0.5) for k in range(13)}, np.arange(60) % 10
    )
    png, _ = plotting.figure_png(fig)
    height = int.from_bytes(png[20:24], "big") / plotting.PIXEL_DENSITY
    assert height <= plotting.MAX_FIGURE_HEIGHT * plotting.HOUSE_STYLE["figure.dpi"]
    assert fig.axes[0].get_subplotspec().get_gridspec().ncols == 4
    # a grid that fits keeps three a row, and an explicit choice is kept
    few = plotting.embedding_grid({str(k): Y for k in range(5)}, classes)
    assert few.axes[0].get_subplotspec().get_gridspec().ncols == 3
    two = plotting.embedding_grid({str(k): Y for k in range(13)}, classes, ncols=2)
    assert two.axes[0].get_subplotspec().get_gridspec().ncols == 2
