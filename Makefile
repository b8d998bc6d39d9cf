# Medieval Mastery — developer commands. Every target uses the project's own virtualenv (.venv).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Benchmarks run on one core where taskset exists (util-linux).
PIN_CORE := $(shell command -v taskset >/dev/null 2>&1 && echo taskset -c 0)

.PHONY: setup run test lint typecheck bench soak clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

## Quick start, command 1: set everything up and play a demo game (the web site arrives with issue 3).
run: setup
	$(BIN)/python -m games.engine play --players 4 --seed 1 --summary-only

## Quick start, command 2: lint, type-check and run the whole test suite.
test: setup lint typecheck
	$(BIN)/python -m pytest -n 2 -q

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy

## Benchmarks (not tests): actions/s, legal_actions latency, full games/s, replay time.
bench: setup
	$(PIN_CORE) $(BIN)/python -m benchmarks.engine_bench

## Long random-playout soak.
soak: setup
	$(BIN)/python -m pytest -q -m soak tests/engine/test_playouts.py --soak

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
