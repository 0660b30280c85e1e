# The two commands: `make demo` (start with demo data) and `make test` (run the whole suite).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
# The address printed links use: the one `make demo` serves, unless PUBLIC_BASE_URL is set (e.g. a proxy's).
PUBLIC_BASE_URL ?= http://$(HOST):$(PORT)

.PHONY: demo stack test install install-dev system-deps lint bench docs screenshots scaleout

$(BIN)/python:
	@echo "Making the virtual environment $(VENV)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install -q --upgrade pip

$(VENV)/.runtime: requirements.txt requirements-parser.txt | $(BIN)/python
	@echo "Installing the runtime requirements into $(VENV) (pip, quietly)"
	@$(BIN)/pip install -q -r requirements.txt
	@$(BIN)/pip install -q --no-deps --require-hashes -r requirements-parser.txt
	@touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt $(VENV)/.runtime
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

install: $(VENV)/.runtime
install-dev: $(VENV)/.dev

system-deps:
	bash scripts/install-system-deps.sh

# Quiet until the login and the links: the commands themselves are not echoed, migrate says nothing unless it fails.
demo: install
	@$(BIN)/python -m config.secret_key  # a random signing key in $$VAR_DIR/secret_key, made once, kept
	@echo "Setting up the database and the demo data (a minute or so)"
	@$(BIN)/python manage.py migrate --noinput -v0
	@PUBLIC_BASE_URL='$(PUBLIC_BASE_URL)' $(BIN)/python manage.py seed_demo
	@echo "Starting the server on http://$(HOST):$(PORT)/ (links: $(PUBLIC_BASE_URL); Ctrl-C stops it)"
	@PUBLIC_BASE_URL='$(PUBLIC_BASE_URL)' $(BIN)/python manage.py runserver $(HOST):$(PORT) --noreload

# The production-like stack from the Procfile (gunicorn, a Celery worker, Celery beat), run by honcho; Ctrl-C
# stops all three. Needs PostgreSQL and a broker: DATABASE_URL and CELERY_BROKER_URL (docs/deployment.md).
stack: install
	@test -n "$$DATABASE_URL" && test -n "$$CELERY_BROKER_URL" || { \
	  echo "make stack needs DATABASE_URL and CELERY_BROKER_URL (see docs/deployment.md)"; exit 2; }
	$(BIN)/python -m config.secret_key
	DATABASE_STATEMENT_TIMEOUT_MS=0 $(BIN)/python manage.py migrate --noinput
	$(BIN)/honcho start -f Procfile

# TESTS: a part of the suite (a folder, a file or a test id), e.g. `make test TESTS=tests/metrics`; all of it by default.
TESTS ?=
test: install-dev system-deps
	$(BIN)/python -m pytest $(TESTS)

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/mypy annotation evaluation storyboard mturk metrics config common bench manage.py
	$(BIN)/lint-imports --no-cache  # the import contracts of pyproject.toml

# The manual (docs/, a MkDocs site): --strict fails on a broken link or anchor. Output in var/site, not committed.
docs: install-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir var/site

# The manual's screenshots (docs/img/), taken from a fresh demo in a temporary VAR_DIR with Playwright and Chromium.
screenshots: install-dev system-deps
	$(BIN)/python scripts/screenshots.py

# The scale-out run (docs/deployment.md, "A scale-out run"): two web nodes behind HAProxy, two Celery workers,
# PostgreSQL, Redis, moto's S3 and the fake Prolific; one web node and one worker killed mid-study. Needs a
# PostgreSQL server (SCALEOUT_DATABASE_URL: that database is dropped and re-created) and Redis (SCALEOUT_REDIS_URL:
# that database is flushed). Logs and summary.json in var/scaleout/<time>/.
scaleout: install-dev system-deps
	$(BIN)/python scripts/scaleout.py
