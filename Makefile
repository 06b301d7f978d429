# The two commands of README: `make run` (the main job) and `make test` (the whole suite);
# `make check` is the fast tier while working: lint, unit and contract tests.
# Both create .venv and install the project on first use; nothing is installed by hand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
FAST_TESTS := tests/unit tests/contract $(wildcard tests/test_*.py)
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
# The tests' environment: the venv's tools first, and bytecode written (a PYTHONDONTWRITEBYTECODE
# of the caller's is cleared): pytest keeps each test module with its asserts rewritten in a
# .pyc of its own, which `make bytecode` does not write; else each of the pytest processes
# rewrote every test module again at each run, ~3 s of CPU per collection.
PYTEST_ENV := PYTHONDONTWRITEBYTECODE= PATH="$(CURDIR)/$(BIN):$$PATH"

.PHONY: run test check lint suite fast bytecode bench docs histories corpus browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Our modules compiled once, as pip compiles the packages it installs: where PYTHONDONTWRITEBYTECODE
# is set, every process (the worker, the bot, each CLI call, each new workflow's sandbox) would
# compile them again, 0.2 s of a 1.4 s start. Incremental: only files changed since are compiled.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q harness bot commands tests bench examples

run: $(STAMP) bytecode
	mkdir -p $${HARNESS_DATA_DIR:-.data}
	$(BIN)/python -m harness.temporal.keys ensure $${HARNESS_PAYLOAD_KEY_FILE:-$${HARNESS_DATA_DIR:-.data}/payload.key}
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start -f Procfile

lint: $(STAMP)
	$(BIN)/ruff format --check harness bot commands tests bench examples
	$(BIN)/ruff check harness bot commands tests bench examples
	$(BIN)/mypy --strict harness bot commands
	$(BIN)/lint-imports

$(CHROMIUM):  # the headless browser of the codec test (Debian's package; CI runs as root)
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium

browser: $(CHROMIUM)

# Lint runs beside the tests (make -j2: either failing fails the target). Three test processes,
# a test file each at a time, on two cores: most tests wait on servers (2,477 tests: 327 s
# with three, 410 s with two, on a fresh clone of the 2-core machine; four against three,
# 244 against 253 s over two runs each, is within the machine's noise; issue 27). A fresh
# clone's `.ci/run`: 4m46, of which pytest 263 s (2,486 tests).
test: $(STAMP) $(CHROMIUM)
	$(MAKE) --no-print-directory -j2 lint suite

suite: $(STAMP) $(CHROMIUM) bytecode
	$(PYTEST_ENV) $(BIN)/pytest -n 3 --dist loadfile

check: $(STAMP)  # the fast tier: lint beside unit and contract tests; no servers' scenarios, no browser
	$(MAKE) --no-print-directory -j2 lint fast

fast: $(STAMP) bytecode
	$(PYTEST_ENV) $(BIN)/pytest -n 3 --dist loadfile $(FAST_TESTS)

bench: $(STAMP) bytecode  # each prints ours beside a baseline of the same run; the repo root is importable
	for script in dispatch remote slack_ack thread_growth load; do \
	  PYTHONPATH="$(CURDIR)" PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python bench/$$script.py || exit 1; \
	done

docs: $(STAMP)  # docs/settings.md, from the settings classes (a test checks it)
	$(BIN)/python -m harness.settings_doc --write

histories: $(STAMP)  # the replay test's fixtures; REF=<git ref> records that release's code
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m tests.support.record_histories $(if $(REF),--ref $(REF))

corpus: $(STAMP)  # tests/fixtures/slack/corpus: each file's requests, replayed with --update
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m tests.support.slack_corpus

clean:
	rm -rf $(VENV) .data .pytest_cache .mypy_cache .ruff_cache
