"""The workbook (workbook/build.py): no solution reaches the student, nothing breaks.

Built once from the book's notebooks into a temporary folder. What the student gets is
compared with the book by a route independent of the builder's parser: the solution
cells are found here by scanning each notebook for its solution fences line by line.
"""

import ast
import re

import nbformat
import pytest

from dr_lib import exercises
from workbook import build

_START = re.compile(r"^`{3,}\{solution-start\}\s*(\S+)", re.M)
_END = re.compile(r"^`{3,}\{solution-end\}", re.M)


@pytest.fixture(scope="module")
def workbook(tmp_path_factory):
    out = tmp_path_factory.mktemp("workbook")
    entries = build.build(out)
    return out, entries


def _solution_code(path):
    """Code cells between a solution-start fence and its solution-end (last wins)."""
    inside, cells = False, []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown":
            starts = [m.start() for m in _START.finditer(cell.source)]
            ends = [m.start() for m in _END.finditer(cell.source)]
            if starts or ends:
                inside = max(starts, default=-1) > max(ends, default=-1)
        elif inside:
            cells.append(cell)
    return cells


def _student(out, path):
    return nbformat.read(out / "student" / path.parent.name / path.name, as_version=4)


def _book_labels(path):
    text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    return set(re.findall(r"^:label:\s*(ex-\S+)", text, re.M))


_CLOSED = re.compile(r"^(`{3,})\{solution\}\s*(\S+)", re.M)


@pytest.mark.parametrize("path", build.toc_notebooks(), ids=lambda p: p.stem)
def test_a_solution_with_code_is_fenced_around_it(path):
    # A one-cell {solution} fence closes before the next cell: code after it is
    # outside the solution, shown beside the dropdown in the HTML book and kept in the
    # student's notebook. A solution with code opens with solution-start and closes
    # after its code.
    cells = nbformat.read(path, as_version=4).cells
    outside = [
        match.group(2)
        for cell, after in zip(cells, cells[1:])
        if cell.cell_type == "markdown" and after.cell_type == "code"
        for match in _CLOSED.finditer(cell.source)
    ]
    assert not outside, f"{path.name}: solution code after the fence: {outside}"


@pytest.mark.parametrize("path", build.toc_notebooks(), ids=lambda p: p.stem)
def test_no_solution_reaches_the_student(workbook, path):
    out, _ = workbook
    student = _student(out, path)
    sources = {c.source.strip() for c in student.cells}
    leaked = [
        c.source[:60]
        for c in _solution_code(path)
        if c.source.strip() in sources
        and "self-check" not in c.metadata.get("tags", [])
    ]
    assert not leaked, f"solution code in the student's notebook: {leaked}"
    text = "\n".join(c.source for c in student.cells)
    assert not re.search(r"\{solution(-start|-end)?\}", text)
    assert _book_labels(path) == set(re.findall(r"^:label:\s*(ex-\S+)", text, re.M))


@pytest.mark.parametrize("path", build.toc_notebooks(), ids=lambda p: p.stem)
def test_no_kept_cell_needs_a_removed_one(workbook, path):
    """A name that only a solution defines is never used after it by a kept cell."""
    out, _ = workbook

    def defined(source):
        names = set()
        for node in ast.walk(ast.parse(_python(source))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        return names

    def used(source):
        return {
            n.id
            for n in ast.walk(ast.parse(_python(source)))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }

    student = [c for c in _student(out, path).cells if c.cell_type == "code"]
    kept_defined = set().union(*(defined(c.source) for c in student))
    only_in_solutions = (
        set().union(*(defined(c.source) for c in _solution_code(path))) - kept_defined
    )
    needed = set().union(*(used(c.source) for c in student)) & only_in_solutions
    assert not needed, f"kept cells use names only a solution defines: {needed}"


def _python(source):
    """A cell's source without IPython magics (lines starting with % or !)."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line
        for line in source.split("\n")
    )


def test_every_self_check_has_its_cells_in_the_book(workbook):
    _, entries = workbook
    checked = {e.label for e in entries if e.checked}
    assert checked == set(exercises.registry)
    assert len({e.label for e in entries}) == len(entries), "an exercise label twice"


def test_answer_stubs_run_and_are_not_answered(workbook, monkeypatch):
    """Each stub executes alone, and its self-check says "not answered"."""
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    out, _ = workbook
    seen = set()
    for path in sorted((out / "student").rglob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for stub, check in zip(cells, cells[1:]):
            grading = stub.metadata.get("nbgrader", {})
            if not grading.get("solution"):
                continue
            label = check.metadata["nbgrader"]["grade_id"].removesuffix("-check")
            assert grading["grade_id"] == f"{label}-answer"
            assert check.metadata["nbgrader"]["locked"]
            namespace = {}
            exec(compile(stub.source, f"{path.name}:{label}", "exec"), namespace)
            answers = [namespace[name] for name in exercises.registry[label].answers]
            assert exercises.check(label, *answers).status == "not answered"
            seen.add(label)
    assert seen == set(exercises.registry)


def test_nbgrader_source_holds_the_answers_between_markers(workbook):
    out, _ = workbook
    marked = 0
    for path in sorted((out / "nbgrader" / "source").rglob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.metadata.get("nbgrader", {}).get("solution"):
                assert cell.source.count(build._BEGIN) == cell.source.count(build._END)
                assert build._BEGIN in cell.source
                ast.parse(cell.source)
                marked += 1
    assert marked == len(exercises.registry)


def test_the_index_lists_every_exercise(workbook):
    out, entries = workbook
    lines = (out / "index.csv").read_text().strip().split("\n")
    assert len(lines) == len(entries) + 1
    assert sum(e.checked for e in entries) == len(exercises.registry)


def test_nbgrader_generates_and_autogrades_an_assignment(workbook, tmp_path):
    """nbgrader's own commands, on the workbook's shortest checked chapter notebook: the
    generated notebook is the student's (answers removed), and autograding scores the
    book's answers full marks and the untouched stubs zero."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    out, _ = workbook
    course = tmp_path / "course"
    shutil.copytree(out / "nbgrader", course, ignore=shutil.ignore_patterns("source"))
    notebook = out / "nbgrader" / "source" / "05_lle" / "03_variants.ipynb"
    (course / "source" / "lle").mkdir(parents=True)
    shutil.copy(notebook, course / "source" / "lle")
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(build.ROOT),
        "TQDM_DISABLE": "1",
    }

    def nbgrader(*args):
        subprocess.run(
            [bin_dir / "nbgrader", *args],
            cwd=course,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )

    nbgrader("generate_assignment", "lle", "--force")
    released = nbformat.read(course / "release" / "lle" / notebook.name, as_version=4)
    answers = [
        c for c in released.cells if c.metadata.get("nbgrader", {}).get("solution")
    ]
    assert answers and all("NotImplementedError" in c.source for c in answers)
    assert not any(build._BEGIN in c.source for c in released.cells)
    for student, folder in (("stub", course / "release"), ("book", course / "source")):
        (course / "submitted" / student / "lle").mkdir(parents=True)
        shutil.copy(
            folder / "lle" / notebook.name, course / "submitted" / student / "lle"
        )
    nbgrader("autograde", "lle", "--force")
    nbgrader("export", "--to", str(tmp_path / "grades.csv"))
    rows = (tmp_path / "grades.csv").read_text().strip().split("\n")
    header = rows[0].split(",")
    score = {
        row.split(",")[header.index("student_id")]: float(
            row.split(",")[header.index("score")]
        )
        for row in rows[1:]
    }
    assert score == {"stub": 0.0, "book": float(len(answers))}, score
