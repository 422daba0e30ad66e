"""End to end: nbval with the plugin logs a notebook's checks and asserts, cell by
cell."""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]


def test_a_notebook_run_under_nbval_logs_its_checks(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("A page."),
        nbformat.v4.new_code_cell("import numpy as np\nfrom dr_lib import symbolic"),
        nbformat.v4.new_code_cell(
            "symbolic.check_numeric(np.trace(np.eye(3)), 3.0, 'trace of I', atol=1e-9)"
        ),
        nbformat.v4.new_code_cell("err = 2e-9\nassert err < 1e-8"),
    ]
    path = tmp_path / "page.ipynb"
    nbformat.write(notebook, path)
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
    entries = [
        json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()
    ]
    assert [(e["label"], e["site"]) for e in entries] == [
        ("trace of I", "cell 1, line 1"),
        ("assert in cell 2, line 2: err < 1e-08", "cell 2, line 2"),
    ]  # cells counted from 0 among code cells, as nbval names them
    assert {e["notebook"] for e in entries} == {str(path)}
    assert entries[0]["used"] == 0.0 and abs(entries[1]["used"] - 0.2) < 1e-12
