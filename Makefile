# Medieval Mastery — developer commands. Every target uses the project's own virtualenv (.venv).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Benchmarks run on one core where taskset exists (util-linux).
PIN_CORE := $(shell command -v taskset >/dev/null 2>&1 && echo taskset -c 0)

.PHONY: setup messages makemessages run test lint typecheck bench bench-anarchy bench-email bench-replies bench-bots bench-web-compare bench-first-game soak clean screenshots

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# Directories with no translatable strings of the site (makemessages also skips dot-directories such as .venv).
I18N_IGNORE := --ignore=.venv --ignore=var --ignore=node_modules --ignore=tests --ignore=benchmarks \
	--ignore=tools --ignore=docs --ignore=docker --ignore=static

## Compile the translation catalogues (locale/*/LC_MESSAGES/django.po -> .mo; the .mo files are not in git):
## Django's compilemessages when GNU gettext's msgfmt is installed, the standard-library tools.i18n otherwise.
messages: setup
	@if command -v msgfmt >/dev/null 2>&1; then \
		$(BIN)/python manage.py compilemessages -v0 $(I18N_IGNORE); \
	else \
		$(BIN)/python -m tools.i18n compile >/dev/null; \
	fi

## After changing user-facing strings: refresh the catalogues (needs GNU gettext), then translate every new
## entry in locale/{sv,pl,ko}/LC_MESSAGES/django.po (tests/web/test_i18n.py fails until they are complete).
makemessages: setup
	$(BIN)/python manage.py makemessages -l sv -l pl -l ko --add-location=file --no-obsolete $(I18N_IGNORE)

## Quick start, command 1: set everything up and serve the site with a demo login and game in progress
## on embedded defaults (SQLite and email to the console and var/mail/) at http://127.0.0.1:8000/.
run: setup messages
	$(BIN)/python manage.py migrate --noinput -v0
	$(BIN)/python manage.py demo
	$(BIN)/python manage.py vapid_keys --write  # Web Push keys in var/vapid.json, kept once made (issue 32)
	$(BIN)/python manage.py runserver 127.0.0.1:8000

# Tests use PostgreSQL when it answers on 127.0.0.1:5432 (CI makes it required), SQLite otherwise.
TEST_DATABASE_URL ?= $(shell pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && echo postgres://$$(whoami)@127.0.0.1:5432/mastery)

## Quick start, command 2: lint, type-check and run the whole test suite.
test: setup lint typecheck messages
	$(BIN)/python manage.py makemigrations --check --dry-run -v0
	DATABASE_URL=$(TEST_DATABASE_URL) MASTERY_ENV=test $(BIN)/python -m pytest -n 2 -q

## The browser tests again, writing their screenshots into docs/screenshots/ (the README's pictures);
## `make test` writes them to a temporary folder and leaves the working copy clean.
screenshots: setup messages
	MASTERY_SCREENSHOTS=1 DATABASE_URL=$(TEST_DATABASE_URL) MASTERY_ENV=test $(BIN)/python -m pytest -q tests/browser

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy

## Benchmarks (not tests): actions/s, legal_actions latency, full games/s, replay time, and random play
## against python-chess's as a ratio (benchmarks/chess_ratio.py, issue 31).
bench: setup
	$(PIN_CORE) $(BIN)/python -m benchmarks.engine_bench
	$(PIN_CORE) $(BIN)/python -m benchmarks.chess_ratio

## The Castle Defence solver of an older commit against this tree's, position by position (issue 33,
## docs/performance.md): `make bench-anarchy OLD=cf0f487 [MUSTER=0] [POSITIONS=20]`.
bench-anarchy: setup
	$(BIN)/python -m benchmarks.anarchy_compare $(OLD) --positions $(or $(POSITIONS),20) $(if $(MUSTER),--muster $(MUSTER))

## Notification email latency (issue 4): action commit -> SMTP sink through Redis and a real Celery worker,
## and what the outbox adds to a submit. Needs PostgreSQL and Redis; not pinned (worker, database, sink).
bench-email: setup
	$(BIN)/python -m benchmarks.email_latency --burst

## Bot strength and speed (issue 17): decision times per level, then seat-rotated arena matches (each
## level against the random bot, normal against easy, hard against normal, one of each at 4 players).
## Long (the hard matches take about an hour on one core); figures go into docs/performance.md.
bench-replies: setup
	$(BIN)/python -m benchmarks.email_replies

bench-bots: setup
	$(PIN_CORE) $(BIN)/python -m benchmarks.bots
	for b in easy normal hard; do $(PIN_CORE) $(BIN)/python -m games.engine arena --bots $$b,random --games 200 --seed 1 --records var/arena/$$b-random; done
	$(PIN_CORE) $(BIN)/python -m games.engine arena --bots normal,easy --games 200 --seed 1 --records var/arena/normal-easy
	$(PIN_CORE) $(BIN)/python -m games.engine arena --bots hard,normal --games 200 --seed 1 --records var/arena/hard-normal
	$(PIN_CORE) $(BIN)/python -m games.engine arena --bots hard,normal,easy,random --players 4 --games 200 --seed 1 --records var/arena/four

## Web load test of an older commit against this tree, back to back (docs/performance.md): CPU per request
## and p95 per scenario, as a table. `make bench-web-compare OLD=008bcf5 [ROUNDS=2]`; the environment of
## benchmarks/web_load.sh (PAGE_RATE, SUBMIT_RATE, DURATION, ONLY) reaches both. Needs PostgreSQL, Redis, wrk.
bench-web-compare: setup
	bash benchmarks/compare_web.sh $(OLD) $(or $(ROUNDS),2)

## A first game against bots (issue 29): one person and two normal bots on the default clock, played to the end
## through the pages with Django's test client; the person's wait after each submit (p50/p95/max), clicks per
## turn, pointless and pre-filled prompts. `make bench-first-game [SEEDS=1,2,3,4,5,6]`; to compare a commit,
## run the same file in a worktree of it (docs/performance.md, Session 11). Needs PostgreSQL.
bench-first-game: setup
	$(BIN)/python -m benchmarks.first_game $(if $(SEEDS),--seeds $(SEEDS))

## Long random-playout soak.
soak: setup
	$(BIN)/python -m pytest -q -m soak tests/engine/test_playouts.py --soak

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
