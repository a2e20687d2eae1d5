# The two commands a fresh machine needs: `make demo` and `make test`.
# Each creates .venv when missing (or when pyproject.toml changed) and installs the project into it.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ROOMS := games protocol server client agents bridges
# Static tools (mypy, lint-imports) cannot see through the editable install's import hook, so
# they read the package through a tree of links: .venv/typecheck/arbiter/<room> -> <room>/.
TREE := $(VENV)/typecheck

.PHONY: demo test coverage lint bench clean

# pip compiles what it installs one file at a time; compileall (`-j 0`) uses every core. The
# installed packages' own test suites (`tests/`, `_tests/`) are never imported, so not compiled.
$(STAMP): pyproject.toml setup.py $(wildcard games/native/*.[ch] agents/native/*.[ch])
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -e '.[test,postgres,openspiel]'
	$(BIN)/python -m compileall -q -j 0 -x '/_?tests/' $(VENV)/lib
	touch $(STAMP)

# Every process a command or a test starts reads the modules' bytecode, compiled here once: where
# PYTHONDONTWRITEBYTECODE is set no process writes it, and each would compile them anew.
BYTECODE := $(BIN)/python -m compileall -q -j 0 $(ROOMS) bench tests examples

demo: $(STAMP)
	$(BYTECODE)
	$(BIN)/arbiter demo

test: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -q -n 2

# The suite again under branch coverage of the rooms, combined over xdist's two processes; below
# the floor in pyproject.toml's [tool.coverage.report] the target fails. Not part of `test`:
# Python 3.11's tracer doubles the CPU of the in-process tests (the rules' and protocol's), which
# the suite's ten minutes on two cores cannot spare.
coverage: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -q -n 2 --cov --cov-report=term

lint: $(STAMP)
	mkdir -p $(TREE)/arbiter
	for room in $(ROOMS); do ln -sfn $(CURDIR)/$$room $(TREE)/arbiter/$$room; done
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	MYPYPATH=$(TREE) $(BIN)/mypy $(addprefix -p arbiter.,$(ROOMS))
	PYTHONPATH=$(TREE) $(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python bench/server.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
