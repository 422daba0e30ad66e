"""Self-checks for the exercises of the chapter on kernel PCA."""

import numpy as np
from scipy.spatial.distance import pdist

from dr_lib.kernels import kernel_matrix

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


@exercise(
    "ex-kpca-poly-rank",
    answers=["poly2_ranks"],
    produce=(
        "a function `poly2_ranks(D)` that returns the pair (rank of K, rank of the "
        "centred K) for the kernel (xᵀy + 1)² on many points in general position in "
        "R^D"
    ),
    practises="the rank of a kernel matrix from the dimension of its feature map",
    minutes=15,
)
def _poly_rank(function):
    """Against the ranks of kernel matrices the check builds, for D = 1, 2, 3."""
    rng = np.random.default_rng(_RNG_SEED)
    for D in (1, 2, 3):
        X = rng.normal(size=(40, D))
        K = kernel_matrix(X, kernel="poly", degree=2, gamma=1.0, coef0=1.0)
        J = np.eye(40) - 1 / 40
        want = (np.linalg.matrix_rank(K), np.linalg.matrix_rank(J @ K @ J))
        ranks = array_answer(
            call(function, D, name="poly2_ranks"), name="poly2_ranks(D)", shape=(2,)
        )
        require(
            ranks[0] == want[0],
            f"for points in R^{D} your rank of K is {ranks[0]:g}: count the "
            "distinct monomials of degree at most two (the constant included)",
        )
        require(
            ranks[1] == want[1],
            f"for points in R^{D} your rank of the centred K is {ranks[1]:g}: what "
            "does centring do to the constant feature?",
        )


@exercise(
    "ex-kpca-centred-null",
    answers=["centre_kernel", "null_vector"],
    produce=(
        "a function `centre_kernel(K)` that returns the centred kernel matrix, and a "
        "function `null_vector(N)` that returns a non-zero vector in the null space "
        "of every centred N x N kernel matrix"
    ),
    practises="centring in feature space and the null vector of the centred kernel",
    minutes=15,
)
def _centred_null(centre_function, null_function):
    """Against the Gram matrix of explicitly centred features; K̃ v = 0 for any K."""
    rng = np.random.default_rng(_RNG_SEED)
    features = rng.normal(size=(12, 5)) + 2.0
    K = features @ features.T
    centred = features - features.mean(axis=0)
    Kc = array_answer(
        call(centre_function, K.copy(), name="centre_kernel"),
        name="centre_kernel(K)",
        shape=K.shape,
    )
    require(np.allclose(Kc, Kc.T, atol=1e-10), "your centred kernel is not symmetric")
    require(
        np.allclose(Kc, centred @ centred.T, atol=1e-9),
        "your centred kernel is not the matrix of inner products of the centred "
        "feature vectors (check on a linear kernel, where the features are known)",
    )
    X = rng.normal(size=(15, 2))
    K_rbf = kernel_matrix(X, kernel="rbf", gamma=0.7)
    v = array_answer(
        call(null_function, 15, name="null_vector"),
        name="null_vector(15)",
        shape=(15,),
    )
    require(np.linalg.norm(v) > 1e-8, "your null vector is the zero vector")
    J = np.eye(15) - 1 / 15
    residual = np.linalg.norm(J @ K_rbf @ J @ v) / np.linalg.norm(v)
    require(
        residual < 1e-10,
        "the centred Gaussian kernel of the check's points does not map your "
        "vector to zero",
    )


@exercise(
    "ex-kpca-eigenvalue-meaning",
    answers=["training_coordinates"],
    produce=(
        "a function `training_coordinates(Kc, n_components)` that returns the "
        "coordinates (N x n_components) of the training points from the centred "
        "kernel matrix Kc"
    ),
    practises="eigenvectors of K̃ and the scale of the kernel PCA coordinates",
    minutes=15,
)
def _coordinates(function):
    """Linear kernel: the coordinates are the PCA codes; Σ z² = λ."""
    rng = np.random.default_rng(_RNG_SEED)
    X = rng.normal(size=(30, 4)) * [3.0, 2.0, 1.0, 0.5]
    Xc = X - X.mean(axis=0)
    Kc = Xc @ Xc.T
    Z = array_answer(
        call(function, Kc.copy(), 2, name="training_coordinates"),
        name="training_coordinates(Kc, 2)",
        shape=(30, 2),
    )
    values, vectors = np.linalg.eigh(Xc.T @ Xc)
    codes = Xc @ vectors[:, ::-1][:, :2]
    squares = (Z**2).sum(axis=0)
    require(
        not np.allclose(squares, values[::-1][:2][::-1], rtol=1e-8),
        "your coordinates are not in order of decreasing eigenvalue",
    )
    require(
        np.allclose(squares, values[::-1][:2], rtol=1e-8),
        f"the sums of squares of your coordinates are {squares / values[::-1][:2]} "
        "times the eigenvalues of K̃: the coordinates are not scaled right",
    )
    require(
        np.allclose(np.abs(Z), np.abs(codes), atol=1e-8),
        "with a linear kernel your coordinates are not the PCA codes of the points "
        "(up to sign), in order of decreasing eigenvalue",
    )


@exercise(
    "ex-kpca-poly-feature",
    answers=["poly2_features", "radius_direction"],
    produce=(
        "a function `poly2_features(X)` that returns the feature vectors φ(x) "
        "(N x 3) of the homogeneous degree-2 kernel, and `radius_direction`, the unit "
        "vector c of feature space with cᵀφ(x) proportional to r²"
    ),
    practises="the feature map of the polynomial kernel, and its eigenvector r²",
    minutes=20,
)
def _poly_feature(feature_function, direction):
    """Φ Φᵀ against the kernel; the direction against r² and the feature covariance."""
    rng = np.random.default_rng(_RNG_SEED)
    X = rng.normal(size=(20, 2))
    Phi = array_answer(
        call(feature_function, X.copy(), name="poly2_features"),
        name="poly2_features(X)",
        shape=(20, 3),
    )
    require(
        np.allclose(Phi @ Phi.T, (X @ X.T) ** 2, rtol=1e-10, atol=1e-10),
        "the inner products of your feature vectors are not the kernel (xᵀy)²: "
        "compare the cross term x1 x2 on both sides",
    )
    c = array_answer(direction, name="radius_direction", shape=(3,))
    require(
        np.isclose(np.linalg.norm(c), 1, atol=1e-10),
        "radius_direction is not a unit vector",
    )
    r2 = (X**2).sum(axis=1)
    projection = Phi @ c
    require(
        np.isclose(abs(np.corrcoef(projection, r2)[0, 1]), 1, atol=1e-10),
        "cᵀφ(x) with your radius_direction is not proportional to r² = x1² + x2²",
    )
    angles = 2 * np.pi * np.arange(24) / 24
    ring = np.column_stack([np.cos(angles), np.sin(angles)])
    ring = np.vstack([ring, 0.4 * ring])  # rotationally symmetric data
    F = array_answer(
        call(feature_function, ring, name="poly2_features"),
        name="poly2_features(X)",
        shape=(48, 3),
    )
    F = F - F.mean(axis=0)
    C = F.T @ F
    require(
        np.allclose(C @ c, (c @ C @ c) * c, atol=1e-9),
        "your radius_direction is not an eigenvector of the feature covariance of "
        "rotationally symmetric data",
    )


@exercise(
    "ex-kpca-median",
    answers=["median_gamma"],
    produce=(
        "a function `median_gamma(X)` that returns the median heuristic "
        "γ = 1 / median_{i<j} ‖x_i − x_j‖²"
    ),
    practises="the median heuristic for the Gaussian kernel's width",
    minutes=5,
)
def _median(function):
    """Against the check's own median; invariant to the order of the points."""
    rng = np.random.default_rng(_RNG_SEED)
    for n in (9, 30):
        X = rng.normal(size=(n, 2)) * [1.0, 3.0]
        want = 1 / np.median(pdist(X, "sqeuclidean"))
        gamma = number_answer(
            call(function, X.copy(), name="median_gamma"), name="median_gamma(X)"
        )
        require(
            np.isclose(gamma, want, rtol=1e-10),
            f"on {n} points your γ is {gamma / want:.4g} times the check's: use "
            "squared distances, each pair i < j once, and no distance of a point to "
            "itself",
        )


@exercise(
    "ex-kpca-memory",
    answers=["largest_n"],
    produce=(
        "a function `largest_n(memory_bytes, matrices)` that returns the largest N for "
        "which `matrices` N x N arrays of float64 fit in memory_bytes"
    ),
    practises="the memory cost of a kernel method",
    minutes=20,
)
def _memory(function):
    """Bracketing: N fits, N + 1 does not."""
    for memory, matrices in ((16e9, 1), (16e9, 2), (8 * 10**6, 1), (1e6, 3)):
        n = number_answer(
            call(function, memory, matrices, name="largest_n"),
            name="largest_n(memory_bytes, matrices)",
        )
        require(n == int(n), f"largest_n({memory:g}, {matrices}) is not a whole number")
        require(
            8 * matrices * n**2 <= memory,
            f"with {memory:g} bytes and {matrices} matrix(es) your N = {n:g} does not "
            "fit: how many bytes does a float64 take?",
        )
        require(
            8 * matrices * (n + 1) ** 2 > memory,
            f"with {memory:g} bytes and {matrices} matrix(es) N = {n + 1:g} still "
            "fits: your N is too small",
        )
