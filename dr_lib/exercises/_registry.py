"""The register of self-checks and the verdict a student sees.

An exercise's self-check is a function that receives the student's answers (the names
the answer cell of the workbook defines) and returns quietly when they are right, or
raises :class:`Wrong` with a message that says *what* is wrong without giving the
solution away.
:func:`check` runs it and turns the outcome into a :class:`Verdict`:

- ``right``: every property the check tests holds;
- ``not answered``: the answer is still the workbook's stub (``...``, or a function that
  raises ``NotImplementedError``, as nbgrader's stubs do);
- ``wrong``: the message of the first property that fails (or of the exception the
  answer raised, e.g. a ``TypeError`` from a function called with the check's data).

The first two are returned and displayed, so that a student can run a whole notebook
with some exercises still open. A wrong answer raises :class:`WrongAnswer`, an
``AssertionError`` that a notebook shows as its one-line message, without a traceback:
the book's own solutions run these checks, so a solution that stopped passing would stop
the build, and nbgrader's autograder scores the self-check cell zero. Under the
autograder (``NBGRADER_EXECUTION`` is ``autograde`` or ``validate``) an answer that is
still a stub raises too.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "Exercise",
    "WrongAnswer",
    "NotAnswered",
    "Verdict",
    "Wrong",
    "check",
    "exercise",
    "registry",
]


class Wrong(Exception):
    """Raised by a self-check: the answer fails a property; the message says which."""


class NotAnswered(Exception):
    """Raised by a self-check: the answer is still the workbook's stub."""


class WrongAnswer(AssertionError):
    """Raised by :func:`check` for a wrong answer; a notebook shows only its message."""

    def _render_traceback_(self):
        return [str(self)]


@dataclass(frozen=True)
class Exercise:
    """One exercise that has a self-check.

    Attributes
    ----------
    label : str
        The exercise's label in the book (``ex-...``).
    answers : tuple of str
        The names the answer cell defines, in the order the check takes them.
    produce : str
        What the student writes, in one sentence (shown above the answer cell).
    practises : str
        What the exercise practises (the teacher's index).
    minutes : int
        An estimate of the time it takes a student who has read the section.
    run : callable
        The self-check: ``run(*answers)`` returns when the answers are right, raises
        :class:`Wrong` (or :class:`NotAnswered`) otherwise.
    """

    label: str
    answers: tuple[str, ...]
    produce: str
    practises: str
    minutes: int
    run: Callable[..., None]


registry: dict[str, Exercise] = {}


def exercise(label, *, answers, produce, practises, minutes):
    """Register the decorated function as the self-check of exercise ``label``."""

    def register(run):
        if label in registry:
            raise RuntimeError(f"two self-checks for {label}")
        registry[label] = Exercise(
            label, tuple(answers), produce, practises, minutes, run
        )
        return run

    return register


@dataclass(frozen=True)
class Verdict:
    """The outcome of a self-check, shown as a coloured line in a notebook."""

    label: str
    status: str  # "right", "wrong" or "not answered"
    message: str

    def __bool__(self):
        return self.status == "right"

    def __str__(self):
        mark = {"right": "✔", "wrong": "✘", "not answered": "…"}[self.status]
        return f"{mark} {self.label}: {self.message}"

    def __repr__(self):
        return str(self)

    def _repr_html_(self):
        colour = {"right": "#1a7f37", "wrong": "#cf222e", "not answered": "#6e7781"}
        return (
            f'<p style="border-left: 4px solid {colour[self.status]}; '
            f'padding-left: 0.6em">{html.escape(str(self))}</p>'
        )


def _grading():
    return os.environ.get("NBGRADER_EXECUTION", "").lower() in {"autograde", "validate"}


def check(label, *answers):
    """Run the self-check of exercise ``label`` on the student's answers.

    Parameters
    ----------
    label : str
        The exercise's label, e.g. ``"ex-lle-two-neighbours"``.
    *answers
        The objects the answer cell defines, in the order of ``Exercise.answers``.

    Returns
    -------
    Verdict
        Right or not answered yet; displayed by the notebook.

    Raises
    ------
    WrongAnswer
        For a wrong answer, with what is wrong; under nbgrader's autograder also for an
        answer that is still a stub.
    """
    if label not in registry:
        raise KeyError(f"no self-check for {label!r}; the workbook has {len(registry)}")
    entry = registry[label]
    if len(answers) != len(entry.answers):
        raise TypeError(
            f"{label} checks {len(entry.answers)} answer(s), "
            f"{', '.join(entry.answers)}; got {len(answers)}"
        )
    try:
        entry.run(*answers)
    except NotAnswered as stub:
        verdict = Verdict(label, "not answered", str(stub) or "not answered yet")
    except Wrong as fault:
        raise WrongAnswer(str(Verdict(label, "wrong", str(fault)))) from None
    else:
        verdict = Verdict(label, "right", "right: every property the check tests holds")
    if _grading() and not verdict:
        raise WrongAnswer(str(verdict))
    return verdict
