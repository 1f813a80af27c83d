# Everything a fresh machine needs comes from PyPI: no apt, no Android SDK, no emulator.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup bytecode demo test test-fast lint bench clean

$(BIN)/droidharness: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,cjk]'
	touch $@

setup: $(BIN)/droidharness

# the project's own modules byte-compiled ahead (unchanged ones are skipped): where Python writes no bytecode
# itself (PYTHONDONTWRITEBYTECODE=1, as containers and CI machines often set) every interpreter - a command, a
# device zygote, each test's harness process - would compile them again: a run's and a device's imports take
# 1.4 s from source, 0.7 s from bytecode
bytecode: setup
	$(BIN)/python -m compileall -q harness agents tasks emulator

demo: bytecode
	$(BIN)/droidharness run --out runs --run-id demo-$$(date +%Y%m%d-%H%M%S)

# the whole tree: ruff check + format everywhere; mypy on the packages and bench/ (pyproject's [tool.mypy] files)
LINTED := harness agents tasks emulator bench tests

lint: setup
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy

# everything, as CI runs it; loadgroup: tests that share a worker's work run in one worker, the long ones first
# (tests/conftest.py). One worker more than the cores: many tests wait on sockets and child processes, and the
# extra worker runs while they wait (391 device and fleet tests on 2 cores: 114 s with 2 workers, 86 s with 3)
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN) + 1 )))
XDIST := -n $(WORKERS) --dist loadgroup

test: lint bytecode
	$(BIN)/python -m pytest -q $(XDIST)

# the inner loop: everything but the tests marked slow (markers: slow, integration, ray - pyproject.toml)
test-fast: lint bytecode
	$(BIN)/python -m pytest -q $(XDIST) -m "not slow"

bench: bytecode
	$(BIN)/python bench/virtual_device.py
	$(BIN)/python bench/observe.py
	$(BIN)/python bench/runner.py
	$(BIN)/python bench/metrics.py
	$(BIN)/python bench/trajectory.py
	$(BIN)/python bench/reset.py
	$(BIN)/python bench/scale.py

clean:
	rm -rf $(VENV) build *.egg-info
