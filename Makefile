# The two commands: `make serve` and `make test`. Both set up what they need first.
.PHONY: setup serve test lint cluster bench bench-auth bench-translate bench-websocket bench-cluster bench-jobs

# Everything the tests and benchmarks need (serve's set-up is part of it).
setup:
	@scripts/setup.sh test

# Only what serving needs; then every part checked (a part that cannot work is named, with
# what to do) before the server starts.
serve:
	@scripts/setup.sh serve
	.venv/bin/threadwise doctor
	.venv/bin/threadwise serve --host 127.0.0.1 --port 8000

test: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	scripts/with-services.sh .venv/bin/pytest

# Production's shape on loopback: a model server, two replicas, PostgreSQL, Redis, HAProxy on
# 127.0.0.1:8000 (scripts/cluster.py). Ctrl-C stops it all.
cluster: setup
	scripts/with-services.sh .venv/bin/python -m scripts.cluster

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

bench-cluster: setup
	scripts/with-services.sh .venv/bin/python -m bench.cluster

bench-jobs: setup
	scripts/with-services.sh .venv/bin/python -m bench.jobs
