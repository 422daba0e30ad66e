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


# ------------------------------------------------- neighbour embeddings (book/07_sne_tsne)


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

    Square of size ``n_samples``, finite, non-negative, zero diagonal; each row sums to one
    (conditional probabilities, ``rows_sum_to_one=True``) or all entries sum to one (joint
    probabilities).

    Returns
    -------
    ndarray of shape (n_samples, n_samples), dtype float64
    """
    P = check_array(P, name=name)
    if P.shape != (n_samples, n_samples):
        raise ValueError(
            f"{name} must have shape ({n_samples}, {n_samples}), one row and column per "
            f"point of the map; got {P.shape}. Compute it from the same samples."
        )
    if P.min() < 0 or np.abs(np.diag(P)).max() > 0:
        raise ValueError(
            f"{name} must be non-negative with a zero diagonal (p_ii = 0); compute it with "
            f"dr_lib.sne.conditional_probabilities or joint_probabilities."
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
            f"method='exact' with n_samples={n_samples} needs about {need / 2**30:,.1f} GiB "
            f"for its {n_samples} x {n_samples} matrices, more than this machine's "
            f"{memory / 2**30:,.1f} GiB. Pass method='fft' (or 'barnes_hut'), whose "
            f"memory grows linearly with n_samples."
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


def check_init(init, n_samples, n_components):
    """Validate a map initialisation: ``"pca"``, ``"random"`` or an array of starting points.

    Returns
    -------
    str or ndarray of shape (n_samples, n_components)
        An array is returned as a float64 copy (the estimator owns its state).
    """
    if isinstance(init, str):
        return check_in(init, ("pca", "random"), name="init")
    Z0 = check_array(init, name="init")
    if Z0.shape != (n_samples, n_components):
        raise ValueError(
            f"init must have shape (n_samples, n_components) = ({n_samples}, "
            f"{n_components}); got {Z0.shape}. Pass one starting point per sample, or "
            f"init='pca'."
        )
    return Z0.copy()
