"""End to end: nbval with the plugin logs a notebook's checks and asserts, cell by
cell."""

import os
import subprocess
import sys
from pathlib import Path

import nbformat

from tests.check_log.samples import (
    assert_sample_logged,
    read_log,
    write_sample_notebook,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_notebook_run_under_nbval_logs_its_checks(tmp_path):
    path = tmp_path / "page.ipynb"
    write_sample_notebook(path)
    log = tmp_path / "logs" / "run.jsonl"
    env = dict(os.environ, DR_BOOK_CHECK_LOG=str(log))
    command = [sys.executable, "-m", "pytest", "-p", "tests.check_log.plugin", "-q"]
    command += [
        "-p",
        "no:cacheprovider",
        "--nbval-lax",
        "--nbval-current-env",
        str(path),
    ]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert_sample_logged(read_log(log), path)


def test_notebooks_run_by_xdist_workers_all_reach_one_log(tmp_path):
    """Only the controller empties the log; each worker names its own notebooks."""
    paths, imports = [], "import numpy as np\nfrom dr_lib import symbolic"
    for number in range(4):
        notebook = nbformat.v4.new_notebook()
        notebook.cells = [
            nbformat.v4.new_code_cell(imports),
            nbformat.v4.new_code_cell(
                f"symbolic.check_numeric(np.float64({number}), {number}.0, "
                f"'page {number}', atol=1e-9)"
            ),
        ]
        paths.append(tmp_path / f"page{number}.ipynb")
        nbformat.write(notebook, paths[-1])
    log = tmp_path / "run.jsonl"
    log.write_text('{"left over": "from an earlier run"}\n', encoding="utf-8")
    env = dict(os.environ, DR_BOOK_CHECK_LOG=str(log))
    command = [sys.executable, "-m", "pytest", "-p", "tests.check_log.plugin", "-q"]
    command += ["-p", "no:cacheprovider", "-n", "2", "--dist", "loadscope"]
    command += ["--nbval-lax", "--nbval-current-env", *map(str, paths)]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    entries = read_log(log)
    assert sorted((e["notebook"], e["label"]) for e in entries) == [
        (str(path), f"page {number}") for number, path in enumerate(paths)
    ]
