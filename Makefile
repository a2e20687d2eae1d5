# The two commands a fresh machine needs: `make demo` and `make test`.
# Each creates .venv when missing (or when pyproject.toml changed) and installs the project into it.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/arbiter demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy server protocol games agents client --ignore-missing-imports

bench: $(STAMP)
	$(BIN)/python bench/server.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
