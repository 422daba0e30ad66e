"""Let the single-page HTML build (the source of `make pdf`) write what the HTML build
writes.

sphinx-proof registers how to write its theorem and definition boxes for the ``html``
and ``latex`` builders only, so ``jupyter-book build --builder singlehtml`` stopped at
the first ``prf:definition``. The single-page builder writes HTML with the same
translator, so every node that has HTML handlers and no single-page ones gets the HTML
handlers.
"""


def _borrow_html_handlers(app) -> None:
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node_name, visit_depart in handlers.get("html", {}).items():
        single.setdefault(node_name, visit_depart)


def setup(app):
    app.connect("builder-inited", _borrow_html_handlers)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
