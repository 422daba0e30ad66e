"""A notebook with one check of each kind, and what its run must log: shared by the
tests of the two harnesses that run notebooks (nbval's plugin, the book build's
extension), which must log the same records."""

import json

import nbformat

#: (label, site) of each record the sample notebook logs, in order: cells are counted
#: from 0 among code cells, as nbval names them.
EXPECTED = [
    ("trace of I", "cell 1, line 1"),
    ("assert in cell 2, line 2: err < 1e-08", "cell 2, line 2"),
]


def write_sample_notebook(path):
    """A check_numeric that uses none of its tolerance and an assert that uses 0.2."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# A page"),
        nbformat.v4.new_code_cell("import numpy as np\nfrom dr_lib import symbolic"),
        nbformat.v4.new_code_cell(
            "symbolic.check_numeric(np.trace(np.eye(3)), 3.0, 'trace of I', atol=1e-9)"
        ),
        nbformat.v4.new_code_cell("err = 2e-9\nassert err < 1e-8"),
    ]
    nbformat.write(notebook, path)


def read_log(path):
    """The records of a check log, in order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def assert_sample_logged(entries, notebook):
    """The records of one run of the sample notebook at ``notebook``."""
    assert [(e["label"], e["site"]) for e in entries] == EXPECTED
    assert {e["notebook"] for e in entries} == {str(notebook)}
    assert entries[0]["used"] == 0.0 and abs(entries[1]["used"] - 0.2) < 1e-12
