# The two Quick start commands: `make demo` and `make test`. Both set everything up first.
.PHONY: setup demo test bench lint

setup:
	@scripts/setup.sh

demo: setup
	.venv/bin/judgebox score src/judgebox/samples/demo.jsonl --report demo-report.html

test: setup
	.venv/bin/python -m pytest

bench: setup
	.venv/bin/python bench/run.py

lint: setup
	.venv/bin/ruff check src tests bench
