# The two commands: `make serve` and `make test`. Both set everything up first.
.PHONY: setup serve test lint bench bench-auth bench-translate bench-websocket

setup:
	@scripts/setup.sh

serve: setup
	.venv/bin/threadwise serve --host 127.0.0.1 --port 8000

test: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	scripts/with-services.sh .venv/bin/pytest

lint:
	.venv/bin/ruff check --fix .
	.venv/bin/ruff format .

bench: setup
	.venv/bin/python -m bench.summarize

bench-auth: setup
	.venv/bin/python -m bench.auth

bench-translate: setup
	.venv/bin/python -m bench.translate --latency --throughput --markdown

bench-websocket: setup
	.venv/bin/python -m bench.websocket
