# segsim: `make demo` and `make test` bootstrap .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORE := $(VENV)/.installed-core
BENCH := $(VENV)/.installed-bench
TEST_EXTRAS := [dev,ray,rl,plot,parquet,progress,table,optimize]
# (kept in variables: a comma written inside $(call ...) would split its argument)
BENCH_EXTRAS := [compile,table]

.PHONY: demo test bench lint clean browser fuzz soak

# $(call install,EXTRAS): create .venv if missing, install segsim (editable) with EXTRAS.
define install
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.$(1)'
	touch $@
endef

# The demo needs segsim alone; the tests need every extra (Ray, RL envs, plots...); the
# benchmarks what builds the optional compiled variant (mypy, setuptools) and table mode's
# server (its round trip is measured).
$(CORE): pyproject.toml
	$(call install,)

$(STAMP): pyproject.toml
	$(call install,$(TEST_EXTRAS))

$(BENCH): pyproject.toml
	$(call install,$(BENCH_EXTRAS))

demo: $(CORE)
	$(BIN)/segsim run examples/scenarios/duel.toml --seed 7 --record demo-record.jsonl

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy segsim benchmarks hatch_build.py

# The browser tests (tests/test_browser.py) need Chromium: installed here when missing
# and apt-get can be used (as root); otherwise those tests fail and say how to get it.
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
		|| [ -n "$$SEGSIM_CHROMIUM" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Chromium for the browser tests (apt-get install chromium)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -q chromium >/dev/null 2>&1 \
			|| { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; }; \
	else \
		echo "note: Chromium is missing, so the browser tests will fail: install it" \
			"(apt-get install chromium, as root) or set SEGSIM_CHROMIUM=/path/to/chromium"; \
	fi

test: lint browser
	$(BIN)/python -m pytest

# BENCH_ARGS: e.g. --quick, --json bench.json (every figure and verdict).
BENCH_ARGS ?=
bench: $(BENCH)
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

# Hostile input for FUZZ_SECONDS (default 600): counts per input class; exit 1 on any
# traceback, hang, state change or divergence (inputs kept in fuzz-failures/).
FUZZ_SECONDS ?= 600
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz/run.py --seconds $(FUZZ_SECONDS)

# Record, replay and branch fights of every ruleset and example scenario for
# SOAK_SECONDS (default 300; 0: no time limit), or until every ruleset has SOAK_FIGHTS
# (default 0: none), on SOAK_WORKERS processes (0: one per CPU), branching one fight in
# SOAK_BRANCH_EVERY: per ruleset, fights, identical replays, branches, divergences and
# declarations the rules refused to a live policy (both 0).
# `make soak SOAK_FIGHTS=10000 SOAK_SECONDS=0 SOAK_WORKERS=0 SOAK_BRANCH_EVERY=10`
# replays 10,000 fights of every ruleset.
SOAK_SECONDS ?= 300
SOAK_FIGHTS ?= 0
SOAK_WORKERS ?= 1
SOAK_BRANCH_EVERY ?= 1
soak: $(STAMP)
	$(BIN)/python tests/fuzz/soak.py --seconds $(SOAK_SECONDS) --fights $(SOAK_FIGHTS) \
		--workers $(SOAK_WORKERS) --branch-every $(SOAK_BRANCH_EVERY)

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache demo-record.jsonl fuzz-failures
