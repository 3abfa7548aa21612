# The two Quick start commands: `make demo` and `make test`. Both set up what they need first: `setup` the core
# (judging, serving, scoring, the demo and the benchmark), `setup-test` adds what the tests and the checkers need.
.PHONY: setup setup-test demo test unit fast bench lint

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --test

demo: setup
	.venv/bin/judgebox score src/judgebox/samples/demo.jsonl --report demo-report.html

# The test tiers (tests/README.md): `unit` needs no root and no toolchain (seconds), `fast` leaves out the tests
# marked slow (under 5 minutes), `test` runs everything, as CI does (.ci/run).
test: setup-test
	.venv/bin/python -m pytest

unit: setup-test
	.venv/bin/python -m pytest tests/unit

fast: setup-test
	.venv/bin/python -m pytest -m "not slow"

bench: setup
	.venv/bin/python bench/run.py

lint: setup-test
	.venv/bin/ruff check src tests bench
	.venv/bin/python -m mypy
