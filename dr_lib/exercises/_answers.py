"""Reading a student's answer: the shared steps of every self-check.

Each helper either returns the answer in a usable form or raises :class:`Wrong` /
:class:`NotAnswered` with a message in the student's terms (the answer's name, what was
expected, what came back), never the expected value itself. ``central_differences``
is the independent route to a gradient that several checks share.
"""

import numpy as np

from ._registry import NotAnswered, Wrong

__all__ = [
    "array_answer",
    "call",
    "central_differences",
    "number_answer",
    "require",
]


def _stub(value):
    return value is Ellipsis or value is None


def require(condition, message):
    """Raise :class:`Wrong` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise Wrong(message)


def call(function, *args, name):
    """Call the student's ``function`` on the check's own data.

    A stub (``...``, or a body that raises ``NotImplementedError``) is "not answered";
    anything else that raises is wrong, with the exception named.
    """
    if _stub(function):
        raise NotAnswered(f"`{name}` is not written yet")
    if not callable(function):
        raise Wrong(f"`{name}` should be a function; it is a {type(function).__name__}")
    try:
        return function(*args)
    except NotImplementedError:
        raise NotAnswered(f"`{name}` is not written yet") from None
    except Exception as error:  # noqa: BLE001 - any failure of the student's code
        raise Wrong(
            f"`{name}` raised {type(error).__name__} on the check's data: {error}"
        ) from None


def array_answer(value, *, name, shape=None):
    """The answer as a finite float array, of ``shape`` if given (-1: any length)."""
    if _stub(value):
        raise NotAnswered(f"`{name}` is not computed yet")
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise Wrong(f"`{name}` should be an array of numbers") from None
    if shape is not None:
        fits = array.ndim == len(shape) and all(
            want in (-1, got) for want, got in zip(shape, array.shape)
        )
        expected = " x ".join("n" if s == -1 else str(s) for s in shape) or "a scalar"
        require(fits, f"`{name}` has shape {array.shape}; expected {expected}")
    require(np.all(np.isfinite(array)), f"`{name}` contains NaN or infinity")
    return array


def number_answer(value, *, name):
    """The answer as one finite float."""
    return float(array_answer(value, name=name, shape=()))


def central_differences(function, at, h=1e-6):
    """The gradient of the scalar ``function`` at the array ``at``, entry by entry,
    from central differences with step ``h`` (error of order h²)."""
    gradient = np.zeros_like(at, dtype=float)
    for index in np.ndindex(*at.shape):
        step = np.zeros_like(gradient)
        step[index] = h
        gradient[index] = (function(at + step) - function(at - step)) / (2 * h)
    return gradient
