"""dr_lib.exercises: every self-check rejects plausible wrong answers, with a message.

The book's own solutions pass the checks in the notebooks (each solution runs its
self-check cell; a wrong verdict raises and stops the notebook). Here each check meets
the mistakes a student makes: the source's formula where it is wrong, a sign, a
transpose, a factor, an off-by-one. A check that no wrong answer fails is a defect.
"""

import numpy as np
import pytest
from scipy.linalg import eigh, qr, sqrtm, svd
from scipy.special import rel_entr
from sklearn.manifold import SpectralEmbedding

from dr_lib import exercises, lle
from dr_lib.graphs import kneighbors


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


def test_every_self_check_meets_wrong_answers():
    assert set(WRONG) == set(exercises.registry), (
        "each self-check needs wrong answers here, and each entry here a self-check"
    )


@pytest.mark.parametrize(
    ("label", "answers", "words"),
    [(label, a, w) for label, cases in WRONG.items() for a, w in cases],
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
@pytest.mark.parametrize("stub", [_stub, ...], ids=["raises", "ellipsis"])
def test_a_stub_is_not_answered_yet(label, stub, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    entry = exercises.registry[label]
    verdict = exercises.check(label, *[stub] * len(entry.answers))
    assert verdict.status == "not answered" and not verdict
    assert "not" in verdict.message


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
