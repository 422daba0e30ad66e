"""End to end: a book build with the extension logs its notebooks' checks, cell by
cell, and refuses to end with a notebook that ran no check (taken from the execution
cache)."""

import os
import subprocess
import sys
from pathlib import Path

from tests.check_log.samples import (
    assert_sample_logged,
    read_log,
    write_sample_notebook,
)

ROOT = Path(__file__).resolve().parents[2]
JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")

CONFIG = f"""\
title: A test book
only_build_toc_files: true
execute:
  execute_notebooks: cache
sphinx:
  local_extensions:
    tests.check_log.book_build: {ROOT}
"""
TOC = "format: jb-book\nroot: intro\nchapters:\n  - file: page\n"


def _book(folder):
    (folder / "_config.yml").write_text(CONFIG, encoding="utf-8")
    (folder / "_toc.yml").write_text(TOC, encoding="utf-8")
    (folder / "intro.md").write_text("# A test book\n", encoding="utf-8")
    write_sample_notebook(folder / "page.ipynb")


def _build(folder, log):
    env = dict(os.environ, DR_BOOK_CHECK_LOG=str(log))
    command = [str(JUPYTER_BOOK), "build", str(folder), "--all"]
    return subprocess.run(command, env=env, capture_output=True, text=True)


def test_the_book_build_logs_what_its_notebooks_check(tmp_path):
    _book(tmp_path)
    log = tmp_path / "logs" / "default.jsonl"
    result = _build(tmp_path, log)
    assert result.returncode == 0, result.stdout + result.stderr
    # the same records as nbval's run of the notebook (test_plugin.py)
    assert_sample_logged(read_log(log), tmp_path / "page.ipynb")

    # The second build takes the notebook from the cache: it executes nothing, so it
    # must not pass for a run of every check.
    again = _build(tmp_path, log)
    assert again.returncode != 0
    assert "1 notebooks recorded no check" in again.stdout + again.stderr
    assert "Remove _build/.jupyter_cache" in again.stdout + again.stderr
