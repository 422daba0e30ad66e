"""Self-checks for the exercises of the chapter on principal component analysis."""

import numpy as np

from dr_lib import PCA

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


def _centred(rng, n=60, scales=(3.0, 2.0, 1.0, 0.5)):
    X = rng.normal(size=(n, len(scales))) * scales
    X = X @ np.linalg.qr(rng.normal(size=(len(scales),) * 2))[0]
    return X - X.mean(axis=0)


@exercise(
    "ex-pca-rotation",
    answers=["reconstruction_error", "code_scatter"],
    produce=(
        "a function `reconstruction_error(Xc, W)` that returns the squared "
        "reconstruction error of the centred data Xc (N x D, samples as rows) with the "
        "orthonormal directions W (D x D'), and a function `code_scatter(Xc, W)` that "
        "returns the D' x D' scatter of the codes"
    ),
    practises="the invariance of the PCA error under rotations of W, and why the "
    "eigenvectors are still the preferred basis",
    minutes=15,
)
def _rotation(error_function, scatter_function):
    """Error against the residual; scatter against Zᵀ Z; the rotation changes only Z."""
    rng = np.random.default_rng(_RNG_SEED)
    Xc = _centred(rng)
    W = np.linalg.eigh(Xc.T @ Xc)[1][:, ::-1][:, :2]
    angle = 0.6
    R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    for name, V in (("the top eigenvectors", W), ("rotated eigenvectors", W @ R)):
        error = number_answer(
            call(error_function, Xc.copy(), V.copy(), name="reconstruction_error"),
            name="reconstruction_error(Xc, W)",
        )
        direct = ((Xc - Xc @ V @ V.T) ** 2).sum()
        require(
            np.isclose(error, direct, rtol=1e-9),
            f"with {name} your error is {error / direct:.4g} times the sum of the "
            "squared distances between the points and their reconstructions",
        )
        scatter = array_answer(
            call(scatter_function, Xc.copy(), V.copy(), name="code_scatter"),
            name="code_scatter(Xc, W)",
            shape=(2, 2),
        )
        Z = Xc @ V
        require(
            np.allclose(scatter, Z.T @ Z, rtol=1e-9, atol=1e-9),
            f"with {name} your scatter is not that of the codes z = Wᵀx of the "
            "points (a D' x D' matrix, summed over the points, not divided by N)",
        )


@exercise(
    "ex-pca-discarded",
    answers=["discarded_error"],
    produce=(
        "a function `discarded_error(Xc, d)` that returns the smallest reconstruction "
        "error with d directions from the eigenvalues of the scatter matrix of the "
        "centred data Xc (N x D)"
    ),
    practises="the PCA error as the sum of the discarded eigenvalues",
    minutes=10,
)
def _discarded(function):
    """Against the error of the best rank-d reconstruction (SVD), for every d."""
    rng = np.random.default_rng(_RNG_SEED)
    Xc = _centred(rng, n=50, scales=(4.0, 2.0, 1.5, 1.0, 0.3))
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    for d in range(1, Xc.shape[1] + 1):
        value = number_answer(
            call(function, Xc.copy(), d, name="discarded_error"),
            name="discarded_error(Xc, d)",
        )
        best = ((Xc - (U[:, :d] * s[:d]) @ Vt[:d]) ** 2).sum()
        require(
            abs(value - best) <= 1e-9 * (Xc**2).sum(),
            f"with d = {d} your error is {value:.6g}, but the best reconstruction with "
            f"{d} direction(s), computed by the check, leaves {best:.6g}: which "
            "eigenvalues are discarded, and of which matrix?",
        )


@exercise(
    "ex-pca-gram",
    answers=["gram_directions"],
    produce=(
        "a function `gram_directions(X, n_components)` that returns the top principal "
        "directions (n_components x D, as rows) of wide data X (N x D, samples as "
        "rows) from the N x N Gram matrix"
    ),
    practises="PCA of wide data through the Gram matrix",
    minutes=20,
)
def _gram(function):
    """Orthonormal, ordered, and the same subspace as the SVD of the centred data."""
    rng = np.random.default_rng(_RNG_SEED)
    X = rng.normal(size=(30, 400)) * np.linspace(3, 0.5, 400) + 2.0
    Vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)[2][:4]
    raw = np.asarray(call(function, X.copy(), 4, name="gram_directions"), dtype=float)
    # a direction taken from the Gram matrix's zero eigenvalue (the centred Gram matrix
    # has rank N - 1) is 0/0: NaN or a vector of length ~0, as round-off decides
    require(
        raw.ndim != 2 or not np.any(np.nan_to_num(np.linalg.norm(raw, axis=1)) < 0.5),
        "one of your directions is 0/0 (NaN or of length zero): it belongs to a zero "
        "eigenvalue of the Gram matrix; which eigenvalues does your eigensolver list "
        "first?",
    )
    W = array_answer(raw, name="gram_directions(X, 4)", shape=(4, 400))
    lengths = np.linalg.norm(W, axis=1)
    require(
        np.allclose(lengths, 1, atol=1e-8),
        f"your directions have lengths {np.round(lengths, 4).tolist()}, not one: "
        "Xv has length √λ",
    )
    require(
        np.allclose(W @ W.T, np.eye(4), atol=1e-8), "your directions are not orthogonal"
    )
    overlap = np.abs(W @ Vt.T)
    require(
        np.allclose(np.sort(overlap, axis=1), np.sort(np.eye(4), axis=1), atol=1e-6),
        "your directions are not the principal directions of the data: did you "
        "centre the samples before forming the Gram matrix?",
    )
    require(
        np.allclose(overlap, np.eye(4), atol=1e-6),
        "your directions are principal directions, but not in order of decreasing "
        "variance",
    )


@exercise(
    "ex-pca-ratio-invariant",
    answers=["scaling_factors"],
    produce=(
        "a function `scaling_factors(c)` that returns a dict: for each of "
        '"components_", "explained_variance_", "explained_variance_ratio_" and '
        '"transform" (the codes of the scaled data), the factor by which it changes '
        "when every feature is multiplied by c > 0"
    ),
    practises="what a common scale does to PCA's directions, variances and codes",
    minutes=10,
)
def _ratio_invariant(function):
    """Each factor against two PCA fits made by the check."""
    rng = np.random.default_rng(_RNG_SEED)
    X = _centred(rng) + 5.0
    base = PCA(3).fit(X)
    for c in (17.0, 0.25):
        factors = call(function, c, name="scaling_factors")
        require(isinstance(factors, dict), "scaling_factors(c) should return a dict")
        scaled = PCA(3).fit(c * X)
        measured = {
            "components_": (scaled.components_, base.components_),
            "explained_variance_": (
                scaled.explained_variance_,
                base.explained_variance_,
            ),
            "explained_variance_ratio_": (
                scaled.explained_variance_ratio_,
                base.explained_variance_ratio_,
            ),
            "transform": (np.abs(scaled.transform(c * X)), np.abs(base.transform(X))),
        }
        for key, (after, before) in measured.items():
            require(key in factors, f"your dict has no entry {key!r}")
            factor = number_answer(factors[key], name=f"scaling_factors(c)[{key!r}]")
            if key == "components_":
                after, before = np.abs(after), np.abs(before)
            require(
                np.allclose(after, factor * before, rtol=1e-8, atol=1e-10),
                f"with c = {c}, {key} does not change by your factor {factor:.6g}",
            )


@exercise(
    "ex-pca-storage",
    answers=["largest_saving_components"],
    produce=(
        "a function `largest_saving_components(N, D)` that returns the largest D' for "
        "which codes, directions and mean take fewer numbers than the raw N x D data"
    ),
    practises="counting what a fitted PCA stores",
    minutes=10,
)
def _storage(function):
    """Against a search over every D' (cases where the bound is a whole number too)."""
    for N, D in ((1797, 64), (100, 10), (9, 3), (21, 7), (500, 200), (50, 50)):
        want = max(d for d in range(0, D + 1) if N * d + D * d + D < N * D)
        value = number_answer(
            call(function, N, D, name="largest_saving_components"),
            name="largest_saving_components(N, D)",
        )
        stored = N * value + D * value + D
        require(
            value == int(value) and value >= 0,
            f"largest_saving_components({N}, {D}) is not a whole number",
        )
        require(
            stored < N * D,
            f"for N = {N}, D = {D} your D' = {value:g} stores {stored:g} numbers, "
            f"not fewer than the {N * D} raw ones (is the inequality strict? is the "
            "mean counted?)",
        )
        require(
            value == want,
            f"for N = {N}, D = {D} a larger D' than your {value:g} still saves space",
        )


@exercise(
    "ex-pca-outlier-fix",
    answers=["standardise"],
    produce=(
        "a function `standardise(data)` that standardises each feature of data "
        "(samples as rows), and survives features that are constant"
    ),
    practises="standardising features, and its limits against outliers",
    minutes=10,
)
def _standardise(function):
    """Zero means, unit spread of the varying features, constant ones kept finite."""
    rng = np.random.default_rng(_RNG_SEED)
    data = rng.normal(loc=4.0, scale=[1.0, 3.0, 0.5, 2.0], size=(80, 4))
    data[:, 2] = 7.0  # a blank pixel
    Z = array_answer(
        call(function, data.copy(), name="standardise"),
        name="standardise(data)",
        shape=data.shape,
    )
    require(
        np.allclose(Z.mean(axis=0), 0, atol=1e-8),
        "the features of your standardised data do not have mean zero",
    )
    spread = Z.std(axis=0)[[0, 1, 3]]
    require(
        np.allclose(spread, 1, atol=1e-6),
        f"the varying features have standard deviations {np.round(spread, 4).tolist()}"
        " after your standardisation, not one",
    )
