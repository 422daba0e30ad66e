"""Drop duplicate <script> entries from every HTML page.

sphinx-thebe registers its inline configuration script once per `env-before-read-docs`
event, and Jupyter Book fires that event twice, so every page declared `const
THEBE_JS_URL` twice and the browser reported a SyntaxError. Keeping the first of
identical entries fixes it without touching the packages.
"""


def _drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    # Inline scripts come as filename None or "": the same script either way.
    seen, unique = set(), []
    for script in context.get("script_files", []):
        key = (script.filename or None, tuple(sorted(script.attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    # Run after every other handler, some of which add scripts to the page.
    app.connect("html-page-context", _drop_duplicate_scripts, priority=999)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
