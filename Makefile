# segsim: `make demo` and `make test` bootstrap .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORE := $(VENV)/.installed-core

.PHONY: demo test bench lint clean

# The demo needs segsim alone; the tests need every extra (Ray, RL envs, plots...).
$(CORE): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(CORE)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,ray,rl,plot,parquet,progress]'
	touch $(STAMP)

demo: $(CORE)
	$(BIN)/segsim run examples/scenarios/duel.toml --seed 7 --record demo-record.jsonl

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy segsim

test: lint
	$(BIN)/python -m pytest

bench: $(CORE)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache demo-record.jsonl
