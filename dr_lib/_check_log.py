"""A record of every numeric check, for the book's portability test.

A numeric check passes when a difference stays inside a tolerance, and how much of the
tolerance it used depends on round-off, which depends on the BLAS kernel and the number
of threads: a check that uses 90 % of its tolerance on one machine may fail on the next.
``make test-portability`` runs the notebooks under several kernels and thread counts and
compares what each check used (``tests/check_log``).

When the environment variable ``DR_BOOK_CHECK_LOG`` names a file, every check of
:mod:`dr_lib.symbolic` appends one JSON line to it::

    {"notebook": "book/05_lle/02_embedding.ipynb", "label": "Σ z_i = 0",
     "used": 0.00031, "headroom": 0.99969, "site": "cell 14, line 6",
     "kind": "numeric", ...}

``used`` is the fraction of the tolerance the check used (at most 1 passes; ``null``
when it is not finite: NaN, or a difference against a zero tolerance), and ``headroom``
is 1 − used, computed without cancellation where the check can. ``notebook`` comes from
``DR_BOOK_NOTEBOOK``, which the test harness sets for each notebook's kernel; ``site``
is where in the notebook the check was called (its code cell, which the harness counts
in ``DR_BOOK_CELL``, and the line), so that two checks which share a label can be told
apart. A check that runs in a loop writes a new line only when it uses more of its
tolerance than before at that site. Without the variable nothing is written and nothing
is computed beyond the check itself.
"""

import json
import math
import os
import sys
from pathlib import Path

import numpy as np

__all__ = [
    "LOG_VARIABLE",
    "NOTEBOOK_VARIABLE",
    "CELL_VARIABLE",
    "enabled",
    "record",
    "call_site",
    "fraction_of_tolerance",
]

LOG_VARIABLE = "DR_BOOK_CHECK_LOG"
NOTEBOOK_VARIABLE = "DR_BOOK_NOTEBOOK"
#: The code cell being run (counted from 0, as nbval does), set in the kernel by the
#: harness.
CELL_VARIABLE = "DR_BOOK_CELL"

#: Frames from these folders are library code, never the place a check was called from.
_LIBRARY_FOLDERS = tuple(
    str(Path(folder).resolve())
    for folder in {
        Path(__file__).parent,  # dr_lib itself
        Path(os.__file__).parent,  # the standard library (and site-packages below it)
        Path(sys.prefix),
        Path(sys.base_prefix),
    }
)


def enabled():
    """Whether checks are being recorded (``DR_BOOK_CHECK_LOG`` is set and not
    empty)."""
    return bool(os.environ.get(LOG_VARIABLE))


def _is_library_frame(frame):
    filename = frame.f_code.co_filename
    if filename.startswith("<"):  # <string>, <frozen ...>: not a notebook cell
        return True
    return str(Path(filename).resolve()).startswith(_LIBRARY_FOLDERS)


def call_site():
    """Where the check was called: the outermost frame outside the libraries.

    In a notebook that is the cell's own top-level line, so a check in a loop, or in a
    helper the cell defines and calls, has one site however often it runs. Returns a
    short string: ``"cell 14, line 6"`` when the harness numbers the cells
    (``DR_BOOK_CELL``), else ``"file.py:6"``.
    """
    frame = sys._getframe(1)
    outermost = None
    while frame is not None:
        if not _is_library_frame(frame):
            outermost = frame
        frame = frame.f_back
    if outermost is None:
        return "?"
    cell, line = os.environ.get(CELL_VARIABLE), outermost.f_lineno
    if cell is None:
        return f"{Path(outermost.f_code.co_filename).name}:{line}"
    return f"cell {cell}, line {line}"


def fraction_of_tolerance(a, b, rtol, atol):
    """max over entries of |a − b| / (atol + rtol·|b|): how much of the tolerance is
    used.

    At most 1 exactly when ``numpy.allclose(a, b, rtol, atol)`` passes: equal entries
    (infinities too) use nothing; a difference against a zero tolerance, or a NaN, uses
    infinitely much.
    """
    a, b = np.asarray(a), np.asarray(b)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        difference = np.where(a == b, 0.0, np.abs(a - b))
        ratio = np.where(difference == 0, 0.0, difference / (atol + rtol * np.abs(b)))
    return float(np.max(np.where(np.isnan(ratio), np.inf, ratio), initial=0.0))


def _finite_or_none(value):
    return value if value is not None and math.isfinite(value) else None


#: The smallest headroom written so far for each (log, notebook, label, site).
_worst_written = {}


def record(label, used, *, kind, headroom=None, **details):
    """Append one check to the log, if the log is enabled.

    Parameters
    ----------
    label : str
        The check's label, unique within its notebook.
    used : float
        The fraction of the tolerance used; at most 1 passes.
    kind : str
        What kind of check: "numeric", "at_most", "at_least", "assert", ...
    headroom : float, optional
        1 − used, when the caller has it without cancellation (a bound met with a margin
        of 1e-9 of its size has ``used`` = 1 − 1e-9, which keeps only 7 digits of the
        margin).
    **details
        More fields for the line (JSON-serialisable), e.g. the tolerances.
    """
    path = os.environ.get(LOG_VARIABLE)
    if not path:
        return
    notebook, site = os.environ.get(NOTEBOOK_VARIABLE, ""), call_site()
    used = float(used) if math.isfinite(used) else math.inf
    headroom = 1.0 - used if headroom is None else float(headroom)
    key = (path, notebook, str(label), site)
    if headroom >= _worst_written.get(key, math.inf):
        return  # a check in a loop: only a new worst case is worth a line
    _worst_written[key] = headroom
    entry = {
        "notebook": notebook,
        "label": str(label),
        "used": _finite_or_none(used),
        "headroom": _finite_or_none(headroom),
        "site": site,
        "kind": kind,
        **details,
    }
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry, ensure_ascii=False, allow_nan=False) + "\n")
