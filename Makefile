# minidb workbench. `make book` and `make test` are all a newcomer needs; both install what they need first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
PYX := $(shell find minidb -name '*.pyx' -o -name '*.pxd')
# A students' copy (minidb release) also has csrc/: C generated from the engine modules that answer an exercise.
CSRC := $(shell find csrc -name '*.c' 2>/dev/null)
BUILT := $(VENV)/.built
SCALE ?= small
# Python's bytecode caches are written even where the environment turns them off (PYTHONDONTWRITEBYTECODE, set in
# many containers; empty means unset). The suite and the book start hundreds of Python processes: without the caches
# each one compiles minidb again, and each pytest rewrites the asserts of minidb and its plugins again (pytest keeps
# the rewritten modules in __pycache__ too). The grader's sandbox still writes none (minidb.grading.sandbox).
export PYTHONDONTWRITEBYTECODE :=

.PHONY: install build test book bench clean lab notebooks

install: $(INSTALLED)

# The virtual environment, with the package (editable) and every extra of pyproject.toml: the engine, the grader,
# the book, the lab, the real engines, the cluster and the test runners. uv installs them (pip installs uv first):
# it resolves and installs the 160-odd packages in seconds where pip takes over a minute of a cold `make book`, to
# the same pins. uv reads its own settings, not pip's: where only pip can reach the index (a mirror named in
# pip.conf or PIP_INDEX_URL, not in UV_DEFAULT_INDEX), uv fails and pip installs the same, slower. The venv keeps
# pip, setuptools and wheel for the commands that use them (`make build`, `minidb release`). The extensions are
# compiled by `make build`.
EXTRAS := grading,book,lab,real,cluster,test
UV := $(VENV)/bin/uv
$(INSTALLED): pyproject.toml setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	export MINIDB_EXTENSIONS=0; \
	if $(PY) -m pip install --quiet --disable-pip-version-check "uv>=0.9,<1" \
	    && $(UV) pip install --quiet --python $(PY) --upgrade pip "setuptools>=77,<81" wheel \
	    && $(UV) pip install --quiet --python $(PY) -e ".[$(EXTRAS)]"; then :; else \
	  echo "uv could not install the dependencies (above); pip installs them instead"; \
	  $(PY) -m pip install --quiet --upgrade pip "setuptools>=77,<81" wheel \
	    && $(PY) -m pip install --quiet -e ".[$(EXTRAS)]"; fi
	touch $@

# The Cython extensions, compiled in place; rebuilt only when a .pyx, a .pxd or a C file of csrc/ changes.
build: $(BUILT)

$(BUILT): $(INSTALLED) $(PYX) $(CSRC)
	$(PY) setup.py --quiet build_ext --inplace -j 2
	touch $@

test: build
	$(PY) -m pytest -n auto --dist loadgroup -q  # the tests of the built site share one build (xdist_group)
	@echo "make test: passed"

# The chapters' sweeps run where $$MINIDB_EXECUTOR says: this machine's cores by default, or a Dask scheduler's
# address (MINIDB_EXECUTOR=tcp://host:8786 make book SCALE=large; see the README).
# The chapters run first, JOBS at a time (default: one per core), each printing its wall and CPU time, which also go
# into the benchmark history (benchmarks/results/, the entry "book"); the build then takes their outputs from the
# cache they were stored in. The chapters' experiments share one sweep cache, so
# the verdicts printed after the build cost seconds.
book: build
	MINIDB_SCALE=$(SCALE) MINIDB_CACHE=$(CURDIR)/.minidb-cache $(PY) book/_ext/execute_parallel.py book --record benchmarks/results $(if $(JOBS),--jobs $(JOBS))
	MINIDB_SCALE=$(SCALE) MINIDB_CACHE=$(CURDIR)/.minidb-cache $(VENV)/bin/jupyter-book build book -W -n --keep-going
	MINIDB_CACHE=$(CURDIR)/.minidb-cache $(VENV)/bin/minidb claims --scale $(SCALE)
	@echo "The book is at book/_build/html/index.html"

# JupyterLab on the exercises. Each notebook that has no .ipynb yet gets one, written from its MyST source for
# one-click opening; an .ipynb that exists is the student's work and is never written over. The venv's commands
# (minidb, pytest) are on the PATH of the terminals opened in JupyterLab.
lab: notebooks
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/jupyter lab exercises

notebooks: build
	$(PY) -m minidb.grading.release --notebooks exercises

bench: build
	$(PY) -m benchmarks

clean:
	rm -rf build book/_build $(BUILT)
	find minidb -name '*.so' -delete
	find minidb -name '*.c' -delete
