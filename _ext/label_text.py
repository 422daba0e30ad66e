"""Readable text for links to labels that Sphinx would show raw.

Two problems of the book's cross references, solved once for every page:

1. An admonition with ``:name: erratum-…`` is a label without a title as far as Sphinx
   is concerned, so ``{ref}`erratum-…``` needed an explicit text and the appendix
   printed the raw label. :class:`ErratumTitles` registers every such box under its
   title ("Erratum — [T] (10-22)"), and a plain ``{ref}`erratum-t-squared``` shows that
   title.
2. Some text can only be written once every page is numbered: the chapter a label lives
   in and the section of an erratum box. Two roles leave a placeholder that is filled in
   when the page is written (``doctree-resolved``):

   - ``{erratum-box}`erratum-…``` → "erratum box, §3.1.2", a link to the box;
   - ``{label-chapter}`label``` → "3", a link to the chapter's first page, titled with
     it.

A label that does not exist is reported as a warning, so the nitpicky build (``-W -n``)
fails on it.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

ERRATUM_PREFIX = "erratum-"


class ErratumTitles(SphinxTransform):
    """Register each erratum box as a label with a title (after the standard domain
    ran)."""

    default_priority = 851  # sphinx.transforms.references.SphinxDomains is 850

    def apply(self, **kwargs) -> None:
        std = self.env.get_domain("std")
        for node in self.document.findall(nodes.admonition):
            title = next(iter(node.findall(nodes.title)), None)
            for name in node.get("names", []):
                if name.startswith(ERRATUM_PREFIX) and title is not None:
                    labelid = self.document.nameids.get(name) or node["ids"][0]
                    std.labels[name] = (self.env.docname, labelid, title.astext())


class label_placeholder(nodes.Inline, nodes.TextElement):
    """Stands for a link whose text needs the numbers of every page."""


def _placeholder_role(kind: str):
    def role(name, rawtext, text, lineno, inliner, options=None, content=None):
        node = label_placeholder(rawtext, text.strip(), label=text.strip(), kind=kind)
        node.source, node.line = inliner.reporter.get_source_and_line(lineno)
        # The text depends on other pages' numbers: write this page anew on every build.
        inliner.document.settings.env.note_reread()
        return [node], []

    return role


def locate(env, label: str) -> tuple[str, str] | None:
    """(docname, anchor id) of a label: a section, box, figure or numbered equation."""
    std = env.get_domain("std")
    if label in std.anonlabels:
        return std.anonlabels[label]
    equations = env.get_domain("math").data.get("objects", {})
    if label in equations:
        return equations[label][0], f"equation-{label}"
    return None


def section_number(env, docname: str, anchor: str) -> tuple[int, ...]:
    """The number of the innermost numbered section around ``anchor`` ("3.1.2" as a
    tuple)."""
    numbers = env.toc_secnumbers.get(docname, {})
    doctree = env.get_doctree(docname)
    target = next(
        doctree.findall(
            lambda n: isinstance(n, nodes.Element) and anchor in n.get("ids", ())
        ),
        None,
    )
    for node in _ancestors(target):
        if isinstance(node, nodes.section):
            for section_id in node["ids"]:
                if f"#{section_id}" in numbers:
                    return numbers[f"#{section_id}"]
    return numbers.get("", ())


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def chapter_page(env, number: int) -> str | None:
    """The docname of chapter ``number``'s first page (numbered exactly
    ``(number,)``)."""
    for docname, numbers in env.toc_secnumbers.items():
        if numbers.get("") == (number,):
            return docname
    return None


def _link(builder, fromdocname, todocname, anchor, text, title=None):
    uri = builder.get_relative_uri(fromdocname, todocname) + (
        f"#{anchor}" if anchor else ""
    )
    ref = nodes.reference("", "", internal=True, refuri=uri)
    if title:
        ref["reftitle"] = title
    ref += nodes.Text(text)
    return ref


def resolve_placeholders(app, doctree, fromdocname) -> None:
    env = app.env
    for node in list(doctree.findall(label_placeholder)):
        label, kind = node["label"], node["kind"]
        where = locate(env, label)
        if where is None:
            logger.warning("%s: unknown label %r", kind, label, location=node)
            node.replace_self(nodes.Text(label))
            continue
        docname, anchor = where
        number = section_number(env, docname, anchor)
        if kind == "erratum-box":
            text = "erratum box" + (
                f", §{'.'.join(map(str, number))}" if number else ""
            )
            node.replace_self(_link(app.builder, fromdocname, docname, anchor, text))
        elif not number:
            node.replace_self(nodes.Text("—"))
        else:
            chapter = chapter_page(env, number[0]) or docname
            title = env.titles[chapter].astext() if chapter in env.titles else None
            node.replace_self(
                _link(app.builder, fromdocname, chapter, "", str(number[0]), title)
            )


def setup(app):
    app.add_node(label_placeholder)
    app.add_transform(ErratumTitles)
    app.add_role("erratum-box", _placeholder_role("erratum-box"))
    app.add_role("label-chapter", _placeholder_role("label-chapter"))
    app.connect("doctree-resolved", resolve_placeholders)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
