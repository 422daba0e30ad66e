"""Sphinx extension: the notebooks the book build executes record their checks.

``make test`` builds the book once with ``DR_BOOK_CHECK_LOG`` set, and that build's
execution of every notebook (the machine's own BLAS kernel and thread count) is the
``default`` run of the headroom report (:mod:`tests.check_log.report`): the notebooks
run once for both, not once for the book and once more under nbval. As
:mod:`tests.check_log.plugin` does for nbval, this

- empties the log and gives the kernels the start-up file that records ``assert``
  comparisons (:func:`tests.check_log.plugin.prepare_kernels`);
- names each notebook in ``DR_BOOK_NOTEBOOK`` when Sphinx reads it, which is when
  MyST-NB starts its kernel;
- when the build ends, fails if a notebook of the book left nothing in the log: a
  notebook taken from the execution cache, or not read again by an incremental
  build, ran no check, and the report would compare it with nothing. (Every notebook of
  the book has checks; ``make test`` empties the cache and builds with ``--all``.)

Without ``DR_BOOK_CHECK_LOG`` it does nothing, so a reader's ``make book`` is unchanged.
"""

import json
import os
from pathlib import Path

from sphinx.errors import ExtensionError

from dr_lib import _check_log
from tests.check_log.plugin import name_notebook, notebook_name, prepare_kernels


def _start_log(app):
    prepare_kernels()


def _notebook(app, docname):
    """The notebook's path, or None for a page of another kind."""
    path = str(app.env.doc2path(docname))
    return path if path.endswith(".ipynb") else None


def _name_notebook(app, docname, source):
    if os.environ.get(_check_log.LOG_VARIABLE) and _notebook(app, docname):
        name_notebook(_notebook(app, docname))


def _logged_notebooks(log):
    lines = Path(log).read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["notebook"] for line in lines}


def _every_notebook_logged(app, exception):
    log = os.environ.get(_check_log.LOG_VARIABLE)
    if exception is not None or not log:
        return
    notebooks = {
        notebook_name(_notebook(app, docname))
        for docname in app.env.found_docs
        if _notebook(app, docname)
    }
    silent = sorted(notebooks - _logged_notebooks(log))
    if silent:
        raise ExtensionError(
            f"{len(silent)} notebooks recorded no check in {log}, e.g. {silent[0]}: "
            "they were not executed by this build (taken from the execution cache, "
            "or not read again). Remove _build/.jupyter_cache and build with --all."
        )


def setup(app):
    app.connect("builder-inited", _start_log)
    app.connect("source-read", _name_notebook)
    app.connect("build-finished", _every_notebook_logged)
    return {"version": "0.1", "parallel_read_safe": False, "parallel_write_safe": True}
