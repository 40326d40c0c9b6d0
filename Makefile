# Two commands for a newcomer: `make generate` and `make test`. Each bootstraps .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: generate test check bench lint-generated clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

generate: $(STAMP)
	$(BIN)/specbind generate

check: $(STAMP)
	$(BIN)/specbind check

# Drift check, the generated packages' own tests, the generator's tests, and mypy --strict on
# the generated code. pytest exit 5 (nothing collected) is a failure, never a pass.
test: $(STAMP)
	$(BIN)/specbind check
	$(BIN)/python -m mypy --strict generated
	$(BIN)/python -m pytest -q -p no:cacheprovider; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

bench: $(STAMP)
	$(BIN)/python bench/bench_codec.py
	$(BIN)/python bench/bench_replay.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache
