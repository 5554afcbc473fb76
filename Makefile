# The two commands of the README: `make run` and `make test`. Both set everything up themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-runtime
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint install demo clean

# Serving needs requirements.txt only; the tests and linters need requirements-dev.txt (which includes it).
$(RUN_STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(RUN_STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(STAMP) $(RUN_STAMP)

install: $(STAMP)

## Embedded mode: SQLite file, eager Celery, demo data, http://127.0.0.1:8000 (`make run PORT=8001` for another port)
## DEBUG and the key are make run's own: the settings default DEBUG off and hold no key (issue #40).
run: export DEBUG = 1
run: export SECRET_KEY = ioboard-development-only-key-never-use-in-production
run: $(RUN_STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

## Cheapest first, all configured in pyproject.toml: ruff (check and format); the import contracts (layers, independent front ends,
## plain-Python parsers); mypy over the plain-Python folders; deptry (requirements against imports); djlint (templates, jinja2/);
## no private attribute of Django or DRF in apps/ (tests/architecture/test_public_interfaces.py, a scan of the source)
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/deptry .
	$(BIN)/djlint templates jinja2 --lint
	$(BIN)/pytest -q -p no:cacheprovider tests/architecture/test_public_interfaces.py

## The whole suite: the linters, then pytest (PostgreSQL/Redis when DATABASE_URL/REDIS_URL are set)
test: lint
	$(BIN)/python manage.py makemigrations --check --dry-run --settings=tests.settings
	$(BIN)/python manage.py rules_coverage --settings=tests.settings
	$(BIN)/pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) db.sqlite3 media staticfiles
