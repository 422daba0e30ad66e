"""dr_lib.exercises: every self-check rejects plausible wrong answers, with a message.

The book's own solutions pass the checks in the notebooks (each solution runs its
self-check cell; a wrong verdict raises and stops the notebook). Here each check meets
the mistakes a student makes: the source's formula where it is wrong, a sign, a
transpose, a factor, an off-by-one. A check that no wrong answer fails is a defect.
"""

import numpy as np
import pytest
from scipy.linalg import qr, svd

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
