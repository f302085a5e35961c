# segsim: `make demo` and `make test` bootstrap .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,ray,rl,plot,parquet]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/segsim run examples/scenarios/duel.toml --seed 7 --record demo-record.jsonl

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy segsim

test: lint
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache demo-record.jsonl
