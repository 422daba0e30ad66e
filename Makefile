# Two commands do everything on a fresh machine with Python 3.11:
#   make book   set up .venv, install, execute every notebook and build the HTML book
#   make test   set up, then run every check (library, notebooks, structure, the workbook's
#               notebooks, the whole book as a PDF, strict build, site)
# and one more for teachers:
#   make pdf    the whole book as one PDF, _build/pdf/dr-book.pdf (needs TeX Live: README)
#   make workbook  the notebooks without solutions, each checked exercise with an answer
#               cell and a self-check; the teacher's notebooks, nbgrader's source and an
#               index of every exercise (_build/workbook/)
# and one for maintainers:
#   make test-portability   every notebook and library test under other BLAS kernels and
#               thread counts; reports every check that round-off could break elsewhere
# The versions installed are those of requirements.lock (make lock refreshes it); make
# test-latest runs the tests against the newest releases instead.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-from-pyproject
# What pip installs besides the project: the lock's exact versions (make test-latest asks
# for the newest releases that pyproject.toml allows instead).
PINS   := -r requirements.lock
HTML   := _build/html
PDF    := _build/pdf/dr-book.pdf
PORT   ?= 8000
JB_STRICT := -W -n --keep-going

# Readers' CPUs make OpenBLAS pick other kernels and their machines other thread counts,
# which move round-off. Every notebook check records what it used of its tolerance
# (tests/check_log); make test runs the notebooks as this machine picks and again, with the
# library tests, under CI_RUNS, and fails on a check whose headroom is less than ten times
# its spread between the runs. make test-portability does the same for PORTABILITY_RUNS.
CHECKS           := _build/checks
# The students' notebooks run top to bottom with every answer still a stub (make test):
# nothing they keep may need a cell the workbook took out.
WORKBOOK         := _build/workbook
CI_RUNS          ?= prescott-1
CI_NOTEBOOKS     ?= book
PORTABILITY_RUNS ?= default,prescott-1,haswell-2
ONE_THREAD := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1

# Progress bars are for a person at a keyboard; in executed pages they are only noise.
export TQDM_DISABLE := 1

.PHONY: setup book test lint serve bench clean distclean strip pdf site-report lock test-latest \
	workbook \
	test-portability

setup: $(STAMP)

# Reinstall only when pyproject.toml (the one list of dependencies) or the lock changes.
# One pip run installs the lock and the project: pip stops if the two disagree.
$(STAMP): pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is needed; run: make PYTHON=/path/to/python3.11 ...")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet $(PINS) -e ".[book,test]"
	@touch $@

# requirements.lock: the exact version of every package that make setup installs, resolved
# by pip-compile (pip-tools) from pyproject.toml with the same pip, indexes and local wheels
# that install it. Existing pins are kept while pyproject.toml allows them; to move to the
# newest releases: make lock LOCK_ARGS=--upgrade (or LOCK_ARGS="-P scipy" for one package).
# pip-tools lives in its own venv, so .venv holds exactly the lock. After pip-compile:
# the note below goes on top; the line for dr-lib itself (pip-compile lists the package
# that names its own extras, dr-lib[nn], with this checkout's path) is dropped; any local
# label is cut off a pin (torch==2.13.0+cpu -> torch==2.13.0): ==2.13.0 matches 2.13.0+cpu,
# so pip takes this machine's CPU wheel where one is on its find-links path, and PyPI's
# build of the same version elsewhere; and pip itself is pinned to the pip that resolved.
LOCK_VENV := .venv-lock
LOCK_ARGS ?=
lock:
	@test -x $(LOCK_VENV)/bin/pip-compile || { $(PYTHON) -m venv $(LOCK_VENV) && \
	  $(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip "pip-tools>=7.4"; }
	@$(LOCK_VENV)/bin/python -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "The lock is for Python 3.11; run: rm -rf $(LOCK_VENV); make lock PYTHON=/path/to/python3.11")'
	$(LOCK_VENV)/bin/pip-compile --quiet --no-header --extra book --extra test --extra bench \
	  --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links $(LOCK_ARGS) \
	  --output-file requirements.lock pyproject.toml
	{ printf '%s\n' "$$LOCK_NOTE"; \
	  awk '/^dr-lib @ /{self=1; next} self && /^ /{next} {self=0} \
	       /^[A-Za-z0-9._-]+==/{sub(/\+[A-Za-z0-9.]+$$/, "")} {print}' requirements.lock; \
	  $(LOCK_VENV)/bin/python -m pip --version | awk '{print "pip==" $$2}'; \
	  echo "    # via make lock (the pip that resolved this file)"; \
	} > requirements.lock.new && mv requirements.lock.new requirements.lock

define LOCK_NOTE
# The exact version of every package that `make setup` installs: pyproject.toml's
# dependencies and its extras book, test and bench. Written by `make lock` (pip-compile);
# do not edit by hand: change pyproject.toml and run `make lock`.
#
# Resolved on Linux x86-64 with CPython 3.11. On another platform pip installs these
# versions and adds that platform's own dependencies, unpinned. No hashes: the torch
# installed here is a local CPU build (2.13.0+cpu) whose hash is not PyPI's; the pin
# torch==2.13.0 matches both builds.
endef
export LOCK_NOTE

# Opt-in and not part of CI: the same checks against the newest releases that
# pyproject.toml allows, in .venv-latest, reinstalled each time, so that a new release
# which breaks the book shows here before a reader meets it. The test that the installed
# versions are the lock's is skipped (DR_BOOK_LATEST).
test-latest:
	rm -f .venv-latest/$(notdir $(STAMP))
	DR_BOOK_LATEST=1 $(MAKE) test VENV=.venv-latest PINS="--upgrade --upgrade-strategy eager pip"

book: setup
	$(BIN)/jupyter-book build . $(JB_STRICT)
	@echo
	@echo "The book is at $(CURDIR)/$(HTML)/index.html"
	@echo "Open it in a browser, or run 'make serve' and visit http://localhost:$(PORT)/"

# Sphinx's LaTeX builder writes the book (reusing the notebooks executed for the HTML book:
# same cache), xelatex typesets it, and the log is checked for links that lead nowhere and
# characters missing from their fonts (tests/rendered_site/print_book.py). The PDF is copied
# into the site; every HTML build after it links it from each page's download menu.
define print_pdf
	$(BIN)/jupyter-book build . --builder latex $(JB_STRICT)
	$(BIN)/python -m tests.rendered_site.print_book _build/latex $(PDF)
endef

workbook: setup
	$(BIN)/python -m workbook.build $(WORKBOOK)
	@echo "Students: _build/workbook/student/; teachers: _build/workbook/index.md"

pdf: setup
	$(print_pdf)
	@echo "The whole book is at $(CURDIR)/$(PDF)"
	@echo "('make book' now links it from every page of the site.)"

# The notebooks run three times: once in the PDF's build, which executes every notebook
# afresh (empty cache, --all) as this machine picks and records its checks as the default
# run (tests/check_log/book_build.py), the HTML build then reusing its cache; once more
# under CI_RUNS; and once as students' notebooks. Runs with one thread per process use every
# core (pytest-xdist), each worker with its own kernel.
test: setup lint
	$(BIN)/python -m pytest tests/lib tests/structure tests/check_log
	rm -rf _build/.jupyter_cache
	DR_BOOK_CHECK_LOG=$(CHECKS)/default.jsonl \
	  $(BIN)/jupyter-book build . --all --builder latex $(JB_STRICT)
	$(BIN)/python -m tests.rendered_site.print_book _build/latex $(PDF)
	$(BIN)/python -m workbook.build $(WORKBOOK)
	$(ONE_THREAD) $(BIN)/python -m pytest -n auto --dist loadscope \
	  --nbval-lax --nbval-current-env $(WORKBOOK)/student
	$(BIN)/python -m tests.check_log.portability --out $(CHECKS) --keep default \
	  --runs $(CI_RUNS) $(CI_NOTEBOOKS)
	$(BIN)/jupyter-book build . --all $(JB_STRICT)
	DR_BOOK_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/rendered_site

# Every notebook and the library tests under each of PORTABILITY_RUNS (default: as the
# machine picks; OpenBLAS's generic x86-64 kernel with one thread; Haswell with two), then
# the report of the checks whose headroom is less than ten times their spread. About half
# an hour; not part of CI, which runs the CI_RUNS subset. A kernel this CPU cannot run is
# skipped with the reason printed.
test-portability: setup
	$(BIN)/python -m tests.check_log.portability --out _build/portability \
	  --runs $(PORTABILITY_RUNS)

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
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python benchmarks/run_all.py

# Remove outputs from every notebook before committing (a test enforces it).
strip: setup
	$(BIN)/jupyter nbconvert --clear-output --inplace book/*/*.ipynb

clean:
	rm -rf _build .pytest_cache .hypothesis
	find . -path './.venv*' -prune -o -name __pycache__ -type d -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) .venv-latest $(LOCK_VENV) *.egg-info
