# Two commands for a newcomer: `make generate` and `make test`. Each bootstraps .venv itself:
# `make generate` installs specbind alone (what the tool needs), `make test` adds the test extras
# and a local wheelhouse (specbind's dependencies and its build backend as wheels), so that the
# tests that install the wheel into a fresh venv need no network.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP  := $(VENV)/.installed-test
BENCH_STAMP := $(VENV)/.installed-bench
WHEELHOUSE  := $(VENV)/wheelhouse

.PHONY: generate test check bench bench-setup fuzz lint-generated clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): pyproject.toml setup.py $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip wheel --quiet --wheel-dir $(WHEELHOUSE) . 'setuptools>=77' wheel
	rm -f $(WHEELHOUSE)/specbind-*.whl  # the tests build specbind's own wheel from the tree they test
	touch $(TEST_STAMP)

$(BENCH_STAMP): pyproject.toml setup.py $(TEST_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

# The official AG-UI Node packages the peer tests drive, installed into tests/node (its
# node_modules is git-ignored). Where npm is absent this says so, and those tests skip loudly.
NODE_PEERS := tests/node/node_modules/.package-lock.json

$(NODE_PEERS): tests/node/package.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm install --prefix tests/node --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the tests driving the official Node packages will be skipped"; fi

generate: $(STAMP)
	$(BIN)/specbind generate

check: $(STAMP)
	$(BIN)/specbind check

# Drift check, the generated packages' own tests, the generator's tests, and mypy --strict on
# the generated code. pytest exit 5 (nothing collected) is a failure, never a pass.
test: $(TEST_STAMP) $(NODE_PEERS)
	$(BIN)/specbind check
	$(BIN)/python -m mypy --strict generated generator specbind
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -p no:cacheprovider; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

# The bench extra (the peers every bench/ script compares against) and the Node peers, nothing run.
bench-setup: $(BENCH_STAMP) $(NODE_PEERS)

bench: bench-setup
	$(BIN)/python bench/bench_codec.py
	$(BIN)/python bench/bench_replay.py
	$(BIN)/python bench/bench_sse.py
	$(BIN)/python bench/bench_mcp.py
	$(BIN)/python bench/bench_proxy.py
	$(BIN)/python bench/bench_proto.py
	$(BIN)/python bench/bench_typescript.py

# The long fuzz run (fuzz/README.md): every entry point, coverage-guided with atheris where it
# installs, one niced process at a time. RUNS=N to change the budget per entry point.
fuzz: $(TEST_STAMP)
	$(BIN)/python -m pip install --quiet atheris || echo "atheris does not install here: use fuzz/run.py --engine mutate"
	$(BIN)/python fuzz/corpus.py fuzz/corpus
	RUNS=$${RUNS:-1000000} PY=$(BIN)/python sh fuzz/long_run.sh
	cat fuzz/long-run.log

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache build
