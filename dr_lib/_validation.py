"""Input checks for the whole of dr_lib: the single place where arguments are validated.

Every check raises a :class:`ValueError` whose message names the parameter, shows the
offending value and says how to fix it, e.g.::

    n_neighbors=200 must be smaller than the number of samples (150); pass n_neighbors < 150.

Randomness is not handled here: estimators call :func:`sklearn.utils.check_random_state`
directly.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.sparse import csgraph

__all__ = [
    "check_array",
    "check_n_features",
    "check_vector",
    "check_integer",
    "check_n_components",
    "check_n_neighbors",
    "check_labels",
    "check_square_dissimilarity",
    "check_positive",
    "check_interval",
    "check_in",
    "check_connected",
    "check_int_pair",
    "check_layer_sizes",
    "check_kernel",
    "check_image_shape",
    "check_array_nd",
    "check_unit_range",
]

_NUMERIC_KINDS = "biuf"


def _as_numeric(X, name):
    """``X`` as a float64 array, or a ValueError that says it is not numeric."""
    arr = np.asarray(X)
    if arr.dtype.kind not in _NUMERIC_KINDS + "O":
        raise ValueError(
            f"{name} must be numeric; got an array of dtype {arr.dtype}. "
            f"Convert it first, e.g. {name}.astype(float), after encoding any text columns."
        )
    try:
        return arr.astype(np.float64, copy=False)  # no copy when X is already float64
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} must be numeric; its entries cannot be converted to float ({exc}). "
            f"Pass an array of numbers."
        ) from None


def _check_finite(arr, name):
    """Raise if ``arr`` has NaN or inf, giving the count and the first position."""
    bad = ~np.isfinite(arr)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} contains {int(bad.sum())} NaN or infinite value(s); the first is "
            f"{name}[{', '.join(map(str, first))}] = {arr[first]}. "
            f"Remove or impute them before calling this function."
        )


def check_array(X, *, name="X", min_samples=1, min_features=1):
    """Validate a data matrix and return it as a finite float64 array.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Rows are samples, as in scikit-learn (the sources write samples as columns).
    name : str, default="X"
        Parameter name used in error messages.
    min_samples, min_features : int, default=1
        Smallest acceptable number of rows and columns.

    Returns
    -------
    ndarray of shape (n_samples, n_features), dtype float64

    Raises
    ------
    ValueError
        If ``X`` is not numeric, not 2-D (a 1-D input gets a hint to reshape), contains
        NaN or inf (the message gives the count and the first position), or has too few
        samples or features.
    """
    arr = _as_numeric(X, name)
    if arr.ndim == 1:
        raise ValueError(
            f"{name} must be 2-D with shape (n_samples, n_features); got a 1-D array of "
            f"shape {arr.shape}. Use {name}.reshape(-1, 1) if it holds one feature, or "
            f"{name}.reshape(1, -1) if it holds one sample."
        )
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D with shape (n_samples, n_features); got {arr.ndim}-D "
            f"shape {arr.shape}. Flatten each sample into a row, e.g. "
            f"{name}.reshape(len({name}), -1)."
        )
    _check_finite(arr, name)
    _check_at_least(arr.shape[0], min_samples, "samples (rows)", name)
    _check_at_least(arr.shape[1], min_features, "features (columns)", name)
    return arr


def _check_at_least(count, minimum, what, name):
    """Raise if ``name`` has fewer than ``minimum`` ``what``."""
    if count < minimum:
        raise ValueError(
            f"{name} has {count} {what} but at least {minimum} are needed; pass more {what}."
        )


def check_n_features(X, n_features, *, name="X"):
    """Validate a data matrix that must have exactly ``n_features`` columns.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_features : int
        The required number of columns (e.g. 2 for a planar embedding, 3 for a 3-D plot).
    name : str, default="X"

    Returns
    -------
    ndarray of shape (n_samples, n_features), dtype float64
    """
    arr = check_array(X, name=name)
    if arr.shape[1] == n_features:
        return arr
    raise ValueError(
        f"{name} must have exactly {n_features} columns; got shape {arr.shape}. "
        f"Pass an array of shape (n_samples, {n_features})."
    )


def check_vector(v, *, name, n=None):
    """Validate a finite numeric 1-D array, optionally of length ``n``.

    Parameters
    ----------
    v : array-like of shape (n,)
    name : str
        Parameter name used in error messages.
    n : int, optional
        Required length.

    Returns
    -------
    ndarray of shape (n,), dtype float64
    """
    arr = _as_numeric(v, name)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D; got shape {arr.shape}. Pass a flat array, e.g. "
            f"np.ravel({name})."
        )
    _check_finite(arr, name)
    _check_length(arr, n, name)
    return arr


def _check_length(arr, n, name):
    """Raise if ``n`` is given and ``len(arr) != n``."""
    if n is not None and len(arr) != n:
        raise ValueError(
            f"{name} has length {len(arr)} but there are {n} samples; pass one entry "
            f"per sample."
        )


def check_integer(value, *, name, low=1, high=None):
    """Validate an integer in ``[low, high]`` (``high=None``: no upper bound).

    Floats with an integral value (``3.0``) are accepted; bools, other floats and
    non-numbers are rejected.

    Returns
    -------
    int
    """
    integral = isinstance(value, Integral) or (
        isinstance(value, Real) and float(value).is_integer()
    )
    if isinstance(value, (bool, np.bool_)) or not integral:
        raise ValueError(
            f"{name}={value!r} must be an integer; pass e.g. {name}={max(low, 2)}."
        )
    value = int(value)
    if value < low or (high is not None and value > high):
        upper = "" if high is None else f" and at most {high}"
        raise ValueError(
            f"{name}={value} must be at least {low}{upper}; pass {name} in "
            f"[{low}, {'inf' if high is None else high}]."
        )
    return value


def check_n_components(n_components, n_features, *, name="n_components"):
    """Validate the target dimension: an integer in ``[1, n_features]``.

    Returns
    -------
    int
    """
    n_components = check_integer(n_components, name=name)
    if n_components > n_features:
        raise ValueError(
            f"{name}={n_components} must not exceed the number of features "
            f"({n_features}); pass {name} <= {n_features}."
        )
    return n_components


def check_n_neighbors(n_neighbors, n_samples):
    """Validate a neighbourhood size: an integer in ``[1, n_samples - 1]``.

    A point is not its own neighbour, so at most ``n_samples - 1`` neighbours exist.

    Returns
    -------
    int
    """
    n_neighbors = check_integer(n_neighbors, name="n_neighbors")
    if n_neighbors >= n_samples:
        raise ValueError(
            f"n_neighbors={n_neighbors} must be smaller than the number of samples "
            f"({n_samples}); pass n_neighbors < {n_samples}."
        )
    return n_neighbors


def _has_missing(arr):
    """True where ``arr`` (numeric or object) holds a NaN."""
    if arr.dtype.kind == "f":
        return np.isnan(arr)
    if arr.dtype.kind == "O":
        return np.array([isinstance(v, float) and v != v for v in arr], dtype=bool)
    return np.zeros(arr.shape, dtype=bool)


def check_labels(y, n_samples, *, name="y"):
    """Validate one label (or colour value) per sample.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels (ints or strings) or a continuous value per sample.
    n_samples : int
        Required length.
    name : str, default="y"

    Returns
    -------
    ndarray of shape (n_samples,)
        The labels with their dtype kept.
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D with one entry per sample; got shape {arr.shape}. "
            f"Pass np.ravel({name}) if it is a column vector."
        )
    _check_length(arr, n_samples, name)
    missing = _has_missing(arr)
    if missing.any():
        raise ValueError(
            f"{name} contains {int(missing.sum())} NaN label(s); the first is "
            f"{name}[{int(np.argmax(missing))}]. Drop those samples or fill the labels."
        )
    return arr


def check_square_dissimilarity(D, *, name="D", squared=False, atol=1e-8):
    """Validate a dissimilarity matrix: square, finite, symmetric, non-negative, zero diagonal.

    Parameters
    ----------
    D : array-like of shape (n, n)
        Pairwise dissimilarities (or their squares, for classical MDS's ``D2``).
    name : str, default="D"
    squared : bool, default=False
        Whether ``D`` holds squared dissimilarities; only changes how messages describe it.
    atol : float, default=1e-8
        Tolerance for symmetry, non-negativity and the zero diagonal.

    Returns
    -------
    ndarray of shape (n, n), dtype float64
    """
    what = "squared dissimilarities" if squared else "dissimilarities"
    arr = check_array(D, name=name)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(
            f"{name} must be a square matrix of {what}; got shape {arr.shape}. "
            f"Pass the full (n, n) matrix, e.g. scipy.spatial.distance.squareform(d)."
        )
    asym = np.abs(arr - arr.T)
    if asym.max() > atol:
        i, j = np.unravel_index(np.argmax(asym), asym.shape)
        raise ValueError(
            f"{name} must be symmetric: {name}[{i}, {j}] = {arr[i, j]} but "
            f"{name}[{j}, {i}] = {arr[j, i]}. Symmetrise it with ({name} + {name}.T) / 2."
        )
    if arr.min() < -atol:
        i, j = np.unravel_index(np.argmin(arr), arr.shape)
        raise ValueError(
            f"{name} must hold non-negative {what}; {name}[{i}, {j}] = {arr[i, j]}. "
            f"Check how the matrix was computed."
        )
    diagonal = np.abs(np.diag(arr))
    if diagonal.max() > atol:
        i = int(np.argmax(diagonal))
        raise ValueError(
            f"{name} must have a zero diagonal (a point is at distance 0 from itself); "
            f"{name}[{i}, {i}] = {arr[i, i]}. Set it with np.fill_diagonal({name}, 0)."
        )
    return arr


def check_positive(value, *, name, strict=True):
    """Validate a finite real number that is positive (``strict``) or non-negative.

    Returns
    -------
    float
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError(
            f"{name}={value!r} must be a real number; pass e.g. {name}=1.0."
        )
    value = float(value)
    bad = not np.isfinite(value) or value < 0 or (strict and value == 0)
    if bad:
        sign = "> 0" if strict else ">= 0"
        raise ValueError(
            f"{name}={value} must be finite and {sign}; pass {name} {sign}."
        )
    return value


def check_interval(values, low, high, *, name):
    """Validate that every entry of ``values`` lies in the closed interval ``[low, high]``.

    Returns
    -------
    ndarray
        ``values`` as a float64 array.
    """
    arr = _as_numeric(values, name)
    outside = (arr < low) | (arr > high) | ~np.isfinite(arr)
    if outside.any():
        first = arr[outside].flat[0]
        raise ValueError(
            f"{name} must lie in [{low}, {high}]; {int(outside.sum())} value(s) do not, "
            f"e.g. {first}. Check the units and the order of the arguments."
        )
    return arr


def check_in(value, allowed, *, name):
    """Validate a string option against the allowed choices.

    Returns
    -------
    The value, unchanged.
    """
    allowed = tuple(allowed)
    if not isinstance(value, str) or value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(
            f"{name}={value!r} is not one of {choices}; pass one of these."
        )
    return value


def check_connected(graph, *, n_neighbors=None):
    """Validate that a neighbourhood graph is connected (edge directions ignored).

    Geodesic distances between two components would be infinite, and an embedding would
    place the components arbitrarily relative to each other, so a disconnected graph is an
    error rather than a silent infinity.

    Parameters
    ----------
    graph : sparse matrix or array-like of shape (n, n)
        Edge weights; absent entries are non-edges.
    n_neighbors : int, optional
        The neighbourhood size that built the graph, quoted in the message.

    Returns
    -------
    The graph, unchanged.
    """
    n_components, labels = csgraph.connected_components(graph, directed=False)
    if n_components == 1:
        return graph
    sizes = np.bincount(labels)
    used = "" if n_neighbors is None else f" with n_neighbors={n_neighbors}"
    larger = (
        "a larger n_neighbors"
        if n_neighbors is None
        else f"n_neighbors > {n_neighbors}"
    )
    raise ValueError(
        f"The neighbourhood graph{used} has {n_components} connected components "
        f"(sizes {np.array2string(np.sort(sizes)[::-1][:10])}); no embedding can place "
        f"one component relative to another. Pass {larger} (or a larger radius), or "
        f"embed each component separately."
    )


# ------------------------------------------------------------- autoencoders (book/10)


def check_int_pair(value, *, name, low=1):
    """Validate an integer or a pair of integers, each at least ``low``.

    Used for the ``(height, width)`` of images, strides and paddings: ``2`` means
    ``(2, 2)``.

    Returns
    -------
    tuple of two int
    """
    pair = (value, value) if isinstance(value, Integral) else value
    if isinstance(value, (bool, np.bool_, str)) or np.ndim(pair) != 1 or len(pair) != 2:
        raise ValueError(
            f"{name}={value!r} must be an integer or a pair of integers "
            f"(height, width); pass e.g. {name}={max(low, 1)} or "
            f"{name}=({max(low, 1)}, {max(low, 1)})."
        )
    return tuple(
        check_integer(v, name=f"{name}[{k}]", low=low) for k, v in enumerate(pair)
    )


def check_layer_sizes(sizes, *, name):
    """Validate a sequence of positive layer sizes (possibly empty), e.g. ``(128, 64)``.

    Returns
    -------
    tuple of int
    """
    if isinstance(sizes, (str, bytes)) or np.ndim(sizes) != 1:
        raise ValueError(
            f"{name}={sizes!r} must be a sequence of layer sizes, e.g. {name}=(128, 64), "
            f"or () for none."
        )
    return tuple(check_integer(v, name=f"{name}[{k}]") for k, v in enumerate(sizes))


def check_kernel(kernel, *, name="kernel"):
    """Validate a 2-D convolution kernel: finite numbers, or symbols.

    Parameters
    ----------
    kernel : array-like of shape (k_h, k_w)
        Numbers, or symbolic entries (an object array or a ``sympy.Matrix``), so that a
        convolution matrix can be built with symbols as in book/10_autoencoders.

    Returns
    -------
    ndarray of shape (k_h, k_w)
        float64 for numbers; the object array, unchanged, for symbols.
    """
    arr = np.asarray(kernel)
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(
            f"{name} must be a non-empty 2-D array of shape (k_h, k_w); got shape "
            f"{arr.shape}. For one channel of a torch weight w, pass w[0, 0]."
        )
    if arr.dtype.kind == "O" and not _all_numbers(arr):
        return arr
    arr = _as_numeric(arr, name)
    _check_finite(arr, name)
    return arr


def _all_numbers(arr):
    """True when every entry of an object array is a plain real number."""
    return all(isinstance(v, Real) for v in arr.flat)


def check_image_shape(image_shape, n_features, *, multiple_of=1, name="image_shape"):
    """Validate the ``(height, width)`` that each row of ``X`` is reshaped to.

    Parameters
    ----------
    image_shape : int or pair of int
    n_features : int
        The number of columns of ``X``, which must equal ``height * width``.
    multiple_of : int, default=1
        Both sides must be multiples of this (4 for two 2x2 poolings).

    Returns
    -------
    tuple of two int
    """
    height, width = check_int_pair(image_shape, name=name)
    if height * width != n_features:
        raise ValueError(
            f"X has {n_features} features per row, but {name}=({height}, {width}) "
            f"expects {height} x {width} = {height * width} pixels: each row must be one "
            f"image of shape ({height}, {width}), flattened. Pass X of shape "
            f"(n_samples, {height * width}), or set {name} to the (height, width) of "
            f"your images."
        )
    if height % multiple_of or width % multiple_of:
        raise ValueError(
            f"{name}=({height}, {width}): both sides must be multiples of "
            f"{multiple_of} (the network halves them with 2x2 poolings). Crop or pad the "
            f"images, e.g. to ({height - height % multiple_of}, "
            f"{width - width % multiple_of})."
        )
    return height, width


def check_array_nd(X, *, name="X", ndims=(2, 3)):
    """Validate a finite numeric array with one sample per entry of its first axis.

    Like :func:`check_array`, for data that may also be 3-D: sequences of shape
    (n_samples, n_steps, n_features) for the LSTM autoencoder.

    Returns
    -------
    ndarray, dtype float64
    """
    arr = _as_numeric(X, name)
    if arr.ndim not in ndims:
        shapes = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(
            f"{name} must be {shapes} with samples along the first axis; got shape "
            f"{arr.shape}. Reshape it, e.g. {name}.reshape(len({name}), -1)."
        )
    if arr.shape[0] == 0:
        raise ValueError(
            f"{name} has no samples (shape {arr.shape}); pass at least one."
        )
    _check_finite(arr, name)
    return arr


def check_unit_range(X, *, name="X", why="the model's output lies in [0, 1]"):
    """Warn when data leave [0, 1], and return the linear map that brings them into it.

    Returns
    -------
    low, scale : float
        ``(X - low) / scale`` lies in [0, 1]; ``(0.0, 1.0)`` (no change, no warning) when
        ``X`` already does.
    """
    low, high = float(np.min(X)), float(np.max(X))
    if low >= 0.0 and high <= 1.0:
        return 0.0, 1.0
    scale = high - low if high > low else 1.0
    warnings.warn(
        f"{name} has values in [{low:.4g}, {high:.4g}], outside [0, 1], but {why}. "
        f"{name} is rescaled to ({name} - {low:.4g}) / {scale:.4g} for training, and "
        f"reconstructions are mapped back. Scale {name} into [0, 1] yourself (e.g. "
        f"divide 8-bit pixels by 255) to silence this warning.",
        UserWarning,
        stacklevel=3,
    )
    return low, scale
