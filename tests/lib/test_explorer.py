"""Parameter explorers (dr_lib.plotting.parameter_explorer): the data each carries into
the page, its size, and its static twin for the PDF. The explorer as a reader moves it
is tested in tests/rendered_site/test_explorers.py."""

import base64
import io

import numpy as np
import pytest

from dr_lib import _explorer, metrics, plotting

pytest.importorskip("bokeh")


def _maps(grid_shape, n=60, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(*grid_shape, n, 2))


def test_the_grid_and_the_coordinates_round_trip():
    maps = _maps((4,))
    explorer = plotting.parameter_explorer(
        {"perplexity": [2, 5, 30, 100]},
        maps,
        labels=np.repeat(["a", "b", "c"], 20),
        quality={"KL": [1.5, 1.2, 1.0, 0.9]},
        rescale=False,
        align=False,
    )
    payload = _explorer.read_payload(explorer.html())
    assert payload["grid"] == {"perplexity": [2, 5, 30, 100]}
    np.testing.assert_array_equal(payload["frames"], maps.astype(np.float32))
    np.testing.assert_array_equal(payload["quality"]["KL"], [1.5, 1.2, 1.0, 0.9])


def test_two_parameters_round_trip_in_grid_order():
    maps = _maps((2, 3))
    explorer = plotting.parameter_explorer(
        {"method": ["Isomap", "LLE"], "k": [5, 10, 20]},
        maps,
        rescale=False,
        align=False,
        default={"method": "LLE", "k": 10},
    )
    assert explorer.default == (1, 1)
    payload = _explorer.read_payload(explorer.html())
    assert payload["grid"] == {"method": ["Isomap", "LLE"], "k": [5, 10, 20]}
    np.testing.assert_array_equal(
        payload["frames"][1, 2], maps[1, 2].astype(np.float32)
    )


def test_rescaled_and_aligned_frames_are_the_input_up_to_a_similarity():
    # Each frame is the same map, rotated, reflected, shifted and scaled: after
    # rescaling and alignment all frames are one and the same.
    rng = np.random.default_rng(1)
    base = rng.normal(size=(80, 2))
    frames = []
    for angle, flip, scale in [(0.3, 1, 2.0), (1.9, -1, 0.5), (4.0, 1, 7.0)]:
        c, s = np.cos(angle), np.sin(angle)
        rotation = np.array([[c, -s], [s, c]]) @ np.diag([1, flip])
        frames.append(scale * base @ rotation + rng.normal(size=2))
    explorer = plotting.parameter_explorer({"t": [1, 2, 3]}, np.array(frames))
    drawn = explorer.frames.astype(np.float64)
    for k in range(3):
        _, disparity = metrics.procrustes(drawn[k], frames[k])
        assert disparity < 1e-10
        np.testing.assert_allclose(drawn[k], drawn[1], atol=1e-5)
    np.testing.assert_allclose(np.sqrt((drawn[1] ** 2).sum(1).mean()), 1.0, rtol=1e-6)


def test_a_realistic_explorer_stays_within_the_budget():
    # 8 perplexities x 300 points, with labels and two quality curves: the size of the
    # first explorer of chapter 7.
    explorer = plotting.parameter_explorer(
        {"perplexity": [2, 5, 10, 20, 30, 50, 80, 100]},
        _maps((8,), n=300),
        labels=np.repeat(["A", "B", "C"], 100),
        quality={"KL": np.linspace(2, 1, 8), "kNN recall": np.linspace(0.2, 0.6, 8)},
    )
    assert explorer.payload_bytes <= _explorer.MAX_PAYLOAD_BYTES
    # the coordinates go as binary float32 (base64), not as decimal text
    assert explorer.payload_bytes < 8 * 300 * 2 * 4 * 1.6 + 40_000


def test_an_explorer_over_the_budget_is_refused():
    with pytest.raises(ValueError, match="MB"):
        plotting.parameter_explorer({"t": list(range(40))}, _maps((40,), n=2000))


def test_the_static_twin_is_a_png_of_the_default_state():
    explorer = plotting.parameter_explorer(
        {"γ": [0.1, 1.0, 10.0]},
        _maps((3,)),
        labels=np.arange(60) % 3,
        default={"γ": 1.0},
    )
    bundle, metadata = explorer._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(b"\x89PNG")
    import matplotlib.image

    image = matplotlib.image.imread(io.BytesIO(png))
    # twice the pixels of the size it is shown (and printed) at, as every house figure
    shown = metadata["image/png"]["width"]
    assert abs(image.shape[1] - plotting.PIXEL_DENSITY * shown) <= 1
    width = shown / plotting.HOUSE_STYLE["savefig.dpi"]
    assert width <= plotting.COLUMN_WIDTH + 0.25  # tight bounding box, 0.1 in padding
    assert image[0, 0, 3] == 0  # transparent, like every house figure
    assert "γ = 1" in explorer.default_label()
    assert "moves in the HTML book" in _explorer._moves_note(explorer)
    # The LaTeX builder of the PDF turns outputs holding an HTML table into tables:
    # the explorer's HTML must not look like one.
    assert "<table" not in bundle["text/html"]


def test_the_same_input_gives_the_same_page():
    make = lambda: plotting.parameter_explorer({"k": [1, 2]}, _maps((2,)))  # noqa: E731
    first, second = make().html(), make().html()
    ident = lambda text: text.split('id="', 1)[1].split('"', 1)[0]  # noqa: E731
    assert ident(first) == ident(second)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"grid": {"k": [1]}}, "at least 2"),
        ({"grid": {"k": [1, "a"]}}, "mixes"),
        ({"grid": {"a": [1, 2], "b": [1, 2], "c": [1, 2]}}, "one or two"),
        ({"embeddings": np.zeros((3, 10, 2))}, "shape"),
        ({"embeddings": np.full((2, 10, 2), np.nan)}, "NaN"),
        ({"embeddings": np.zeros((2, 10, 3))}, "2 columns"),
        ({"default": {"k": 7}}, "not one of"),
        ({"quality": {"KL": [1.0]}}, "one number per grid point"),
        ({"rescale": False, "align": True}, "align=True needs rescale=True"),
        ({"labels": np.arange(3)}, "labels"),
    ],
)
def test_bad_input_names_the_parameter_and_the_fix(kwargs, match):
    arguments = {"grid": {"k": [1, 2]}, "embeddings": _maps((2,), n=10)}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=match):
        plotting.parameter_explorer(
            arguments.pop("grid"), arguments.pop("embeddings"), **arguments
        )


def _widget_kinds(explorer):
    """bokeh model type of each parameter's control, in grid order."""
    import json
    import re

    text = re.search(r"application/json[^>]*>(.*?)</script>", explorer.html(), re.S)
    kinds = {}
    for node in _explorer._walk_json(json.loads(text.group(1).replace("<\\/", "</"))):
        name = (node.get("attributes") or {}).get("name", "")
        if isinstance(name, str) and name.startswith("dr_axis_"):
            kinds[int(name.rsplit("_", 1)[1])] = node["name"]
    return [kinds[k] for k in sorted(kinds)]


def test_the_last_parameter_gets_the_slider_and_choices_get_buttons():
    labels = {"t": ["0.1", "1", "∞"]}
    assert _widget_kinds(plotting.parameter_explorer(labels, _maps((3,)))) == ["Slider"]
    two = plotting.parameter_explorer(
        {"run": ["A", "B"], "iteration": [0, 10, 20]}, _maps((2, 3))
    )
    assert _widget_kinds(two) == ["RadioButtonGroup", "Slider"]
