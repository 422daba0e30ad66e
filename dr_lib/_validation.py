"""Input checks for the whole of dr_lib: the single place where arguments are validated.

Every check raises a :class:`ValueError` whose message names the parameter, shows the
offending value and says how to fix it, e.g.::

    n_neighbors=200 must be smaller than the number of samples (150);
    pass n_neighbors < 150.

Some messages also carry the phrase that scikit-learn's estimator checks look for
("Reshape your data", "Complex data not supported", "0 feature(s) (shape=...) while a
minimum of 1 is required", "X has 3 features, but PCA is expecting 4 features as
input"), so that dr_lib's estimators pass ``sklearn.utils.estimator_checks`` with
dr_lib's own messages. Entries that are not numbers raise :class:`DataTypeError`, which
is both a ``TypeError`` (as Python and scikit-learn raise for a wrong type) and a
``ValueError`` (as every other dr_lib input error).

Randomness is not handled here: estimators call :func:`sklearn.utils.check_random_state`
directly.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from dr_lib._linalg import nonzero_eigenvalues

__all__ = [
    "DataTypeError",
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
    "check_transform_input",
    "check_positive_spectrum",
    "check_neighbor_indices",
    "check_int_pair",
    "check_layer_sizes",
    "check_kernel",
    "check_image_shape",
    "check_array_nd",
    "check_unit_range",
    "check_same_shape",
    "check_unused",
    "check_batch",
    "check_solver",
    "check_umap_neighbors",
    "check_min_dist",
]

_NUMERIC_KINDS = "biuf"


class DataTypeError(TypeError, ValueError):
    """Entries that are not numbers (text, dictionaries, complex values, a sparse
    matrix).

    A ``TypeError`` by nature and a ``ValueError`` by dr_lib's contract (every input
    error is one), so ``except ValueError`` and ``except TypeError`` both catch it.
    """


def _as_numeric(X, name):
    """``X`` as a float64 array, or a DataTypeError that says why it is not numeric."""
    if sp.issparse(X):
        raise DataTypeError(
            f"{name} is a scipy.sparse matrix, but sparse input is not supported: the "
            f"methods of dr_lib work on dense arrays. Pass {name}.toarray()."
        )
    arr = np.asarray(X)
    if arr.dtype.kind == "c":
        raise DataTypeError(
            f"{name} must be numeric and real; Complex data not supported (dtype "
            f"{arr.dtype}). Pass {name}.real, or np.abs({name}) for the moduli."
        )
    if arr.dtype.kind not in _NUMERIC_KINDS + "O":
        raise DataTypeError(
            f"{name} must be numeric; got an array of dtype {arr.dtype}. "
            f"Convert it first, e.g. {name}.astype(float), after encoding any text "
            "columns."
        )
    try:
        return arr.astype(np.float64, copy=False)  # no copy when X is already float64
    except (TypeError, ValueError) as exc:
        raise DataTypeError(
            f"{name} must be numeric; its entries cannot be converted to float "
            f"({exc}). Pass an array of numbers."
        ) from None


def _check_finite(arr, name):
    """Raise if ``arr`` has NaN or inf, giving the count and the first position.

    A finite sum proves every entry finite (one NaN or inf makes the sum NaN or inf) in
    one pass without a temporary array; only a non-finite sum, which finite entries can
    also give by overflow, needs the entry-by-entry test.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        total = arr.sum()
    if np.isfinite(total):
        return
    bad = ~np.isfinite(arr)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} contains {int(bad.sum())} NaN or infinite value(s); the first is "
            f"{name}[{', '.join(map(str, first))}] = {arr[first]}. "
            f"Remove or impute them before calling this function."
        )


def check_array(X, *, name="X", min_samples=1, min_features=1, copy=False):
    """Validate a data matrix and return it as a finite float64 array.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Rows are samples, as in scikit-learn (the sources write samples as columns).
    name : str, default="X"
        Parameter name used in error messages.
    min_samples, min_features : int, default=1
        Smallest acceptable number of rows and columns.
    copy : bool, default=False
        Return an array that shares no memory with ``X``, for an estimator that keeps it
        (a float64 ``X`` is otherwise returned as it is, not copied).

    Returns
    -------
    ndarray of shape (n_samples, n_features), dtype float64

    Raises
    ------
    DataTypeError
        If ``X`` is sparse, complex or not numeric (a ``ValueError`` too).
    ValueError
        If ``X`` is not 2-D (a 1-D input gets a hint to reshape), contains NaN or inf
        (the message gives the count and the first position), or has too few samples or
        features.
    """
    arr = _as_numeric(X, name)
    if arr.ndim == 1:
        raise ValueError(
            f"{name} must be 2-D with shape (n_samples, n_features); got a 1-D array "
            f"of shape {arr.shape}. Reshape your data: {name}.reshape(-1, 1) if it "
            f"holds one feature, or {name}.reshape(1, -1) if it holds one sample."
        )
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D with shape (n_samples, n_features); got {arr.ndim}-D "
            f"shape {arr.shape}. Flatten each sample into a row, e.g. "
            f"{name}.reshape(len({name}), -1)."
        )
    _check_at_least(arr.shape, 0, min_samples, "sample(s)", name)
    _check_at_least(arr.shape, 1, min_features, "feature(s)", name)
    _check_finite(arr, name)
    return arr.copy() if copy and np.may_share_memory(arr, X) else arr


def _check_at_least(shape, axis, minimum, what, name):
    """Raise if ``name`` (of this ``shape``) has fewer than ``minimum`` rows or
    columns."""
    if shape[axis] < minimum:
        raise ValueError(
            f"{name} has {shape[axis]} {what} (shape={shape}) while a minimum of "
            f"{minimum} is required; pass at least {minimum} "
            f"{'rows' if axis == 0 else 'columns'}."
        )


def check_n_features(X, n_features, *, name="X"):
    """Validate a data matrix that must have exactly ``n_features`` columns.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_features : int
        The required number of columns (e.g. 2 for a planar embedding, 3 for a 3-D
        plot).
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


def check_square_dissimilarity(
    D, *, name="D", squared=False, atol=1e-8, min_samples=1, copy=False
):
    """Validate a dissimilarity matrix: square, finite, symmetric, non-negative, zero
    diagonal.

    Parameters
    ----------
    D : array-like of shape (n, n)
        Pairwise dissimilarities (or their squares, for classical MDS's ``D2``).
    name : str, default="D"
    squared : bool, default=False
        Whether ``D`` holds squared dissimilarities; only changes how messages describe
        it.
    atol : float, default=1e-8
        Tolerance for symmetry, non-negativity and the zero diagonal.
    min_samples : int, default=1
        Smallest acceptable n.
    copy : bool, default=False
        Return a matrix that shares no memory with ``D`` (see :func:`check_array`).

    Returns
    -------
    ndarray of shape (n, n), dtype float64
    """
    what = "squared dissimilarities" if squared else "dissimilarities"
    arr = check_array(D, name=name, min_samples=min_samples, copy=copy)
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
            f"{name}[{j}, {i}] = {arr[j, i]}. Symmetrise it with ({name} + {name}.T) / "
            "2."
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
    """Validate that every entry of ``values`` lies in the closed interval
    ``[low, high]``.

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
            f"{name} must lie in [{low}, {high}]; {int(outside.sum())} value(s) do "
            f"not, e.g. {first}. Check the units and the order of the arguments."
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
    place the components arbitrarily relative to each other, so a disconnected graph is
    an error rather than a silent infinity.

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


def check_transform_input(estimator, X, *, name="X"):
    """Validate the input of a fitted estimator's ``transform``.

    The estimator must be fitted (else scikit-learn's ``NotFittedError``, a ValueError
    that says to call ``fit``), and ``X`` must be a finite numeric matrix with the
    ``n_features_in_`` columns seen in ``fit``.

    Returns
    -------
    ndarray of shape (n_samples, estimator.n_features_in_), dtype float64
    """
    from sklearn.utils.validation import check_is_fitted  # only here: stays light

    check_is_fitted(estimator)
    arr = check_array(X, name=name)
    expected = estimator.n_features_in_
    if arr.shape[1] != expected:
        raise ValueError(
            f"{name} has {arr.shape[1]} features, but {type(estimator).__name__} is "
            f"expecting {expected} features as input (it was fitted on {expected} "
            f"columns); pass an array of shape (n_samples, {expected})."
        )
    return arr


def check_positive_spectrum(eigenvalues, n_components):
    """Validate that the ``n_components`` leading eigenvalues are all non-zero.

    Kernel PCA divides by sqrt(λ_j) (book/03_kernel_pca), so each kept eigenvalue of the
    centred kernel matrix must be positive beyond round-off. Zero is judged by
    :func:`dr_lib._linalg.nonzero_eigenvalues`, scikit-learn's rule.

    Parameters
    ----------
    eigenvalues : ndarray
        Eigenvalues in decreasing order, at least ``n_components`` of them.
    n_components : int

    Returns
    -------
    The eigenvalues, unchanged.
    """
    rank = int(nonzero_eigenvalues(eigenvalues).sum())
    if rank < n_components:
        raise ValueError(
            f"n_components={n_components} exceeds the number of non-zero eigenvalues "
            f"of the centred kernel matrix ({rank}; the feature vectors span only "
            f"{rank} dimensions). Pass n_components <= {rank}, n_components=None to "
            "keep them all, or a kernel with a richer feature space."
        )
    return eigenvalues


def check_neighbor_indices(neighbors, n_samples):
    """Validate neighbour indices: an integer array with one row per sample.

    Parameters
    ----------
    neighbors : array-like of int, shape (n_samples, n_neighbors)
        ``neighbors[i]`` lists indices into the samples, as returned by
        :func:`dr_lib.graphs.kneighbors`.
    n_samples : int

    Returns
    -------
    ndarray of shape (n_samples, n_neighbors)
    """
    arr = np.asarray(neighbors)
    shape_ok = arr.ndim == 2 and arr.shape[0] == n_samples and arr.shape[1] >= 1
    if not shape_ok or arr.dtype.kind not in "iu":
        raise ValueError(
            f"neighbors must be an integer array with one row per sample ({n_samples}) "
            f"and at least one column; got shape {arr.shape} and dtype {arr.dtype}. "
            f"Pass the indices returned by dr_lib.graphs.kneighbors."
        )
    if arr.size and (arr.min() < 0 or arr.max() >= n_samples):
        raise ValueError(
            f"neighbors must hold indices in [0, {n_samples - 1}]; got values from "
            f"{arr.min()} to {arr.max()}. Pass the indices returned by "
            f"dr_lib.graphs.kneighbors."
        )
    return arr


# -------------------------------------------- metric learning (book/09_metric_learning)


def check_class_labels(y, n_samples, *, name="y"):
    """Validate class labels for a supervised method: one per sample, at least two
    classes.

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
    """Validate index pairs ``(i, j)`` of samples, e.g. must-link or cannot-link
    constraints.

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
            f"{name} must be positive semi-definite, or some squared distances would "
            f"be negative; its smallest eigenvalue is {smallest:.3g}. Clip the "
            "negative eigenvalues to zero (dr_lib.mahalanobis.nearest_psd)."
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
            f"{name} has {rows} rows, more than the {n_features} features; a linear "
            f"map cannot add dimensions. Pass at most {n_features} rows."
        )
    return arr


# ---------------------------------------------- neighbour embeddings (book/07_sne_tsne)


def check_perplexity(perplexity, n_samples):
    """Validate a perplexity: finite, > 0 and < ``n_samples - 1``.

    A row of p_{j|i} spreads over at most ``n_samples - 1`` other points, whose uniform
    distribution has perplexity ``n_samples - 1``; any target at or above that cannot be
    reached.

    Returns
    -------
    float
    """
    perplexity = check_positive(perplexity, name="perplexity")
    if perplexity >= n_samples - 1:
        raise ValueError(
            f"perplexity={perplexity:g} must be smaller than n_samples - 1 = "
            f"{n_samples - 1}: a point has only {n_samples - 1} others to spread its "
            f"neighbour probabilities over. Pass perplexity < {n_samples - 1} "
            f"(5 to 50 is usual), or more samples."
        )
    return perplexity


def check_perplexity_reachable(sq_distances, perplexity, *, diagonal_is_self, tol):
    """Validate that every row of squared distances can reach ``perplexity``.

    A row's perplexity falls from the number of its candidates (beta = 0, all equally
    likely) towards the number m of candidates tied at its smallest distance (beta ->
    infinity, all mass on them), never below m (book/07_sne_tsne). A target below m
    (within the bisection's tolerance ``tol`` on the entropy, in nats) has no
    precision; a row of equal distances reaches only its number of candidates.

    Parameters
    ----------
    sq_distances : ndarray of shape (n_rows, n_candidates)
        Finite squared distances (checked by :func:`check_array`).
    perplexity : float
        Already checked by :func:`check_perplexity`.
    diagonal_is_self : bool
        Whether entry (i, i) is the point itself, which is not a candidate.
    tol : float
    """
    rows = np.array(sq_distances, dtype=np.float64)
    if diagonal_is_self:
        np.fill_diagonal(rows, np.inf)
    tied = np.sum(rows == rows.min(axis=1, keepdims=True), axis=1)
    stuck = np.flatnonzero(np.log(perplexity) < np.log(tied) - tol)
    if stuck.size:
        i = int(stuck[0])
        candidates = rows.shape[1] - (1 if diagonal_is_self else 0)
        reachable = (
            f"all its {candidates} candidates are at the same distance, so its "
            f"perplexity is {candidates} whatever its precision"
            if tied[i] == candidates
            else f"its {tied[i]} nearest candidates are tied at the same distance, so "
            f"its perplexity can only lie between {tied[i]} and {candidates}"
        )
        raise ValueError(
            f"perplexity={perplexity:g} cannot be reached in row {i} (and "
            f"{stuck.size - 1} other rows): {reachable}. Pass perplexity >= "
            f"{tied[i]}, or remove the duplicate points (equal distances come from "
            f"repeated rows of X)."
        )


def check_dof(dof):
    """Validate the degrees of freedom alpha of the t-SNE kernel: > 0, or ``np.inf``.

    ``np.inf`` selects the Gaussian kernel of (symmetric) SNE.

    Returns
    -------
    float
    """
    if (
        isinstance(dof, Real)
        and not isinstance(dof, (bool, np.bool_))
        and dof == np.inf
    ):
        return float(dof)
    return check_positive(dof, name="dof")


def check_probability_matrix(P, n_samples, *, rows_sum_to_one, name="P", atol=1e-6):
    """Validate a dense matrix of neighbour probabilities for ``n_samples`` points.

    Square of size ``n_samples``, finite, non-negative, zero diagonal; each row sums to
    one (conditional probabilities, ``rows_sum_to_one=True``) or all entries sum to one
    (joint probabilities).

    Returns
    -------
    ndarray of shape (n_samples, n_samples), dtype float64
    """
    P = check_array(P, name=name)
    if P.shape != (n_samples, n_samples):
        raise ValueError(
            f"{name} must have shape ({n_samples}, {n_samples}), one row and column "
            f"per point of the map; got {P.shape}. Compute it from the same samples."
        )
    if P.min() < 0 or np.abs(np.diag(P)).max() > 0:
        raise ValueError(
            f"{name} must be non-negative with a zero diagonal (p_ii = 0); compute it "
            "with dr_lib.sne.conditional_probabilities or joint_probabilities."
        )
    sums = P.sum(axis=1) if rows_sum_to_one else np.array([P.sum()])
    if np.abs(sums - 1).max() > atol:
        which = "every row of" if rows_sum_to_one else "all entries of"
        fix = "conditional_probabilities" if rows_sum_to_one else "joint_probabilities"
        raise ValueError(
            f"{which} {name} must sum to one (largest deviation "
            f"{np.abs(sums - 1).max():.2e}); compute it with dr_lib.sne.{fix}."
        )
    return P


#: Gradient methods of t-SNE, and the largest map dimension each supports.
GRADIENT_METHODS = {"exact": None, "barnes_hut": 3, "fft": 2}


def check_gradient_method(method, n_components):
    """Validate t-SNE's ``method`` for a map with ``n_components`` dimensions.

    Barnes-Hut builds a tree with 2^d children per cell (d <= 3); the FFT interpolation
    uses a 1-D or 2-D grid. Exact works in any dimension.

    Returns
    -------
    str
    """
    method = check_in(method, tuple(GRADIENT_METHODS), name="method")
    limit = GRADIENT_METHODS[method]
    if limit is not None and n_components > limit:
        others = [
            repr(m)
            for m, lim in GRADIENT_METHODS.items()
            if lim is None or n_components <= lim
        ]
        raise ValueError(
            f"method={method!r} supports maps of at most {limit} dimensions; got "
            f"n_components={n_components}. Pass method={' or '.join(others)}, or "
            f"n_components <= {limit}."
        )
    return method


def _physical_memory_bytes():
    """Physical memory of this machine, or None where the OS does not say."""
    try:
        import os

        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_exact_fits(n_samples, bytes_per_pair, *, memory_bytes=None):
    """Validate that the dense N x N work arrays of an exact method fit in memory.

    Parameters
    ----------
    n_samples : int
    bytes_per_pair : float
        Peak bytes the method uses per pair of samples (a multiple of 8 N^2).
    memory_bytes : int, optional
        Memory available; the machine's physical memory by default.

    Returns
    -------
    int
        ``n_samples``, unchanged.
    """
    memory = _physical_memory_bytes() if memory_bytes is None else memory_bytes
    need = bytes_per_pair * float(n_samples) ** 2
    if memory is not None and need > memory:
        raise ValueError(
            f"method='exact' with n_samples={n_samples} needs about "
            f"{need / 2**30:,.1f} GiB for its {n_samples} x {n_samples} matrices, more "
            f"than this machine's {memory / 2**30:,.1f} GiB. Pass method='fft' (or "
            "'barnes_hut'), whose memory grows linearly with n_samples."
        )
    return n_samples


def check_learning_rate(learning_rate):
    """Validate a learning rate: ``"auto"`` or a finite positive number.

    Returns
    -------
    str or float
    """
    if isinstance(learning_rate, str):
        return check_in(learning_rate, ("auto",), name="learning_rate")
    return check_positive(learning_rate, name="learning_rate")


def check_init(init, n_samples, n_components, *, options=("pca", "random")):
    """Validate a map initialisation: one of ``options`` (``"pca"``, ``"random"``; UMAP
    adds ``"spectral"``) or an array of starting points.

    Returns
    -------
    str or ndarray of shape (n_samples, n_components)
        An array is returned as a float64 copy (the estimator owns its state).
    """
    if isinstance(init, str):
        return check_in(init, options, name="init")
    Z0 = check_array(init, name="init")
    if Z0.shape != (n_samples, n_components):
        raise ValueError(
            f"init must have shape (n_samples, n_components) = ({n_samples}, "
            f"{n_components}); got {Z0.shape}. Pass one starting point per sample, or "
            f"init={options[0]!r}."
        )
    return Z0.copy()


def check_nerv_tau(tau, *, name="tau"):
    """Validate a NeRV weight: a finite number in [0, 1] (1: recall only, 0: precision
    only).

    Returns
    -------
    float
    """
    tau = check_positive(tau, name=name, strict=False)
    if tau > 1:
        raise ValueError(
            f"{name}={tau:g} must lie in [0, 1]: it weighs missed neighbours against "
            f"false ones (1 - {name} is the other weight). Pass a value between 0 and "
            "1."
        )
    return tau


def check_class_weights(tau_star, epsilon):
    """Validate ClassNeRV's (tau_star, epsilon): 0 <= epsilon <= min(tau_star, 1 -
    tau_star).

    Then tau_in = tau_star + epsilon and tau_out = tau_star - epsilon both lie in [0,
    1], and within-class pairs weigh missed neighbours no less than between-class pairs
    do.

    Returns
    -------
    (float, float)
    """
    tau_star = check_nerv_tau(tau_star, name="tau_star")
    epsilon = check_positive(epsilon, name="epsilon", strict=False)
    bound = min(tau_star, 1.0 - tau_star)
    if epsilon > bound:
        raise ValueError(
            f"epsilon={epsilon:g} is too large for tau_star={tau_star:g}: "
            "tau_in = tau_star + epsilon and tau_out = tau_star - epsilon must both "
            "lie in [0, 1]. Pass 0 <= epsilon <= min(tau_star, 1 - tau_star) = "
            f"{bound:g}."
        )
    return tau_star, epsilon


def check_map_rows(Z, n_samples, *, name="Z"):
    """Validate a map: a finite 2-D array with one row per sample.

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    Z = check_array(Z, name=name)
    _check_length(Z, n_samples, name)
    return Z


# ------------------------------------------------------------------------------ UMAP


def check_umap_neighbors(n_neighbors, n_samples):
    """Validate UMAP's ``n_neighbors``: an integer in ``[2, n_samples - 1]``.

    UMAP counts a point among its own k neighbours (as umap-learn does), so k = 2 is one
    neighbour besides itself, the fewest that defines a distance rho_i; and the same
    upper bound as every neighbour graph of dr_lib (:func:`check_n_neighbors`).

    Returns
    -------
    int
    """
    n_neighbors = check_integer(n_neighbors, name="n_neighbors", low=2)
    return check_n_neighbors(n_neighbors, n_samples)


def check_min_dist(min_dist, spread):
    """Validate UMAP's ``min_dist`` and ``spread``: 0 <= min_dist <= spread, spread > 0.

    The target curve of the map kernel is 1 up to ``min_dist`` and exp(-(d -
    min_dist) / spread) beyond it, fitted on [0, 3 spread]; a ``min_dist`` beyond
    ``spread`` leaves too little of the decay in that range for the fit to follow.

    Returns
    -------
    (float, float)
    """
    spread = check_positive(spread, name="spread")
    min_dist = check_positive(min_dist, name="min_dist", strict=False)
    if min_dist > spread:
        raise ValueError(
            f"min_dist={min_dist:g} must not exceed spread={spread:g}: the map kernel "
            f"is fitted to a curve that is flat up to min_dist and decays on the scale "
            f"of spread. Pass min_dist <= {spread:g}, or a larger spread."
        )
    return min_dist, spread


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
            f"{name}={sizes!r} must be a sequence of layer sizes, e.g. {name}=(128, "
            "64), or () for none."
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
            f"expects {height} x {width} = {height * width} pixels: each row must be "
            f"one image of shape ({height}, {width}), flattened. Pass X of shape "
            f"(n_samples, {height * width}), or set {name} to the (height, width) of "
            f"your images."
        )
    if height % multiple_of or width % multiple_of:
        raise ValueError(
            f"{name}=({height}, {width}): both sides must be multiples of "
            f"{multiple_of} (the network halves them with 2x2 poolings). Crop or pad "
            f"the images, e.g. to ({height - height % multiple_of}, "
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
        ``(X - low) / scale`` lies in [0, 1]; ``(0.0, 1.0)`` (no change, no warning)
        when ``X`` already does.
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


def check_same_shape(arr, reference, *, name, reference_name="X"):
    """Validate that ``arr`` has the shape of ``reference`` (one target per input).

    Returns
    -------
    ndarray
        ``arr`` itself.
    """
    if arr.shape != reference.shape:
        raise ValueError(
            f"{name} has shape {arr.shape} but {reference_name} has shape "
            f"{reference.shape}; pass one {name} per input, of the same shape."
        )
    return arr


def check_unused(value, *, name, because):
    """Reject an argument that has no effect in this call (it must be None)."""
    if value is not None:
        raise ValueError(
            f"{name} does not apply {because}; leave {name}=None (or put what it would "
            f"give into the batches)."
        )


def check_batch(batch):
    """Validate one batch of a user's DataLoader: an input tensor, or (input, target).

    Returns
    -------
    input, target : torch.Tensor
        A lone tensor is its own target.
    """
    if isinstance(batch, (tuple, list)):
        if len(batch) != 2:
            raise ValueError(
                "a DataLoader batch must be an input tensor or an (input, target) "
                f"pair; got a sequence of {len(batch)} items. Return (x,) as x, or (x, "
                "target)."
            )
        x_in, target = batch
    else:
        x_in = target = batch
    if tuple(x_in.shape) != tuple(target.shape):
        raise ValueError(
            f"a DataLoader batch has inputs of shape {tuple(x_in.shape)} but targets "
            f"of shape {tuple(target.shape)}; pass one target per input, of the same "
            "shape."
        )
    return x_in, target


def check_solver(solver, kind, noise):
    """Validate the autoencoder's ``solver`` against its ``kind`` and ``noise``.

    Returns
    -------
    str
        ``solver`` itself.
    """
    if solver == "als" and kind != "linear":
        raise ValueError(
            f"solver='als' (alternating least squares) fits only kind='linear', not "
            f"kind={kind!r}; pass solver='adam' or solver='auto'."
        )
    if solver == "als" and noise > 0:
        raise ValueError(
            f"noise={noise} needs fresh noise for every mini-batch, which alternating "
            "least squares on the whole data set cannot give; pass solver='adam' for "
            "a denoising linear autoencoder, or noise=0."
        )
    return solver
