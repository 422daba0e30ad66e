# Two commands do everything on a fresh machine with Python 3.11:
#   make book   set up .venv, install, execute every notebook and build the HTML book
#   make test   set up, then run every check (library, notebooks, structure, strict build,
#               the whole book as a PDF, site)
# and one more for teachers:
#   make pdf    the whole book as one PDF, _build/pdf/dr-book.pdf (needs Chromium)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-from-pyproject
HTML   := _build/html
PDF    := _build/pdf/dr-book.pdf
PORT   ?= 8000
JB_STRICT := -W -n --keep-going

# Progress bars are for a person at a keyboard; in executed pages they are only noise.
export TQDM_DISABLE := 1

.PHONY: setup book test lint serve bench clean distclean strip pdf site-report

setup: $(STAMP)

# Reinstall only when pyproject.toml (the one list of dependencies) changes.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is needed; run: make PYTHON=/path/to/python3.11 ...")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[book,test]"
	@touch $@

book: setup
	$(BIN)/jupyter-book build . $(JB_STRICT)
	@echo
	@echo "The book is at $(CURDIR)/$(HTML)/index.html"
	@echo "Open it in a browser, or run 'make serve' and visit http://localhost:$(PORT)/"

# The single-page build reuses the notebooks executed for the HTML book (same cache), and
# Chromium prints it after MathJax has finished and every folded block is open.
define print_pdf
	$(BIN)/jupyter-book build . --builder singlehtml $(JB_STRICT)
	$(BIN)/python -m tests.rendered_site.print_book _build/singlehtml $(PDF)
endef

pdf: setup
	$(print_pdf)
	@echo "The whole book is at $(CURDIR)/$(PDF)"

test: setup lint
	$(BIN)/python -m pytest tests/lib tests/structure
	$(BIN)/python -m pytest --nbval-lax --nbval-current-env book
	$(BIN)/jupyter-book build . --all $(JB_STRICT)
	$(print_pdf)
	DR_BOOK_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/rendered_site

# What a reader finds cut off, page by page (display equations, outputs, tables), with
# screenshots of every page at laptop and phone size, light and dark, in _build/screenshots.
site-report: setup
	@test -f $(HTML)/index.html || { echo "No book built yet: run 'make book' first."; exit 1; }
	$(BIN)/python -m tests.rendered_site.report --screenshots _build/screenshots

# ruff: lint and formatting of the library, tests, benchmarks and every notebook;
# pylint: no code copied between modules (its duplicate-code check only).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pylint dr_lib tests benchmarks

serve:
	@test -f $(HTML)/index.html || { echo "No book built yet: run 'make book' first."; exit 1; }
	@echo "Serving the book at http://localhost:$(PORT)/ (Ctrl-C to stop)"
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory $(HTML)

# Timed comparisons with scikit-learn; not tests (see benchmarks/README.md). One process
# runs every benchmarks/bench_*.py and ends with a table of all the ratios.
bench: setup
	$(BIN)/python benchmarks/run_all.py

# Remove outputs from every notebook before committing (a test enforces it).
strip: setup
	$(BIN)/jupyter nbconvert --clear-output --inplace book/*/*.ipynb

clean:
	rm -rf _build .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info
