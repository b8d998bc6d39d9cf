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

## Quick start, command 1: set everything up and serve the site with a demo login and game in progress
## on embedded defaults (SQLite and email to the console and var/mail/) at http://127.0.0.1:8000/.
run: setup
	$(BIN)/python manage.py migrate --noinput -v0
	$(BIN)/python manage.py demo
	$(BIN)/python manage.py runserver 127.0.0.1:8000

# Tests use PostgreSQL when it answers on 127.0.0.1:5432 (CI makes it required), SQLite otherwise.
TEST_DATABASE_URL ?= $(shell pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && echo postgres://$$(whoami)@127.0.0.1:5432/mastery)

## Quick start, command 2: lint, type-check and run the whole test suite.
test: setup lint typecheck
	$(BIN)/python manage.py makemigrations --check --dry-run -v0
	DATABASE_URL=$(TEST_DATABASE_URL) MASTERY_ENV=test $(BIN)/python -m pytest -n 2 -q

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
