"""Write the workbook: the book's notebooks for students, for teachers and for nbgrader.

``python -m workbook.build OUT`` (``make workbook``) reads every notebook of the table
of contents and writes, under ``OUT``:

- ``student/``: the same text and code with every solution removed. An exercise that has
  a self-check (:mod:`dr_lib.exercises`) is followed by what to write, an answer cell
  (the book's answer cell reduced to a stub: each function keeps its signature and
  docstring, each value becomes ``...``) and the self-check cell; any other exercise by
  a link to its solution in the HTML book.
- ``teacher/``: the book's notebooks as they are, solutions included, with the answer
  and self-check cells carrying nbgrader's metadata.
- ``nbgrader/``: a course folder for nbgrader (its ``nbgrader_config.py``), whose
  ``source/<chapter>/`` holds one assignment per chapter: the student's notebooks with
  the book's answers between ``### BEGIN SOLUTION`` and ``### END SOLUTION``, so that
  ``nbgrader generate_assignment`` gives the student's notebooks and
  ``nbgrader autograde`` scores the self-checks.
- ``index.md`` and ``index.csv``: every exercise, what it practises, whether it has a
  self-check, and an estimated time.

In a book notebook, a checked exercise's solution holds one code cell tagged
``exercise-answer`` (functions, values and imports only: what the student writes) and
one tagged ``self-check`` (``exercises.check("<label>", <answers>)``).
"""

import argparse
import ast
import copy
import csv
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from dr_lib import exercises

ROOT = Path(__file__).resolve().parent.parent
ANSWER_TAG, CHECK_TAG = "exercise-answer", "self-check"
_FENCE = re.compile(r"^(?P<ticks>`{3,})\{(?P<name>[a-z-]+)\}\s*(?P<arg>\S*)")
_LABEL = re.compile(r"^:label:\s*(\S+)", re.M)
_BEGIN, _END = "### BEGIN SOLUTION", "### END SOLUTION"


@dataclass
class ExerciseEntry:
    """One exercise of the book, for the teacher's index."""

    chapter: str
    notebook: str
    label: str
    title: str
    checked: bool
    practises: str
    minutes: str


def toc_notebooks(root=ROOT):
    """The notebooks of ``_toc.yml``, in reading order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = []

    def walk(entries):
        for entry in entries:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections", []))
            walk(entry.get("chapters", []))

    walk(toc.get("parts", []))
    return [root / f"{f}.ipynb" for f in files if (root / f"{f}.ipynb").exists()]


def _tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def _closing_fence(lines, start, ticks):
    """Index of the line that closes the fence opened at ``lines[start]``."""
    for i in range(start + 1, len(lines)):
        if lines[i].strip() == ticks:
            return i
    raise ValueError(f"unclosed {{solution}} fence: {lines[start]!r}")


class _Splitter:
    """Walks a notebook's cells, keeping what is not solution and noting what is."""

    def __init__(self, path):
        self.path = path
        self.inside = None  # label of the gated solution being skipped

    def markdown(self, text):
        """Split a markdown cell into kept text and ends of solutions, in order.

        Returns a list of ("text", str) and ("end", label) items.
        """
        lines = text.split("\n")
        items, kept, i = [], [], 0
        while i < len(lines):
            match = _FENCE.match(lines[i])
            name = match["name"] if match else None
            if self.inside:
                if name == "solution-end":
                    end = _closing_fence(lines, i, match["ticks"])
                    items += [("end", self.inside)]
                    self.inside, i = None, end + 1
                else:
                    i += 1
                continue
            if name == "solution-start":
                end = _closing_fence(lines, i, match["ticks"])
                items.append(("text", "\n".join(kept)))
                kept, self.inside = [], match["arg"]
                i = end + 1
            elif name == "solution":
                end = _closing_fence(lines, i, match["ticks"])
                items += [("text", "\n".join(kept)), ("end", match["arg"])]
                kept, i = [], end + 1
            else:
                kept.append(lines[i])
                i += 1
        items.append(("text", "\n".join(kept)))
        return [item for item in items if item[0] == "end" or item[1].strip()]


def _stub(source, label):
    """The answer cell as the student finds it: signatures, docstrings and ``...``."""
    tree = ast.parse(source)
    lines = source.split("\n")
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            body_start = node.body[0]
            head_end = (
                body_start.end_lineno
                if _is_docstring(body_start)
                else body_start.lineno - 1
            )
            indent = " " * body_start.col_offset
            out += lines[node.lineno - 1 - len(node.decorator_list) : head_end]
            out += [
                f"{indent}# your code here",
                f"{indent}raise NotImplementedError",
                "",
            ]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = ", ".join(ast.unparse(t) for t in targets)
            out.append(f"{names} = ...  # your answer")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out += [ast.get_source_segment(source, node), "", ""]
        else:
            raise ValueError(
                f"{label}: the answer cell may hold functions, values and imports "
                f"only; found {type(node).__name__} on line {node.lineno}"
            )
    return re.sub(r"\n{3,}", "\n\n\n", "\n".join(out)).strip() + "\n"


def _is_docstring(node):
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _marked(source, label):
    """The answer cell for nbgrader: the answer between BEGIN/END SOLUTION markers."""
    tree = ast.parse(source)
    lines = source.split("\n")
    out = []
    for node in tree.body:
        first_line = node.lineno - 1 - len(getattr(node, "decorator_list", []))
        segment = lines[first_line : node.end_lineno]
        if isinstance(node, ast.FunctionDef):
            first = node.body[0]
            body_from = first.end_lineno if _is_docstring(first) else first.lineno - 1
            if _is_docstring(first) and len(node.body) == 1:
                raise ValueError(f"{label}: function {node.name} has no body")
            indent = " " * node.body[-1].col_offset
            head = lines[first_line:body_from]
            body = lines[body_from : node.end_lineno]
            out += head + [indent + _BEGIN] + body + [indent + _END, ""]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            out += [_BEGIN, *segment, _END]
        else:
            out += segment
    return "\n".join(out).strip() + "\n"


def _nbgrader(cell, label, kind):
    grade_id = f"{label}-{kind}"
    metadata = {
        "grade": kind == "check",
        "grade_id": grade_id,
        "locked": kind == "check",
        "schema_version": 3,
        "solution": kind == "answer",
        "task": False,
    }
    if kind == "check":
        metadata["points"] = 1
    cell.metadata["nbgrader"] = metadata
    return cell


def _html_link(path, label, root):
    page = path.relative_to(root / "book").with_suffix(".html")
    depth = len(path.relative_to(root / "book").parts) + 1
    return f"{'../' * depth}html/book/{page.as_posix()}#{label}"


def _exercise_labels(text):
    return [m.group(1) for m in _LABEL.finditer(text) if m.group(1).startswith("ex-")]


def _title(text, label):
    match = re.search(r"```\{exercise\}([^\n]*)\n:label: " + re.escape(label), text)
    return match.group(1).strip() if match and match.group(1).strip() else label


def build_notebook(path, root=ROOT):
    """The student's, the teacher's and nbgrader's versions of one notebook, and its
    exercises for the index."""
    book = nbformat.read(path, as_version=4)
    split = _Splitter(path)
    student, source, entries = [], [], []
    answers, checks = {}, {}
    for cell in book.cells:
        if cell.cell_type == "markdown":
            for label in _exercise_labels(cell.source):
                entry = exercises.registry.get(label)
                entries.append(
                    ExerciseEntry(
                        path.parent.name,
                        path.stem,
                        label,
                        _title(cell.source, label),
                        entry is not None,
                        entry.practises if entry else "",
                        str(entry.minutes) if entry else "",
                    )
                )
            for kind, value in split.markdown(cell.source):
                if kind == "text":
                    piece = nbformat.v4.new_markdown_cell(value.strip("\n"))
                    student.append(piece)
                    source.append(copy.deepcopy(piece))
                else:
                    new_student, new_source = _replacement(
                        value, answers.get(value), checks.get(value), path, root
                    )
                    student += new_student
                    source += new_source
            continue
        if split.inside:
            tags = _tags(cell)
            if ANSWER_TAG in tags:
                answers[split.inside] = cell.source
            elif CHECK_TAG in tags:
                checks[split.inside] = cell.source
            continue
        clean = nbformat.v4.new_code_cell(
            cell.source, metadata=copy.deepcopy(cell.metadata)
        )
        student.append(clean)
        source.append(copy.deepcopy(clean))
    if split.inside:
        raise ValueError(f"{path}: solution {split.inside} is never closed")
    teacher = copy.deepcopy(book)
    for cell in teacher.cells:
        for tag, kind in ((ANSWER_TAG, "answer"), (CHECK_TAG, "check")):
            if tag in _tags(cell):
                label = _check_label(cell.source) if kind == "check" else None
                _nbgrader(cell, label or _answer_owner(teacher, cell), kind)
    return _notebook(book, student), _notebook(book, source), teacher, entries


def _answer_owner(notebook, answer_cell):
    """The label of the self-check that follows an answer cell."""
    index = notebook.cells.index(answer_cell)
    for cell in notebook.cells[index + 1 :]:
        if CHECK_TAG in _tags(cell):
            return _check_label(cell.source)
    raise ValueError("an answer cell without a self-check after it")


def _check_label(source):
    match = re.search(r"exercises\.check\(\s*\"([^\"]+)\"", source)
    if not match:
        raise ValueError(f"a self-check cell must call exercises.check: {source!r}")
    return match.group(1)


def _replacement(label, answer, check, path, root):
    """What stands where the solution of ``label`` was, for the student and nbgrader."""
    entry = exercises.registry.get(label)
    if entry is None:
        if answer or check:
            raise ValueError(f"{path.name}: {label} has answer cells but no self-check")
        note = nbformat.v4.new_markdown_cell(
            f"*Solution:* [in the HTML book]({_html_link(path, label, root)}) "
            "(this exercise is worked on paper or read off the book's own results)."
        )
        return [note], [copy.deepcopy(note)]
    if not (answer and check) or _check_label(check) != label:
        raise ValueError(
            f"{path.name}: {label} needs an answer cell and its self-check"
        )
    intro = nbformat.v4.new_markdown_cell(
        f"**Your answer** ({label}): {entry.produce}. Then run the self-check below it."
    )
    stub = _nbgrader(nbformat.v4.new_code_cell(_stub(answer, label)), label, "answer")
    marked = _nbgrader(
        nbformat.v4.new_code_cell(_marked(answer, label)), label, "answer"
    )
    checker = _nbgrader(nbformat.v4.new_code_cell(check), label, "check")
    return (
        [intro, stub, checker],
        [copy.deepcopy(intro), marked, copy.deepcopy(checker)],
    )


def _notebook(book, cells):
    notebook = nbformat.v4.new_notebook(metadata=copy.deepcopy(book.metadata))
    notebook.cells = cells
    return notebook


NBGRADER_CONFIG = """\
# nbgrader's configuration for the workbook (written by workbook/build.py). Run nbgrader
# from this folder: `nbgrader generate_assignment 05_lle`, then, with the students'
# notebooks in submitted/<student>/05_lle/, `nbgrader autograde 05_lle`.
c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.root = "."
# A chapter's notebooks run their derivations and fits: minutes, not seconds, per cell.
c.Execute.timeout = 600
"""


def write_index(entries, out):
    """The teacher's index of every exercise, as a table (Markdown) and as CSV."""
    fields = [
        "chapter",
        "notebook",
        "label",
        "title",
        "checked",
        "practises",
        "minutes",
    ]
    with open(out / "index.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(fields)
        for e in entries:
            writer.writerow([getattr(e, f) for f in fields])
    checked = sum(e.checked for e in entries)
    lines = [
        "# Workbook index",
        "",
        f"{len(entries)} exercises, {checked} with a self-check. `student/` has the "
        "notebooks without solutions, `teacher/` the book's notebooks with them, and "
        "`nbgrader/source/` one nbgrader assignment per chapter.",
        "",
        "| chapter | notebook | exercise | self-check | practises | minutes |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for e in entries:
        lines.append(
            f"| {e.chapter} | {e.notebook} | "
            f"{e.title + ' ' if e.title != e.label else ''}(`{e.label}`) | "
            f"{'yes' if e.checked else 'no'} | {e.practises} | {e.minutes} |"
        )
    (out / "index.md").write_text("\n".join(lines) + "\n")


def _copy_resources(chapter, folder):
    """Copy the chapter's folders (stored data, the scripts that wrote it) beside its
    notebooks: the notebooks open them by paths relative to their own folder."""
    for resource in chapter.iterdir():
        if resource.is_dir() and not resource.name.startswith((".", "_")):
            shutil.copytree(
                resource,
                folder / resource.name,
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"),
            )


def build(out, root=ROOT):
    """Write the whole workbook under ``out``; return the index entries."""
    out = Path(out)
    entries = []
    for path in toc_notebooks(root):
        chapter = path.parent.name
        student, source, teacher, found = build_notebook(path, root)
        entries += found
        for folder, notebook in (
            (out / "student" / chapter, student),
            (out / "teacher" / chapter, teacher),
            (out / "nbgrader" / "source" / chapter, source),
        ):
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.validate(notebook)
            nbformat.write(notebook, folder / path.name)
            _copy_resources(path.parent, folder)
    write_index(entries, out)
    (out / "nbgrader" / "nbgrader_config.py").write_text(NBGRADER_CONFIG)
    return entries


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="folder to write the workbook in")
    args = parser.parse_args(argv)
    entries = build(args.out)
    checked = sum(e.checked for e in entries)
    print(
        f"workbook: {len(entries)} exercises, {checked} with a self-check -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
