"""pytest plugin: let every notebook's checks record themselves
(``-p tests.check_log.plugin``).

With ``DR_BOOK_CHECK_LOG`` set (see :mod:`dr_lib._check_log`), for
``pytest --nbval-lax``:

- the log starts empty: one pytest run writes one log (with pytest-xdist, the controller
  empties it and the workers append to it);
- before a notebook's kernel starts, ``DR_BOOK_NOTEBOOK`` is set to the notebook's path
  (relative to the repository), so that its records say where they come from;
- every kernel starts with an IPython start-up file that installs
  :mod:`tests.check_log.asserts`, so that the notebook's ``assert`` statements record
  their comparisons too. The start-up file lives in a private IPython directory
  (``IPYTHONDIR``) beside the log, and leaves the user's own IPython set-up alone.

Without ``DR_BOOK_CHECK_LOG`` the plugin does nothing. :mod:`tests.check_log.sphinx`
does the same for the notebooks the book build executes.
"""

import os
from pathlib import Path

import pytest

from dr_lib import _check_log

ROOT = Path(__file__).resolve().parents[2]
ASSERTS = Path(__file__).with_name("asserts.py")

STARTUP = f"""\
# Written by tests/check_log/plugin.py: record the comparisons of every assert.
import importlib.util

_spec = importlib.util.spec_from_file_location("dr_book_assert_log", {str(ASSERTS)!r})
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
_module.install(get_ipython())
del importlib, _spec, _module
"""


def prepare_kernels(empty_log=True):
    """Set up this process so that the kernels it starts record their checks.

    Makes ``DR_BOOK_CHECK_LOG`` absolute (kernels run in other folders), empties the
    log when ``empty_log``, and points ``IPYTHONDIR`` at a private folder whose start-up
    file installs the assert recorder. Returns the log's path, or None when logging is
    off.
    """
    log = os.environ.get(_check_log.LOG_VARIABLE)
    if not log:
        return None
    log = Path(log).resolve()
    log.parent.mkdir(parents=True, exist_ok=True)
    if empty_log:
        log.write_text("", encoding="utf-8")
    os.environ[_check_log.LOG_VARIABLE] = str(log)
    ipython_dir = log.with_suffix(".ipython")
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-record-asserts.py").write_text(STARTUP, encoding="utf-8")
    os.environ["IPYTHONDIR"] = str(ipython_dir)
    return log


def notebook_name(path):
    """How the log names a notebook: its path relative to the repository, if inside."""
    path = Path(path).resolve()
    return (path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).as_posix()


def name_notebook(path):
    """Tell the kernels started from now on which notebook they run."""
    os.environ[_check_log.NOTEBOOK_VARIABLE] = notebook_name(path)


def pytest_configure(config):
    # Under pytest-xdist only the controller (which has no workerinput) empties the log:
    # a worker that emptied it could erase what another had written.
    prepare_kernels(empty_log=not hasattr(config, "workerinput"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Name the notebook before nbval starts its kernel (in the first cell's set-up)."""
    if os.environ.get(_check_log.LOG_VARIABLE):
        name_notebook(item.path)
