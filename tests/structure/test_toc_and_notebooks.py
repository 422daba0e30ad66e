"""The table of contents and the notebooks it lists."""

import re

import pytest

from .book_sources import (
    ROOT,
    book_pages,
    notebooks,
    page_markup,
    read_notebook,
    resolve,
    toc_files,
)


def test_every_toc_entry_exists():
    missing = [entry for entry in toc_files() if resolve(entry) is None]
    assert not missing, f"_toc.yml names files that do not exist: {missing}"


def test_every_page_under_book_is_in_the_toc():
    listed = {resolve(entry) for entry in toc_files()}
    orphans = [str(p.relative_to(ROOT)) for p in book_pages() if p not in listed]
    assert not orphans, f"pages under book/ missing from _toc.yml: {orphans}"


def test_toc_has_no_duplicates():
    entries = toc_files()
    assert len(entries) == len(set(entries))


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.name)
def test_notebook_is_committed_without_outputs(path):
    dirty = [
        i
        for i, c in enumerate(read_notebook(path)["cells"])
        if c["cell_type"] == "code"
        and (c.get("outputs") or c.get("execution_count") is not None)
    ]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; run `make strip`"


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.name)
def test_notebook_uses_the_python3_kernel(path):
    assert read_notebook(path)["metadata"]["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("path", book_pages(), ids=lambda p: p.name)
def test_page_has_exactly_one_title(path):
    text = re.sub(r"```.*?```", "", page_markup(path), flags=re.DOTALL)
    titles = re.findall(r"^# \S", text, flags=re.MULTILINE)
    assert len(titles) == 1, f"{path.name} has {len(titles)} top-level '# ' headings"


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.name)
def test_notebook_uses_text_progress_bars(path):
    # tqdm.auto/notebook draw ipywidgets: in the built page that is a warning or a
    # widget whose scripts come from a CDN. `from tqdm import tqdm` prints text and
    # honours TQDM_DISABLE.
    code = "\n".join(
        "".join(c["source"])
        for c in read_notebook(path)["cells"]
        if c["cell_type"] == "code"
    )
    assert not re.search(r"tqdm\.(auto|notebook|autonotebook)", code)


MAX_CODE_LINE = 88  # what the rendered page shows without a horizontal scrollbar


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.name)
def test_code_lines_fit_the_page(path):
    long = [
        line
        for c in read_notebook(path)["cells"]
        if c["cell_type"] == "code"
        for line in "".join(c["source"]).splitlines()
        if len(line) > MAX_CODE_LINE
    ]
    assert not long, (
        f"{path.name}: {len(long)} code lines longer than {MAX_CODE_LINE}: {long[:3]}"
    )
