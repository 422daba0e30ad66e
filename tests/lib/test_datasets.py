"""Tests of dr_lib.datasets: the returned points satisfy the documented formulas."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_s_curve, make_swiss_roll
from sklearn.utils import Bunch

from dr_lib import datasets


def _swiss_roll_formula(U):
    t, h = U.T
    return np.column_stack((t * np.cos(t), h, t * np.sin(t)))


def _s_curve_formula(U):
    t, h = U.T
    return np.column_stack((np.sin(t), h, np.sign(t) * (np.cos(t) - 1)))


# --------------------------------------------------------------------------- manifolds


def test_swiss_roll_points_satisfy_the_parametrisation_with_returned_t():
    X, t = datasets.swiss_roll(400)
    assert X.shape == (400, 3) and X.dtype == np.float64 and t.shape == (400,)
    np.testing.assert_allclose(X[:, 0], t * np.cos(t), atol=1e-12)
    np.testing.assert_allclose(X[:, 2], t * np.sin(t), atol=1e-12)
    assert 1.5 * np.pi <= t.min() and t.max() <= 4.5 * np.pi


@pytest.mark.parametrize(
    "loader, maker, formula",
    [
        (datasets.swiss_roll, make_swiss_roll, _swiss_roll_formula),
        (datasets.s_curve, make_s_curve, _s_curve_formula),
    ],
)
@pytest.mark.parametrize("noise", [0.0, 0.2])
def test_manifold_matches_sklearn_and_chart_reproduces_clean_points(
    loader, maker, formula, noise
):
    X, t, U = loader(600, noise=noise, random_state=3, return_intrinsic=True)
    X_ref, t_ref = maker(600, noise=noise, random_state=3)
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(t, t_ref)
    np.testing.assert_array_equal(U[:, 0], t)
    residual = X - formula(U)
    # noise-free: exact; noisy: the residual is the added Gaussian noise
    np.testing.assert_allclose(residual.std(), noise, atol=0.02 if noise else 1e-12)
    assert np.abs(residual.mean()) < 0.05


def test_swiss_roll_hole_leaves_the_chart_square_empty():
    _, _, U = datasets.swiss_roll(3000, hole=True, return_intrinsic=True)
    t, h = U.T
    in_hole = (t > 2.5 * np.pi) & (t < 3.5 * np.pi) & (h > 7) & (h < 14)
    assert not in_hole.any()
    _, _, U_full = datasets.swiss_roll(3000, return_intrinsic=True)
    t, h = U_full.T
    assert ((t > 2.5 * np.pi) & (t < 3.5 * np.pi) & (h > 7) & (h < 14)).any()


def test_s_curve_range_of_t_and_height():
    _, t, U = datasets.s_curve(500, return_intrinsic=True)
    assert np.abs(t).max() <= 1.5 * np.pi
    assert 0 <= U[:, 1].min() and U[:, 1].max() <= 2


def test_severed_sphere_is_on_the_unit_sphere_with_the_cut_region_empty():
    X, phi, U = datasets.severed_sphere(2000, return_intrinsic=True)
    assert X.shape == (2000, 3) and phi.shape == (2000,)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-12)
    polar = np.arccos(np.clip(X[:, 2], -1, 1))
    assert polar.min() >= np.pi / 8 - 1e-12 and polar.max() <= 7 * np.pi / 8 + 1e-12
    azimuth = np.mod(np.arctan2(X[:, 1], X[:, 0]), 2 * np.pi)
    assert not (
        (azimuth > 2 * np.pi - 0.55 + 1e-9) & (azimuth < 2 * np.pi - 1e-9)
    ).any()
    np.testing.assert_allclose(azimuth, phi, atol=1e-9)
    np.testing.assert_allclose(U[:, 0], polar, atol=1e-7)


def test_severed_sphere_chart_reproduces_points_through_B_formula():
    X, _, U = datasets.severed_sphere(300, random_state=1, return_intrinsic=True)
    theta, phi = U.T
    expected = np.column_stack(
        (np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta))
    )
    np.testing.assert_allclose(X, expected, atol=1e-14)


@pytest.mark.parametrize(
    "loader", [datasets.swiss_roll, datasets.s_curve, datasets.severed_sphere]
)
def test_manifolds_are_deterministic_and_seeded(loader):
    a, b, c = loader(50)[0], loader(50)[0], loader(50, random_state=1)[0]
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


@pytest.mark.parametrize(
    "loader", [datasets.swiss_roll, datasets.s_curve, datasets.severed_sphere]
)
@pytest.mark.parametrize("n_samples", [0, -3, 2.5, True])
def test_manifolds_reject_bad_n_samples(loader, n_samples):
    with pytest.raises(ValueError, match="n_samples="):
        loader(n_samples)


@pytest.mark.parametrize("loader", [datasets.swiss_roll, datasets.s_curve])
def test_manifolds_reject_negative_noise(loader):
    with pytest.raises(ValueError, match=r"noise=-0.1 must be finite and >= 0"):
        loader(10, noise=-0.1)


# ------------------------------------------------------------------------ geography


@pytest.fixture(scope="module")
def capitals():
    return datasets.provincial_capitals()


def test_provincial_capitals_table(capitals):
    assert len(capitals) == 34
    assert {"name_zh", "name_en", "lat", "lon"} <= set(capitals.columns)
    assert capitals.name_en.is_unique and capitals.name_zh.is_unique
    assert capitals.lat.between(18, 48).all() and capitals.lon.between(73, 135).all()
    assert capitals.lat.dtype == np.float64 and capitals.lon.dtype == np.float64
    assert {
        "Beijing",
        "Taipei",
        "Hong Kong",
        "Macau",
        "Lhasa",
        "Urumqi",
        "Xi'an",
    } <= set(capitals.name_en)
    assert capitals.set_index("name_en").loc["Beijing", "name_zh"] == "北京"
    assert capitals.notna().all().all()


def test_provincial_capitals_known_positions(capitals):
    pos = capitals.set_index("name_en")[["lat", "lon"]]
    # northernmost Harbin, westernmost Urumqi, southernmost Haikou
    assert (
        pos.lat.idxmax() == "Harbin"
        and pos.lon.idxmin() == "Urumqi"
        and pos.lat.idxmin() == "Haikou"
    )


def test_beijing_shanghai_distance(capitals):
    pos = capitals.set_index("name_en")
    d = datasets.great_circle_distance(
        *pos.loc["Beijing", ["lat", "lon"]], *pos.loc["Shanghai", ["lat", "lon"]]
    )
    assert abs(d - 1070) / 1070 < 0.02


def test_great_circle_distance_known_values_and_vectorised():
    quarter = 2 * np.pi * 6371.0 / 4
    np.testing.assert_allclose(datasets.great_circle_distance(0, 0, 90, 0), quarter)
    np.testing.assert_allclose(
        datasets.great_circle_distance(0, 0, 0, 180), 2 * quarter
    )
    out = datasets.great_circle_distance(
        [0, 0], [0, 0], [0, 90], [90, 0], radius_km=1.0
    )
    np.testing.assert_allclose(out, [np.pi / 2, np.pi / 2])


def test_distance_matrix_is_a_metric(capitals):
    D = datasets.great_circle_distance_matrix(capitals.lat, capitals.lon)
    assert D.shape == (34, 34)
    np.testing.assert_array_equal(D, D.T)
    np.testing.assert_array_equal(np.diag(D), 0.0)
    assert (D[~np.eye(34, dtype=bool)] > 0).all()
    # triangle inequality for every triple
    assert (D[:, None, :] <= D[:, :, None] + D[None, :, :] + 1e-9).all()
    assert D.max() < 4500


def test_distance_rejects_swapped_coordinates_and_bad_lengths():
    with pytest.raises(ValueError, match=r"lat must lie in \[-90.0, 90.0\]"):
        datasets.great_circle_distance(116.4, 39.9, 121.5, 31.2)
    with pytest.raises(ValueError, match="lon has length 2 but there are 3"):
        datasets.great_circle_distance_matrix([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="radius_km"):
        datasets.great_circle_distance(0, 0, 1, 1, radius_km=0)


# ----------------------------------------------------------------------------- images


def test_digits():
    X, y = datasets.digits()
    assert X.shape == (1797, 64) and X.dtype == np.float64
    assert X.min() == 0 and X.max() == 16
    assert set(np.unique(y)) == set(range(10))


@pytest.fixture(scope="module")
def mnist():
    return datasets.mnist_subset()


def test_mnist_subset_full(mnist):
    X, y = mnist
    assert X.shape == (5000, 784) and X.dtype == np.float64
    assert X.min() == 0.0 and X.max() == 1.0
    np.testing.assert_array_equal(np.bincount(y), [500] * 10)


def test_mnist_subset_keeps_the_first_n_of_each_digit(mnist):
    X_all, y_all = mnist
    X, y = datasets.mnist_subset(n_per_class=7)
    np.testing.assert_array_equal(np.bincount(y), [7] * 10)
    first_threes = X_all[y_all == 3][:7]
    np.testing.assert_array_equal(X[y == 3], first_threes)
    X[:] = -1  # the cache must not be affected by callers
    assert datasets.mnist_subset(n_per_class=1)[0].min() == 0.0


@pytest.mark.parametrize("n", [0, 501, 2.5, "10"])
def test_mnist_subset_rejects_bad_n(n):
    with pytest.raises(ValueError, match="n_per_class="):
        datasets.mnist_subset(n_per_class=n)


# ------------------------------------------------------------------------------ faces


class _Recorder:
    """A stand-in for fetch_lfw_people that records its arguments."""

    def __init__(self, result=None, error=None):
        self.result, self.error, self.calls = result, error, []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        if self.error is not None:
            raise self.error
        return self.result


def test_faces_offline_returns_announced_digits_stand_in(monkeypatch):
    fetcher = _Recorder(
        error=OSError("Data not found and `download_if_missing` is False")
    )
    monkeypatch.setattr(datasets, "fetch_lfw_people", fetcher)
    with pytest.warns(
        datasets.StandInDataWarning,
        match=r"not available.*8x8 digits.*faces\('lfw', download=True\)",
    ):
        bunch = datasets.faces()
    assert fetcher.calls == [
        dict(min_faces_per_person=70, resize=0.4, download_if_missing=False)
    ]
    assert bunch.source == "digits-stand-in"
    assert bunch.images.shape == (1797, 8, 8) and bunch.data.shape == (1797, 64)
    assert list(bunch.target_names) == [str(k) for k in range(10)]
    np.testing.assert_array_equal(bunch.images.reshape(1797, 64), bunch.data)
    assert "stand-in" in bunch.DESCR
    assert issubclass(datasets.StandInDataWarning, UserWarning)


def test_faces_with_network_error_falls_back_too(monkeypatch):
    from urllib.error import URLError

    monkeypatch.setattr(
        datasets, "fetch_lfw_people", _Recorder(error=URLError("no network"))
    )
    with pytest.warns(datasets.StandInDataWarning):
        assert datasets.faces(download=True).source == "digits-stand-in"


def test_faces_returns_lfw_when_available(monkeypatch):
    rng = np.random.default_rng(0)
    images = rng.random((6, 5, 4)).astype(np.float32)
    fake = Bunch(
        data=images.reshape(6, 20),
        images=images,
        target=np.array([0, 1, 0, 1, 1, 0]),
        target_names=np.array(["Ada Lovelace", "Alan Turing"]),
        DESCR="fake LFW",
    )
    fetcher = _Recorder(result=fake)
    monkeypatch.setattr(datasets, "fetch_lfw_people", fetcher)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bunch = datasets.faces(download=True, min_faces_per_person=20, resize=0.5)
    assert fetcher.calls == [
        dict(min_faces_per_person=20, resize=0.5, download_if_missing=True)
    ]
    assert bunch.source == "lfw" and bunch.data.dtype == np.float64
    np.testing.assert_allclose(bunch.images, images)
    assert list(bunch.target_names) == ["Ada Lovelace", "Alan Turing"]


def test_faces_stand_in_source_never_looks_for_lfw(monkeypatch):
    """source="stand-in" gives the digits on every machine, cached LFW or not."""
    fetcher = _Recorder(result=Bunch())  # LFW "available": must not be used
    monkeypatch.setattr(datasets, "fetch_lfw_people", fetcher)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # asked for explicitly: nothing to announce
        bunch = datasets.faces("stand-in")
    assert fetcher.calls == []
    assert bunch.source == "digits-stand-in" and bunch.data.shape == (1797, 64)
    assert bunch.data.max() == 16.0  # the stand-in keeps its 0-16 scale


def test_faces_lfw_source_raises_instead_of_falling_back(monkeypatch):
    fetcher = _Recorder(error=OSError("Data not found"))
    monkeypatch.setattr(datasets, "fetch_lfw_people", fetcher)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no stand-in, so no stand-in warning either
        with pytest.raises(OSError, match=r"faces\('lfw', download=True\)") as raised:
            datasets.faces("lfw")
    assert isinstance(raised.value.__cause__, OSError)  # the loader's own reason
    assert fetcher.calls == [
        dict(min_faces_per_person=70, resize=0.4, download_if_missing=False)
    ]


def test_faces_validates_arguments(monkeypatch):
    fetcher = _Recorder(error=OSError())
    monkeypatch.setattr(datasets, "fetch_lfw_people", fetcher)
    with pytest.raises(ValueError, match="resize"):
        datasets.faces(resize=-1)
    with pytest.raises(ValueError, match="source='faces'.*'stand-in'"):
        datasets.faces("faces")
    assert fetcher.calls == []
