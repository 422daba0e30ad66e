"""dr_lib.exercises: every self-check rejects plausible wrong answers, with a message.

The book's own solutions pass the checks in the notebooks (each solution runs its
self-check cell; a wrong verdict raises and stops the notebook). Here each check meets
the mistakes a student makes: the source's formula where it is wrong, a sign, a
transpose, a factor, an off-by-one. A check that no wrong answer fails is a defect.
"""

import math
from itertools import combinations, permutations

import numpy as np
import pytest
from scipy.linalg import eigh, qr, sqrtm, subspace_angles, svd
from scipy.optimize import brentq
from scipy.spatial.distance import cdist
from scipy.special import expit, rel_entr
from scipy.special import gamma as gamma_function
from scipy.stats import norm
from sklearn.manifold import SpectralEmbedding

from dr_lib import exercises, lle, umap
from dr_lib.graphs import geodesic_distances, kneighbors, knn_graph
from dr_lib.mds import double_centering


def _design(points, d):
    tangent = svd(points - points.mean(0), full_matrices=False)[0][:, :d]
    products = [tangent[:, p] * tangent[:, q] for p in range(d) for q in range(p, d)]
    return np.column_stack([np.ones(len(points)), tangent, *products])


def _zero_count(threshold):
    def count(X, k):
        _, neighbours = kneighbors(X, k)
        values = np.linalg.eigvalsh(lle.embedding_matrix(X, neighbours, 2).toarray())
        return int(np.sum(values < threshold))

    return count


def _projector_block(columns):
    def block(points, d):
        H = qr(_design(points, d))[0][:, columns(d)]
        return H @ H.T

    return block


def _unnormalised(C):
    return np.array([C[1, 1] - C[0, 1], C[0, 0] - C[0, 1]])


def _weights(C):
    return _unnormalised(C) / _unnormalised(C).sum()


def _sqrt_n(P):
    return np.sqrt(len(P)) * P


# label -> [(answers, words the message must contain)]
WRONG = {
    "ex-lle-two-neighbours": [
        ((lambda C: 2 * _weights(C),), "sum to"),
        ((lambda C: _weights(C)[::-1],), "swapped"),
        ((lambda C: np.array([0.5, 0.5]),), "do not minimise"),
        ((lambda C: np.linalg.solve(C, np.ones(2)),), "sum to"),
        ((lambda C: C[0],), "sum to"),
        ((lambda C: C[7],), "raised IndexError"),
        ((lambda C: np.ones(3) / 3,), "shape"),
    ],
    "ex-lle-disconnected": [
        ((lambda X, k: 2,), "your count is 2"),
        ((lambda X, k: 1,), "your count is 1"),
        ((_zero_count(1e-1),), "threshold"),
        ((lambda X, k: _zero_count(1e-9)(X, k) + 1,), "your count is 2"),
    ],
    "ex-lle-scale": [
        ((lambda P: P, lambda e, n: n * e), "not the identity"),
        ((lambda P: len(P) * P, lambda e, n: n * e), "not the identity"),
        # orthonormal columns, but no longer orthogonal to the constant vector
        (
            (lambda P: _sqrt_n(np.linalg.qr(P + 0.05)[0]), lambda e, n: n * e),
            "sum to 0",
        ),
        ((_sqrt_n, lambda e, n: e), "times the one computed"),
        ((_sqrt_n, lambda e, n: np.sqrt(n) * e), "times the one computed"),
        ((_sqrt_n, lambda e, n: n * n * e), "times the one computed"),
    ],
    "ex-lle-true-hessian": [
        ((_projector_block(lambda d: slice(d + 1, None)),), "rank"),
        ((_projector_block(lambda d: slice(0, d * (d + 1) // 2)),), "affine"),
        ((_projector_block(lambda d: slice(d, d + d * (d + 1) // 2)),), "affine"),
        ((lambda points, d: np.eye(len(points)),), "rank"),
        (
            (
                lambda points, d: (
                    -_projector_block(lambda e: slice(e + 1, None))(points, d)
                ),
            ),
            "positive semidefinite",
        ),
        ((lambda points, d: np.triu(np.ones((len(points),) * 2)),), "symmetric"),
    ],
}


# --- chapters 00-04 -------------------------------------------------------------------


def _standardise_rows(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _standardise_cols(X):
    return (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)


def _nn_risk(posterior_scale):
    def risk(m):
        t = np.linspace(-12 - m, 12 + m, 20001)
        density = 0.5 * (norm.pdf(t - m) + norm.pdf(t + m))
        p = expit(posterior_scale * m * t)
        return np.trapezoid(2 * p * (1 - p) * density, t)

    return risk


def _grid_points(N, D):
    return int(np.floor(N ** (1 / D) + 1e-12))


def _half_root(N, D):
    return 0.5 * N ** (-1 / D)


def _grid_samples(delta, D):
    return math.ceil(1 / (2 * delta)) ** D


def _ball_fraction(gamma_shift):
    def fraction(D):
        return np.pi ** (D / 2) / gamma_function(D / 2 + gamma_shift) / 2**D

    return fraction


def _is_topology(axioms):
    def decide(family, space):
        if "empty" in axioms and (frozenset() not in family or space not in family):
            return False
        for a, b in combinations(family, 2):
            if "union" in axioms and a | b not in family:
                return False
            if "intersection" in axioms and a & b not in family:
                return False
        return True

    return decide


_ALL_AXIOMS = ("empty", "union", "intersection")


def _count_topologies(axioms, up_to_relabelling=False):
    def count(n):
        space = frozenset(range(1, n + 1))
        subsets = [frozenset(c) for k in range(n + 1) for c in combinations(space, k)]
        found = [
            frozenset(chosen)
            for k in range(len(subsets) + 1)
            for chosen in combinations(subsets, k)
            if _is_topology(axioms)(frozenset(chosen), space)
        ]
        if not up_to_relabelling:
            return len(found)
        return len(
            {
                min(
                    tuple(sorted(tuple(sorted(p[i - 1] for i in s)) for s in family))
                    for p in permutations(range(1, n + 1))
                )
                for family in found
            }
        )

    return count


def _torus_metric(R, r, u, v):
    return np.diag([(R + r * np.cos(v)) ** 2, r**2])


def _pca_error(Xc, W):
    return np.sum((Xc - Xc @ W @ W.T) ** 2)


def _pca_scatter(Xc, W):
    return (Xc @ W).T @ (Xc @ W)


def _discarded(offset, scale=lambda Xc: 1):
    def error(Xc, d):
        values = np.linalg.eigvalsh(Xc.T @ Xc)[::-1]
        return values[d + offset :].sum() / scale(Xc)

    return error


def _gram_directions(centre=True, normalise=True, descending=True):
    def directions(X, n):
        Xc = X - X.mean(axis=0) if centre else X
        values, vectors = np.linalg.eigh(Xc @ Xc.T)
        if descending:
            values, vectors = values[::-1], vectors[:, ::-1]
        W = Xc.T @ vectors[:, :n]
        return (W / np.sqrt(values[:n]) if normalise else W).T

    return directions


def _factors(**changes):
    def factors(c):
        out = {
            "components_": 1,
            "explained_variance_": c**2,
            "explained_variance_ratio_": 1,
            "transform": c,
        }
        out.update({key: change(c) for key, change in changes.items()})
        return out

    return factors


def _mds_count(centre=True, threshold=lambda values: 1e-10 * np.abs(values).max()):
    def count(X):
        if centre:
            values = np.linalg.eigvalsh(double_centering(cdist(X, X, "sqeuclidean")))
        else:
            values = np.linalg.eigvalsh(X @ X.T)
        return int(np.sum(np.abs(values) > threshold(values)))

    return count


def _additive(factor):
    def constant(D2):
        return -factor * np.linalg.eigvalsh(double_centering(D2))[0]

    return constant


def _negative_share(square=True, denominator="all"):
    def share(D):
        values = np.linalg.eigvalsh(double_centering(D**2 if square else D))
        total = np.abs(values).sum() if denominator == "all" else values.max()
        return -values[values < 0].sum() / total

    return share


def _kpca_coordinates(power):
    def coordinates(Kc, n):
        values, vectors = np.linalg.eigh(Kc)
        return vectors[:, ::-1][:, :n] * values[::-1][:n] ** power

    return coordinates


def _poly2(cross):
    def features(X):
        return np.column_stack([X[:, 0] ** 2, X[:, 1] ** 2, cross * X[:, 0] * X[:, 1]])

    return features


def _centred_kernel(K):
    J = np.eye(len(K)) - 1 / len(K)
    return J @ K @ J


def _geodesics(X, k):
    return geodesic_distances(knn_graph(X, k))


def _arc(alpha, beta):
    gap = np.abs(alpha - beta) % (2 * np.pi)
    return np.minimum(gap, 2 * np.pi - gap)


WRONG.update(
    {
        "ex-found-standardise": [
            ((lambda X: X / X.std(axis=0), _standardise_cols), "mean zero"),
            (
                (lambda X: (X - X.mean(0)) / X.std(axis=0, ddof=1), _standardise_cols),
                "standard deviations",
            ),
            ((_standardise_rows, lambda X: _standardise_rows(X.T)), "shape"),
            (
                (_standardise_rows, lambda X: (X - X.mean(1, keepdims=True)) / X.std()),
                "standard deviations",
            ),
        ],
        "ex-found-sharper": [
            ((lambda r, K: 2 * r * (1 - r),), "not a bound"),
            ((lambda r, K: 2 * r,), "not the sharpest"),
            ((lambda r, K: 2 * r - (K - 1) / K * r**2,), "not the sharpest"),
        ],
        "ex-found-tight": [
            ((lambda m: _nn_risk(2.0)(m) / 2,), "below the Bayes risk"),
            ((_nn_risk(1.0),), "Cover–Hart"),
            ((lambda m: 2 * norm.cdf(-m) * norm.cdf(m),), "Monte Carlo"),
            ((lambda m: 2 * norm.cdf(-m),), "Cover–Hart"),
        ],
        "ex-found-grid-budget": [
            (
                (lambda N, D: int(N ** (1 / D)), _half_root, _grid_samples),
                "too small",
            ),
            (
                (lambda N, D: round(N ** (1 / D)), _half_root, _grid_samples),
                "more than N",
            ),
            ((_grid_points, lambda N, D: N ** (-1 / D), _grid_samples), "volume"),
            (
                (_grid_points, _half_root, lambda delta, D: math.ceil(1 / delta) ** D),
                "larger than needed",
            ),
            (
                (_grid_points, _half_root, lambda d, D: math.floor(1 / (2 * d)) ** D),
                "further than δ",
            ),
        ],
        "ex-found-ball-volume": [
            ((_ball_fraction(0),), "one dimension"),
            ((lambda D: _ball_fraction(1)(D) * 2**D / 2 ** (D - 1),), "fraction"),
            ((lambda D: np.pi ** (D / 2) / gamma_function(D / 2 + 1),), "fraction"),
            ((lambda D: 1.0 if D == 1 else np.pi / 4,), "V_D = (2π/D)"),
        ],
        "ex-found-noise": [
            ((lambda sigma, D: sigma * np.sqrt(D),), "times the root mean square"),
            ((lambda sigma, D: 2 * sigma * D,), "times the root mean square"),
        ],
        "ex-found-is-topology": [
            ((_is_topology(("union", "intersection")),), "∅ and the whole set"),
            ((_is_topology(("empty", "union")),), "intersections"),
            ((_is_topology(("empty", "intersection")),), "unions"),
            ((lambda family, space: "yes",), "True or False"),
        ],
        "ex-found-torus": [
            (
                (
                    lambda R, r, u, v: np.diag([R + r * np.cos(v), r]),
                    lambda R, r: 4 * np.pi**2 * R * r,
                ),
                "finite differences",
            ),
            ((_torus_metric, lambda R, r: 2 * np.pi**2 * R * r), "times the integral"),
            (
                (_torus_metric, lambda R, r: 4 * np.pi**2 * R * r**2),
                "times the integral",
            ),
        ],
        "ex-found-two-points": [
            (
                (_count_topologies(_ALL_AXIOMS, up_to_relabelling=True),),
                "your count is 3",
            ),
            ((_count_topologies(("union", "intersection")),), "your count is"),
            ((lambda n: 2 ** (2**n - 2),), "your count is 64"),
        ],
        "ex-pca-rotation": [
            (
                (lambda Xc, W: np.linalg.norm(Xc - Xc @ W @ W.T), _pca_scatter),
                "times the sum",
            ),
            (
                (lambda Xc, W: _pca_error(Xc, W) / len(Xc), _pca_scatter),
                "times the sum",
            ),
            ((_pca_error, lambda Xc, W: (Xc @ W) @ (Xc @ W).T), "shape"),
            (
                (_pca_error, lambda Xc, W: _pca_scatter(Xc, W) / len(Xc)),
                "not divided by N",
            ),
            (
                (_pca_error, lambda Xc, W: np.diag(np.diag(_pca_scatter(Xc, W)))),
                "scatter",
            ),
        ],
        "ex-pca-discarded": [
            ((_discarded(-1),), "which eigenvalues"),
            ((_discarded(0, scale=len),), "which eigenvalues"),
            (
                (lambda Xc, d: np.linalg.eigvalsh(Xc.T @ Xc)[::-1][:d].sum(),),
                "which eigenvalues",
            ),
        ],
        "ex-pca-gram": [
            ((_gram_directions(normalise=False),), "not one"),
            ((_gram_directions(centre=False),), "centre"),
            ((_gram_directions(descending=False),), "zero eigenvalue"),
            ((lambda X, n: _gram_directions()(X, n)[::-1],), "decreasing"),
        ],
        "ex-pca-ratio-invariant": [
            ((_factors(explained_variance_=lambda c: c),), "explained_variance_"),
            (
                (_factors(explained_variance_ratio_=lambda c: c**2),),
                "explained_variance_ratio_",
            ),
            ((_factors(transform=lambda c: 1),), "transform"),
            ((lambda c: [1, c**2, 1, c],), "dict"),
        ],
        "ex-pca-storage": [
            ((lambda N, D: math.floor(D * (N - 1) / (N + D)),), "not fewer"),
            ((lambda N, D: math.ceil(D * N / (N + D)) - 1,), "not fewer"),
            ((lambda N, D: math.ceil(D * (N - 1) / (N + D)) - 2,), "still saves"),
        ],
        "ex-pca-outlier-fix": [
            ((lambda data: (data - data.mean(0)) / data.std(0),), "NaN"),
            ((lambda data: data / (data.std(0) + 1e-9),), "mean zero"),
            ((lambda data: (data - data.mean(0)) / (data.std(0) + 1),), "not one"),
        ],
        "ex-mds-rank": [
            ((_mds_count(centre=False),), "your count is 5"),
            ((_mds_count(threshold=lambda values: 1e-10),), "threshold"),
            ((lambda X: len(X),), "your count is 20"),
        ],
        "ex-mds-additive": [
            ((_additive(1),), "negative eigenvalue"),
            ((_additive(4),), "not the smallest"),
            ((lambda D2: -2 * np.linalg.eigvalsh(D2)[0],), "not the smallest"),
        ],
        "ex-mds-chord": [
            ((lambda arc, R: 2 * R * np.sin(arc / R),), "straight-line"),
            ((lambda arc, R: 2 * np.sin(arc / (2 * R)),), "straight-line"),
            ((lambda arc, R: arc,), "straight-line"),
        ],
        "ex-mds-globe": [
            ((_negative_share(square=False),), "squared distances"),
            ((_negative_share(denominator="largest"),), "what do you divide by"),
        ],
        "ex-kpca-poly-rank": [
            ((lambda D: ((D + 1) * (D + 2) // 2,) * 2,), "centred"),
            ((lambda D: ((D + 1) ** 2, (D + 1) ** 2 - 1),), "monomials"),
            ((lambda D: (D * (D + 1) // 2, D * (D + 1) // 2 - 1),), "monomials"),
        ],
        "ex-kpca-centred-null": [
            ((lambda K: K - K.mean(axis=0), lambda N: np.ones(N)), "not symmetric"),
            ((lambda K: K - K.mean(), lambda N: np.ones(N)), "centred feature"),
            ((_centred_kernel, lambda N: np.zeros(N)), "zero vector"),
            ((_centred_kernel, lambda N: np.eye(N)[0]), "does not map"),
        ],
        "ex-kpca-eigenvalue-meaning": [
            ((_kpca_coordinates(0),), "not scaled right"),
            ((_kpca_coordinates(1),), "not scaled right"),
            ((lambda Kc, n: _kpca_coordinates(0.5)(Kc, n)[:, ::-1],), "decreasing"),
        ],
        "ex-kpca-poly-feature": [
            ((_poly2(1.0), np.array([1.0, 1.0, 0.0]) / np.sqrt(2)), "cross term"),
            ((_poly2(np.sqrt(2)), np.array([1.0, 1.0, 0.0])), "unit vector"),
            (
                (_poly2(np.sqrt(2)), np.array([1.0, -1.0, 0.0]) / np.sqrt(2)),
                "proportional",
            ),
        ],
        "ex-kpca-median": [
            ((lambda X: 1 / np.median(cdist(X, X, "sqeuclidean")),), "times the check"),
            (
                (lambda X: 1 / np.median(cdist(X, X)[np.triu_indices(len(X), 1)]),),
                "squared",
            ),
            (
                (
                    lambda X: (
                        1
                        / (
                            2
                            * np.median(
                                cdist(X, X, "sqeuclidean")[np.triu_indices(len(X), 1)]
                            )
                        )
                    ),
                ),
                "times",
            ),
        ],
        "ex-kpca-memory": [
            ((lambda memory, m: math.isqrt(int(memory // m)),), "float64"),
            ((lambda memory, m: math.isqrt(int(memory // 8)),), "does not fit"),
            ((lambda memory, m: int(np.sqrt(memory / (8 * m))) - 1,), "too small"),
        ],
        "ex-iso-chord": [
            ((lambda X, k: knn_graph(X, k).toarray(),), "Euclidean"),
            (
                (
                    lambda X, k: geodesic_distances(
                        knn_graph(X, k, mode="connectivity")
                    ),
                ),
                "Euclidean",
            ),
            ((lambda X, k: cdist(X, X),), "shortest paths"),
        ],
        "ex-iso-trust-bound": [
            ((lambda N, k: k * (2 * N - 3 * k + 1) / 2,), "your worst penalty"),
            ((lambda N, k: k * (2 * N - 3 * k - 1),), "your worst penalty"),
            (
                (lambda N, k: sum(range(N - k + 1, N + 1)) - k * k,),
                "your worst penalty",
            ),
        ],
        "ex-iso-circle": [
            ((lambda a, b: np.abs(a - b), np.sqrt(2)), "half the circle"),
            ((_arc, 1.0), "times yours"),
            ((lambda a, b: 2 * np.sin(_arc(a, b) / 2), np.sqrt(2)), "do not match"),
        ],
    }
)


# chapter 09, metric learning


def _inverse_sqrt(S):
    values, vectors = np.linalg.eigh(S)
    return vectors @ np.diag(values**-0.5) @ vectors.T


def _factor(M):
    values, vectors = np.linalg.eigh(M)
    keep = values > 1e-10 * values.max()
    return vectors[:, keep] * np.sqrt(values[keep])


def _sqrt_psd(M):
    values, vectors = np.linalg.eigh(M)
    return vectors @ np.diag(np.sqrt(np.clip(values, 0, None))) @ vectors.T


def _one_nn(Z, y):
    d2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    return np.mean(y[d2.argmin(1)] == y)


def _random_neighbour(y):
    return np.mean((np.bincount(y)[y] - 1) / (len(y) - 1))


def _only(a, p, scale=1.0):
    return scale * np.eye(len(a))[p]


def _mean_difference(X, y):
    return X[y == 0].mean(0) - X[y == 1].mean(0)


def _unpooled(X, y):
    S = sum(np.cov(X[y == c].T) for c in (0, 1))
    return np.linalg.solve(S, _mean_difference(X, y))


WRONG |= {
    "ex-metric-whitening": [
        ((np.linalg.inv,), "identity covariance"),
        ((lambda S: np.real(sqrtm(S)),), "identity covariance"),
        ((np.linalg.cholesky,), "identity covariance"),
        ((lambda S: np.linalg.cholesky(np.linalg.inv(S)).T,), "identity covariance"),
    ],
    "ex-metric-pseudo": [
        ((_sqrt_psd,), "columns"),
        ((lambda M: _factor(M) / np.linalg.norm(_factor(M), axis=0),), "is not M"),
        ((lambda M: _factor(M)[:, :1],), "is not M"),
    ],
    "ex-metric-nca-scale": [
        ((lambda Z, y: 1.0, _random_neighbour), "own nearest neighbour"),
        ((_one_nn, lambda y: np.mean(np.bincount(y)[y] / len(y))), "who can be picked"),
        ((_one_nn, lambda y: 1 / 3), "random-neighbour accuracy differs"),
    ],
    "ex-metric-mmc-scale": [
        ((lambda M, c: c * M,), "c times 0.57"),
        ((lambda M, c: np.sqrt(c) * M,), "cannot-link sum"),
        ((lambda M, c: c**2 * (M + 1e-3 * np.eye(3)),), "cannot-link sum"),
    ],
    "ex-metric-mmc-diagonal-squares": [
        ((lambda a, b: _only(a, np.argmax(b), 1 / b.max()),), "times the smallest"),
        ((lambda a, b: _only(a, np.argmin(a), 1 / b[np.argmin(a)]),), "times the"),
        ((lambda a, b: _only(a, np.argmax(b / a)),), "times the smallest"),
        (
            (lambda a, b: _only(a, np.argmax(b / a), 0.5 / b[np.argmax(b / a)]),),
            "violates",
        ),
        ((lambda a, b: -_only(a, np.argmax(b / a), 1 / b.min()),), "negative"),
    ],
    "ex-metric-lda-two-methods": [
        ((_unpooled,), "pooled"),
        ((_mean_difference,), "which scatter"),
        ((lambda X, y: np.cov(X.T) @ _mean_difference(X, y),), "which scatter"),
    ],
}


# chapter 06, Laplacian eigenmaps


def _degrees(W):
    return W.sum(axis=1)


def _generalised_eigenvalues(W):
    return eigh(np.diag(_degrees(W)) - W, np.diag(_degrees(W)), eigvals_only=True)


def _spectral(W, n):
    return SpectralEmbedding(n, affinity="precomputed", random_state=0).fit_transform(W)


def _symmetric_eigenvectors(W, n):
    inv_sqrt = 1 / np.sqrt(_degrees(W))
    L_sym = np.eye(len(W)) - W * np.outer(inv_sqrt, inv_sqrt)
    return np.linalg.eigh(L_sym)[1][:, 1 : n + 1]


WRONG |= {
    "ex-le-random-walk": [
        ((lambda W: np.eye(len(W)) - W / _degrees(W)[None],), "do not sum to zero"),
        ((lambda W: np.diag(_degrees(W)) - W,), "not λ f"),
        (
            (lambda W: np.eye(len(W)) - W / np.sqrt(np.outer(*[_degrees(W)] * 2)),),
            "do not sum to zero",
        ),
    ],
    "ex-le-components": [
        ((lambda W: 3,), "your count is 3"),
        ((lambda W: int(np.sum(_generalised_eigenvalues(W) < 1e-2)),), "weak edge"),
        ((lambda W: int(np.sum(np.abs(np.linalg.eigvalsh(W)) < 1e-10)),), "count is 0"),
        (
            (lambda W: int(np.sum(np.abs(_generalised_eigenvalues(W)) < 1e-10)) - 1,),
            "0",
        ),
    ],
    "ex-le-height": [
        ((lambda a, b: int(a // b),), "off by -1"),
        ((lambda a, b: round(a / b),), "off by -1"),
        ((lambda a, b: int(np.ceil(a / b)) + 1,), "off by +1"),
        ((lambda a, b: int(a // b) + 2,), "off by +1"),
    ],
    "ex-le-sklearn-precomputed": [
        (
            (lambda W, n: np.column_stack([np.ones(len(W)), _spectral(W, n)[:, 1:]]),),
            "constant",
        ),
        ((_symmetric_eigenvectors,), "not the solutions"),
        ((lambda W, n: SpectralEmbedding(n, n_neighbors=5).fit_transform(W),), "graph"),
        ((lambda W, n: 3 * _spectral(W, n),), "normalisation"),
    ],
}


# chapter 07, SNE and t-SNE


def _far_mass(power, near_weight=True, far_count=True):
    def mass(beta, n_near, n_far):
        far = (n_far if far_count else 1) * np.exp(-power * beta)
        near = n_near * (np.exp(-beta) if near_weight else 1.0)
        return far / (near + far)

    return mass


WRONG |= {
    "ex-tsne-uniform-perplexity": [
        ((np.log2, _far_mass(2)), "not the entropy itself"),
        ((np.log, _far_mass(2)), "not the entropy itself"),
        ((lambda k: k, _far_mass(2, far_count=False)), "times the mass"),
        ((lambda k: k, _far_mass(2, near_weight=False)), "times the mass"),
        ((lambda k: k, _far_mass(4)), "times the mass"),
    ],
    "ex-tsne-perplexity-bound": [
        ((lambda n: n,), "no row comes closer"),
        ((lambda n: n - 2,), "above your bound"),
        ((lambda n: np.log2(n - 1),), "above your bound"),
    ],
    "ex-tsne-learning-rate": [
        ((lambda r: r,), "0.25 times"),
        ((lambda r: r / 4,), "0.0625 times"),
        ((lambda r: 12 * r,), "3 times"),
    ],
}


# chapter 08, NeRV and ClassNeRV


def _linear_part(P, Q, same, eps):
    off = same & ~np.eye(len(P), dtype=bool)
    return 4 * eps * np.sum(Q[off] - P[off])


def _data_share(X, y, k):
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    return np.mean(y[np.argsort(d2, axis=1, kind="stable")[:, :k]] == y[:, None])


def _chance(y):
    return np.mean((np.bincount(y)[y] - 1) / (len(y) - 1))


WRONG |= {
    "ex-classnerv-cancel": [
        ((lambda P, Q, same, eps: _linear_part(P, Q, same, eps) / 2,), "0.5 times"),
        ((lambda P, Q, same, eps: -_linear_part(P, Q, same, eps),), "-1 times"),
        ((lambda P, Q, same, eps: _linear_part(P, Q, ~same, eps),), "-1 times"),
        ((lambda P, Q, same, eps: 4 * eps * np.sum(Q - P),), "which pairs"),
    ],
    "ex-classnerv-random-gain": [
        (
            (
                lambda X, y, k: (
                    np.mean(np.bincount(y)[y] / len(y)) - _data_share(X, y, k)
                ),
            ),
            "not the chance level",
        ),
        ((lambda X, y, k: _chance(y),), "better or worse"),
        ((lambda X, y, k: 1 / 3 - _data_share(X, y, k),), "not the chance level"),
        ((lambda X, y, k: _data_share(X, y, k) - _chance(y),), "better or worse"),
        ((lambda X, y, k: 19 / 59 - 1,), "not the chance level"),
    ],
}


def _generalised(a, b):
    return a * np.log(a / b) - a + b


def _apex_terms(within_kind, between_kind, between=True):
    def stress(P, Q, same):
        off = ~np.eye(len(P), dtype=bool)
        w, b = same & off, ~same & off
        total = np.sum(within_kind(P[w], Q[w]))
        return total + (np.sum(between_kind(Q[b], P[b])) if between else 0.0)

    return stress


WRONG |= {
    "ex-classnerv-apex": [
        (
            (
                _apex_terms(
                    lambda p, q: _generalised(q, p), lambda q, p: _generalised(p, q)
                ),
            ),
            "which divergence",
        ),
        ((_apex_terms(rel_entr, rel_entr),), "generalised ones"),
        ((_apex_terms(_generalised, _generalised, between=False),), "times the full"),
    ],
}


# chapters 07, 08, 09 and 10: exercises of the chapters and of book/12_exercises


def _mass_count(descending=True, crossing=1):
    def count(P, fraction):
        rows = -np.sort(-P, axis=1) if descending else np.sort(P, axis=1)
        return np.sum(np.cumsum(rows, axis=1) < fraction, axis=1) + crossing

    return count


def _mass_beyond(offset=0):
    def beyond(P, m):
        return 1 - np.cumsum(-np.sort(-P, axis=1), axis=1)[:, m - 1 + offset]

    return beyond


def _collapsed(pairs=1.0, uniform=lambda n: 1 / (n * (n - 1))):
    def quadratic(P, Y):
        n = len(P)
        u = uniform(n) * (1 - np.eye(n))
        return pairs * np.sum((P - u) * cdist(Y, Y, "sqeuclidean"))

    return quadratic


def _stress_limit(recall_weight, precision_weight):
    def limit(tau, others, relevant, retrieved, both):
        recall, precision = both / relevant, both / retrieved
        return recall_weight(tau) * (1 - recall) + precision_weight(tau) * (
            1 - precision
        )

    return limit


def _power_mean(power):
    return lambda points, weights: (weights @ points**power) ** (1 / power)


def _reciprocal(x, y):
    return (x - y) ** 2 / (x * y**2)


def _share(X, y, k, leave_out=True):
    d2 = cdist(X, X, "sqeuclidean")
    if leave_out:
        np.fill_diagonal(d2, np.inf)
    nearest = np.argsort(d2, axis=1, kind="stable")[:, :k]
    return np.mean(y[nearest] == y[:, None])


def _growth(power=2, with_beta=True, factor=1.0):
    def coefficient(P, beta, classes, V, tau_out):
        gap = cdist(V, V) ** power
        b = beta[:, None] if with_beta else 1.0
        different = classes[:, None] != classes[None]
        return factor * tau_out * np.sum((b * P * gap[classes][:, classes])[different])

    return coefficient


def _class_difference(X, y):
    return X[y == 0].mean(0) - X[y == 1].mean(0)


def _between(factor):
    def between(X, y):
        n0, n1 = np.bincount(y)
        d = _class_difference(X, y)
        return factor(n0, n1) * np.outer(d, d)

    return between


def _pooled(X, y):
    return sum(
        (X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0))
        for c in (0, 1)
    ) / len(X)


def _fisher_value(factor, scatter=_pooled):
    def value(X, y):
        n0, n1 = np.bincount(y)
        d = _class_difference(X, y)
        return factor(n0, n1) * d @ np.linalg.solve(scatter(X, y), d)

    return value


def _shares(n0, n1):
    return n0 * n1 / (n0 + n1) ** 2


def _nca_diagonal(weight=lambda s: 2 * s, sign=1):
    def gradient(X, y, s):
        differences = (X[:, None, :] - X[None, :, :]) ** 2
        d2 = differences @ s**2
        np.fill_diagonal(d2, np.inf)
        P = np.exp(-(d2 - d2.min(axis=1, keepdims=True)))
        P /= P.sum(axis=1, keepdims=True)
        same = y[:, None] == y[None, :]
        C = sign * P * ((P * same).sum(axis=1, keepdims=True) - same)
        return weight(s) * np.einsum("ij,ijp->p", C, differences)

    return gradient


def _conv_counts(bias=lambda n_in, n_out: n_out, border=True, transpose=False):
    def counts(n_in, n_out, k, H, W):
        pi = (k - 1) // 2
        lost = pi * (pi + 1) if border else 0
        rows, columns = n_out * H * W, n_in * H * W
        if transpose:
            rows, columns = columns, rows
        nonzero = n_in * n_out * (k * H - lost) * (k * W - lost)
        return n_out * n_in * k * k + bias(n_in, n_out), rows, columns, nonzero

    return counts


def _conv_size(rounding=math.floor, pad_factor=2):
    def size(H, k, s, pad):
        return int(rounding((H + pad_factor * pad - k) / s)) + 1

    return size


def _transposed(pad_factor=2, output_padding=True):
    def size(n, k, s, pad, r):
        return (n - 1) * s - pad_factor * pad + k + (r if output_padding else 0)

    return size


WRONG |= {
    "ex-tsne-neighbour-mass": [
        ((_mass_count(crossing=0), _mass_beyond()), "too few"),
        ((_mass_count(descending=False), _mass_beyond()), "too many"),
        ((_mass_count(), _mass_beyond(offset=1)), "it is smaller"),
        ((_mass_count(), _mass_beyond(offset=-1)), "differs from"),
        ((_mass_count(), lambda P, m: np.sum(-np.sort(-P)[:, :m], 1)), "differs"),
    ],
    "ex-tsne-collapsed-map": [
        ((lambda P, Y: np.sum(P * cdist(Y, Y, "sqeuclidean")),), "times"),
        ((_collapsed(pairs=0.5),), "0.5 times"),
        ((_collapsed(pairs=-1.0),), "-1 times"),
        ((_collapsed(uniform=lambda n: 1 / n**2),), "times"),
    ],
    "ex-nerv-recall-or-precision": [
        ((_stress_limit(lambda t: 1 - t, lambda t: t),), "which does τ weigh"),
        ((_stress_limit(lambda t: t, lambda t: 1),), "which does τ weigh"),
        ((lambda tau, o, rel, ret, b: tau * b / rel + (1 - tau) * b / ret,), "limit"),
    ],
    "ex-nerv-bregman-reciprocal": [
        ((lambda x, y: _reciprocal(y, x), _power_mean(-2)), "swapped"),
        ((lambda x, y: (x - y) ** 2 / (x * y), _power_mean(-2)), "φ'(y)"),
        ((lambda x, y: 1 / x - 1 / y, _power_mean(-2)), "φ'(y)"),
        ((_reciprocal, _power_mean(1)), "smallest elsewhere"),
        ((_reciprocal, _power_mean(-1)), "smallest elsewhere"),
        ((_reciprocal, lambda p, w: 1 / (w @ p**-2.0)), "smallest elsewhere"),
    ],
    "ex-nerv-knn-gain-bounds": [
        ((lambda X, y, k: (0.0, 1.0),), "your bounds"),
        ((lambda X, y, k: (-1.0, 1.0),), "your bounds"),
        ((lambda X, y, k: (1 - _share(X, y, k), -_share(X, y, k)),), "not (lowest"),
        (
            (lambda X, y, k: (-_share(X, y, k, False), 1 - _share(X, y, k, False)),),
            "leave each point out",
        ),
    ],
    "ex-nerv-inadmissible": [
        ((_growth(with_beta=False),), "times"),
        ((_growth(power=1),), "times"),
        ((_growth(factor=2),), "2 times"),
        ((_growth(factor=-1),), "-1 times"),
    ],
    "ex-metric-lda-two-class-scatter": [
        ((_between(lambda n0, n1: 0.25), _fisher_value(_shares)), "which factor"),
        ((_between(lambda n0, n1: n0 * n1 / (n0 + n1)), _fisher_value(_shares)), "N?"),
        (
            (
                lambda X, y: np.cov(X.T, bias=True) - _pooled(X, y) + 0.1,
                _fisher_value(_shares),
            ),
            "not a multiple",
        ),
        ((_between(_shares), _fisher_value(lambda n0, n1: 1)), "times the largest"),
        (
            (
                _between(_shares),
                _fisher_value(_shares, lambda X, y: np.cov(X.T, bias=True)),
            ),
            "times the largest",
        ),
    ],
    "ex-metric-nca-diagonal": [
        ((_nca_diagonal(sign=-1),), "sign is reversed"),
        ((_nca_diagonal(weight=lambda s: s),), "check the factors"),
        ((_nca_diagonal(weight=lambda s: 2 * s**2),), "check the factors"),
        ((_nca_diagonal(weight=lambda s: 2),), "check the factors"),
    ],
    "ex-ae-conv-parameters": [
        ((_conv_counts(bias=lambda n_in, n_out: 0),), "parameters"),
        ((_conv_counts(bias=lambda n_in, n_out: n_in),), "parameters"),
        ((_conv_counts(transpose=True),), "rows: outputs"),
        ((_conv_counts(border=False),), "more than"),
        (
            (
                lambda n_in, n_out, k, H, W: (
                    *_conv_counts()(n_in, n_out, k, H, W)[:3],
                    (3 * H - 2) * (3 * W - 2),
                ),
            ),
            "fewer than",
        ),
    ],
    "ex-ae-conv-shapes": [
        ((_conv_size(rounding=math.ceil), _transposed()), "rounded up or down"),
        ((_conv_size(pad_factor=1), _transposed()), "PyTorch's convolution"),
        ((lambda H, k, s, pad: (H + 2 * pad - k) // s, _transposed()), "your size"),
        ((_conv_size(), _transposed(pad_factor=1)), "transposed convolution"),
        ((_conv_size(), _transposed(output_padding=False)), "output padding"),
    ],
    "ex-ae-lstm-parameters": [
        ((lambda d, h: 4 * h * (d + h + 1),), "how many gates"),
        ((lambda d, h: 4 * h * (d + h) + 2 * h,), "how many gates"),
        ((lambda d, h: 3 * h * (d + h + 2),), "how many gates"),
    ],
}


# chapter 08b, UMAP


def _umap_union(a, b):
    return a + b - a * b


def _umap_pairs(other=np.maximum, once=True, fixed=None):
    def count(V, threshold):
        gap = _umap_union(V, V.T) - other(V, V.T)
        if once:
            gap = gap[np.triu(np.ones(V.shape, dtype=bool), 1)]
        return int(np.sum(gap > (threshold if fixed is None else fixed)))

    return count


def _umap_cauchy(spread):
    return brentq(
        lambda md: umap.fit_ab(md, spread)[1] - 1.0, 0.1 * spread, 0.5 * spread
    )


def _umap_crossing(a, b):
    return a ** (1 / (2 - 2 * b))


def _umap_times(p, n_epochs):
    return int(np.floor(n_epochs * p))


def _umap_first(p):
    return int(np.ceil(1 / p))


def _umap_never(weights, n_epochs):
    return int(np.sum(n_epochs * weights / weights.max() < 1))


def _umap_push(d, a, b, eps):
    return 2 * b * d / ((eps + d**2) * (1 + a * d ** (2 * b)))


def _umap_peak(a, b, eps):
    return np.sqrt(eps), b / np.sqrt(eps)


def _umap_equal(n_samples, degree):
    return 4 * n_samples / (2 * degree)


def _umap_target(v, nu, n_samples, degree):
    return v / (v + nu * 2 * degree / (4 * n_samples))


def _umap_thresholds(n=lambda P: len(P) - 1, normalised=False, order=slice(1, 3)):
    def thresholds(P):
        L = np.diag(P.sum(1)) - P
        lam = eigh(L, np.diag(P.sum(1)) if normalised else None, eigvals_only=True)
        return 1 / (n(P) * lam[order])

    return thresholds


def _umap_density(spreads=(1.0, 2.0, 4.0), counts=(100, 100, 100), gap=50.0):
    def density_test(seed):
        gen = np.random.default_rng(seed)
        centres = [np.zeros(10), gap * np.eye(10)[1], gap * np.eye(10)[2]]
        X = np.vstack(
            [
                c + s * gen.normal(size=(n, 10))
                for c, s, n in zip(centres, spreads, counts)
            ]
        )
        return X, np.repeat(np.arange(3), counts)

    return density_test


def _umap_size(radius=lambda part: np.sqrt(((part - part.mean(0)) ** 2).sum(1).mean())):
    def size_ratio(Y, y):
        sizes = [radius(Y[y == c]) for c in np.unique(y)]
        return max(sizes) / min(sizes)

    return size_ratio


WRONG |= {
    "ex-umap-tconorms": [
        ((np.maximum, _umap_pairs()), "at least one of two independent edges"),
        ((lambda a, b: np.minimum(a + b, 1), _umap_pairs()), "at least one of two"),
        ((lambda a, b: a * b, _umap_pairs()), "below the larger"),
        ((lambda a, b: a + b, _umap_pairs()), "above the bounded sum"),
        ((_umap_union, _umap_pairs(once=False)), "2 times the number of pairs"),
        (
            (_umap_union, _umap_pairs(lambda p, q: np.minimum(p + q, 1))),
            "times the number of pairs",
        ),
        ((_umap_union, _umap_pairs(fixed=0.1)), "with threshold 0.03"),
    ],
    "ex-umap-min-dist": [
        ((lambda spread: 0.197, _umap_crossing), "not 1"),
        ((lambda spread: 0.1 * spread, _umap_crossing), "not 1"),
        ((_umap_cauchy, lambda a, b: a ** (1 / (1 - b))), "the crossing is"),
        ((_umap_cauchy, lambda a, b: np.sqrt(a)), "the crossing is"),
        ((_umap_cauchy, lambda a, b: a ** (1 / (2 * b - 2))), "the crossing is"),
    ],
    "ex-umap-edge-count": [
        ((lambda p, n: int(np.ceil(n * p)), _umap_first, _umap_never), "your count"),
        ((lambda p, n: round(n * p), _umap_first, _umap_never), "your count"),
        ((lambda p, n: n * p, _umap_first, _umap_never), "whole number"),
        ((_umap_times, lambda p: int(1 / p) + 1, _umap_never), "already"),
        (
            (_umap_times, lambda p: int(1 / p), _umap_never),
            "not sample the edge before",
        ),
        ((_umap_times, _umap_first, lambda w, n: np.sum(n * w < 1)), "never samples"),
        (
            (_umap_times, _umap_first, lambda w, n: np.sum(n * w / w.max() >= 1)),
            "never samples",
        ),
    ],
    "ex-umap-repulsion-epsilon": [
        (
            (lambda d, a, b, eps: _umap_push(d, a, b, eps) / d, _umap_peak),
            "(eps = 0: the exact gradient)",
        ),
        (
            (lambda d, a, b, eps: _umap_push(d, a, b, 0.0), _umap_peak),
            "with eps added",
        ),
        (
            (lambda d, a, b, eps: _umap_push(d, a, b, eps**2), _umap_peak),
            "with eps added",
        ),
        ((_umap_push, lambda a, b, eps: (eps, b / eps)), "your peak is at"),
        (
            (_umap_push, lambda a, b, eps: (np.sqrt(eps), 2 * b / np.sqrt(eps))),
            "your peak size",
        ),
        ((_umap_push, lambda a, b, eps: b / np.sqrt(eps)), "shape"),
    ],
    "ex-umap-more-negatives": [
        ((lambda n, degree: 4 * n / degree, _umap_target), "repulsion weight 2"),
        ((lambda n, degree: n / (2 * degree), _umap_target), "repulsion weight 0.25"),
        ((_umap_equal, lambda v, nu, n, degree: v), "lower at w"),
        (
            (_umap_equal, lambda v, nu, n, degree: v / (v + nu * degree / n)),
            "lower at w",
        ),
    ],
    "ex-umap-spectrum-1d": [
        ((_umap_thresholds(n=len),), "grows along"),
        ((_umap_thresholds(order=slice(2, 0, -1)),), "grows along"),
        ((_umap_thresholds(n=lambda P: 4 * (len(P) - 1)),), "grows along"),
        ((_umap_thresholds(normalised=True),), "grows along"),
    ],
    "ex-umap-spectrum-rate": [
        ((lambda rho, rate, n, lam: 1 - rate * (rho * lam - 1 / n),), "multiplies"),
        ((lambda rho, rate, n, lam: 1 - rate * rho * lam,), "multiplies"),
        (
            (lambda rho, rate, n, lam: 1 - 4 * rate * (rho * lam - 1 / (n - 1)),),
            "multiplies",
        ),
        (
            (lambda rho, rate, n, lam: 1 - rate * (rho * lam + 1 / (n - 1)),),
            "multiplies",
        ),
    ],
    "ex-umap-pitfall-own": [
        (
            (_umap_density(spreads=np.sqrt([1.0, 2.0, 4.0])), _umap_size()),
            "standard deviations per coordinate",
        ),
        ((_umap_density(counts=(50, 100, 150)), _umap_size()), "counts"),
        ((_umap_density(gap=5.0), _umap_size()), "nearest other centre"),
        (
            (_umap_density(), lambda Y, y: 1 / _umap_size()(Y, y)),
            "times the ratio of the widest",
        ),
        (
            (_umap_density(), _umap_size(lambda part: part.var(0).sum())),
            "times the ratio of the widest",
        ),
        ((_umap_density(), _umap_size(np.std)), "times the ratio of the widest"),
    ],
}


# chapters 04 to 07 and 09: Isomap, LLE, Laplacian eigenmaps, t-SNE, NCA and LDA


def _radius(statistic):
    def radius(X):
        D = cdist(X, X)
        np.fill_diagonal(D, np.inf)
        return statistic(D)

    return radius


def _local_weights(ridge=lambda C, reg: reg * np.trace(C), centre=True):
    def weights(x, neighbours, reg):
        differences = x - neighbours if centre else neighbours
        C = differences @ differences.T
        w = np.linalg.solve(C + ridge(C, reg) * np.eye(len(C)), np.ones(len(C)))
        return w / w.sum()

    return weights


def _exact_weights(x, neighbours, reg):
    w = np.linalg.pinv((x - neighbours) @ (x - neighbours).T).sum(axis=1)
    return w / w.sum()  # the exact weights of smallest norm: reg ignored


def _degree_ratio(union=True, own=0):
    def ratio(X, k):
        d2 = cdist(X, X, "sqeuclidean")
        np.fill_diagonal(d2, np.inf)
        A = np.zeros(d2.shape, dtype=bool)
        A[np.arange(len(X))[:, None], np.argsort(d2, axis=1)[:, :k]] = True
        degrees = (A | A.T if union else A & A.T).sum(axis=1) + own
        return degrees.max() / degrees.min()

    return ratio


def _largest_angle(first=1, back=True, unit=1.0):
    def angle(W, d):
        degree = W.sum(axis=1)
        L = np.diag(degree) - W
        V = eigh(L, subset_by_index=(first, first + d - 1))[1]
        s = degree**-0.5
        U = eigh(s[:, None] * L * s, subset_by_index=(first, first + d - 1))[1]
        F = s[:, None] * U if back else U
        return unit * subspace_angles(V, F).max()

    return angle


def _dof_gradient(factor=4.0, power=lambda alpha: 1 / alpha, rows=False):
    def gradient(P, Z, alpha):
        w = (1 + cdist(Z, Z, "sqeuclidean") / alpha) ** -alpha
        np.fill_diagonal(w, 0.0)
        Q = w / (w.sum(axis=1, keepdims=True) if rows else w.sum())
        C = factor * (P - Q) * w ** power(alpha)
        return C.sum(axis=1)[:, None] * Z - C @ Z

    return gradient


def _nca_gradient(factor=2.0, symmetric=True):
    def gradient(X, y, W):
        Z = X @ W
        d2 = cdist(Z, Z, "sqeuclidean")
        np.fill_diagonal(d2, np.inf)
        P = np.exp(-(d2 - d2.min(axis=1, keepdims=True)))
        P /= P.sum(axis=1, keepdims=True)
        same = y[:, None] == y[None, :]
        C = P * ((P * same).sum(axis=1, keepdims=True) - same)
        S = C + C.T if symmetric else C
        return factor * X.T @ (np.diag(S.sum(axis=0)) - S) @ X @ W

    return gradient


def _class_scatters(Z, y, within_normalised=1.0):
    mu = Z.mean(axis=0)
    S_w, S_b = np.zeros((Z.shape[1],) * 2), np.zeros((Z.shape[1],) * 2)
    for c in np.unique(y):
        members = Z[y == c]
        S_w += (members - members.mean(0)).T @ (members - members.mean(0))
        S_b += len(members) * np.outer(members.mean(0) - mu, members.mean(0) - mu)
    return S_w * within_normalised, S_b


def _fisher_ratios(order=-1, total=False, within_normalised=1.0):
    def ratios(Z, y):
        S_w, S_b = _class_scatters(Z, y, within_normalised)
        inverted = S_w + S_b if total else S_w
        values = np.linalg.eigvals(np.linalg.solve(inverted, S_b)).real
        return np.sort(values)[::order]

    return ratios


def _per_coordinate(Z, y):
    S_w, S_b = _class_scatters(Z, y)
    return np.sort(np.diag(S_b) / np.diag(S_w))[::-1]


WRONG |= {
    "ex-iso-epsilon": [
        ((_radius(lambda D: D.min(axis=1).max()),), "too small"),
        ((_radius(lambda D: D.min()),), "too small"),
        ((_radius(lambda D: D[np.isfinite(D)].max()),), "a smaller radius"),
        ((_radius(lambda D: 1.01 * D.min(axis=1).max()),), "too small"),
    ],
    "ex-lle-invariance": [
        ((_local_weights(ridge=lambda C, reg: reg),), "regularisation relative"),
        ((_local_weights(centre=False),), "translated"),
        ((_exact_weights,), "minimise"),
        (
            (_local_weights(ridge=lambda C, reg: reg * np.trace(C) / len(C)),),
            "minimise",
        ),
        (
            (lambda x, neighbours, reg: np.full(len(neighbours), 1 / len(neighbours)),),
            "minimise",
        ),
    ],
    "ex-le-regular": [
        ((_degree_ratio(union=False), _largest_angle()), "infinity"),
        ((lambda X, k: 1.0, _largest_angle()), "smaller"),
        ((_degree_ratio(own=1), _largest_angle()), "smaller"),
        ((_degree_ratio(), _largest_angle(back=False)), "used as it is"),
        ((_degree_ratio(), _largest_angle(first=0, back=False)), "differs"),
        ((_degree_ratio(), _largest_angle(unit=180 / np.pi)), "radians"),
    ],
    "ex-tsne-translation": [
        ((_dof_gradient(rows=True),), "do not sum to zero"),
        ((_dof_gradient(factor=2.0),), "0.5 times"),
        ((_dof_gradient(factor=-4.0),), "-1 times"),
        ((_dof_gradient(power=lambda alpha: 1.0),), "power of the kernel"),
    ],
    "ex-metric-nca-invariance": [
        ((_nca_gradient(symmetric=False),), "not symmetric"),
        ((_nca_gradient(factor=-2.0),), "-1 times"),
        ((_nca_gradient(factor=1.0),), "0.5 times"),
        ((lambda X, y, W: _nca_gradient()(X, y, W).T,), "shape"),
    ],
    "ex-metric-lda-noise": [
        ((_fisher_ratios(order=1),), "largest first"),
        ((_fisher_ratios(total=True),), "which scatter"),
        ((_fisher_ratios(within_normalised=1 / 30),), "normalised alike"),
        ((lambda Z, y: 1 / _fisher_ratios()(Z, y),), "which scatter"),
        ((_per_coordinate,), "mixed by an invertible matrix"),
    ],
}


_CASES = [(label, a, w) for label, cases in WRONG.items() for a, w in cases]


def test_every_self_check_meets_wrong_answers():
    assert set(WRONG) == set(exercises.registry), (
        "each self-check needs wrong answers here, and each entry here a self-check"
    )
    assert all(len(cases) >= 2 for cases in WRONG.values())
    # the cases parametrised below were read when this file was imported: an entry
    # added to WRONG after the tests would be counted above and never run
    assert len(_CASES) == sum(len(cases) for cases in WRONG.values())


@pytest.mark.parametrize(
    ("label", "answers", "words"),
    _CASES,
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_wrong_answer_fails_with_a_message(label, answers, words):
    with pytest.raises(exercises.WrongAnswer) as raised:
        exercises.check(label, *answers)
    assert words in str(raised.value), str(raised.value)
    assert str(raised.value).startswith(f"✘ {label}: ")


def _stub(*args):
    raise NotImplementedError


@pytest.mark.parametrize("label", sorted(exercises.registry))
def test_a_stub_is_not_answered_yet(label, monkeypatch):
    """Every answer still ``...`` (the workbook's value stubs; tests/structure runs the
    workbook's own stubs, functions included, through every check)."""
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    entry = exercises.registry[label]
    verdict = exercises.check(label, *[...] * len(entry.answers))
    assert verdict.status == "not answered" and not verdict
    assert "not" in verdict.message


def test_a_function_that_raises_not_implemented_is_not_answered_yet(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    verdict = exercises.check("ex-lle-two-neighbours", _stub)
    assert verdict.status == "not answered"


def test_under_the_autograder_a_stub_scores_zero(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with pytest.raises(exercises.WrongAnswer, match="not written yet"):
        exercises.check("ex-lle-two-neighbours", _stub)


def test_a_right_answer_passes_and_says_so():
    verdict = exercises.check("ex-lle-two-neighbours", _weights)
    assert verdict and verdict.status == "right"
    assert "✔" in verdict._repr_html_()


def test_the_number_of_answers_and_the_label_are_checked():
    with pytest.raises(TypeError, match="checks 2 answer"):
        exercises.check("ex-lle-scale", _sqrt_n)
    with pytest.raises(KeyError, match="no self-check"):
        exercises.check("ex-no-such-exercise", _stub)


def test_a_wrong_answer_shows_as_one_line_in_a_notebook():
    with pytest.raises(exercises.WrongAnswer) as raised:
        exercises.check("ex-lle-two-neighbours", lambda C: np.array([0.5, 0.5]))
    assert raised.value._render_traceback_() == [str(raised.value)]
