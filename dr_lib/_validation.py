"""Input checks for the whole of dr_lib: the single place where arguments are validated.

Every check raises a :class:`ValueError` whose message names the parameter, shows the
offending value and says how to fix it, e.g.::

    n_neighbors=200 must be smaller than the number of samples (150); pass n_neighbors < 150.

Randomness is not handled here: estimators call :func:`sklearn.utils.check_random_state`
directly.
"""

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
    "check_class_labels",
    "check_pairs",
    "check_psd_matrix",
    "check_linear_map",
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


# ------------------------------------------------ metric learning (book/09_metric_learning)


def check_class_labels(y, n_samples, *, name="y"):
    """Validate class labels for a supervised method: one per sample, at least two classes.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels (ints or strings).
    n_samples : int
        Required length.
    name : str, default="y"

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The distinct labels, sorted.
    codes : ndarray of shape (n_samples,), dtype intp
        ``classes[codes] == y``: the class index of each sample.
    """
    if y is None:
        raise ValueError(
            f"This estimator requires y to be passed, but the target y is None; pass "
            f"{name}, one class label per sample."
        )
    arr = check_labels(y, n_samples, name=name)
    classes, codes = np.unique(arr, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"{name} has a single class ({classes[0]!r}); a supervised metric needs at "
            f"least two classes to separate. Pass labels of two or more classes."
        )
    return classes, codes.ravel()


def check_pairs(pairs, n_samples, *, name):
    """Validate index pairs ``(i, j)`` of samples, e.g. must-link or cannot-link constraints.

    Parameters
    ----------
    pairs : array-like of shape (n_pairs, 2)
        Row ``(i, j)`` names samples ``i`` and ``j`` (0-based indices into ``X``).
    n_samples : int
        Number of samples; every index must lie in ``[0, n_samples - 1]``.
    name : str
        Parameter name used in error messages.

    Returns
    -------
    ndarray of shape (n_pairs, 2), dtype int64
    """
    arr = np.asarray(pairs)
    if arr.size == 0:
        raise ValueError(
            f"{name} is empty; pass at least one pair of sample indices, e.g. "
            f"{name}=[[0, 1]]."
        )
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            f"{name} must have shape (n_pairs, 2), one pair (i, j) per row; got shape "
            f"{arr.shape}. Pass e.g. np.column_stack([i, j])."
        )
    if arr.dtype.kind not in "iu":
        as_float = _as_numeric(arr, name)
        _check_finite(as_float, name)
        if not np.all(as_float == np.round(as_float)):
            raise ValueError(
                f"{name} must hold integer sample indices; got non-integers such as "
                f"{as_float[as_float != np.round(as_float)][0]}. Pass indices into X."
            )
        arr = as_float
    arr = arr.astype(np.int64)
    outside = (arr < 0) | (arr >= n_samples)
    if outside.any():
        raise ValueError(
            f"{name} has indices outside [0, {n_samples - 1}], e.g. "
            f"{int(arr[outside][0])}; pass indices of rows of X (0-based)."
        )
    same = arr[:, 0] == arr[:, 1]
    if same.any():
        k = int(np.argmax(same))
        raise ValueError(
            f"{name}[{k}] = ({arr[k, 0]}, {arr[k, 1]}) pairs a sample with itself; its "
            f"distance is 0 under every metric. Drop pairs with i == j."
        )
    return arr


def check_psd_matrix(M, n_features=None, *, name="M", atol=1e-8):
    """Validate a metric matrix: square, symmetric, positive semi-definite.

    Parameters
    ----------
    M : array-like of shape (n_features, n_features)
    n_features : int, optional
        Required size; any square size if omitted.
    name : str, default="M"
    atol : float, default=1e-8
        Tolerance, relative to the largest entry of ``M``, for the symmetry and for the
        smallest eigenvalue.

    Returns
    -------
    ndarray of shape (n_features, n_features), dtype float64
        ``M`` symmetrised, ``(M + M.T) / 2``.
    """
    arr = check_array(M, name=name)
    n_features = arr.shape[0] if n_features is None else n_features
    if arr.shape != (n_features, n_features):
        raise ValueError(
            f"{name} must have shape ({n_features}, {n_features}) to match the "
            f"{n_features} features; got {arr.shape}."
        )
    scale = max(float(np.abs(arr).max()), 1.0)
    if np.abs(arr - arr.T).max() > atol * scale:
        raise ValueError(
            f"{name} must be symmetric; symmetrise it with ({name} + {name}.T) / 2."
        )
    arr = (arr + arr.T) / 2
    smallest = float(np.linalg.eigvalsh(arr)[0])
    if smallest < -atol * scale:
        raise ValueError(
            f"{name} must be positive semi-definite, or some squared distances would be "
            f"negative; its smallest eigenvalue is {smallest:.3g}. Clip the negative "
            f"eigenvalues to zero (dr_lib.mahalanobis.nearest_psd)."
        )
    return arr


def check_linear_map(A, n_features, *, n_components=None, name="init"):
    """Validate a linear map given as rows: shape ``(n_components, n_features)``.

    Parameters
    ----------
    A : array-like of shape (n_components, n_features)
        The map ``x -> A x``; each row is one output coordinate (``A`` is ``W^T`` in the
        book's notation ``z = W^T x``).
    n_features : int
        Required number of columns.
    n_components : int, optional
        Required number of rows, if fixed; at most ``n_features`` rows otherwise.
    name : str, default="init"

    Returns
    -------
    ndarray of shape (n_components, n_features), dtype float64
    """
    arr = check_array(A, name=name)
    rows, cols = arr.shape
    if cols != n_features:
        raise ValueError(
            f"{name} has {cols} columns but X has {n_features} features; pass an array "
            f"of shape (n_components, {n_features})."
        )
    if n_components is not None and rows != n_components:
        raise ValueError(
            f"{name} has {rows} rows but n_components={n_components}; pass "
            f"n_components={rows} or an init with {n_components} rows."
        )
    if rows > n_features:
        raise ValueError(
            f"{name} has {rows} rows, more than the {n_features} features; a linear map "
            f"cannot add dimensions. Pass at most {n_features} rows."
        )
    return arr
