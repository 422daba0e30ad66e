"""At every exercise of the HTML book: does the workbook check the student's answer?

The workbook (``make workbook``, ``workbook/build.py``) gives each exercise that has a
self-check in :mod:`dr_lib.exercises` an answer cell and a check cell; the others point
back to the book's solution. This extension ends every exercise box with one line that
says which, and where the student's notebook is, so that a reader of the site knows
before opening the solution whether they can check their own answer. The PDF gets the
same line.
"""

from __future__ import annotations

from docutils import nodes
from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node

from dr_lib import exercises


def _note(label, docname):
    paragraph = nodes.paragraph(classes=["dr-workbook-note"])
    if label not in exercises.registry:
        paragraph += nodes.strong(text="No self-check")
        paragraph += nodes.Text(" in the workbook: compare with the solution.")
        return paragraph
    notebook = "_build/workbook/student/" + docname.removeprefix("book/") + ".ipynb"
    paragraph += nodes.strong(text="Self-check")
    paragraph += nodes.Text(" in the workbook: ")
    paragraph += nodes.literal(text=notebook)
    paragraph += nodes.Text(" (")
    paragraph += nodes.literal(text="make workbook")
    paragraph += nodes.Text(") checks your answer.")
    return paragraph


def add_notes(app, doctree, docname):
    """Append the workbook line to every exercise box of the page."""
    for node in doctree.findall(
        lambda n: isinstance(n, (exercise_node, exercise_enumerable_node))
    ):
        label = node.get("label", "")
        if label.startswith("ex-"):
            node += _note(label, node.get("docname", docname))


def setup(app):
    app.connect("doctree-resolved", add_notes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
